"""A cache dtype checked as the engine's release checks it, AS WRITTEN (task kvspell).

Until this check, kvplan check read every `--kv-cache-dtype fp8*` as plain fp8 before asking
whether the release takes it, so `fp8_inc` on vLLM 0.9.x and `fp8_e4m3` on vLLM 0.4.2 passed
although those releases' argparse stops on them ("invalid choice"; vLLM's values per release:
kvplan.engines.vllm_kv_dtypes, read from the wheels). Now:

- vLLM: a value some release read takes (vllm_kv_dtypes.json), the stated release (or, none
  stated, the newest read, the one kvplan plans with) does not, is refused with that release's
  values and where they were read. kvplan's own precision names (fp16, bf16, fp8 ...) given to
  `kvplan size --kv-dtype` are kvplan's words and pass; in a manifest (`engine_words`) the value is
  the engine's, so `--kv-cache-dtype fp8` on vLLM 0.3.0-0.4.0.post1 (auto, fp8_e5m2 only) is
  refused too.
- vLLM values taken but not planned as kvplan's fp8: `fp8_inc` is Intel Gaudi's (Intel Neural
  Compressor; "Intel Gaudi (HPU) supports fp8 (using fp8_inc)", vllm/config/cache.py:251 in
  0.34.0): no CUDA or ROCm attention backend takes it (each v1/attention/backends/* class's
  supported_kv_cache_dtypes in 0.34.0, and the CUDA selector stops with "No valid attention
  backend found", vllm/platforms/cuda.py:512-516; from 0.10.0 to 0.11.x, before those lists,
  FlashAttention on NVIDIA hands the string to reshape_and_cache_flash, v1/attention/backends/
  flash_attn.py:445-454 in 0.10.0, whose DISPATCH_BY_KV_CACHE_DTYPE takes auto, fp8, fp8_e4m3 and
  fp8_e5m2 and else raises "Unsupported data type of kv cache", csrc/quantization/fp8/nvidia/
  quant_utils.cuh, vllm-project/vllm commit 2fed15b1649c). kvplan plans NVIDIA and AMD GPUs, so
  it is refused. `fp8_ds_mla` is the sparse-MLA (DeepSeek V3.2) row of 656 bytes a token, 512 fp8
  + 4 float32 scales + 64 bf16 RoPE values (v1/attention/backends/mla/flashmla_sparse.py:84-94 in
  0.34.0), taken only by the sparse MLA backends: kvplan does not model that row, so it is
  refused rather than planned as a plain fp8 row.
- SGLang: a value SGLang spells (sglang_releases.json "choices") the stated release, or the newest
  read with none stated, does not take is refused for `kvplan size --engine sglang --kv-dtype`;
  in a manifest the option reader checks it against the release's own choices already
  (kvplan.check.manifests.release_options.check_choices), so it is not refused twice here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvplan.deploy.schema import Engine as EngineBlock

FIELD = "engine.kv_cache_dtype"
OPTION = "--kv-cache-dtype"

GAUDI_ONLY = {
    "fp8_inc": (
        "fp8_inc is Intel Gaudi's fp8 cache (Intel Neural Compressor: \"Intel Gaudi (HPU) "
        "supports fp8 (using fp8_inc)\", vllm/config/cache.py:251 in 0.34.0); no CUDA or ROCm "
        "attention backend takes it (supported_kv_cache_dtypes in v1/attention/backends/*; "
        "\"No valid attention backend found\", vllm/platforms/cuda.py:512-516 in 0.34.0; "
        "0.10.x-0.11.x on NVIDIA: reshape_and_cache_flash raises \"Unsupported data type of kv cache: "
        "fp8_inc\", csrc/quantization/fp8/nvidia/quant_utils.cuh DISPATCH_BY_KV_CACHE_DTYPE), "
        "and kvplan plans NVIDIA and AMD GPUs: give fp8 (fp8_e4m3 on NVIDIA) for an 8-bit cache"),
}
NOT_MODELLED = {
    "fp8_ds_mla": (
        "fp8_ds_mla is the sparse-MLA (DeepSeek V3.2) cache row, 656 bytes a token (512 fp8 "
        "values, 4 float32 scales, 64 bf16 RoPE values: v1/attention/backends/mla/"
        "flashmla_sparse.py:84-94 in 0.34.0), taken only by the sparse MLA backends; kvplan "
        "does not model that row and does not plan it as a plain fp8 one: give auto or fp8 for "
        "another model, or plan the fp8 MLA cache with --kv-dtype fp8"),
}


def _kvplan_name(value: str) -> bool:
    from kvplan.units import DType

    return value in {d.value for d in DType}


def vllm_refusal(version: str | None, value: str, engine_words: bool) -> str | None:
    """Why vLLM `version` (None: the newest read) stops on, or kvplan cannot plan,
    `--kv-cache-dtype value`; None where it plans it (module docstring)."""
    from kvplan.engines.vllm_kv_dtypes import first_with, kv_dtype_values

    if value == "auto" or (_kvplan_name(value) and not engine_words):
        return None
    first = first_with(value)
    if first is None:  # no release takes it: kvplan.check.kv_dtype_fix names the values
        return None
    release, values, where, own = kv_dtype_values(version)
    said = f"vLLM {version}" if version is not None else \
        f"vLLM {release} (none stated: the release kvplan plans with)"
    if own and value not in values:
        later = [r for r in _after(release) if value in kv_dtype_values(r)[1]]
        if later:
            hint = f"{value} first in {first}" if first == later[0] else \
                f"{value} taken again from {later[0]}"
            serve = later[0]
            return (f"{said} would not start: its {OPTION} takes {', '.join(values)} "
                    f"({where}; argparse: invalid choice: {value!r}); {hint}: give "
                    f"{_offer(values)} or serve vLLM {serve} or newer")
        return (f"{said} would not start: its {OPTION} takes {', '.join(values)} ({where}; "
                f"argparse: invalid choice: {value!r}); give {_offer(values)}")
    if value in GAUDI_ONLY and (value in values or not own):
        return f"{said} {OPTION} {value}: {GAUDI_ONLY[value]}"
    if value in NOT_MODELLED and (value in values or not own):
        return f"{said} {OPTION} {value}: {NOT_MODELLED[value]}"
    return None


def _after(release: str) -> list[str]:
    from kvplan.engines.release import read_numbers
    from kvplan.engines.vllm_kv_dtypes import read_releases

    key = read_numbers(release) or ()
    return [r for r in read_releases() if (read_numbers(r) or ()) > key]


def _offer(values: tuple[str, ...]) -> str:
    """What to give instead: auto, and the release's 8-bit float spelling where it has one."""
    fp8 = next((v for v in ("fp8", "fp8_e4m3", "fp8_e5m2") if v in values), None)
    return "auto (the model's own dtype)" + (f" or {fp8} (an 8-bit cache)" if fp8 else "")


