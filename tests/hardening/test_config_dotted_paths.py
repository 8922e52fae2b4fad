"""Task h48mend: a wrong type in a config.json field is refused with one line naming the field by
its dotted path in the file (`text_config.num_attention_heads`, `rope_scaling.factor`,
`quantization_config.bits`, `vision_config.depth`, ChatGLM's own `seq_length`), never only the
key the reader asked for, never a traceback (exit 3) and never a silent default.

The importer reads the language model's keys from a mapping merged over the top level (the
nested `text_config`) and renamed (ChatGLM); kvplan.specs.config_paths remembers where each key
came from. One case per reader: a real config under tests/assets (its source in
tests/assets/hf_configs or tests/assets/quant_configs; for Granite 4.0, tests.conftest's
GRANITE_H_SMALL, which tests/catalog/test_granite_hybrid.py imports whole) with a hand-written
fragment merged into it, setting one field to a wrong type. Each case asserts the whole line
`kvplan import` prints and exit code 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.conftest import GRANITE_H_SMALL, invoke

ASSETS = Path(__file__).resolve().parents[1] / "assets"

AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
       "version": "gemm"}
NVFP4 = "quant_configs/nvidia--Kimi-K2.5-NVFP4_config.json"
WHOLE = "it must be a whole number"
FLAG = "it must be true or false"
ROUTED = ("only int4 routed experts (pack-quantized, symmetric groups, the rest ignored) are "
          "modelled")
NVFP4_TAIL = ("kvplan prices NVFP4 where whole groups of linear layers (attention, dense MLP, "
              "shared experts, routed experts, LM head) are quantized or excluded")

# (reader, base config (a path under tests/assets, or a dict), fragment, the line's tail)
CASES: list[tuple[str, str | dict[str, Any], dict[str, Any], str]] = [
    ("hf_config.text_config", "hf_configs/gemma-3-4b.json", {"text_config": "gemma3_text"},
     "config field 'text_config' is 'gemma3_text'; it must be an object (a mapping of fields)"),
    ("hf_config.weight_dtype", "hf_configs/gemma-3-4b.json", {"text_config": {"torch_dtype": 16}},
     "config field 'text_config.torch_dtype' is 16; it must be a dtype name (bfloat16, "
     "float16, ...)"),
    ("hf_config._kv_heads", "hf_configs/falcon-7b.json", {"multi_query": "yes"},
     f"config field 'multi_query' is 'yes'; {FLAG}"),
    ("hf_layers.positive_int", "hf_configs/gemma-3-4b.json",
     {"text_config": {"num_attention_heads": "8"}},
     "config field 'text_config.num_attention_heads' is '8'; a positive whole number is needed"),
    ("hf_layers.window_tokens", "hf_configs/gemma-3-4b.json",
     {"text_config": {"sliding_window": "1024"}},
     "sliding layers need a positive text_config.sliding_window, got '1024'"),
    ("hf_layers.layer_kinds", "hf_configs/gemma-3-4b.json",
     {"text_config": {"layer_types": "sliding_attention"}},
     "text_config.layer_types must list one entry per layer (34), got str"),
    ("params_base._flag", "hf_configs/gemma-3-4b.json",
     {"text_config": {"attention_bias": "false"}},
     f"config field 'text_config.attention_bias' is 'false'; {FLAG}"),
    ("params_base._int_or", "hf_configs/qwen3-vl-30b-a3b.json",
     {"text_config": {"decoder_sparse_step": "1"}},
     f"config field 'text_config.decoder_sparse_step' is '1'; {WHOLE}"),
    ("hf_rope (nested)", "hf_configs/gemma-3-4b.json",
     {"text_config": {"rope_scaling": {"factor": "8.0"}}},
     "text_config.rope_scaling.factor '8.0' must be a positive number"),
    ("hf_rope (top level)", "hf_configs/llama-3.1-8b.json",
     {"rope_scaling": {"original_max_position_embeddings": "8192"}},
     "rope_scaling.original_max_position_embeddings '8192' must be a positive integer"),
    ("hf_rope rope_type", "hf_configs/llama-3.1-8b.json", {"rope_scaling": {"rope_type": 3}},
     "rope_scaling.rope_type 3 must be a string"),
    ("hf_quant.quant_method", "hf_configs/llama-3.1-8b.json",
     {"quantization_config": {"quant_method": ["gptq"]}},
     "config field 'quantization_config.quant_method' is ['gptq']; it must be a string (a name)"),
    ("hf_quant.linear_quant", "hf_configs/llama-3.1-70b.json",
     {"quantization_config": {**AWQ, "bits": "4"}},
     "awq quantization_config.bits '4'; kvplan prices awq checkpoints whose every decoder linear "
     "layer is quantized (int4, groups of a positive size)"),
    ("hf_quant.routed_expert_quant", "hf_configs/kimi-k2.5.json",
     {"text_config": {"quantization_config": {"config_groups": {"group_0": {"weights": {
         "group_size": "32"}}}}}},
     "compressed-tensors quantization_config: text_config.quantization_config.config_groups."
     f"group_0.weights.group_size '32' is not a positive integer; {ROUTED}"),
    ("hf_quant.checkpoint_dtype", "hf_configs/kimi-k2.5.json", {"text_config": {"dtype": 16}},
     "config field 'text_config.dtype' is 16; it must be a dtype name (bfloat16, float16, ...)"),
    ("hf_quant.routed_expert_quant kv", "hf_configs/kimi-k2.5.json",
     {"text_config": {"quantization_config": {"kv_cache_scheme": "fp8"}}},
     "compressed-tensors quantization_config: text_config.quantization_config.kv_cache_scheme "
     f"is set; {ROUTED}"),
    ("hf_quant.checkpoint_kv_quant", "hf_configs/llama-3.1-8b.json",
     {"quantization_config": {"quant_method": "compressed-tensors", "kv_cache_scheme": "fp8"}},
     "quantization_config.kv_cache_scheme 'fp8': only 8-bit floats (FP8) are read, as "
     "TensorRT-LLM reads them"),
    ("hf_nvfp4.check_algo", NVFP4, {"quantization_config": {"quant_algo": 4}},
     "config field 'quantization_config.quant_algo' is 4; it must be a string (a name)"),
    ("hf_nvfp4.nvfp4_quant", NVFP4, {"quantization_config": {"ignore": "lm_head"}},
     f"ModelOpt NVFP4 checkpoint: quantization_config.ignore 'lm_head' is not a list of names; "
     f"{NVFP4_TAIL}"),
    ("mm_tokens.mm_tokens_per_item", "hf_configs/gemma-3-4b.json", {"mm_tokens_per_image": "256"},
     f"config field 'mm_tokens_per_image' is '256'; {WHOLE}"),
    ("mm_tokens._llama4_item", "hf_configs/llama-4-scout.json",
     {"vision_config": {"pixel_shuffle_ratio": "0.5"}},
     "config field 'vision_config.pixel_shuffle_ratio' is '0.5'; it must be a number in (0, 1]"),
    ("params_multimodal.vision_tower", "hf_configs/qwen2.5-vl-7b.json",
     {"vision_config": "qwen2_5_vl"},
     "config field 'vision_config' is 'qwen2_5_vl'; it must be an object (a mapping of fields)"),
    ("params_multimodal._dim", "hf_configs/qwen2.5-vl-7b.json", {"vision_config": {"depth": "32"}},
     f"config field 'vision_config.depth' is '32'; {WHOLE}"),
    ("hf_mamba.granite_layer_kinds", GRANITE_H_SMALL, {"layer_types": "mamba"},
     "granitemoehybrid needs layer_types with one entry per layer (40), got 'mamba'"),
    ("hf_mamba.granite_moe", GRANITE_H_SMALL, {"num_local_experts": "72"},
     f"config field 'num_local_experts' is '72'; {WHOLE}"),
    ("params_remote.chatglm_config", "hf_configs/chatglm2-6b.json", {"seq_length": "32k"},
     "config field 'seq_length' is '32k'; a positive whole number is needed"),
    ("params_remote._flag", "hf_configs/chatglm2-6b.json", {"multi_query_attention": "true"},
     f"config field 'multi_query_attention' is 'true'; {FLAG}"),
]


def _merged(base: dict[str, Any], fragment: dict[str, Any]) -> dict[str, Any]:
    """`base` with `fragment` written over it: a mapping into a mapping merges, anything else
    replaces the value."""
    out = dict(base)
    for key, value in fragment.items():
        inner = out.get(key)
        out[key] = (_merged(inner, value) if isinstance(value, dict) and isinstance(inner, dict)
                    else value)
    return out


@pytest.mark.parametrize(("reader", "base", "fragment", "tail"), CASES,
                         ids=[c[0] for c in CASES])
def test_a_wrong_type_is_one_line_naming_the_dotted_path(
    tmp_path: Path, reader: str, base: str | dict[str, Any], fragment: dict[str, Any], tail: str
) -> None:
    """`kvplan import config.json`: exit 2 and exactly `error: FILE: cannot import: ` + `tail`
    (the file, the dotted field, what was there, what it must be); `reader` is where it is
    read (kvplan.specs)."""
    data = base if isinstance(base, dict) else json.loads((ASSETS / base).read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_merged(data, fragment)))
    result = invoke(CliRunner(), "import", str(path))
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"error: {path}: cannot import: {tail}"

