"""The engine flags that move the pool and need more than a table row to read: vLLM's
--speculative-config (JSON or dotted keys), --limit-mm-per-prompt (counts summed) and
--enable-expert-parallel (tp x dp), and TensorRT-LLM's --extra_llm_api_options file (found by
kvplan.check.manifests.option_files: a mount, beside the manifest, a ConfigMap).
kvplan.check.manifests.engine calls these after the table's options are read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kvplan.check.argv import Parsed
from kvplan.check.manifests.engine import Found, Refusal
from kvplan.check.manifests.option_files import UNREAD_MOUNT, options_text


def mm_items(raw: str) -> int:
    """--limit-mm-per-prompt as vLLM takes it: a JSON object of modality -> count (or ->
    {"count": n, ...}), the older `image=2,video=1`, or a plain count; items summed."""
    import json

    text = raw.strip()
    if text.lstrip("-").isdigit():
        return int(text)
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            raise ValueError(text) from None
        counts = [v.get("count") if isinstance(v, dict) else v for v in data.values()]
    else:
        counts = [part.partition("=")[2] for part in text.split(",") if part.strip()]
    total = 0
    for c in counts:
        if isinstance(c, bool) or not str(c).strip().isdigit():
            raise ValueError(text)
        total += int(str(c))
    return total


def speculative_json(raw: str) -> dict[str, Any]:
    """--speculative-config's JSON: the keys kvplan models (model, num_speculative_tokens)."""
    import json

    try:
        data = json.loads(raw)
    except ValueError:
        raise ValueError(raw) from None
    if not isinstance(data, dict):
        raise ValueError(raw)
    return data



def speculative(found: Found, problems: list[Any], refusals: list[Refusal],
                 parsed: Parsed) -> None:
    """vLLM's --speculative-config (JSON, or --speculative-config.KEY VALUE): a draft model
    (`model`) with num_speculative_tokens; a method kvplan does not model is refused."""
    from kvplan.deploy import Problem

    config = found.values.pop("speculative", None)
    line = found.lines.pop("speculative", None)
    name = found.names.pop("speculative", "--speculative-config")
    config = dict(config) if isinstance(config, dict) else {}
    for flag, (raw, at) in parsed.options.items():
        if flag.startswith("--speculative-config.") and raw is not None:
            config[flag.partition(".")[2].replace("-", "_")] = raw
            line = line or at
    if not config:
        return
    method = str(config.get("method") or "draft_model")
    model = config.get("model")
    if method not in ("draft_model",) or not model:
        refusals.append(Refusal(name, f"speculative decoding method {method!r}"
                                f"{'' if model else ' without a draft model'} is not modelled "
                                "(its weights and KV cache are unknown); kvplan models a draft "
                                "model: {\"model\": ..., \"num_speculative_tokens\": N}",
                                line))
        return
    found.put("engine.speculative_model", str(model), line or 0, f"{name} model")
    k = config.get("num_speculative_tokens")
    if k is None:
        return  # kvplan.deploy names it: vLLM needs it with a draft model
    try:
        found.put("engine.num_speculative_tokens", int(str(k)), line or 0,
                  f"{name} num_speculative_tokens")
    except ValueError:
        problems.append(Problem(name, f"num_speculative_tokens {k!r} is not a number", line))


def expert_parallel(found: Found, notes: list[str]) -> None:
    """vLLM --enable-expert-parallel: the expert-parallel group is tp x dp."""
    on = found.values.pop("expert_parallel", None)
    line = found.lines.pop("expert_parallel", None)
    name = found.names.pop("expert_parallel", "--enable-expert-parallel")
    if not on:
        return
    tp = int(found.values.get("parallel.tensor", 1) or 1)
    dp = int(found.values.get("dp", 1) or 1)
    if dp == 1:
        notes.append(f"{name} with one data-parallel rank: the experts are split over the "
                     f"{tp} tensor-parallel GPUs as without it, each kept whole (expert "
                     f"parallel size {tp}: the same bytes; a block-fp8 checkpoint's experts "
                     "then split no block, kvplan.engines.fp8_blocks)")
        if tp > 1:
            found.put("parallel.expert", tp, line or 0, f"{name} (tp {tp})")
        return
    found.put("parallel.expert", tp * dp, line or 0, f"{name} (tp {tp} x dp {dp})")


def sglang_ep_moe(found: Found, notes: list[str]) -> None:
    """SGLang --enable-ep-moe: the expert-parallel size is the tensor-parallel size
    (server_args.py:202-203 in 0.4.6.post1, `if self.enable_ep_moe: self.ep_size =
    self.tp_size`), each expert whole on one rank; a stated --ep-size is left as stated."""
    on = found.values.pop("ep_moe", None)
    line = found.lines.pop("ep_moe", None)
    name = found.names.pop("ep_moe", "--enable-ep-moe")
    if not on or "parallel.expert" in found.values:
        return
    tp = int(found.values.get("parallel.tensor", 1) or 1)
    notes.append(f"{name}: expert parallel size {tp}, the tensor-parallel size (SGLang "
                 "server_args.py:202-203 in 0.4.6.post1): the experts are split over the same "
                 "GPUs, each kept whole (the same bytes; a block-fp8 checkpoint's experts then "
                 "split no block, kvplan.engines.fp8_blocks)")
    if tp > 1:
        found.put("parallel.expert", tp, line or 0, f"{name} (tp {tp})")