def sglang_refusal(version: str | None, value: str) -> str | None:
    """Why SGLang `version` (None: the newest read) stops on `--kv-cache-dtype value` given as
    SGLang spells it (a value some release read takes, not kvplan's own name); None otherwise,
    or where the release's values were not read (a release between or after the read ones)."""
    from kvplan.check.manifests.release_options import history, value_history

    read = history("sglang")
    if read is None or value == "auto" or _kvplan_name(value):
        return None
    if not any(value in (read.choices(r, OPTION) or ()) for r in read.releases):
        return None  # no release spells it: kvplan's own alias, or kv_dtype_fix's refusal
    placed = read.place(version) if version is not None else None
    if version is not None and (placed is None or placed.kind != "read" or placed.below is None):
        return None
    release = placed.below if placed is not None and placed.below else read.releases[-1]
    values = read.choices(release, OPTION)
    if values is None or value in values:
        return None
    said = f"SGLang {version}" if version is not None else \
        f"SGLang {release} (none stated: the release kvplan plans with)"
    return (f"{said} would not start: its {OPTION} takes {', '.join(values)} "
            f"({read.source(release)}; argparse: invalid choice: {value!r}); "
            f"{value_history(read, release, OPTION, value)}")


def block_refusal(block: EngineBlock, engine_words: bool = False) -> tuple[str, str] | None:
    """(engine.kv_cache_dtype, why) where the block's engine release stops on its cache dtype as
    written, or kvplan cannot plan it (module docstring); `engine_words`: the value is the
    engine's own option (a manifest), not kvplan's --kv-dtype."""
    value = getattr(block, "kv_cache_dtype", None)
    if not isinstance(value, str):
        return None
    why = None
    if block.name == "vllm":
        why = vllm_refusal(block.version, value, engine_words)
    elif block.name == "sglang" and not engine_words:
        why = sglang_refusal(block.version, value)
    return None if why is None else (FIELD, why)
