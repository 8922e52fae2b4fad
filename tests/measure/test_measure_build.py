"""Models built from specs by transformers (on the meta device: shapes, no memory) match kvplan."""

from __future__ import annotations

import pytest

from kvplan.measure.hfconfig import hf_config
from kvplan.specs import load_model
from kvplan.specs.schema import ModelSpec
from kvplan.units import DType

# Gemma 2 9B, from https://huggingface.co/google/gemma-2-9b/blob/main/config.json: 42 layers,
# hidden 3584, 16 heads, 8 KV heads, head_dim 256, intermediate 14336, vocab 256000,
# sliding_window 4096 on alternate layers (sliding first), embeddings tied. Cut to 4 layers here.
GEMMA2 = {
    "name": "gemma-2-9b-cut", "hf_id": "google/gemma-2-9b",
    "source": "https://huggingface.co/google/gemma-2-9b/blob/main/config.json",
    "model_type": "gemma2", "params_total": 1, "num_layers": 4, "hidden_size": 3584,
    "num_attention_heads": 16, "intermediate_size": 14336, "vocab_size": 256000,
    "max_context_tokens": 8192, "weight_dtype": "bf16",
    "attention": {"num_kv_heads": 8, "head_dim": 256, "sliding_window_tokens": 4096,
                  "layer_pattern": ["sliding", "full"]},
}


def _meta_params(spec: ModelSpec, layers: int | None = None) -> tuple[int, int, object]:
    from kvplan.measure.run import build_model

    hf = hf_config(spec, layers)
    model = build_model(hf, DType.bf16, "meta")
    seen = {id(p): p.numel() for p in model.parameters()}
    return hf.params, sum(seen.values()), model


@pytest.mark.parametrize(
    ("name", "layers"),
    [("llama-3-8b", None), ("mistral-7b-v0.1", None), ("qwen2.5-7b", None),
     ("tiny-test-model", None), ("deepseek-v3", 2), ("deepseek-v3", 4)],
)
def test_transformers_builds_what_kvplan_counts(
    measure_extra: None, name: str, layers: int | None
) -> None:
    counted, built, _ = _meta_params(load_model(name), layers)
    assert built == counted
    if layers is None:
        assert built == load_model(name).params_total


def test_gemma2_alternates_sliding_and_full_layers(measure_extra: None) -> None:
    import transformers

    spec = ModelSpec.model_validate(GEMMA2)
    counted, built, model = _meta_params(spec.model_copy(update={"params_total": 10**10}))
    assert built == counted
    cache = transformers.DynamicCache(config=model.config)  # type: ignore[attr-defined]
    assert cache.is_sliding == [True, False, True, False]


def test_mistral_cache_slides_on_every_layer(measure_extra: None) -> None:
    import transformers

    _, _, model = _meta_params(load_model("mistral-7b-v0.1"), 2)
    cache = transformers.DynamicCache(config=model.config)  # type: ignore[attr-defined]
    assert cache.is_sliding == [True, True]
