"""The options a command line gives that kvplan neither maps (kvplan.check.manifests.option_fields FIELDS)
nor notes (NOT_MODELLED), said in one note per engine command (task h43capsz), and a short list of
those that do move GPU memory, each with its reason in NOT_MODELLED's style.

Read for the list: vLLM 0.30.0 (`vllm/lora/layers/base_linear.py` `create_lora_weights`
:133-153: every LoRA-wrapped linear layer holds lora_a (max_loras x max_lora_rank x input) and
lora_b (max_loras x output x max_lora_rank) stacks in lora_dtype on the GPU, made with the model;
`v1/worker/lora_model_runner_mixin.py` `maybe_setup_dummy_loras` :106-140: the profile run adds
dummy LoRAs; `config/lora.py` :35-46: max_lora_rank 16, max_loras 1, max_cpu_loras = max_loras by
default, :118-119) and SGLang 0.5.21 (`srt/model_executor/model_runner.py` `initialize`: the LoRA
manager made right after `load_model`, :654 and :672; `srt/lora/mem_pool.py` `LoRAMemoryPool.init_buffers`
:602-710: A and B buffers of max_loras_per_batch x max_lora_rank x each target module's
dimensions; `srt/arg_groups/fields/lora.py` :15-69: max_loras_per_batch 8 by default).
"""

from __future__ import annotations

# read by kvplan outside FIELDS (kvplan.check.manifests.workload, config_file, compilation,
# optimization, pool_flags): not listed as unread
READ_ELSEWHERE = frozenset({
    "--enable-dp-attention", "--model-name", "--extra-engine-args", "--extra_engine_args",
    "--config", "--compilation-config", "-cc", "-O", "--optimization-level",
    "--kv-transfer-config", "--kv-events-config",  # kvplan.check.manifests.hybrid_off
})
_VLLM_LORA = ("vLLM then holds every LoRA-wrapped layer's adapter stacks on each GPU, max_loras "
              "(1 unless --max-loras) x max_lora_rank (16 unless --max-lora-rank) x (the layer's "
              "input + output) in the LoRA dtype (lora/layers/base_linear.py:133-153 in 0.30.0), "
              "made with the model and profiled with dummy adapters, so the pool is smaller by "
              "them; kvplan does not book them (not modelled)")
_SGLANG_LORA = ("SGLang then allocates its LoRA memory pool after the weights load "
                "(model_runner.py:654, :672 in 0.5.21): A and B buffers of max_loras_per_batch "
                "(8 unless --max-loras-per-batch) x max_lora_rank x each target module's "
                "dimensions (lora/mem_pool.py:602-710); kvplan does not book them (not modelled)")
# SGLang speculative decoding is read (option_fields.SGLANG, kvplan.engines.sglang_spec, task
# h90sglspec); the draft's quantization is not: kvplan books the draft at the target's width
_SGLANG_DRAFT_QUANT = ("the draft's weight format (unset, the draft inherits the target's: "
                       "arg_groups/fields/spec.py:216-226 in 0.5.23): kvplan books the draft's "
                       "parameters at the target's weight width, so a draft quantized otherwise "
                       "is not modelled")
MOVES_MEMORY: dict[str, dict[str, str]] = {
    "vllm": {
        "--enable-lora": _VLLM_LORA,
        "--max-loras": "the LoRA adapters a batch holds on the GPU (with --enable-lora): "
                       + _VLLM_LORA,
        "--max-lora-rank": "the rank of the LoRA stacks (with --enable-lora): " + _VLLM_LORA,
        "--max-cpu-loras": ("LoRA adapters cached in host memory (config/lora.py:44-46 in "
                            "0.30.0): CPU only, no GPU memory, the pool unmoved"),
        # task kimivllm read it (docs/engines.md, vision tower row): 'data' turns the tower's
        # tensor parallelism off (`disable_tp` / `use_data_parallel`, is_vit_use_data_parallel,
        # models/vision.py:142-156 in 0.27.1, :141-155 in 0.34.0); the default 'weights' splits
        # the encoder layers by TP, which is what kvplan plans (vision_tower*.py, vision_replicated)
        "--mm-encoder-tp-mode": ("with 'data' vLLM holds the whole vision tower on every GPU "
                                 "(disable_tp, models/vision.py:142-156 in 0.27.1) where the "
                                 "default 'weights' splits its encoder layers by TP; kvplan plans "
                                 "the split, so under 'data' the weights a GPU are larger by up to "
                                 "(1 - 1/TP) of the tower and the pool smaller (not modelled)"),
    },
    "sglang": {
        "--enable-lora": _SGLANG_LORA,
        "--lora-paths": "adapters to load, which turn LoRA on: " + _SGLANG_LORA,
        "--max-loras-per-batch": "the adapters SGLang's LoRA pool holds: " + _SGLANG_LORA,
        "--max-lora-rank": "the rank of SGLang's LoRA buffers: " + _SGLANG_LORA,
        "--speculative-draft-model-quantization": _SGLANG_DRAFT_QUANT,
        "--max-loaded-loras": ("LoRA adapters kept in host memory (srt/arg_groups/fields/lora.py"
                               ":62-65 in 0.5.21): CPU only, the pool unmoved"),
        # 0.3.1 to 0.5.17 (gone from 0.5.18; kvplan/check/engine_flags/sglang_releases.json):
        # taken since task h70sglkw on the releases that have it
        "--torchao-config": ("SGLang quantizes the loaded weights in place with torchao "
                             "(model_runner.py:352-358 apply_torchao_config_to_model, "
                             "layers/torchao_utils.py:39 in 0.5.2), after they load at the "
                             "checkpoint's width; kvplan plans the checkpoint's weights, so a "
                             "smaller resident model and a larger pool are not modelled"),
    },
}


def unread_note(flags: list[str]) -> str | None:
    """The one note naming the options kvplan's plan does not use (None when there are none)."""
    if not flags:
        return None
    return (f"not used by kvplan's plan: {', '.join(sorted(set(flags)))} (kvplan reads the "
            "options docs/check.md lists; these are taken as not moving the KV pool)")
