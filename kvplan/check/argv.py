"""Engine command lines read as the engines read them.

vLLM parses with `FlexibleArgumentParser` (argparse: a unique prefix of a long option is that
option; `_` and `-` in an option name are alike; `--flag=value`); SGLang with a plain argparse
parser (prefixes, but `_` is not `-`); `trtllm-serve` with click (exact names only). The option
tables come from each engine's source (kvplan/check/engine_flags). A shell script's
backslash-newline continuations are joined before the script is split into words, including
continuation lines that YAML left flush-left.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from kvplan.check.engine_flags import OPTION_TABLES
from kvplan.check.flag_spelling import (  # noqa: F401 (imported from here too)
    TABLES,
    did_you_mean,
    misspelling_of,
)
from kvplan.check.k8s_expansion import kubernetes_expand
from kvplan.engine_traits import TRAITS, traits

SHELLS = {"sh", "bash", "ash", "dash", "zsh"}
SEPARATORS = {"&&", ";", "||", "|", "&"}

# options that take no value (store_true / BooleanOptionalAction): the ones a manifest is
# likely to hold; any `--enable-*`, `--disable-*` or `--no-*` is taken as one too
NO_VALUE = {
    "--trust-remote-code", "--enforce-eager", "--trust_remote_code", "--enable_chunked_prefill",
    "--fail_fast_on_attention_window_too_large", "--skip-server-warmup", "--disable-log-stats",
    "--disable-log-requests", "--enable-log-requests", "--enable-auto-tool-choice",
    "--skip-tokenizer-init", "--log-requests", "-ep", "--grpc",
}


# options of older releases that the newest table lacks, taken by their exact name so that
# their value is read, each with the first release read without it (kvplan.check.manifests.engine
# refuses one on an image at or after that release, as its argparse would, and notes it on an
# older image or one that names no release)
OLD_OPTIONS: dict[str, dict[str, str]] = {
    "sglang": {
        # split into --cuda-graph-max-bs-decode / -prefill and --cuda-graph-bs-decode / -prefill;
        # the old names are deprecated aliases in 0.5.19 (srt/server_args.py:3929 and :3937,
        # DeprecatedAliasStoreAction) and absent from 0.5.20's wheel (server_args.py and
        # srt/arg_groups/fields/; task h43nargs read the 0.5.19, 0.5.20, 0.5.21 and 0.5.22 wheels)
        "--cuda-graph-max-bs": "0.5.20",
        # 0.5.5 srt/server_args.py:3170: type=int, nargs="+" (task h43nargs)
        "--cuda-graph-bs": "0.5.20",
        # renamed by a letter or two (so misspelling_of would take them for misspellings of
        # today's names): --nsa-*-backend in sglang 0.5.5, 0.5.8 and 0.5.19 srt/server_args.py
        # (0.5.19: :3892), absent from 0.5.20 (now --dsa-*-backend); --oltp-traces-endpoint in
        # 0.5.3rc0 to 0.5.4.post1, absent from 0.5.4.post2 (--otlp-traces-endpoint; task
        # h70sglkw read every wheel between, kvplan/check/engine_flags/sglang_releases.json; the
        # releases here are checked against those sets by tests/check/test_sglang_releases.py)
        "--nsa-decode-backend": "0.5.20", "--nsa-prefill-backend": "0.5.20",
        "--oltp-traces-endpoint": "0.5.4.post2",
        # DeepEP before --moe-a2a-backend deepep: deprecated from 0.5.0rc0 (server_args.py:315-318
        # in 0.5.1), in every wheel to 0.5.4, absent from 0.5.4.post1 (task h100sgldp;
        # kvplan.check.manifests.pool_flags.sglang_deepep_moe)
        "--enable-deepep-moe": "0.5.4.post1",
    },
}
# options of the newest table that older releases lack, each with the first release that takes
# it and where: kvplan.check.manifests.engine refuses one on an image that names an older
# release, as its argparse would ("unrecognized arguments"), naming the release (task
# h44checkgaps; engine/arg_utils.py of the vllm wheels 0.10.2, 0.11.0-0.11.2, 0.12.0, 0.13.0)
FIRST_RELEASE: dict[str, dict[str, tuple[str, str]]] = {
    "vllm": {
        # 0.11.1 arg_utils.py:1111-1126 (the compilation group; 0.11.0 has only
        # --cuda-graph-sizes, :893, a SchedulerConfig field)
        "--cudagraph-capture-sizes": ("0.11.1", "engine/arg_utils.py:1112 in 0.11.1"),
        "--max-cudagraph-capture-size": ("0.11.1", "engine/arg_utils.py:1124 in 0.11.1"),
        # 0.12.0 arg_utils.py:1138; before it -O was --compilation-config's short name
        # (0.11.2 :1149), which 0.12.0 renamed -cc (:1128)
        "--optimization-level": ("0.12.0", "engine/arg_utils.py:1138 in 0.12.0"),
        "-cc": ("0.12.0", "engine/arg_utils.py:1128 in 0.12.0; older releases spell it -O or "
                "--compilation-config"),
    },
}
# options of older releases that take several values (argparse nargs="+"), which the newest
# table lacks: sglang 0.5.5 srt/server_args.py:3170 (--cuda-graph-bs, type=int, nargs="+"; 0.5.19
# :3937 the same); --piecewise-cuda-graph-tokens (0.5.8 :4279 to 0.5.19 :3977, nargs="+", gone
# from 0.5.20) and --additional-ports (0.3.0 :149 to 0.3.2 :202, nargs="*", gone from 0.3.3), read
# for a command line parsed with such a release's options (task h70sglkw)
OLD_MULTI_VALUE = {"sglang": {"--cuda-graph-bs", "--piecewise-cuda-graph-tokens",
                              "--additional-ports"}}
# engine -> the options that take several values: each table's MULTI_VALUE (read from the same
# wheel as its options, task h43nargs) and OLD_MULTI_VALUE; trtllm-serve (click) has none read
MULTI_VALUE: dict[str, frozenset[str]] = {
    engine: frozenset(table.multi_value) | frozenset(OLD_MULTI_VALUE.get(engine, ()))
    for engine, table in OPTION_TABLES.items()
}


# options named like switches that take a value, from each table (vLLM's
# --disable-access-log-for-endpoints: benchmarks/extract_vllm_flags.py valued(), task h82shell)
SWITCH_VALUED = frozenset().union(*(table.valued for table in OPTION_TABLES.values()))


def takes_no_value(flag: str) -> bool:
    name = flag.lstrip("-").replace("_", "-")
    if "--" + name in SWITCH_VALUED:
        return False
    return flag in NO_VALUE or name.startswith(("enable-", "disable-", "no-"))


@dataclass
class Word:
    text: str
    line: int


@dataclass
class Invocation:
    """A server start found in a container: the engine and the words after its entry point."""

    engine: str  # vllm | sglang | trtllm
    entry: str  # how it was started, e.g. "vllm serve"
    words: list[Word]
    dynamo: bool = False  # `python -m dynamo.vllm`: Dynamo adds its own options
    # a command the file does not write: the vllm/vllm-openai image's own entrypoint, `vllm
    # serve` or, for images before 0.11.1, `python3 -m vllm.entrypoints.openai.api_server`
    # (kvplan.check.manifests.image_entry), or the command a Python script's LLM(...) keywords
    # are read as (python_script)
    implied: bool = False
    from_image: str = ""  # the image whose entrypoint the entry is (implied by it), else ""


@dataclass
class Parsed:
    """Options as the engine resolves them: canonical option -> (value, line)."""

    options: dict[str, tuple[str | None, int]] = field(default_factory=dict)
    positional: list[Word] = field(default_factory=list)
    unknown: list[tuple[str, int, str]] = field(default_factory=list)  # (flag, line, why)
    ambiguous: list[tuple[str, int, list[str]]] = field(default_factory=list)
    # an option that takes several values (MULTI_VALUE) -> every value given it; `options`
    # holds its first (vLLM's served name is the first of --served-model-name's)
    several: dict[str, list[str]] = field(default_factory=dict)


_CONTINUATION = re.compile(r"\\[ \t]*\r?\n[ \t]*")
_FOLDED = re.compile(r"(?<=\s)\\(?=\s)")


def join_continuations(script: str) -> str:
    """Backslash-newline removed as the shell does (any indentation of the next line,
    flush-left included); a backslash YAML folding left between spaces is a separator too."""
    return _FOLDED.sub(" ", _CONTINUATION.sub(" ", script))


class UnclosedQuote(ValueError):
    """A `sh -c` script whose quote is never closed: the message of its one ERROR."""


def split_script(script: str, strict: bool = False) -> list[list[str]]:
    """The simple commands of a shell script, each as its words (after && ; | and exec, and at a
    newline outside quotes, which ends a command as `;` does), with `"$@"` expanded to the
    positional parameters a `set --` before it gave (follow_set_args). With `strict` (a
    container's `sh -c` script, which a shell runs), a quote never closed is UnclosedQuote:
    the shell stops on it before running any command (task readfix: it was split at spaces and
    read on, a PASS); else the text is split at spaces."""
    text = join_continuations(script)
    if strict:  # the launch-script reader's scan (shell_quotes), backquotes and $'...' too
        from kvplan.check.manifests.shell_quotes import unclosed_quote

        found = unclosed_quote(script)
        if found is not None:
            quote = found[1]
            raise UnclosedQuote(
                f"a {quote} quote in the `sh -c` script is never closed; the shell stops on it "
                f"before running any command (bash: \"unexpected EOF while looking for matching "
                f"`{quote}'\"), so the server never starts: close the quote")
    try:
        lex = shlex.shlex(text, posix=True, punctuation_chars=";&|\n")
        lex.whitespace = " \t\r"
        lex.whitespace_split = True
        lex.commenters = "#"
        words = list(lex)
    except ValueError:
        words = text.split()
    parts: list[list[str]] = [[]]
    for word in words:
        if word in SEPARATORS or set(word) <= set(";&|\n"):
            parts.append([])
        elif word == "exec" and not parts[-1]:
            continue
        else:
            parts[-1].append(word)
    from kvplan.check.set_args import follow_set_args

    return follow_set_args([p for p in parts if p])


def server_start(words: list[str]) -> tuple[str, str, int, bool] | None:
    """(engine, entry point, index just past it, dynamo?) or None."""
    for i, tok in enumerate(words):
        base = tok.rsplit("/", 1)[-1]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        for t in TRAITS.values():  # `vllm serve`, `sglang serve`, `trtllm-serve [serve]`
            if t.command is not None and base == t.command:
                if t.serve_word_optional:
                    return t.name, t.command, i + (2 if nxt == "serve" else 1), False
                if nxt == "serve":
                    return t.name, f"{t.command} serve", i + 2, False
        if tok == "-m":
            module = nxt.removesuffix(".py")
            for t in TRAITS.values():
                if module in (*t.modules, *t.demo_modules) or \
                        module.startswith(t.module_prefixes):
                    return t.name, f"python -m {module}", i + 2, False
            for t in TRAITS.values():  # `python -m vllm.entrypoints.cli.main serve`
                if t.cli_module is not None and module == t.cli_module and \
                        i + 2 < len(words) and words[i + 2] == "serve":
                    return t.name, f"{t.command} serve", i + 3, False
            for t in TRAITS.values():
                if t.dynamo_module is not None and module == t.dynamo_module:
                    return t.name, f"python -m {module}", i + 2, True
    return None


_K8S_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
_SHELL_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


class ExpansionTooLong(Exception):
    """A word whose expansion would pass `expand`'s `limit` characters (a script's `A="$A$A"`
    repeated doubles A each time: 60 lines reach 2^61 characters)."""


def expand(text: str, env: dict[str, str], shell: bool = False, limit: int | None = None,
           kubernetes: bool = False) -> str:
    """$(VAR) as Kubernetes expands command and args (with `kubernetes`, exactly as the
    kubelet does: `$$` is one `$`, kubernetes_expand; without it and without `shell`, any
    `$(VAR)` set in `env`); ${VAR}, ${VAR:-default} and $VAR as a shell does, when the words
    come from a shell script, whose `$(VAR)` is a command substitution and stays as written.
    Unknown references stay as written. With `limit`, ExpansionTooLong before the result
    passes that many characters."""
    size = [len(text)]

    def value(found: str) -> str:
        size[0] += len(found)
        if limit is not None and size[0] > limit:
            raise ExpansionTooLong
        return found

    if kubernetes:
        text = kubernetes_expand(text, env, value)
    elif not shell:
        text = _K8S_REF.sub(lambda m: value(env[m.group(1)]) if m.group(1) in env
                            else m.group(0), text)
    # a shell's `$(NAME)` is a command substitution (bash(1), "Command Substitution": it runs
    # the command NAME), not the variable: only the kubelet expands `$(NAME)`, in a container's
    # command and args (task h100readers; before, a plain script's `$(MODEL)` was MODEL's value)
    if not shell:
        return text
    size[0] = len(text)

    def sub(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(3)
        if name in env:
            return value(env[name])
        return m.group(2) if m.group(2) is not None else m.group(0)

    return _SHELL_REF.sub(sub, text)


def _resolve(engine: str, flag: str, table: frozenset[str]) -> tuple[str | None, list[str]]:
    """(the option the engine takes `flag` for, ambiguous candidates)."""
    name = flag
    t = traits(engine)
    if t.dash_is_underscore and name.startswith("--"):
        name = "--" + name[2:].replace("_", "-")  # FlexibleArgumentParser
    if t.dotted_options and "." in name:
        name = name.split(".", 1)[0]  # --json-arg.key value
    if name in table or name in OLD_OPTIONS.get(engine, ()):
        return name, []
    if t.exact_options or not name.startswith("--"):
        return None, []  # click: exact names; argparse abbreviates long options only
    matches = sorted(f for f in table if f.startswith(name))
    if len(matches) == 1:
        return matches[0], []
    return None, matches


def _short_o(words: list[Word], i: int, out: Parsed) -> int:
    """vLLM's `-O` as FlexibleArgumentParser reads it (0.12.0 utils/argparse_utils.py:247-271,
    0.34.0 :395-406; before 0.12 the same forms, `-O` then `--compilation-config`'s short name):
    `-O3` / `-O=3` / `-O 3` are options["-O"] = "3"; `-O.KEY=V` / `-O.KEY V` options["-O.KEY"];
    `-O VALUE` takes the next word. Read by kvplan.check.manifests.optimization. Returns the
    index past the option."""
    word = words[i]
    text = word.text
    nxt = words[i + 1].text if i + 1 < len(words) else None
    if text.startswith("-O."):
        key, eq, value = text.partition("=")
        if eq or nxt is None or nxt.startswith("-"):
            out.options[key] = (value if eq else None, word.line)
            return i + 1
        out.options[key] = (nxt, word.line)
        return i + 2
    if text != "-O":
        out.options["-O"] = (text[3:] if text[2] == "=" else text[2:], word.line)
        return i + 1
    if nxt is None or nxt.startswith("-"):
        out.options["-O"] = (None, word.line)
        return i + 1
    out.options["-O"] = (nxt, word.line)
    return i + 2


def several_values(engine: str, table: frozenset[str],
                   multi: frozenset[str] | None) -> frozenset[str]:
    """The options that take several values: the stated release's (`multi`, with `table` its
    options), else MULTI_VALUE."""
    if multi is None:
        return MULTI_VALUE.get(engine, frozenset())
    # an option of OLD_OPTIONS the release lacks is still read as the releases with it take it
    # (refused or noted by kvplan.check.manifests.engine)
    return multi | (frozenset(OLD_MULTI_VALUE.get(engine, ())) - table)


def parse(inv: Invocation, flags: frozenset[str] | None = None,
          multi: frozenset[str] | None = None) -> Parsed:
    """Walk the words as the engine's parser does; unknown options are recorded, not skipped.
    `flags`: the stated release's options (kvplan.check.manifests.release_options), else the
    engine's newest table; `multi`: those of the stated release that take several values (task
    h71sglfix: SGLang 0.5.4.post2's --debug-tensor-dump-layers takes one), else MULTI_VALUE."""
    table = TABLES[inv.engine][0] if flags is None else flags
    several = several_values(inv.engine, table, multi)
    short_o, dotted = traits(inv.engine).short_o, traits(inv.engine).dotted_options
    out = Parsed()
    words = inv.words
    i = 0
    while i < len(words):
        word = words[i]
        text = word.text
        if text == "--":
            out.positional.extend(words[i + 1 :])
            break
        if not text.startswith("-") or text == "-" or re.fullmatch(r"-\d+(\.\d+)?", text):
            out.positional.append(word)
            i += 1
            continue
        if short_o and text.startswith("-O") and not text.startswith("--"):
            i = _short_o(words, i, out)
            continue
        flag, eq, inline = text.partition("=")
        canonical, candidates = _resolve(inv.engine, flag, table)
        if canonical is None:
            if candidates:
                out.ambiguous.append((flag, word.line, candidates))
            else:
                out.unknown.append((flag, word.line, did_you_mean(inv.engine, flag, table)))
            nxt = words[i + 1].text if i + 1 < len(words) else "-"
            i += 1 if eq or nxt.startswith("-") or takes_no_value(flag) else 2
            continue
        if dotted and "." in flag:  # --json-arg.key value: keep the key
            canonical += "." + flag.split(".", 1)[1]
        if eq:
            out.options[canonical] = (inline, word.line)
            i += 1
        elif canonical.split(".", 1)[0] in several:
            # argparse nargs="+" / "*": every word up to the next option is a value
            j = i + 1
            while j < len(words) and not words[j].text.startswith("-"):
                j += 1
            values = [w.text for w in words[i + 1 : j]]
            out.options[canonical] = (values[0] if values else None, word.line)
            out.several[canonical] = values
            i = j
        elif takes_no_value(canonical) or i + 1 >= len(words) or (
            words[i + 1].text.startswith("--")
        ):
            out.options[canonical] = (None, word.line)
            i += 1
        else:
            out.options[canonical] = (words[i + 1].text, word.line)
            i += 2
    return out
