"""Read engine start-up logs: the numbers vLLM (V0/V1), SGLang and TensorRT-LLM print.

A log file may hold several runs, separated by lines starting with `# --- run`. Lines starting
with `#` are comments, except `# engine:`, `# engine_version:`, `# model:` headers and
`# kvplan: key=value ...` directives, which state settings the log itself does not print (for
example the GPU or a command-line flag). Lines that look like memory lines but match no pattern
are kept in `unparsed` and reported, never fatal.
"""

from __future__ import annotations

import re
from pathlib import Path

# each engine's module registers its line patterns on import
from kvplan.calibrate import (  # noqa: F401
    compile_cache,
    lines_sglang,
    lines_trtllm,
    lines_vllm,
    lines_vllm034,
)
from kvplan.calibrate.directives import DIRECTIVE_KEYS  # noqa: F401  (re-exported)
from kvplan.calibrate.directives import directives as _directives
from kvplan.calibrate.lines import PATTERNS, FigureError, LogFile, Run
from kvplan.calibrate.prefilter import gate, needles, prefilter
from kvplan.engine_traits import SERVING
from kvplan.engines.interface import parse_version
from kvplan.engines.release import leading_numbers
from kvplan.errors import InputError

# Every pattern is tried on every line (that holds its text, below): vLLM's first, then
# SGLang's, then TensorRT-LLM's, each in the order its module registers them (where two set the
# same key, the later one wins), so the order does not hang on the order of the imports above.
_ENGINE_ORDER = {"vllm": 0, "sglang": 1, "trtllm": 2}
ORDERED = sorted(PATTERNS, key=lambda p: _ENGINE_ORDER[p[0]])
# Each pattern with the text it cannot match without (kvplan.calibrate.prefilter): one piece as
# a string, several as a tuple, none (always tried) as neither; and one regex of all the text
# of every pattern: a line holding none of it skips the patterns, and a pattern is searched
# only on a line holding its text. The same patterns match, in the same order, as when every
# one was searched on every line: task harden, 8.3 -> 4.4 s of CPU for 50 MB of log
# (benchmarks/calibrate_speed.py; tests/engines/test_calibrate_prefilter.py).
_NEEDLES = [needles(rx.pattern, rx.flags) for _kind, rx, _handler in ORDERED]
_TRIED = [(rx, handler, *prefilter(text)) for (_kind, rx, handler), text in zip(ORDERED, _NEEDLES)]
_GATE = gate(_NEEDLES)

# Lines that carry memory numbers: reported when no pattern matched them.
# `\d (blocks|tokens)` finds the lines `(?<!\d)\d+ (blocks|tokens)` found (a run of digits before
# " blocks" ends in one digit before it), linear in a line's length as that was (task freshuser's
# 200,000 digits), and every branch starts with a digit or a "b": the regex engine skips to
# those characters instead of trying each branch at every one (2.8 -> 1.7 s on 50 MB of log)
INTERESTING = re.compile(r"\d\s*(GiB|GB|MiB|MB)\b|\d (blocks|tokens)\b|blocks: \d", re.I)
ENGINE_HINTS = (
    ("trtllm", re.compile(r"TensorRT-LLM|TRT-LLM")),
    ("sglang", re.compile(r"max_total_num_tokens|KV Cache is allocated|Load weight (begin|end)")),
    ("vllm", re.compile(r"vLLM|GPU KV cache size|GPU blocks|cuda blocks|Model loading took|"
                        r"Loading model weights took|Memory profiling")),
)


