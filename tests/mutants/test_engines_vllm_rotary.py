"""Mutation tests of kvplan/engines/vllm_rotary.py (task h80mut), figures by hand from the vLLM
lines the module cites: RotaryEmbedding's cos/sin cache is rows x rotary_dim values in the served
dtype (0.19.0 rotary_embedding/base.py:58-63); linear scaling builds max_position x factor rows
(0.19.0 linear_scaling_rope.py:90), YaRN original x factor (yarn_scaling_rope.py:77), DeepSeek's
MLA original x factor over qk_rope_head_dim (deepseek_scaling_rope.py:104); MRoPE enlarges
max_position 4 times from 0.7.3 (rotary_embedding.py:784), not in 0.6.6 (:770), and 0.33.0 gives
Qwen3-VL 1 (qwen3_vl.py:1818); gpt-oss asks for float32 (gpt_oss.py 0.19.0 :85); Gemma 3 holds a
global and a local cache (gemma3.py 0.19.0 :167-185).

The explanation's words and the refusals' notes are checked whole: `kvplan explain` prints them.
"""

from __future__ import annotations

from kvplan.engines.vllm_rotary import rotary_cache_bytes, rotary_cache_how, rotary_cache_note
from kvplan.specs import load_model
from kvplan.specs.schema import ModelSpec

TAIL = (" (vLLM get_rope's buffer over the config's positions, built while loading; one per "
        "rank)")
NOTE = ("vLLM's rotary cos/sin cache (a buffer built while loading, 1-64 MiB for most models) is "
        "not booked: ")


def _how(words: str, caches: bool = False) -> str:
    return f" + the rotary cos/sin {'caches' if caches else 'cache'} {words}{TAIL}"


def _with(model: ModelSpec, **update: object) -> ModelSpec:
    return model.model_copy(update=update)


def test_mrope_from_0_7_3_and_its_words() -> None:
    """Qwen2.5-VL-7B (max_position_embeddings 128,000, head_dim 128): 0.7.3 is the first release
    with the 4x enlargement: 512,000 x 128 x 2 B = 131,072,000 B; 0.6.6 none: 128,000 rows,
    32,768,000 B and no MRoPE label."""
    vl = load_model("qwen2.5-vl-7b")
    assert rotary_cache_bytes(vl, "0.7.3") == 131_072_000
    assert rotary_cache_how(vl, "0.7.3") == _how(
        "MRoPE 4 x 128,000 = 512,000 positions x 128 x 2 B")
    assert rotary_cache_how(vl, "0.6.6") == _how("128,000 positions x 128 x 2 B")
    assert rotary_cache_note(vl, "0.7.2") == NOTE + "MRoPE's 4x enlargement not placed in 0.7.0-0.7.2"


def test_qwen3_vl_between_0_19_and_0_33_is_said_whole() -> None:
    """Qwen3-VL-8B (262,144 positions): 4 x in 0.19.0, 1 x in 0.33.0, not placed between."""
    q3 = load_model("qwen3-vl-8b")
    assert rotary_cache_note(q3, "0.23.0") == (
        NOTE + "Qwen3-VL's MRoPE enlargement not placed after 0.19.0 before 0.33.0")
    assert rotary_cache_how(q3, "0.33.0") == _how("262,144 positions x 128 x 2 B")
    assert rotary_cache_how(q3, "0.19.0") == _how(
        "MRoPE 4 x 262,144 = 1,048,576 positions x 128 x 2 B")


