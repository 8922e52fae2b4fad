"""vLLM's compilation config in a command line: the CUDA-graph keys kvplan applies (task h43capsz).

`--compilation-config` / `-cc` takes a JSON object (or, per key, `-cc.KEY=VALUE`: vLLM's
FlexibleArgumentParser dotted form, the same key of the same object); vLLM 0.30.0's
`CompilationConfig` (config/compilation.py :614 cudagraph_mode, :655 cudagraph_capture_sizes,
:699 max_cudagraph_capture_size) reads these three into the capture kvplan.engines.vllm_capture
books. Any other key, or a value that is not a JSON object (a bare 3: the optimization level older
releases took here), is noted as not read; a key's value of the wrong form is a problem, as
kvplan.check.manifests.engine treats the options it maps.
"""

from __future__ import annotations

import json
from typing import Any

BASES = ("--compilation-config", "-cc")
# compilation_config key -> kvplan/v1 field
KEYS = {"cudagraph_mode": "engine.cudagraph_mode",
        "cudagraph_capture_sizes": "engine.cudagraph_capture_sizes",
        "max_cudagraph_capture_size": "engine.max_cudagraph_capture_size"}
COMPILE_KEYS = ("mode", "level")  # read by kvplan.check.manifests.optimization


def _value(key: str, value: Any) -> Any:
    """The kvplan/v1 value of one key (ValueError: not of the key's form)."""
    if key == "cudagraph_mode":
        mode = str(value).upper()  # validate_cudagraph_mode_before: the enum's name, any case
        from kvplan.deploy.schema import CUDAGRAPH_MODES

        if mode not in CUDAGRAPH_MODES:
            raise ValueError(f"not one of {', '.join(CUDAGRAPH_MODES)}")
        return mode
    if key == "max_cudagraph_capture_size":
        if isinstance(value, bool):
            raise ValueError("not a whole number")
        return int(value)
    if isinstance(value, str):  # -cc.cudagraph_capture_sizes=[1,2,4] or "1 2 4"
        text = value.strip()
        value = json.loads(text) if text.startswith("[") else text.replace(",", " ").split()
    if not isinstance(value, list):
        raise ValueError("not a list of whole numbers")
    return " ".join(str(int(v)) for v in value)


def read_compilation(parsed: Any, found: Any, problems: list[Any], notes: list[str],
                     dotted_o: bool = False) -> None:
    """The three CUDA-graph keys of `--compilation-config` / `-cc` (whole, or dotted) into
    `found`; other keys noted as not read, but `mode` / `level` (torch.compile's: kvplan.check.
    manifests.optimization). `dotted_o`: `-O.KEY` is `-cc.KEY` (vLLM before 0.13)."""
    from kvplan.deploy import Problem

    for flag, (raw, line) in parsed.options.items():
        base, _, key = flag.partition(".")
        if base not in BASES and not (dotted_o and base == "-O" and key):
            continue
        if key:
            items: dict[str, Any] = {key: raw}
        else:
            try:
                loaded = json.loads(raw or "")
            except ValueError:
                loaded = None
            if not isinstance(loaded, dict):  # a bare 3: the optimization level of 0.6-0.10
                notes.append(f"{flag} {raw}: not a JSON object, so no CUDA-graph key of it is "
                             "read by kvplan (a bare number is the optimization level older "
                             "releases took here); the release's default capture is booked")
                continue
            items = loaded
        unread = sorted(k for k in items if k not in KEYS and k not in COMPILE_KEYS)
        if unread:
            notes.append(f"{base}: key{'s' if len(unread) > 1 else ''} {', '.join(unread)} not "
                         "read by kvplan (it applies cudagraph_mode, cudagraph_capture_sizes "
                         "and max_cudagraph_capture_size, and mode / level through the "
                         "optimization level)")
        for name in sorted(set(items) & set(KEYS)):
            said = f"{base}.{name}" if key else f"{base} {name}"
            try:
                found.put(KEYS[name], _value(name, items[name]), line, said)
            except (ValueError, TypeError) as err:
                problems.append(Problem(said, f"{items[name]!r}: {err}", line))
