"""A manifest's `--dtype` on a quantized checkpoint: the engine's compute dtype, not its weights'.

vLLM's and SGLang's `--dtype` (TensorRT-LLM's `dtype`) is the model's compute dtype, the
`params_dtype` a layer is created with when its checkpoint is not quantized. A checkpoint stored
below 16 bits keeps its own weights: vLLM `model_executor/layers/quantization/fp8.py`
`Fp8LinearMethod.create_weights` and `Fp8MoEMethod.create_weights` create a serialized fp8
checkpoint's weights as `torch.float8_e4m3fn` (`if self.quant_config.is_checkpoint_fp8_serialized
else params_dtype`; SGLang's srt/layers/quantization/fp8.py the same, :277 and :547 in 0.5.2),
and an int4 (GPTQ, AWQ, MXFP4) checkpoint's are packed integers whatever the
dtype. A manifest reads `--dtype` into `engine.weight_dtype` (kvplan.check.manifests.option_fields),
which plans the weights in it: right for a 16- or 32-bit checkpoint (`--dtype float32` doubles a
bf16 model), wrong for a quantized one, where `--dtype half` planned DeepSeek-V3's fp8 weights in
16 bits (tests/assets/check/outcomes, file 70: 80.26 GiB a GPU at TP 8 x PP 2, twice the fp8
checkpoint). A kvplan/v1 file's `engine.weight_dtype` is the weight precision it asks for and is
left as written.
"""

from __future__ import annotations

from kvplan.check.target import Target
from kvplan.engine_traits import traits
from kvplan.units import parse_dtype

# the manifest spellings that set engine.weight_dtype as a compute dtype (not --quantization)
_COMPUTE_FLAGS = ("--dtype", "dtype")


def keep_quantized_weights(target: Target) -> None:
    """Drop a manifest's 16- or 32-bit `--dtype` from the weights of a checkpoint the catalog
    stores below 16 bits, with a note; anything else is left as read."""
    dep = target.deployment
    if dep is None or not target.manifest or dep.engine.weight_dtype in (None, "auto"):
        return
    flag = target.field_name("engine.weight_dtype")
    if flag.rsplit(".", 1)[-1] not in _COMPUTE_FLAGS:
        return
    allowed = traits(dep.engine.name).compute_dtypes
    if allowed and str(dep.engine.weight_dtype) not in allowed:
        from kvplan.deploy import Problem

        target.problems.append(Problem(flag, (
            f"{dep.engine.weight_dtype!r} is not a compute dtype {traits(dep.engine.name).title} "
            f"takes ({', '.join(allowed)}: {traits(dep.engine.name).compute_dtypes_source}), and it "
            "refuses it; a quantized checkpoint is named by the model (or "
            "--quantization), the cache's precision by --kv-cache-dtype"),
            target.line_of("engine.weight_dtype")))  # the option's line, not the workload's
        return
    from kvplan.deploy import resolve_model

    try:
        stated = parse_dtype(str(dep.engine.weight_dtype))
        model = resolve_model(dep.model, target.base_dir)
    except Exception:  # noqa: BLE001 - a bad dtype or model is plan_deployment's ERROR
        return
    if stated.bits < 16 or model.weight_dtype.bits >= 16:
        return
    engine = dep.engine.model_copy(update={"weight_dtype": None})
    target.deployment = dep.model_copy(update={"engine": engine})
    stored = model.weight_dtype.value
    source = traits(dep.engine.name).stored_weights_source if model.weight_dtype.bits == 8 \
        else "packed integers, whatever the compute dtype"
    target.notes.append(
        f"{flag} {dep.engine.weight_dtype}: the engine's compute dtype; {model.name} is stored in "
        f"{stored}, and a quantized checkpoint's weights load as stored"
        f"{f' ({source})' if source else ''}: planned in {stored}")