def test_words_of_each_kind() -> None:
    """Llama-3.1-8B (llama3: the rows stay 131,072); DeepSeek-Coder-6.7B (linear 16,384 x 4 =
    65,536); gpt-oss-20b (YaRN 4,096 x 32 = 131,072, head 64, float32: 4 B); DeepSeek-V3
    (DeepSeek YaRN 4,096 x 40 = 163,840 over qk_rope_head_dim 64); Gemma-3-27B (two caches,
    global linear x 8 and local plain, joined by ' + ')."""
    assert rotary_cache_how(load_model("llama-3.1-8b"), "0.19.0") == _how(
        "131,072 positions x 128 x 2 B")
    assert rotary_cache_how(load_model("deepseek-coder-6.7b-instruct"), "0.19.0") == _how(
        "linear 16,384 x 4 = 65,536 positions x 128 x 2 B")
    assert rotary_cache_how(load_model("gpt-oss-20b"), "0.19.0") == _how(
        "YaRN 4,096 x 32 = 131,072 positions x 64 x 4 B")
    assert rotary_cache_how(load_model("deepseek-v3"), "0.19.0") == _how(
        "DeepSeek YaRN 4,096 x 40 = 163,840 positions x 64 x 2 B")
    assert rotary_cache_how(load_model("gemma-3-27b"), "0.19.0") == _how(
        "global linear 131,072 x 8 = 1,048,576 positions x 128 x 2 B"
        " + local 131,072 positions x 128 x 2 B", caches=True)


def test_nothing_booked_has_no_words() -> None:
    """OPT's learned positions (no cache, no note) and Phi-3.5's longrope (not read: a note)."""
    assert rotary_cache_how(load_model("opt-125m"), "0.19.0") == ""
    phi = load_model("phi-3.5-mini")
    assert rotary_cache_how(phi, "0.19.0") == ""
    assert rotary_cache_note(phi, "0.19.0") == NOTE + "rope_type 'longrope' not read"


def test_refusals_said_whole() -> None:
    llama = load_model("llama-2-7b")
    assert rotary_cache_note(llama, "0.2.4") == NOTE + "releases before 0.2.5 not read"
    assert rotary_cache_note(_with(llama, rope_type=None), "0.19.0") == (
        NOTE + "the spec has no rope_type (its config's rope fields not imported)")
    assert rotary_cache_bytes(_with(llama, rope_type=None), "0.19.0") == 0


def test_a_scaling_not_read_is_not_booked_whatever_its_fields() -> None:
    """A dynamic-NTK llama with a factor and an original length: neither linear nor YaRN, so no
    rows (linear or YaRN would give 4,096 x 2 = 8,192); YaRN without the original length, or
    without a factor: not booked either."""
    llama = load_model("llama-2-7b")
    dynamic = _with(llama, rope_type="dynamic", rope_factor=2.0, rope_original_positions=4096)
    assert rotary_cache_bytes(dynamic, "0.19.0") == 0
    assert rotary_cache_note(dynamic, "0.19.0") == NOTE + "rope_type 'dynamic' not read"
    no_original = _with(llama, rope_type="yarn", rope_factor=2.0, rope_original_positions=None)
    assert rotary_cache_note(no_original, "0.19.0") == NOTE + "rope_type 'yarn' not read"
    no_factor = _with(llama, rope_type="yarn", rope_factor=None, rope_original_positions=4096)
    assert rotary_cache_note(no_factor, "0.19.0") == NOTE + "rope_type 'yarn' not read"


def test_mla_needs_yarn_a_factor_and_an_original_length() -> None:
    """DeepSeek-V3's cache is DeepSeek YaRN only (deepseek_v2.py sets rope_type deepseek_yarn):
    plain rope_type, a missing factor, a missing original length or a missing MLA block are not
    read, and say so."""
    ds = load_model("deepseek-v3")
    assert rotary_cache_note(_with(ds, rope_type="default"), "0.19.0") == (
        NOTE + "deepseek_v3 with rope_type 'default' not read")
    assert rotary_cache_note(_with(ds, rope_factor=None), "0.19.0") == (
        NOTE + "deepseek_v3 with rope_type 'yarn' not read")
    assert rotary_cache_note(_with(ds, rope_original_positions=None), "0.19.0") == (
        NOTE + "deepseek_v3 with rope_type 'yarn' not read")
    no_mla = _with(ds, attention=ds.attention.model_copy(update={"mla": None}))
    assert rotary_cache_note(no_mla, "0.19.0") == NOTE + "deepseek_v3 with rope_type 'yarn' not read"
    assert rotary_cache_bytes(no_mla, "0.19.0") == 0
