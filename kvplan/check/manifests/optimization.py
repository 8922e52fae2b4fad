"""vLLM's optimization level and compilation mode in a command line, and the CUDA-graph mode they
leave (task h44checkgaps): `-O3`, `-O 3`, `-O=3`, `--optimization-level 3`, `-O.KEY=VALUE`,
`--compilation-config '{"mode": N}'` (or the older `"level"`), `-cc.mode=N`.

Read in the vllm wheels 0.10.2, 0.11.0-0.11.2, 0.12.0-0.34.0 (`pip download --no-deps`):

- `--optimization-level` came in 0.12.0 (engine/arg_utils.py:1138; 0.34.0 :1942). From 0.12.0,
  FlexibleArgumentParser turns `-O3`, `-O=3` and `-O 3` into `--optimization-level 3`
  (utils/argparse_utils.py:247-259 in 0.12.0, :395-406 in 0.34.0). Levels O0-O3 only
  (`OptimizationLevel`, config/vllm.py:161-173 in 0.34.0); each sets defaults that a stated
  setting keeps (`_apply_optimization_level_defaults`, :1001-1030, applied at :1786):
  O0 no torch.compile (compilation mode NONE, :1758-1762) and cudagraph_mode NONE (:297);
  O1 PIECEWISE (:318); O2 (the default, :465) and O3 FULL_AND_PIECEWISE (:339, :360). The same
  table in 0.12.0 (config/vllm.py:114, :129, :144, :159) and 0.25.0 (:207, :228, :249, :270).
- Before 0.12, `-O` is `--compilation-config`'s short name (0.11.2 arg_utils.py:1149), so
  `-O3` is compilation level 3 (0.11.0 utils/__init__.py:1891-1901: `-O.level=3`; 0.11.1
  argparse_utils.py:255-267: `-O.mode=3`), and `-O.KEY` one key of it. 0.12.0 still reads
  `-O.KEY` as `-cc.KEY` (argparse_utils.py:260-271, deprecated); from 0.13.0 `-O.KEY=V` becomes
  `--optimization-level .KEY=V` (:247-251), which is no level: vLLM stops. `-cc` came in 0.12.0
  (arg_utils.py:1128).
- A compilation mode other than VLLM_COMPILE (3; CompilationMode, config/compilation.py) takes
  the piecewise graphs away: 0.12.x sets any graph mode to NONE (config/vllm.py:648-658 in
  0.12.0); 0.13-0.29 a mode that needs piecewise compilation (PIECEWISE, FULL_AND_PIECEWISE)
  to NONE (:671-681 in 0.13.0, :1471-1481 in 0.29.0); from 0.30 to the mode without its
  piecewise part, FULL_AND_PIECEWISE -> FULL_DECODE_ONLY, PIECEWISE -> NONE
  (`_normalize_piecewise_cudagraph_mode`, 0.30.0 :1010-1027, 0.34.0 :1050-1067;
  compilation.py `without_piecewise`). Not modelled: the architectures that default to
  breakable CUDA graphs from 0.30 (`default_breakable_cudagraph_architectures`) and
  VLLM_USE_BREAKABLE_CUDAGRAPH, which keep piecewise graphs there.
- The compilation config's `level` (the older name of `mode`, 0.12.0 compilation.py:779-788)
  is a field through 0.17.0 (:385) and gone from 0.18.0, whose config classes forbid extra
  fields (config/utils.py): vLLM stops on it.

The mode that results is passed on as `engine.cudagraph_mode` (kvplan.engines.vllm_capture
books its graphs, from 0.21 where vLLM subtracts them before sizing: kvplan.engines.vllm_graphs).
Before 0.12 these options set torch.compile only as far as kvplan's plan goes: those releases
capture their graphs after the pool is sized, so they are noted, not booked.
"""

from __future__ import annotations

import json
from typing import Any

from kvplan.engines.interface import parse_version

OPTIMIZATION_LEVEL_FROM = (0, 12)  # --optimization-level; -O its short form from here
DOTTED_O_GONE = (0, 13)  # -O.KEY read as --optimization-level .KEY from 0.13.0
LEVEL_KEY_GONE = (0, 18)  # compilation_config.level: last in 0.17.0
ALL_GRAPHS_DROPPED_BEFORE = (0, 13)  # 0.12.x: any graph mode -> NONE without VLLM_COMPILE
WITHOUT_PIECEWISE_FROM = (0, 30)
GRAPHS_SUBTRACTED_FROM = (0, 21)  # kvplan.engines.vllm_series.GRAPH_SUBTRACTED_FROM
# level -> (cudagraph_mode, config/vllm.py line in 0.34.0)
LEVELS = {0: ("NONE", 297), 1: ("PIECEWISE", 318), 2: ("FULL_AND_PIECEWISE", 339),
          3: ("FULL_AND_PIECEWISE", 360)}
