"""The option walk's table: for every command, what each option is expected to do.

A case is one invocation and what it must show against a reference invocation:
- CHANGES: exit 0 (or 1 where the reference is a verdict of no) and a different output (the
  JSON where the command has it, else the text); for explain, the record must also name the
  option as the origin of its field;
- REFUSED: exit 2 and exactly one error line that names the option and holds the reason;
- WRITES: the output goes to a file instead (stdout empty, the file equals the reference's
  standard output, or for --save a kvplan/v1 file beside an unchanged stdout);
- OWN: an effect no output shows (--debug, --no-color, --allow-no-fit, --measure, completion),
  checked by the named test in tests/options/test_own_effects.py.

Each case names the (command, option) it walks; tests/options/test_option_walk.py enumerates
every option of every command from the typer app and fails for one that no case walks. The
vocabulary (Case, BASE, VALUE, the options checked on their own) is in tests/options/case_table.py,
the record commands' cases (size, fleet, explain) in tests/options/record_cases.py; this module
adds the others' and puts them together.
"""

from __future__ import annotations

from tests.options.case_table import (
    BASE,
    CHANGES,
    DEPLOYMENT,
    GPU_MANIFEST,
    JSON_OUTPUT,
    NOGPU_MANIFEST,
    OUT,
    OWN,
    OWN_OPTIONS,
    PRICES,
    REFUSED,
    SAMPLE,
    SAVE,
    SVG,
    TRTCONFIG,
    VALUE,
    WRITES,
    Case,
    alone,
    pair,
)
from tests.options.record_cases import record_cases

# the vocabulary the walk (tests/options/test_option_walk.py) reads from here
__all__ = ["BASE", "CHANGES", "GPU_MANIFEST", "JSON_OUTPUT", "NOGPU_MANIFEST", "OUT", "OWN",
           "PRICES", "REFUSED", "SAMPLE", "SAVE", "SVG", "TRTCONFIG", "WRITES", "Case",
           "all_cases", "output_cases", "own_cases", "plot_cases", "record_cases", "search_cases"]


def search_cases() -> list[Case]:
    """fleet --search with each option its help text pairs with it (or excludes)."""
    s = ("fleet", "llama-3-8b", "-n", "2000", "--search", "--search-gpus", "h100,h200,l40s",
         "-f", "json")
    return [
        Case("fleet", "--search", (*BASE["fleet"], "--search"), CHANGES),
        Case("fleet", "--search-gpus", (*BASE["fleet"], "--search", "--search-gpus", "h200"),
             CHANGES, ref=(*BASE["fleet"], "--search")),
        Case("fleet", "--top", (*s, "--top", "3"), CHANGES, ref=s),
        Case("fleet", "--search", (*s, "--gpu", "h200"), REFUSED,
             "--search tries every catalog GPU; limit it with --search-gpus", named="--gpu"),
        Case("fleet", "--search", (*s, "--tp", "2"), CHANGES, ref=s),
        Case("fleet", "--search", (*s, "--kv-dtype", "fp8"), CHANGES, ref=s),
        Case("fleet", "--search", (*s, "--kv-budget-gib", "40"), REFUSED,
             "states one GPU's KV pool; --search derives each GPU's own",
             named="--kv-budget-gib"),
        Case("fleet", "--search", (*s, "--price-per-hour", "3"), REFUSED,
             "with --search give prices per GPU: --price-per-hour GPU=USD",
             named="--price-per-hour"),
        Case("fleet", "--search", (*s, "--price-per-hour", "h200=3"), CHANGES, ref=s),
        Case("fleet", "--search", (*s, "--tp", "3"), REFUSED,
             "tensor parallelism 3 does not divide llama-3-8b's 32 attention heads", named="--tp"),
        Case("fleet", "--search", ("fleet", "llama-3.1-70b", "-n", "100000", "--search",
                                   "--search-gpus", "t4", "--save", SAVE), REFUSED,
             "no configuration carries the load, so there is no plan to save", named="--save"),
    ]


def output_cases(command: str, fmt_values: tuple[str, ...]) -> list[Case]:
    """-o alone writes what the base prints; --format's every value changes the output."""
    base = BASE[command]
    out = [Case(command, "--output", (*base, "-o", OUT), WRITES)]
    plain = tuple(a for i, a in enumerate(base) if a not in ("-f", "json")
                  and not (i and base[i - 1] == "-f"))
    for value in fmt_values:
        if value != "json":
            out.append(Case(command, "--format", (*plain, "-f", value), CHANGES))
    return out


