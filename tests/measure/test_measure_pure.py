"""The torch-free half of --measure: config mapping, parameter counts, predictions, the search."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvplan.errors import InputError
from kvplan.measure.compare import (
    Check,
    Deadline,
    Figure,
    MeasureReport,
    bandwidth_bound_tokens_per_s,
    predict,
    search_capacity,
)
from kvplan.measure.device import match_hardware, parse_device
from kvplan.measure.hfconfig import count_params, hf_config, tied_embeddings, with_layers
from kvplan.specs import all_hardware, all_models, load_hardware, load_model
from kvplan.units import DType

ASSETS = Path(__file__).parent.parent / "assets"

# Published parameter counts (model.safetensors.index.json total_size / 2, in the specs' sources)
# must equal the count from shapes: that is what lets --layers recount a cut model, and what
# decides whether the output head is tied to the embeddings.
TIED = {"tiny-test-model", "llama-3.2-1b", "llama-3.2-3b", "gemma-2-9b", "gemma-2-27b"}
# the catalog's issue-12 additions whose config.json sets tie_word_embeddings true
TIED |= {"gemma-2-2b", "qwen2-0.5b", "qwen2-1.5b", "qwen2.5-0.5b", "qwen2.5-3b"}
TIED |= {"qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen2.5-1.5b"}
# issue 12, third pass (catalog helper): the Qwen3-4B-Instruct-2507 config ties its embeddings too
TIED |= {"qwen3-4b-2507"}
# h91catalog: Qwen2.5-Math-1.5B's config.json (tests/assets/hf_configs/qwen2.5-math-1.5b.json) ties them
TIED |= {"qwen2.5-math-1.5b"}
# Model types --measure builds; their counts exclude what it does not build (vision towers, MTP).
BUILT = {"llama", "mistral", "qwen2", "qwen3", "gemma2"}


@pytest.mark.parametrize(
    "name", sorted(s.name for s in all_models()[0] if s.model_type in BUILT)
)
def test_shape_count_equals_published_parameters(name: str) -> None:
    spec = load_model(name)
    tied = name in TIED
    assert count_params(spec, tied) == spec.params_total
    assert tied_embeddings(spec) is tied


def test_gemma3_builds_the_tied_text_model_only() -> None:
    """Gemma-3-27B's 27,432,406,640 include the SigLIP vision tower; the text model --measure
    builds is 27,009,346,304 parameters with the output head tied to the embeddings."""
    spec = load_model("gemma-3-27b")
    assert tied_embeddings(spec) is True
    assert count_params(spec, True) == 27_009_346_304 < spec.params_total


def test_deepseek_count_rounds_to_the_card() -> None:
    spec = load_model("deepseek-v3")  # the card says 671B; the 14B MTP module is not built
    assert count_params(spec, False) == 671_026_404_352
    assert not tied_embeddings(spec)


def test_llama3_config_and_prediction() -> None:
    spec = load_model("llama-3-8b")
    hf = hf_config(spec)
    assert hf.class_name == "LlamaConfig"
    assert hf.kwargs["num_key_value_heads"] == 8 and hf.kwargs["head_dim"] == 128
    assert hf.kwargs["tie_word_embeddings"] is False
    p = predict(spec, DType.bf16, 8192, budget_bytes=133_200_000_000)
    assert p.weights_bytes == 16_060_522_496  # the issue's H200 reading
    assert p.kv_bytes_per_token == 131_072  # ... and the cache it measured
    assert p.kv_bytes_per_sequence == 8192 * 131_072
    assert p.users == 124  # "124, the plain division"
    assert p.tokens_held_per_sliding_layer is None


def test_mistral_keeps_its_window() -> None:
    hf = hf_config(load_model("mistral-7b-v0.1"))
    assert hf.class_name == "MistralConfig" and hf.kwargs["sliding_window"] == 4096
    p = predict(load_model("mistral-7b-v0.1"), DType.bf16, 8192, 10**11)
    assert p.tokens_held_per_sliding_layer == 4096
    assert p.kv_bytes_per_sequence == 4096 * 131_072


def test_deepseek_two_layers_is_dense_mla_with_the_latent_cache() -> None:
    spec = load_model("deepseek-v3")
    hf = hf_config(spec, layers=2)
    assert hf.class_name == "DeepseekV3Config"
    assert hf.kwargs["kv_lora_rank"] == 512 and hf.kwargs["qk_rope_head_dim"] == 64
    assert hf.kwargs["num_hidden_layers"] == 2
    assert hf.kwargs["first_k_dense_replace"] == 3  # the real model's first 3 layers are dense
    cut = with_layers(spec, 2)
    assert cut.params_total == hf.params
    p = predict(cut, DType.bf16, 8192, 10**11)
    assert p.kv_bytes_per_token == 2 * 1152  # the issue: 1,152 bytes per token per layer


def test_layers_override_is_checked() -> None:
    spec = load_model("llama-3-8b")
    with pytest.raises(InputError, match="exceeds"):
        with_layers(spec, 33)
    assert with_layers(spec, None) is spec


def test_unsupported_model_type_is_one_clear_error() -> None:
    spec = load_model("llama-3-8b").model_copy(update={"model_type": "falcon"})
    with pytest.raises(InputError, match="cannot build model_type 'falcon'"):
        hf_config(spec)


def test_bandwidth_bound() -> None:
    # Llama-3-8B, 120 x 8k on an H200 (4.8 TB/s): 16.06 GB weights + 128.8 GB of cache per step
    bound = bandwidth_bound_tokens_per_s(16_060_522_496, 8192 * 131_072, 120, 4_800_000_000_000)
    step_s = 120 / bound
    assert 0.030 < step_s < 0.031  # the issue's "about 35 ms" at 4.2 TB/s read


def test_figure_checks() -> None:
    f = Figure("x", "x", "B", 100, 95)
    assert f.error_pct == pytest.approx(-5.0)
    assert f.passes(5.0) is True and f.passes(4.9) is False
    bound = Figure("t", "t", "tok/s", 100, 20, Check.at_most)
    assert bound.passes(1.0) is True  # far below a bound is a reported gap, not a miss
    assert Figure("t", "t", "tok/s", 100, 120, Check.at_most).passes(10) is False
    assert Figure("i", "i", "ms", None, 3.0, Check.info).passes(0) is None
    report = MeasureReport("m", "cpu", "cpu", None, {}, "bf16", 64, 2, 1, "x", 4.9, [f, bound])
    assert not report.passed and [x.key for x in report.failures] == ["x"]


@settings(max_examples=200, deadline=None)
@given(
    threshold=st.integers(min_value=0, max_value=300),
    cap=st.integers(min_value=0, max_value=300),
    predicted=st.integers(min_value=0, max_value=400),
)
def test_search_finds_the_largest_batch_and_never_exceeds_the_cap(
    threshold: int, cap: int, predicted: int
) -> None:
    asked: list[int] = []

    def holds(n: int) -> bool:
        asked.append(n)
        return n <= threshold

    found = search_capacity(predicted, cap, holds)
    assert found.best == min(threshold, cap)
    assert all(1 <= n <= cap for n in asked)
    assert len(asked) == len(set(asked))  # each batch is tried once
    assert not found.cut_short


def test_search_starts_at_the_prediction_and_stops_at_the_deadline() -> None:
    found = search_capacity(124, 124, lambda n: n <= 120)
    assert found.tried[0] == (124, False)
    assert found.best == 120
    now = [0.0]
    deadline = Deadline(10, clock=lambda: now[0])

    def slow(n: int) -> bool:
        now[0] += 6
        return n <= 50

    cut = search_capacity(124, 124, slow, deadline)
    assert cut.cut_short and len(cut.tried) == 2 and cut.best <= 50


def test_gpu_matching() -> None:
    catalog, _ = all_hardware()
    h200 = load_hardware("h200")
    spec, how = match_hardware("NVIDIA H200", h200.memory_bytes, catalog)
    assert spec is not None and spec.name == h200.name and "exact memory" in how
    spec, how = match_hardware("NVIDIA H100 80GB HBM3", 1, catalog)
    assert spec is not None and spec.name == load_hardware("h100").name and "1 B" in how
    spec, how = match_hardware("Tesla P4", None, catalog)  # not in the catalog
    assert spec is None and "--gpu" in how
    spec, how = match_hardware("Tesla T4", 15_642_329_088, catalog)  # in it since issue #12
    assert spec is not None and spec.name == "t4" and "exact memory" in how


@pytest.mark.parametrize(
    ("device_name", "expected"),
    [
        # the names torch.cuda.get_device_name / deviceQuery print, as the specs' sources quote
        ("NVIDIA H200", "h200-141gb"),
        ("NVIDIA H100 80GB HBM3", "h100-sxm-80gb"),
        ("NVIDIA H100 NVL", "h100-nvl-94gb"),  # once matched the SXM part by its words
        ("NVIDIA H100 PCIe", "h100-pcie-80gb"),
        ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
        ("NVIDIA A100-SXM4-40GB", "a100-40gb"),
        ("NVIDIA L40S", "l40s"),  # once unmatched: the label's "48gb" is not in the name
        ("NVIDIA A10G", "a10g"),
        ("NVIDIA A10", "a10"),
        ("NVIDIA B200", "b200"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090"),
        ("AMD Instinct MI300X", "mi300x"),
        ("AMD Instinct MI325X", "mi325x"),  # no quoted runtime name: by the label's words
        ("NVIDIA H200 NVL", None),  # a different card; no spec: ask for --gpu
        ("NVIDIA H20", "h20"),  # in the catalog since issue #12
        ("NVIDIA GH200 480GB", None),
    ],
)
def test_runtime_device_names_match_their_specs(device_name: str, expected: str | None) -> None:
    spec, how = match_hardware(device_name, None, all_hardware()[0])
    assert (spec.name if spec else None) == expected, how


def test_every_device_name_is_quoted_in_its_sources() -> None:
    for g in all_hardware()[0]:
        for name in g.device_names:
            assert name in f"{g.memory_source} {g.nvidia_smi_source}", (g.name, name)


@pytest.mark.parametrize("text", ["gpu", "cuda:x", "cpu:0", "tpu"])
def test_bad_device(text: str) -> None:
    with pytest.raises(InputError, match="use cpu, cuda or cuda:N"):
        parse_device(text)


def test_test_assets_count_their_parameters() -> None:
    for name in ("tiny-sliding-test", "tiny-mla-test"):
        spec = load_model(str(ASSETS / f"{name}.yaml"))
        assert count_params(spec, tied_embeddings(spec)) == spec.params_total


def test_whole_device_capacity_matches_the_h200_run_in_issue_6() -> None:
    # Issue 6's H200 facts (torch 2.11, transformers 5.17): Llama-3-8B in bf16 left 133.2 GB
    # free; DynamicCache held 120 sequences of 8,192 tokens (124, the plain division, did not)
    # and 466 of 2,048 (481 did not). kvplan's transformers profile: cache + one layer's cat
    # copy + one decode token's activations and fp32 logits per sequence.
    free = 133_200_000_000
    spec = load_model("llama-3-8b")
    p8k = predict(spec, DType.bf16, 8192, free)
    assert p8k.users == 124
    cost = p8k.decode_costs["dynamic"]
    assert cost.cache_bytes == 1 << 30 and cost.transient_bytes == (1 << 30) // 32
    assert p8k.users_transformers("dynamic", free) == 120
    p2k = predict(spec, DType.bf16, 2048, free)
    assert 466 <= p2k.users_transformers("dynamic", free) < 481
    # StaticCache expands 8 KV heads to 32 inside attention: 4 x one layer per sequence
    assert p8k.decode_costs["static"].transient_bytes == 4 * (1 << 30) // 32
    assert p8k.users_transformers("static", free) == 110


def test_deepseek_capacity_counts_the_expanded_latent() -> None:
    # two DeepSeek-V3 layers: the latent is 2 x 1,152 B per token, but attention expands one
    # layer to 128 heads x 448 values x 2 B per token: 50x the whole cache, and it decides
    spec = with_layers(load_model("deepseek-v3"), 2)
    p = predict(spec, DType.bf16, 8192, 139_000_000_000)
    cost = p.decode_costs["dynamic"]
    assert cost.cache_bytes == 2 * 8192 * 1152
    assert cost.transient_bytes == 8192 * 128 * 448 * 2
    assert p.users == 7364 and p.users_transformers("dynamic", 139_000_000_000) == 144


@pytest.mark.parametrize(
    ("name", "layers", "plain", "dynamic", "static"),
    [("llama-3-8b", None, 124, 120, 110), ("mistral-7b-v0.1", None, 248, 240, 220),
     ("deepseek-v3", 2, 7057, 138, 138)],
)
def test_the_predictions_docs_measurements_lists(
    name: str, layers: int | None, plain: int, dynamic: int, static: int
) -> None:
    """docs/measurements.md's table for the GPU script's models at 133.2 GB free."""
    p = predict(with_layers(load_model(name), layers), DType.bf16, 8192, 133_200_000_000)
    assert (p.users, p.users_transformers("dynamic", 133_200_000_000),
            p.users_transformers("static", 133_200_000_000)) == (plain, dynamic, static)