COMPILE_MODES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")


def _release(image: Any) -> tuple[int, ...] | None:
    return parse_version(str(image)) if image is not None else None


def _compile_mode(value: Any) -> int:
    """CompilationMode as a number 0-3, from a number or its name (ValueError otherwise)."""
    if isinstance(value, str) and value.strip().upper() in COMPILE_MODES:
        return COMPILE_MODES.index(value.strip().upper())
    if isinstance(value, bool):
        raise ValueError("not a compilation mode")
    number = int(value)
    if number not in range(4):
        raise ValueError("not a compilation mode (0-3)")
    return number


def without_piecewise(mode: str, release: tuple[int, ...] | None) -> str:
    """The graph mode vLLM keeps when the model is not compiled by VLLM_COMPILE."""
    if release is not None and release < ALL_GRAPHS_DROPPED_BEFORE:
        return "NONE"
    if release is not None and release < WITHOUT_PIECEWISE_FROM:
        return "NONE" if mode in ("PIECEWISE", "FULL_AND_PIECEWISE") else mode
    return {"PIECEWISE": "NONE", "FULL_AND_PIECEWISE": "FULL_DECODE_ONLY"}.get(mode, mode)


def _compile_keys(parsed: Any, dotted_o: bool) -> list[tuple[str, Any, int]]:
    """(how it was said, value, line) of `mode` / `level` in the compilation config
    (`--compilation-config`, `-cc`, and `-O.KEY` where `dotted_o`: vLLM before 0.13)."""
    out = []
    for flag, (raw, line) in parsed.options.items():
        base, _, key = flag.partition(".")
        if base not in ("--compilation-config", "-cc") and not (dotted_o and base == "-O"
                                                                 and key):
            continue
        if key in ("level", "mode"):
            out.append((f"{flag}={raw}", raw, line))
        elif not key:
            try:
                loaded = json.loads(raw or "")
            except ValueError:
                continue
            if isinstance(loaded, dict):
                out += [(f"{base}'s {k} {loaded[k]}", loaded[k], line)
                        for k in ("mode", "level") if k in loaded]
    return out


def dotted_o_read(found: Any) -> bool:
    """Whether `-O.KEY` is read as `-cc.KEY`: an image before 0.13, or one that names no release
    (noted by read_optimization)."""
    release = _release(found.values.get("engine.version"))
    return release is None or release < DOTTED_O_GONE


