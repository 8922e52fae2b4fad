"""What a shell script leaves to be expanded when it runs, and the model its side file names in
place of such a word (split out of kvplan/check/manifests/shell.py, which had passed 400 lines)."""

from __future__ import annotations

import re
from pathlib import Path

from kvplan.check.manifests.model_hints import is_model_word

# what a shell would expand that kvplan cannot: $1, $@, ${VAR}, $VAR, $(cmd), `cmd`
UNRESOLVED = re.compile(r"\$(?:\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*|\d|[@*#?]|\()|`")


def unresolved(words: list[str]) -> str | None:
    """The first word a shell would expand that kvplan cannot, None if none."""
    for w in words:
        m = UNRESOLVED.search(w)
        if m is not None:
            return w
    return None


def _side_model(path: Path) -> str | None:
    """The `model:` the script's side file names (its top level), None without one."""
    from kvplan.check.manifests.side import read_side, side_file_for

    side = side_file_for(path)
    if side is None:
        return None
    spec, _, _ = read_side(side)
    return spec.model if spec is not None else None


def model_from_side(args: list[str], path: Path) -> tuple[list[str], list[str]]:
    """(the arguments, notes) with a model word the script does not resolve replaced by the
    model the side file names, which replaces it anyway (kvplan.check.manifests.launch's
    apply_side_file); unchanged without a side file's `model:` (vllm-project/vllm#12890,
    outcomes round 4, task h55outcomes4: `--model ${model_path}` with `model_path` set outside
    the posted command and the model named in the side file was refused as unset); inside a
    `docker run` as outside one since outcomes round 9 (task h80outcomes: vllm-project/vllm#11251's
    `--model ${MODEL_PATH}` in a `docker run`, the model named in the side file, was refused)."""
    bad = next((w for w in args if unresolved([w]) and is_model_word(args, w)), None)
    if bad is None:
        return args, []
    model = _side_model(path)
    if model is None:
        return args, []
    note = (f"the model {bad!r} is set outside the script (the shell expands it when the "
            f"script runs); the side file names the model: {model}")
    return [model if w == bad else w for w in args], [note]