def sglang_deepep_moe(found: Found, notes: list[str]) -> None:
    """SGLang --enable-deepep-moe: the DeepEP all-to-all, `--moe-a2a-backend deepep` from 0.5.0
    (server_args.py:315-318 in 0.5.1: "--enable-deepep-moe is deprecated"; :309-314 in
    0.4.6.post1 sets ep_size = tp_size); a stated --moe-a2a-backend is left as stated."""
    on = found.values.pop("deepep_moe", None)
    line = found.lines.pop("deepep_moe", None)
    name = found.names.pop("deepep_moe", "--enable-deepep-moe")
    if on and "engine.moe_a2a_backend" not in found.values:
        found.put("engine.moe_a2a_backend", "deepep", line or 0, name)


def trtllm_options(found: Found, notes: list[str], problems: list[Any],
                   manifest: Path | None, script: Any = None) -> None:
    """--extra_llm_api_options / --config: its limits (kvplan.engines.trtllm_config) and its
    settings (the cache dtype, the parallel layout, the backend: kvplan.engines.trtllm_settings)
    are read from the file beside the manifest (the path relative to the manifest's folder, or
    its name there) or from a ConfigMap in the manifest whose data has that file name (mounted
    into the container). They override the command line's, as trtllm-serve applies the file over
    its flags (`update_llm_args_with_extra_dict`: `llm_args | llm_args_dict`). A file kvplan
    cannot see is noted, not read."""
    from kvplan.deploy import Problem
    from kvplan.engines.trtllm_config import file_name, limits_from, unread_note
    from kvplan.engines.trtllm_settings import backend_refusal, get_path, settings_from
    from kvplan.errors import InputError

    ref = found.values.pop("engine.trtllm_config", None)
    line = found.lines.pop("engine.trtllm_config", 0)
    name = found.names.pop("engine.trtllm_config", "--extra_llm_api_options")
    if ref is None:
        return
    text, where = options_text(str(ref), manifest, notes, script)
    if text is None and where.startswith(UNREAD_MOUNT):
        notes.append(f"{name} {ref}: {where}; its limits (max_batch_size, max_num_tokens, "
                     "max_seq_len, kv_cache_config) and settings are not read")
        return
    if text is None:
        notes.append(f"{name} {ref}: a file inside the container, neither beside the manifest "
                     "nor in a ConfigMap of it; its limits (max_batch_size, max_num_tokens, "
                     "max_seq_len, kv_cache_config) and settings (the cache dtype, the parallel "
                     "layout, the backend) are not read")
        return
    from kvplan.inputs import load_json, load_yaml
    from kvplan.inputs.yamlsafe import load_yaml_text

    try:
        if isinstance(text, Path):
            data = load_json(text) if text.suffix == ".json" else load_yaml(text)
        else:
            data = load_yaml_text(text, where)
        limits = limits_from(data, where)
        settings, auto = settings_from(data, where)
    except InputError as err:
        problems.append(Problem(name, str(err), line))
        return
    from kvplan.check.manifests.trtllm_kv import disagreement

    clash = disagreement(found, data, where)
    if clash is not None:
        problems.append(Problem(name, clash, line))
        return
    engine_file = isinstance(data, dict) and "build_config" in data
    applied: list[tuple[str, object, str]] = [
        (f"engine.{f}", v, file_name(f, engine_file)) for f, v in limits.items()]
    applied += [(s.path, s.value, s.key) for s in settings]
    for path, value, key in applied:
        old = found.values.get(path)
        if old is not None and old != value and path in found.names:
            notes.append(f"{where}'s {key} {value} overrides {found.names[path]} {old} "
                         "(trtllm-serve applies the options file over its flags)")
        found.put(path, value, line, f"{name} {where}: {key}")
        found.files[path] = (where, key)
    found.files["engine.trtllm_config"] = (where, "")
    for key in ("kv_cache_config.dtype", "kv_cache_dtype"):  # auto: set there, not applied
        if get_path(data, tuple(key.split("."))) == "auto":
            found.files.setdefault("engine.kv_cache_dtype", (where, key))
    refused = backend_refusal(where, settings, found.values.get("engine.version"),
                              found.values.get("engine.trtllm_backend"))
    if refused is not None:
        problems.append(Problem(name, refused, line))
    notes.append(f"{name} {ref}: limits read from {where}" if limits else
                 f"{name} {ref}: read from {where}, which states no limit (max_batch_size, "
                 "max_num_tokens, max_seq_len, kv_cache_config's tokens_per_block, "
                 "free_gpu_memory_fraction, max_tokens): trtllm-serve's defaults hold")
    if settings:
        notes.append(f"{where}: applied " + ", ".join(
            f"{s.path} {s.value} ({s.key})" for s in settings))
    notes += auto
    other = unread_note(data, where)
    if other:
        notes.append(other)