def read_optimization(parsed: Any, found: Any, problems: list[Any], refusals: list[Any],
                      notes: list[str]) -> None:
    """The optimization level and compilation mode into `engine.cudagraph_mode` (a stated
    cudagraph_mode is kept, as vLLM keeps it); what the image's release refuses, refused."""
    from kvplan.check.manifests.engine import Refusal

    image = found.values.get("engine.version")
    release = _release(image)
    named = release is not None
    old = named and release < OPTIMIZATION_LEVEL_FROM  # type: ignore[operator]
    level: tuple[int, str, int] | None = None  # (level, how it was said, line)
    for flag in ("--optimization-level", "-O"):
        if flag not in parsed.options:
            continue
        raw, line = parsed.options[flag]
        said = f"{flag} {raw}" if flag != "-O" else f"-O{raw or ''}"
        if flag == "--optimization-level" and old:
            continue  # refused by the first-release table (kvplan.check.argv.FIRST_RELEASE)
        if old:  # -O is --compilation-config before 0.12
            notes.append(f"{said}: on vLLM {image} -O is --compilation-config (a number is the "
                         "torch.compile level); that release captures its CUDA graphs after "
                         "the KV pool is sized, so the pool is not moved by it (not booked)")
            continue
        if raw is not None and raw.strip() in ("0", "1", "2", "3"):
            level = (int(raw), said, line)
            continue
        why = (f"vLLM {image if named else '0.12 and later'} reads {said} as "
               f"--optimization-level {raw!r}, which is not a level (O0-O3: OptimizationLevel, "
               "config/vllm.py:161-173 in 0.34.0)")
        if named:
            refusals.append(Refusal(flag, f"the engine refuses it: {why}; a JSON object goes "
                                    "to --compilation-config / -cc", line))
        else:
            notes.append(f"{why}, so it stops there; before 0.12 -O was --compilation-config; "
                         "the image does not name its release: not checked")
    dotted_o = dotted_o_read(found)
    for flag in sorted(f for f in parsed.options if f.startswith("-O.")):
        line = parsed.options[flag][1]
        gone = (f"vLLM 0.13 and later read {flag}=... as --optimization-level .{flag[3:]}=..., "
                "which is no level (utils/argparse_utils.py:247-251 in 0.13.0), and stop; "
                f"write -cc.{flag[3:]}")
        if not dotted_o:
            refusals.append(Refusal(flag, f"the engine refuses it (vLLM {image}): {gone}",
                                    line))
        elif not named:
            notes.append(f"{flag}: read as -cc.{flag[3:]}, as vLLM before 0.13 reads it; "
                         f"{gone}; the image does not name its release: not checked")
    compile_mode: tuple[int, str, int] | None = None
    for said, value, line in _compile_keys(parsed, dotted_o):
        key = "level" if "level" in said.split("=")[0] else "mode"
        gone = ("the compilation config has no key level from 0.18.0 (its config classes "
                "forbid unknown keys, config/utils.py; 0.17.0 compilation.py:385 is the last "
                "level): write mode")
        if key == "level" and named and release >= LEVEL_KEY_GONE:  # type: ignore[operator]
            refusals.append(Refusal(said, f"the engine refuses it (vLLM {image}): {gone}", line))
            continue
        if key == "level" and not named:
            notes.append(f"{said}: {gone}; the image does not name its release: not checked")
        try:
            number = _compile_mode(value)
        except (TypeError, ValueError) as err:
            from kvplan.deploy import Problem

            problems.append(Problem(said, f"{value!r}: {err}", line))
            continue
        if compile_mode is None or key == "mode":  # mode wins over level (0.12.0 :779-788)
            compile_mode = (number, said, line)
    if old:
        if compile_mode is not None:
            notes.append(f"{compile_mode[1]} {compile_mode[0]}: torch.compile's level on vLLM "
                         f"{image}, which captures its CUDA graphs after the KV pool is sized: "
                         "the pool is not moved by it (not booked)")
        return
    _apply(level, compile_mode, release, found, notes)


def _apply(level: tuple[int, str, int] | None, compile_mode: tuple[int, str, int] | None,
           release: tuple[int, ...] | None, found: Any, notes: list[str]) -> None:
    """engine.cudagraph_mode from the level's default and the compilation mode."""
    if level is None and compile_mode is None:
        return
    stated = found.values.get("engine.cudagraph_mode")
    mode, why = stated, f"the stated cudagraph_mode {stated}"
    if stated is None:
        number = 2 if level is None else level[0]
        mode = LEVELS[number][0]
        why = (f"optimization level {number}'s cudagraph_mode {mode} (config/vllm.py:"
               f"{LEVELS[number][1]} in 0.34.0)" if level is not None else
               "the default level 2's FULL_AND_PIECEWISE")
    compiled = (compile_mode[0] == 3 if compile_mode is not None
                else level is None or level[0] > 0)
    if not compiled:
        kept = without_piecewise(mode, release)
        if kept != mode:
            why += (f", without torch.compile's VLLM_COMPILE mode {kept} (the piecewise graphs "
                    "need it: config/vllm.py _normalize_piecewise_cudagraph_mode, :1050-1067 "
                    "in 0.34.0; NONE before 0.30; not modelled: the architectures that "
                    "default to breakable CUDA graphs from 0.30 keep them)")
            mode = kept
    said = " ".join(s[1] for s in (level, compile_mode) if s is not None)
    line = (level or compile_mode)[2]  # type: ignore[index]
    if mode != stated:
        found.put("engine.cudagraph_mode", mode, line, said)
    booked = ("no CUDA graphs booked" if mode == "NONE" else
              "its graphs booked where the release subtracts them before sizing (kvplan "
              "explain shows the term)")
    if release is not None and release < GRAPHS_SUBTRACTED_FROM:
        booked = ("the release captures its graphs after the KV pool is sized, so the pool "
                  "is not moved by them")
    notes.append(f"{said}: cudagraph_mode {mode}: {why}; {booked}"
                 + ("; torch.compile off too (compilation mode NONE), which kvplan's plan "
                    "reads only from --enforce-eager" if not compiled and level is not None
                    and level[0] == 0 else ""))
