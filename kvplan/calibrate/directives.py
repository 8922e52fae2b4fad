"""`# kvplan: key=value` directives in a calibration log: each key checked, never ignored.

A directive states a setting the log itself does not print (the GPU, a flag, the model). One
kvplan cannot use is refused with the file, line and reason.
"""

from __future__ import annotations

from pathlib import Path

from kvplan.engine_traits import SERVING, serving_list
from kvplan.errors import InputError

__all__ = ["DIRECTIVE_KEYS", "directives"]

_COUNT_KEYS = ("tp", "pp", "max_model_len", "max_num_batched_tokens", "max_num_seqs",
               "max_batch_size", "page_size", "nvidia_smi_mib", "max_tokens",
               "trt_activation_bytes", "nodes")
_SHARE_KEYS = ("free_gpu_memory_fraction", "mem_fraction_static", "gpu_memory_utilization")
_GIB_KEYS = ("total_gib",)  # a GPU's total memory the source states in prose, not in a log line
_BOOL_KEYS = ("enforce_eager", "graph_profiling", "enable_extensible_kv_cache")
_TEXT_KEYS = ("spec", "version", "kv_dtype", "weight_dtype", "model", "engine", "gpu",
              "trtllm_backend", "topk_topp_sampler", "entrypoint")
DIRECTIVE_KEYS = (*_COUNT_KEYS, *_SHARE_KEYS, *_GIB_KEYS, *_BOOL_KEYS, *_TEXT_KEYS)


def directives(text: str, path: Path, lineno: int) -> dict[str, str]:
    """`key=value` pairs, each checked: a directive kvplan cannot use is refused, never ignored."""
    out = {}
    for item in text.split():
        if "=" not in item:
            raise InputError(f"{path}:{lineno}: kvplan directive {item!r} is not key=value")
        key, value = (t.strip() for t in item.split("=", 1))
        out[key] = value
        problem = _directive_problem(key, value, path.parent)
        if problem:
            raise InputError(f"{path}:{lineno}: kvplan directive {item!r}: {problem}")
        if key in _BOOL_KEYS:
            # One spelling for the readers downstream, which compare with the "True"/"False"
            # the engines print: `enforce_eager=true` was accepted but read as false.
            out[key] = "True" if value.lower() in ("true", "1") else "False"
    return out


def _directive_problem(key: str, value: str, folder: Path) -> str | None:
    if key not in DIRECTIVE_KEYS:
        return f"unknown key; known: {', '.join(DIRECTIVE_KEYS)}"
    if not value:  # `spec=` read as no spec at all, in silence, before task h51sweep
        return "has no value; write key=value, or remove it"
    if key in _COUNT_KEYS:
        if not value.isdigit() or int(value) <= 0:
            return "must be a positive whole number"
    elif key in _SHARE_KEYS:
        try:
            share = float(value)
        except ValueError:
            return "must be a number in (0, 1]"
        if not 0 < share <= 1:
            return "must be a number in (0, 1]"
    elif key in _GIB_KEYS:
        try:
            gib = float(value)
        except ValueError:
            return "must be a number of GiB, for example 15.99"
        if not 0 < gib <= 2**20:
            return "must be a positive number of GiB (up to 1 PiB)"
    elif key in _BOOL_KEYS:
        if value.lower() not in ("true", "false", "1", "0"):
            return "must be true or false"
    elif key == "version":  # a text with no release number was shown as stated, unread
        from kvplan.engines.release import parse_version

        try:
            parse_version(value)
        except InputError as err:
            return str(err)
    elif key == "gpu" and value.endswith((".yaml", ".yml")):
        if not (folder / value).is_file() and not Path(value).is_file():
            return f"no such spec file (read relative to {folder})"
    elif key == "gpu":
        from kvplan.specs import load_hardware

        try:
            load_hardware(value)
        except InputError as err:
            return str(err)
    elif key == "engine" and value not in SERVING:
        return f"must be {serving_list()}"
    elif key == "trtllm_backend" and value not in ("pytorch", "tensorrt"):
        return "must be pytorch or tensorrt (trtllm-serve --backend)"
    elif key == "topk_topp_sampler" and value not in ("native", "flashinfer"):
        return "must be native or flashinfer (the vLLM top-k/top-p sampler the source log names)"
    elif key == "entrypoint" and value not in ("serve", "offline"):
        return "must be serve or offline (vLLM started by `vllm serve` or the LLM(...) class)"
    return None