def parse_text(text: str, path: Path) -> LogFile:
    """Parse one log's text into runs. Never raises for unknown lines."""
    header: dict[str, str] = {}
    global_directives: dict[str, str] = {}
    runs: list[Run] = []
    current = Run(label=path.name)
    started = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\n")
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("# --- run"):
            if started:
                runs.append(current)
            label = stripped.removeprefix("# --- ").split(":")[0].strip()
            current = Run(label=f"{path.name} {label}")
            current.settings.update(global_directives)
            started = True
            continue
        if stripped.startswith("# kvplan:"):
            pairs = _directives(stripped.removeprefix("# kvplan:"), path, lineno)
            (current.settings if started else global_directives).update(pairs)
            continue
        if stripped.startswith("#") and not re.match(r"#\s*(GPU|cuda|CUDA) blocks", stripped):
            head = re.match(r"#\s*(engine|engine_version|model|gpu):\s*(.*)", stripped)
            if head and head[1] not in header:
                header[head[1]] = head[2].strip()
            continue
        started = True
        matched = False
        for rx, handler, key, keys in _TRIED if _GATE is None or _GATE.search(line) else ():
            if key is not None:
                if key not in line:
                    continue
            elif keys:
                for k in keys:
                    if k in line:
                        break
                else:
                    continue
            found = rx.search(line)
            if found:
                try:
                    handler(current, found, lineno, line)
                except FigureError as err:
                    raise InputError(f"{path}:{lineno}: {err.key} = {err.value:g} is beyond any "
                                     "figure an engine prints at start-up (above 10^15); the "
                                     "line is damaged: fix it or remove it") from None
                matched = True
        if not matched and INTERESTING.search(line) and _looks_numeric(line):
            current.unparsed.append((lineno, stripped[:160]))
    runs.append(current)
    engine = _detect_engine(header.get("engine", ""), text)
    for run in runs:
        for key, value in global_directives.items():
            run.settings.setdefault(key, value)
        _directive_version_over_dev_build(run, global_directives)
        run.engine = run.settings.get("engine", engine)
        run.version = run.settings.get("version") or _header_version(header)
        run.model_hint = _model_hint(run.settings.get("model") or header.get("model", ""))
    return LogFile(path=path, runs=runs, header=header)


def _directive_version_over_dev_build(run: Run, directives: dict[str, str]) -> None:
    """A `version=` directive replaces a logged version that names no release: a source build
    prints "vLLM API server version 0.1.dev7548+gbaba038" (log 09), which says nothing about
    the release line, and the directive was written for exactly that case."""
    stated = directives.get("version")
    logged = run.settings.get("version")
    if stated and logged and logged != stated and (parse_version(logged) or ()) < (0, 2):
        run.settings["version"] = stated
    elif stated and logged and logged != stated:
        # the log's own release line is read first; the directive is said, never dropped unsaid
        run.overridden.append(f"directive version={stated} set aside: the log's own release "
                              f"line, {logged}, is used")


def parse_file(path: Path) -> LogFile:
    from kvplan.inputs import MAX_LOG_BYTES, read_text  # size and encoding checked

    text = read_text(path, MAX_LOG_BYTES, allow_nul=True)
    if not text.strip():
        raise InputError(f"{path}: the file is empty; give an engine's start-up log")
    return parse_text(text, path)


def _model_hint(text: str) -> str | None:
    """The model id a header or directive names: its first word, without the punctuation that
    follows it in prose ("# model: Qwen/Qwen3-14B, bf16" names Qwen/Qwen3-14B)."""
    word = text.strip().split(" ")[0].rstrip(",;:.)") if text.strip() else ""
    return word or None


def _looks_numeric(line: str) -> bool:
    return bool(re.search(r"\d", line))


def _detect_engine(header: str, text: str) -> str | None:
    head = header.strip().split(" ")[0].lower() if header else ""
    if head in SERVING:
        return head
    for name, rx in ENGINE_HINTS:
        if rx.search(text):
            return name
    return None


def _header_version(header: dict[str, str]) -> str | None:
    """The header's `engine_version` as MAJOR.MINOR[.MICRO] (kvplan.engines.release's reading:
    'v0.6.3.post1' -> 0.6.3; 'unknown (V1 engine, mid-2025)' -> None)."""
    numbers = (leading_numbers(header.get("engine_version", "")) or "").split(".")
    return ".".join(numbers[:3]) if len(numbers) >= 2 else None
