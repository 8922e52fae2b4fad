"""Model names users type in manifests that task h70catalog was asked to make resolve: what each
does offline through `kvplan size ID --gpu h100`, read from the CLI as a user meets it.

Three already resolve by `hf_id` (checked first, before any change); the KV bytes a token are
the hand arithmetic of each entry's config.json (docs/catalog.md cites where each was read):
- Qwen/Qwen3-235B-A22B-Instruct-2507 -> qwen3-235b-a22b-2507: 94 layers x 4 KV heads x 128 x 2
  (K, V) x 2 B = 192,512 B a token, 262,144 positions; its 470 GB of bf16 weights need 8 H200s, and
  at TP 8 each GPU holds one of the 4 KV heads (each head on two GPUs): 94 x 1 x 128 x 2 x 2 B =
  48,128 B a token per GPU;
- microsoft/Phi-3-mini-4k-instruct -> phi-3-mini-4k: 32 layers x 32 KV heads x 96 x 2 x 2 B =
  393,216 B a token, every layer windowed at 2,047 tokens (0 B beyond), 4,096 positions;
- Qwen/Qwen2.5-VL-7B-Instruct -> qwen2.5-vl-7b: 28 layers x 4 KV heads x 128 x 2 x 2 B = 57,344 B
  a token, 128,000 positions.

Two were added: Qwen/Qwen3-30B-A3B-Thinking-2507 -> qwen3-30b-a3b-thinking-2507, from the config
transformers 5.7.0 printed for it in a public model report (catalog_sources.py says where): 48
layers x 4 KV heads x 128 x 2 x 2 B = 98,304 B a token, 262,144 positions, and 30,532,122,624 bf16
parameters x 2 B = 61,064,245,248 B of weights on one GPU; and Qwen's FP8 release of it,
Qwen/Qwen3-30B-A3B-Thinking-2507-FP8 -> qwen3-30b-a3b-thinking-2507-fp8 (the same report
collection, with its quantization_config): the same cache, a byte a parameter, 30,532,122,624 B.
Those prints spell the expert count `num_local_experts`, as transformers 5 saves a Qwen3-MoE
config; `kvplan import` had refused it ("config field 'num_experts' is missing") and now reads
either key, and refuses both when they disagree.

The others have no official config.json in the material searched (docs/catalog.md, "Left out",
task h70catalog, says what was read for each), so none is aliased from its name: each is refused
in one line, exit 2, and is never planned as another model. A quantized release is refused with
the hint that names the entry of the checkpoint it was made from and the width to plan it at,
kvplan's generic pricing, not the copy's own layout.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.specs.hf_import import import_model
from tests.conftest import config_file, invoke

THINKING = Path(__file__).parents[1] / "assets" / "hf_configs" / "qwen3-30b-a3b-thinking-2507.json"

# id, entry, GPU and TP, KV bytes a token per GPU at fp16 below the window and beyond it,
# context limit
RESOLVED = [
    ("Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b-2507", ("h200", "8"), 48_128, 48_128,
     262_144),
    ("microsoft/Phi-3-mini-4k-instruct", "phi-3-mini-4k", ("h100", "1"), 393_216, 0, 4_096),
    ("Qwen/Qwen2.5-VL-7B-Instruct", "qwen2.5-vl-7b", ("h100", "1"), 57_344, 57_344, 128_000),
]
ADDED = [
    ("Qwen/Qwen3-30B-A3B-Thinking-2507", "qwen3-30b-a3b-thinking-2507", ("h100", "1"), 98_304,
     98_304, 262_144),
    ("Qwen/Qwen3-30B-A3B-Thinking-2507-FP8", "qwen3-30b-a3b-thinking-2507-fp8", ("h100", "1"),
     98_304, 98_304, 262_144),
    # task h80catalog: the mistral3 release, once `kvplan import` read mistral3 (its verbatim
    # config.json, tests/catalog/test_mistral3.py): 40 L x 8 KV heads x 128 x 2 x 2 B
    ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "mistral-small-3.1-24b", ("h100", "1"),
     163_840, 163_840, 131_072),
]

# bf16 releases whose own config.json was not found: refused, no entry planned in their place
UNSOURCED = [
    "deepseek-ai/DeepSeek-R1-0528",
    "Qwen/Qwen3-30B-A3B-Instruct-2507",
    "Qwen/Qwen3-235B-A22B-Thinking-2507",
    "mistralai/Mistral-Nemo-Instruct-2407",
    "microsoft/Phi-3-mini-128k-instruct",
    "Qwen/Qwen2.5-VL-72B-Instruct",
    "Qwen/Qwen2.5-VL-32B-Instruct",
]

# quantized releases: the hint names the base's entry and the width (kvplan's name_hints)
QUANTIZED = [
    ("Qwen/Qwen2.5-7B-Instruct-AWQ", "qwen2.5-7b", "int4"),
    ("Qwen/Qwen3-8B-FP8", "qwen3-8b", "fp8"),
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "llama-3.1-8b", "fp8"),
    ("hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4", "llama-3.1-8b", "int4"),
]


def _size(runner, ref: str, gpu: str = "h100", tp: str = "1"):  # noqa: ANN001, ANN202
    return invoke(runner, "size", ref, "--gpu", gpu, "--tp", tp, "--kv-dtype", "fp16",
                  "--context", "4096", "--format", "json")


@pytest.mark.parametrize(("ref", "entry", "where", "below", "beyond", "limit"), RESOLVED + ADDED,
                         ids=[r[0] for r in RESOLVED + ADDED])
def test_typed_release_resolves_by_hf_id(runner, monkeypatch, ref: str, entry: str,
                                         where: tuple[str, str], below: int, beyond: int,
                                         limit: int):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the catalog alone answers
    got = _size(runner, ref, *where)
    assert got.exit_code == 0, got.output
    assert f"{ref} \u2192 {entry} (hf_id)" in got.stderr
    row = json.loads(got.stdout)["results"][0]
    assert row["model"] == entry
    assert (row["kv_bytes_per_token"], row["kv_bytes_per_token_beyond_window"]) == (below, beyond)
    limited = invoke(runner, "size", ref, "--gpu", where[0], "--tp", where[1],
                     "--context", str(limit + 1))
    assert limited.exit_code == 2, limited.output  # one token past the config's positions
    assert f"{limit:,}" in limited.output


@pytest.mark.parametrize("ref", UNSOURCED)
def test_unsourced_release_is_refused_not_guessed(runner, monkeypatch, ref: str):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    got = _size(runner, ref)
    assert got.exit_code == 2, got.output
    assert got.stdout == ""
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), got.stderr
    assert f"'{ref}': not in kvplan's catalog" in lines[0]
    assert "\u2192" not in got.stderr  # no entry resolved in its place


@pytest.mark.parametrize(("ref", "entry", "width"), QUANTIZED, ids=[q[0] for q in QUANTIZED])
def test_quantized_release_names_its_base_entry(runner, monkeypatch, ref: str, entry: str,
                                                width: str):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    got = _size(runner, ref)
    assert got.exit_code == 2, got.output
    assert "\u2192" not in got.stderr
    assert f"whose catalog entry {entry} has the same attention shape" in got.stderr
    assert f"plan `{entry} --weight-dtype {width}`" in got.stderr


@pytest.mark.parametrize(("ref", "weights"), [
    ("Qwen/Qwen3-30B-A3B-Thinking-2507", 30_532_122_624 * 2),  # bf16: 61,064,245,248 B
    ("Qwen/Qwen3-30B-A3B-Thinking-2507-FP8", 30_532_122_624),  # fp8: a byte a parameter
])
def test_thinking_2507_weights(runner, monkeypatch, ref: str, weights: int):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    got = _size(runner, ref)
    row = json.loads(got.stdout)["results"][0]
    assert row["weights_bytes"] == weights


def test_thinking_2507_has_the_original_release_tensors():
    assert load_model("qwen3-30b-a3b-thinking-2507").params_total == load_model(
        "qwen3-30b-a3b").params_total  # the same tensors, 262,144 positions against 40,960


def test_transformers_5_expert_key_is_read(tmp_path):
    """The fixture keeps transformers 5's `num_local_experts`; the same config with transformers
    4's `num_experts` imports to the same spec."""
    cfg = json.loads(THINKING.read_text())
    assert "num_experts" not in cfg and cfg["num_local_experts"] == 128
    new = import_model(str(THINKING), name="t")
    old_cfg = {k: v for k, v in cfg.items() if k != "num_local_experts"} | {"num_experts": 128}
    old = import_model(config_file(tmp_path, old_cfg), name="t")
    assert new.moe is not None and new.moe.num_experts == 128
    assert new.model_dump(exclude={"source"}) == old.model_dump(exclude={"source"})
    assert new.params_total == 30_532_122_624


@pytest.mark.parametrize("model_type", ["qwen3_moe", "qwen3_vl_moe"])
def test_disagreeing_expert_keys_are_refused(tmp_path, runner, model_type: str):
    cfg = json.loads(THINKING.read_text()) | {"num_experts": 64, "model_type": model_type}
    path = config_file(tmp_path, cfg)
    with pytest.raises(InputError, match="'num_experts' \\(64\\) and 'num_local_experts' "
                       "\\(128\\) disagree"):
        import_model(path)
    result = invoke(runner, "import", path)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1


def test_qwen3_next_reads_only_num_experts(tmp_path):
    """transformers 5.25.0 still saves Qwen3NextConfig's count as num_experts (no attribute_map):
    a qwen3_next config with only num_local_experts is refused, not read."""
    cfg = json.loads((THINKING.parent / "qwen3-next-80b-a3b.json").read_text())
    cfg["num_local_experts"] = cfg.pop("num_experts")
    with pytest.raises(InputError, match="num_experts"):
        import_model(config_file(tmp_path, cfg))
