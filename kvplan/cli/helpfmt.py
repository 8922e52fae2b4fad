"""Help text in words: `MODEL_OR_FILE`, `--device DEVICE`, `--format table|json|csv`.

Typer (0.27.2 to 0.29) prints each argument's Python type beside its name (`MODEL_OR_FILE
<str>`), braces around required arguments in the usage line (`{MODEL_OR_FILE}`), no `...` after
an argument with a metavar that takes several values (0.28), and a type name for an option
without a metavar (`--vendor <str>`, `--output <path>`). kvplan's commands use this command class
(typer's documented `cls=` hook, a subclass of `typer.core.TyperCommand`) so that help shows what
a user types instead: the argument's name, the choices of a choice option, and an upper-case word
for any other value. The parsing of arguments is untouched; a value an option's callback or type
refuses (typer.BadParameter) prints kvplan's one `error:` line, exit 2, as every other input
error does, instead of the parser's usage banner (common.refuse_bad_value).

The long pages (size, fleet, explain: SectionsCommand) print their options under headed
sections instead of one flat "Options:" list of 62 (size) to 77 (fleet) flags. Each option names its
section with typer's public `rich_help_panel=` (kvplan.cli.sections; typer's rich formatter reads
the same argument, but kvplan runs with rich_markup_mode=None so that help never imports rich),
and the formatter reads it back from the parameter. The sections come in this fixed order, the
order in which a capacity planner states a deployment (what is cached, on which GPUs, in how much
of their memory, for what load), then the engine's own terms, then what to do with the answer:

1. Model and context: --context, --avg-context, --kv-dtype, --weight-dtype, --allocation,
   --block-size, --kv-group-size, --shared-prefix-tokens
2. GPU and parallelism: --gpu, --tp, --pp, --nodes, --ep
3. Memory: --memory-utilization, --reserve-gib, --kv-budget-gib
4. Traffic: --peak-users, --headroom, --min-users, the arrival rate, the context percentiles
   or sample, --risk (fleet, explain)
5. Speed: the efficiencies, --min-tokens-per-s-per-user, --prompt-tokens (fleet, explain)
6. Cost: --price-per-hour, --prices (fleet, explain)
7. Search: --search, --search-gpus, --top (fleet)
8. Engine: --engine, --engine-version and the settings every engine has under its own name
   (--max-num-batched-tokens, --max-num-seqs, --max-model-len)
9. Engine (vLLM): vLLM's own settings
10. Engine (SGLang): SGLang's own settings (--page-size, TensorRT-LLM's too)
11. Engine (TensorRT-LLM): TensorRT-LLM's own settings
12. Measure: --measure and the options it alone takes (size)
13. Output: --format, --output, --save, --allow-no-fit

Within a section the options keep the command's order. An option with no section (--debug,
--no-color, --help: the globals) stays under "Options:", after the sections. The other commands
(WordsCommand) keep one "Options:" list whatever their options declare: plot's share size's
option definitions, and its pages are short.
"""

from __future__ import annotations

import re
from typing import Any

import typer
from typer.core import TyperCommand

from kvplan.cli.common import refuse_bad_value
from kvplan.cli.sections import SECTIONS

_TYPE = re.compile(r" <([^<>]*)>$")
# a type name typer prints -> the word kvplan prints in its place (None: the option's own name)
_WORDS = {"path": "FILE", "Path": "FILE"}


def _word(param: Any, label: str) -> str:
    if "|" in label:  # the choices of a choice option: already words
        return label.removeprefix("list[").removesuffix("]")
    if label in _WORDS:
        return _WORDS[label]
    return str(param.name or "VALUE").upper()


def help_name(param: Any, name: str) -> str:
    """`name` as typer formats a parameter's help column, with the type name put in words."""
    match = _TYPE.search(name)
    if match is None:
        return name
    head = name[: match.start()]
    if getattr(param, "param_type_name", "") == "argument":  # the name is already the word
        return head
    return f"{head} {_word(param, match.group(1))}"


def usage_piece(piece: str) -> str:
    """`{PATH}...` -> `PATH...`: a bare upper-case name is required, `[NAME]` optional."""
    return re.sub(r"^\{([^{}]*)\}", r"\1", piece)


class WordsCommand(TyperCommand):
    """A typer command whose help names values in words (see the module docstring)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except typer.BadParameter as err:
            if type(err) is not typer.BadParameter:  # a missing argument: the usage helps
                raise
            refuse_bad_value(err)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            got = list(param.get_usage_pieces(ctx))
            # an argument taking several values: `PATH...` (typer 0.28 drops the dots where
            # the argument has a metavar; 0.29 prints them)
            if getattr(param, "nargs", 1) != 1 and got and not got[-1].endswith("..."):
                got[-1] += "..."
            pieces += got
        return [usage_piece(piece) for piece in pieces]

    sectioned = False  # one "Options:" list; SectionsCommand: the headed sections

    def format_options(self, ctx: Any, formatter: Any) -> None:
        args: list[tuple[str, str]] = []
        opts: dict[str | None, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            row = (help_name(param, record[0]), record[1])
            if param.param_type_name == "argument":
                args.append(row)
            else:
                opts.setdefault(section_of(param) if self.sectioned else None, []).append(row)
        for title, rows in (("Arguments", args), *section_order(opts)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


class SectionsCommand(WordsCommand):
    """A long page (size, fleet, explain): its options under headed sections (module docstring)."""

    sectioned = True


def section_of(param: Any) -> str | None:
    """The section an option declared with typer's `rich_help_panel=` (None: none)."""
    return getattr(param, "rich_help_panel", None)


def section_order(opts: dict[str | None, list[tuple[str, str]]]) -> list[tuple[str, list[Any]]]:
    """(title, rows) in the printed order: SECTIONS' order, any section SECTIONS does not name
    after them (tests/test_help_sections.py refuses one), "Options" (no section) last."""
    named = [t for t in SECTIONS if t in opts] + [t for t in opts if t and t not in SECTIONS]
    return [(t, opts[t]) for t in named] + [("Options", opts.get(None, []))]