def plot_cases(command: str, options: list[str]) -> list[Case]:
    """Each option alone (and on a deployment file, where it overrides the file's field)."""
    base = BASE[command]
    cases = alone(command, {}, [o for o in options if o not in ("--output",)
                                and o not in OWN_OPTIONS.get(command, ())])
    cases.append(Case(command, "--output", (*base, "-o", SVG), WRITES))
    cases.append(Case(command, "--output", (*base, "-o", OUT), REFUSED,
                      "--output writes a picture: name a .png or .svg file"))
    file_base = (*base[:2], DEPLOYMENT)
    for opt in options:
        if opt in ("--output", "--users", "--risk", "--kv-dtype", "--allocation") or \
                opt in OWN_OPTIONS.get(command, ()):
            continue
        value = VALUE[opt]
        if opt == "--context-sample":
            cases.append(pair(command, opt, (), opt, *value, base=file_base))
        elif opt in ("--context-p50", "--context-p99"):  # the file states p95 7,000
            value = ("1000",) if opt == "--context-p50" else ("7500",)
            cases.append(pair(command, opt, (), opt, *value, base=file_base))
        else:
            cases.append(pair(command, opt, (), opt, *value, base=file_base))
    if command == "plot risk":
        cases[:] = [c for c in cases if not (c.option == "--context-sample" and c.ref is None)]
        cases.append(Case(command, "--context-sample", (*base, "--context-sample", SAMPLE),
                          REFUSED, "give a sample or percentiles, not both"))
        cases.append(Case(command, "--context-sample", ("plot", "risk", "llama-3-8b",
                                                         "--context-sample", SAMPLE), CHANGES))
        cases.append(Case(command, "--risk", (*base, "--users", "40", "--risk", "0.2"), REFUSED,
                          "it sets how many conversations are open when --users is not given"))
    return cases


def own_cases(command: str) -> list[Case]:
    return [Case(command, opt, (*BASE[command], opt), OWN, test)
            for opt, test in OWN_OPTIONS[command].items()]


def all_cases(options: dict[str, list[str]]) -> list[Case]:
    """Every case, given each command's options (long names) as the app declares them."""
    cases: list[Case] = []
    for command, opts in options.items():
        cases += own_cases(command)
        if command in ("size", "fleet", "explain"):
            cases += record_cases(command, opts)
            cases += output_cases(command, ("table", "json", "csv") if command != "explain"
                                  else ("table",))
            if command != "explain":
                cases.append(Case(command, "--save", (*BASE[command], "--save", SAVE), WRITES))
        elif command.startswith("plot "):
            cases += plot_cases(command, opts)
    cases += search_cases()
    cases += [
        Case("", "--version", ("--version",), CHANGES),
        Case("models", "--family", (*BASE["models"], "--family", "qwen"), CHANGES),
        Case("models", "--attention", (*BASE["models"], "--attention", "mla"), CHANGES),
        Case("models", "--attention", (*BASE["models"], "--attention", "flash"), REFUSED,
             "'flash' is not one of"),
        Case("gpus", "--vendor", (*BASE["gpus"], "--vendor", "amd"), CHANGES),
        Case("gpus", "--vendor", (*BASE["gpus"], "--vendor", "intel"), REFUSED,
             "unknown vendor 'intel'; the catalog has amd, nvidia"),
        # the name defaults to the -o file's stem (out.txt -> out)
        Case("import", "--output", (*BASE["import"], "-o", OUT), WRITES,
             ref=(*BASE["import"], "--name", "out")),
        Case("import", "--name", (*BASE["import"], "--name", "walked"), CHANGES),
        Case("import", "--hf-id", (*BASE["import"], "--hf-id", "org/walked"), CHANGES),
        Case("import", "--weight-dtype", (*BASE["import"], "--weight-dtype", "fp8"), CHANGES),
        Case("import", "--weight-dtype", (*BASE["import"], "--weight-dtype", "fp7"), REFUSED,
             "--weight-dtype: "),
        Case("check", "--gpu", (*BASE["check"], "--gpu", "h200"), CHANGES),
        Case("check", "--gpu", ("check", GPU_MANIFEST, "--gpu", "h200"), REFUSED,
             "every deployment checked names its own GPU, so it applied to none"),
        Case("check", "--gpu", (*BASE["check"], "--gpu", "h10x"), REFUSED, "unknown GPU"),
        Case("check", "--output", (*BASE["check"], "-o", OUT), WRITES),
        Case("check", "--format", (*BASE["check"], "-f", "csv"), REFUSED,
             "'csv' is not one of text, json, junit, github"),
    ]
    for fmt in ("text", "junit", "github"):
        cases.append(Case("check", "--format", ("check", NOGPU_MANIFEST, "-f", fmt), CHANGES))
    for command, values in (("models", ("table", "csv")), ("gpus", ("table", "csv")),
                            ("calibrate", ("table", "csv"))):
        cases += output_cases(command, values)
    return cases
