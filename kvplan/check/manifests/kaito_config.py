"""A KAITO Workspace's inference ConfigMap (`inference.config`): the `vllm:` options KAITO's
wrapper appends to its vLLM command, KaitoConfig's own keys, and how its YAML booleans reach vLLM
(kaito-project/kaito at 056b8280: presets/workspace/inference/vllm/inference_api.py). The
Workspace itself: kvplan.check.manifests.kaito."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from kvplan.check.manifests import kaito_run
from kvplan.check.manifests.config_file import engine_text
from kvplan.check.manifests.pods import as_dict
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

# KAITO's own words, not an engine dispatch: the kaito.sh/runtime value and the ConfigMap key of
# its vLLM runtime (labels.go RuntimeNameVLLM, KaitoConfig.vllm); the engine that runtime runs
# is kvplan's vllm (kvplan.engine_traits)
KAITO_VLLM = "vllm"

# KaitoConfig's own keys (inference_api.py) and what each does
OWN_KEYS = {
    "max_probe_steps": "KAITO's probe of the longest context (unused by vLLM's auto-fit): no "
                       "memory",
    "kv_cache_cpu_memory_utilization": "KAITO's LMCache CPU tier behind the GPU pool (host "
                                       "memory): not modelled, the GPU pool is checked",
}


def config_options(inference: dict[str, Any], i_at: Key, doc: Doc, path: Path | None
            ) -> tuple[kaito_run.ConfigMap | None, Problem | None,
                       list[tuple[str, str, int | None]], list[str]]:
    """The inference ConfigMap's vllm: options as (flag, value, line), and its notes."""
    name = inference.get("config")
    if not name:
        return None, None, [], []
    line = doc.line(*i_at, "config") or doc.start_line
    cm = kaito_run.find(str(name), path)
    if cm is None:
        return None, Problem("inference.config", f"ConfigMap {name!r} is not among the files "
                             "checked, so kvplan cannot read the vLLM options it adds; check it "
                             "together with this file", line), [], []
    text = cm.text
    try:
        parsed = yaml.safe_load(str(text)) if text is not None else None
    except yaml.YAMLError as err:
        return cm, Problem("inference.config", f"ConfigMap {name}'s {kaito_run.KEY} is not YAML "
                           f"({str(err).splitlines()[0]})", line), [], []
    except ValueError:  # yaml.safe_load's int() past Python's 4,300 digits
        return cm, Problem("inference.config", f"ConfigMap {name}'s {kaito_run.KEY} holds a "
                           "number of more than 4,300 digits; no value vLLM reads is that long",
                           line), [], []
    if not isinstance(parsed, dict):
        return cm, Problem("inference.config", f"ConfigMap {name} has no {kaito_run.KEY} "
                           "mapping (KaitoConfig: vllm, max_probe_steps, "
                           "kv_cache_cpu_memory_utilization)", line), [], []
    block = str(text).splitlines()
    notes: list[str] = []
    out: list[tuple[str, str, int | None]] = []
    other = "" if cm.path == path else f" ({cm.path})"
    for key in parsed:
        if key == KAITO_VLLM:
            continue
        notes.append(f"ConfigMap {name}{other} {key}: " + OWN_KEYS.get(
            str(key), "not a key of KAITO's KaitoConfig (vllm, max_probe_steps, "
            "kv_cache_cpu_memory_utilization): KAITO ignores it"))
    for key, value in as_dict(parsed.get(KAITO_VLLM)).items():
        at = next((k for k, text_line in enumerate(block)
                   if re.match(rf"\s*{re.escape(str(key))}\s*:", text_line)), None)
        k_line = cm.line(at) if at is not None and cm.path == path else line
        out.append((f"--{key}", engine_text(value), k_line))  # inference_api.py: str(value)
    return cm, None, out, notes


def dashed(flag: str) -> str:
    """An option's name as vLLM's FlexibleArgumentParser reads it: `--max_model_len` is
    `--max-model-len` (a ConfigMap key written with underscores; task h58review: such keys were
    applied but the estimator, the utilization note and the auto max-model-len note missed them)."""
    name, eq, rest = flag.partition("=")
    return name.replace("_", "-") + eq + rest


def boolean_notes(vllm_args: list[tuple[str, str, int | None]], notes: list[str]) -> None:
    """A YAML boolean of the ConfigMap's vllm: map reaches vLLM as `--key True` / `--key False`
    (inference_api.py parse_args appends `--{key}` and `str(value)`, kaito-project/kaito at
    056b8280). vLLM's boolean options take no value (argparse.BooleanOptionalAction, nargs=0:
    engine/arg_utils.py:347 in 0.25.1), so the option is on either way and the word is left
    over: the first fills the server's optional positional `model_tag` (nargs="?",
    entrypoints/openai/cli_args.py:346-351), which inference_api.py never reads (it serves
    --model); a second has no place and argparse stops ("unrecognized arguments"), so the server
    does not start (Python 3.11 argparse, the same parser shape, run by hand): that refusal is
    every reader's (kvplan.check.manifests.stray_words, task h59maxlen); here each word is
    noted."""
    from kvplan.check.argv import takes_no_value

    left = [(flag, value, line) for flag, value, line in vllm_args
            if value in ("True", "False") and takes_no_value(flag)]
    for flag, value, _ in left:
        notes.append(f"ConfigMap vllm: {flag.removeprefix('--')}: {value.lower()} reaches vLLM "
                     f"as `{flag} {value}`: {flag} takes no value, so it is on either way"
                     + (f" (`false` does not turn it off: --no-{flag.removeprefix('--')} "
                        "would)" if value == "False" else "")
                     + f", and `{value}` is left over as a positional word")
