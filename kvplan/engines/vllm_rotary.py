"""vLLM's rotary cos/sin cache: a GPU buffer every RoPE model builds while it loads.

Read in the vLLM wheels 0.2.5, 0.4.1, 0.5.5, 0.6.6, 0.7.3, 0.8.5, 0.10.2, 0.19.0 and 0.33.0
(task h39rope; Llama 4 first in 0.19.0, task h37llama4):

- The buffer. `RotaryEmbedding.__init__` computes `cache = torch.cat((cos, sin), dim=-1)` in
  float32 (max_position rows x rotary_dim), casts it and registers it as a non-persistent buffer:
  `cache.to(torch.get_default_dtype())` (0.2.5 and 0.4.1 rotary_embedding.py:65-66),
  `cache.to(dtype)` with get_rope's `dtype` defaulting to `torch.get_default_dtype()`
  (0.5.5 rotary_embedding.py:89-90 and :782; 0.10.2 rotary_embedding/base.py:35-37 and
  __init__.py:36; 0.19.0 base.py:58-63 and __init__.py:38; 0.33.0 base.py:58-63 and :42). The
  model is built under the served dtype, so the cache is 2 B a value; not a checkpoint weight,
  but allocated inside `load_model`, so "Model loading took" includes it and it leaves the pool
  with the weights.
- One a rank. get_rope caches instances in `_ROPE_DICT` by (head size, rotary dim, max position,
  base or rope parameters, ..., dtype) (0.5.5 :772; 0.10.2 __init__.py:59; 0.19.0 :68): every
  layer of a rank shares one, whatever the TP size; a model with two rope configs holds two.
- Its rows. Plain RoPE and Llama 3's scaling (which only rescales frequencies): max_position.
  Linear scaling: max_position x factor (`max_len = self.max_position_embeddings *
  scaling_factor`: 0.2.5 :176, 0.4.1 :189, 0.5.5 :319, 0.10.2 linear_scaling_rope.py:90,
  0.19.0 and 0.33.0 :90). YaRN: get_rope passes `original_max_position_embeddings` and the class
  builds original x factor rows (0.5.5 :480 and :829-840; 0.10.2 yarn_scaling_rope.py:62; 0.19.0
  :77; 0.33.0 :78). DeepSeek's MLA (deepseek_v2.py sets rope_type `deepseek_yarn`: 0.5.5 :244,
  0.10.2 :409/:568, 0.19.0 :506, 0.33.0 :546) builds DeepseekScalingRotaryEmbedding over
  qk_rope_head_dim with original x factor rows (0.5.5 :671; 0.10.2 deepseek_scaling_rope.py:82;
  0.19.0 :104; 0.33.0 :105). MRoPE (Qwen2.5-VL, Qwen3-VL) enlarges max_position 4 times "to get a
  larger cos and sin cache" for video positions: from 0.7.3 (rotary_embedding.py:784; 0.8.5
  :946; 0.10.2 mrope.py:196; 0.19.0 mrope.py:238), not in 0.6.6 (:770, no enlargement); 0.33.0
  keeps 4 for Qwen2.5-VL (mrope.py:351 `positions_factor=4`) and gives Qwen3-VL 1 unless video
  pruning is on (qwen3_vl.py:1818 `mrope_positions_factor`); 0.34.0 the same (mrope.py:350,
  qwen3_vl.py:1821; base.py and __init__.py byte for byte 0.33.0's; task h41v034).
- Its width: head_dim, or int(head_dim x partial_rotary_factor) where the model passes it
  (qwen3_next.py 0.10.2 :681 and glm4_moe.py :266; 0.19.0 get_rope reads it from
  rope_parameters, __init__.py:56-58, which transformers_utils/config.py:402-403 fills from the
  config); MLA: qk_rope_head_dim.
- Which max_position: the config's max_position_embeddings in every model file read (llama.py,
  qwen2.py, qwen3.py, qwen3_moe.py, mixtral.py, granite.py, gemma*.py, glm4_moe.py,
  qwen3_next.py, gpt_oss.py, deepseek_v2.py in 0.5.5-0.33.0 where they exist; llama.py also in
  0.2.5 and 0.4.1): the spec's max_context_tokens, imported from it.
- Two caches: Gemma 3's sliding layers use `rope_local_base_freq` with plain RoPE and the global
  layers the config's rope_scaling (gemma3.py 0.8.5 :155-169, 0.10.2 :156-170, 0.19.0
  :167-185), distinct keys. gpt-oss asks for a float32 cache (gpt_oss.py 0.10.2 :59, 0.19.0
  :85, 0.33.0 :114): 4 B a value.

- Kimi-K2.5 (kimi_k25, task kimivllm; read in the 0.15.0, 0.16.0, 0.19.1, 0.20.0-0.25.0, 0.27.1,
  0.28.0, 0.30.0 and 0.32.0-0.34.0 wheels; 0.14.1 has no kimi_k25.py, so 0.15.0 is the first
  release): the text stack is DeepSeek-V2's over the config's text_config, so its one cache is
  DeepSeek's MLA cache above. 0.15.0 builds `DeepseekV2Model(vllm_config=sub_vllm_config)` with
  hf_config replaced by text_config (kimi_k25.py:343-350); 0.16.0 on build
  `init_vllm_registered_model(hf_config=config.text_config, architectures=
  ["DeepseekV2ForCausalLM"])` (0.16.0 :385-390, 0.19.1 :357-362, 0.34.0 :376-380);
  deepseek_v2.py turns the yarn rope_type into deepseek_yarn and calls get_rope over
  qk_rope_head_dim with max_position_embeddings (0.15.0 and 0.16.0 :483-495 and :809-821,
  0.34.0 :542-554 and :1115-1127). Kimi-K2.5's text_config: qk_rope_head_dim 64, yarn factor 64 over
  original_max_position_embeddings 4,096: 262,144 rows x 64 x 2 B = 33,554,432 B a rank. kvplan
  refuses kimi_k25 on vLLM before 0.15.0 (kvplan.engines.vllm_model_releases).

Not booked (stated by `kvplan explain`): model types whose model file was not read here
(ChatGLM, Falcon, Phi-1.5, ...), longrope (Phi-3.5/Phi-4-mini: a short and a long
cache), dynamic NTK and other scalings no catalog model uses, partial rotary on other types,
releases older than 0.2.5, MRoPE in 0.7.0-0.7.2 and Qwen3-VL after 0.19.0 before 0.33.0 (the
enlargement not placed). Also not booked: Qwen2.5-VL's and Qwen3-VL's vision-tower rope (0.19.0
get_rope over 8,192 positions at half the tower's head: under 1 MiB), and the float32 MLA cache
0.19.0+ keeps where FlashInfer's rope is enabled (deepseek_scaling_rope.py:60-66: a custom op,
off under torch.compile by default). Nor Kimi-K2.5's MoonViT 2D rope: `Rope2DPosEmbRepeated`
over 512 x 512 positions at the tower's head (1,152 / 16 = 72: 36 complex64 values, 8 B each),
75,497,472 B a rank, registered as a buffer on the tower's first forward (`get_freqs_cis`: "if
not hasattr(self, 'freqs_cis')", kimi_k25_vit.py:276-279 in 0.15.0, :278-281 in 0.34.0; the 512
x 512 grid :472-474 in 0.15.0, :530-532 in 0.34.0), so not while loading: it is built in the
start-up profile's dummy encoder pass, which kvplan does not model for kimi_k25
(kvplan.engines.encoder_cache.encoder_cache_note says so).
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.engines.activation import ACT_BYTES
from kvplan.engines.interface import parse_version
from kvplan.engines.vllm_model_releases import first_release
from kvplan.specs.schema import ModelSpec

PLAIN_TYPES = frozenset({"llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "granite",
                         "gemma", "gemma2", "phi3", "llama4"})
PARTIAL_TYPES = frozenset({"qwen3_next", "glm4_moe"})  # pass partial_rotary_factor
MROPE_TYPES = frozenset({"qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe"})
MLA_TYPES = frozenset({"deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25"})
GEMMA3_TYPES = frozenset({"gemma3", "gemma3_text"})
FP32_TYPES = frozenset({"gpt_oss"})  # gpt_oss.py get_rope(..., dtype=torch.float32)
NO_ROPE_TYPES = frozenset({"opt"})

OLDEST_READ = (0, 2, 5)
MROPE_X4_FROM = (0, 7, 3)  # the oldest read with the 4x enlargement (0.6.6 has none)
MROPE_LAST_X1 = (0, 6, 6)
QWEN3_VL_X4_TO = (0, 19, 0)  # the newest read with 4x for Qwen3-VL; 0.33.0 gives it 1
QWEN3_VL_X1_FROM = (0, 33, 0)
SAME_ROWS = frozenset({"default", "llama3", "mrope"})


@dataclass(frozen=True)
class RotaryCache:
    """One cos/sin cache a rank holds: rows x width values of value_bytes."""

    rows: int
    width: int
    value_bytes: int
    label: str = ""

    @property
    def nbytes(self) -> int:
        return self.rows * self.width * self.value_bytes

    def words(self) -> str:
        return f"{self.label}{self.rows:,} positions x {self.width} x {self.value_bytes} B"


def _rows(model: ModelSpec, kind: str) -> tuple[int, str] | str:
    """Rows of a non-MLA cache for this rope type and the words for them, or why not booked."""
    positions = model.max_context_tokens
    if kind in SAME_ROWS:
        return positions, ""
    factor = model.rope_factor
    if kind == "linear" and factor:
        return int(positions * factor), f"linear {positions:,} x {factor:g} = "
    original = model.rope_original_positions
    if kind == "yarn" and factor and original:
        return int(original * factor), f"YaRN {original:,} x {factor:g} = "
    return f"rope_type {kind!r}"


def _mrope_factor(model: ModelSpec, v: tuple[int, ...]) -> int | str:
    if v <= MROPE_LAST_X1:
        return 1
    if v < MROPE_X4_FROM:
        return "MRoPE's 4x enlargement not placed in 0.7.0-0.7.2"
    if model.model_type != "qwen2_5_vl":
        if v >= QWEN3_VL_X1_FROM:
            return 1
        if v > QWEN3_VL_X4_TO:
            return "Qwen3-VL's MRoPE enlargement not placed after 0.19.0 before 0.33.0"
    return 4


def rotary_caches(model: ModelSpec, version: str | None) -> list[RotaryCache] | str:
    """The caches a rank holds after loading, or why none is booked."""
    mt = model.model_type
    kind = model.rope_type
    if mt in NO_ROPE_TYPES:
        return []
    if kind is None:
        return "the spec has no rope_type (its config's rope fields not imported)"
    known = PLAIN_TYPES | PARTIAL_TYPES | MROPE_TYPES | MLA_TYPES | GEMMA3_TYPES | FP32_TYPES
    if mt not in known:
        return f"{mt}'s vLLM model file not read"
    from kvplan.engines.vllm_series import DEFAULT_VERSION

    v = parse_version(version or DEFAULT_VERSION) or ()
    if v < OLDEST_READ:
        return "releases before 0.2.5 not read"
    first = first_release(mt)  # kvplan.engines.vllm_model_releases refuses the plan there
    if first is not None and v[:3] < first:
        return f"{mt} has no vLLM model file before {'.'.join(map(str, first))}"
    if model.partial_rotary_factor is not None and mt not in PARTIAL_TYPES:
        return f"partial_rotary_factor on {mt} not read"
    head = model.attention.head_dim
    value = 4 if mt in FP32_TYPES else ACT_BYTES
    if mt in MLA_TYPES:
        mla = model.attention.mla
        if mla is None or kind != "yarn" or not model.rope_factor or not model.rope_original_positions:
            return f"{mt} with rope_type {kind!r} not read"
        original, factor = model.rope_original_positions, model.rope_factor
        rows = int(original * factor)
        return [RotaryCache(rows, mla.qk_rope_head_dim, value,
                            f"DeepSeek YaRN {original:,} x {factor:g} = ")]
    found = _rows(model, kind)
    if isinstance(found, str):
        return f"{found} not read"
    rows, how = found
    if mt in MROPE_TYPES:
        times = _mrope_factor(model, v)
        if isinstance(times, str):
            return times
        label = f"MRoPE {times} x {rows:,} = " if times > 1 else ""
        return [RotaryCache(rows * times, head, value, label)]
    width = int(head * model.partial_rotary_factor) if model.partial_rotary_factor else head
    if mt in GEMMA3_TYPES:
        return [RotaryCache(rows, head, value, f"global {how}"),
                RotaryCache(model.max_context_tokens, head, value, "local ")]
    return [RotaryCache(rows, width, value, how)]


def rotary_cache_bytes(model: ModelSpec, version: str | None = None) -> int:
    """Bytes of the cos/sin caches a rank holds after loading (0 where none is booked)."""
    caches = rotary_caches(model, version)
    return 0 if isinstance(caches, str) else sum(c.nbytes for c in caches)


def rotary_cache_how(model: ModelSpec, version: str | None = None) -> str:
    """The explanation's words for the booked caches ('' where none is)."""
    caches = rotary_caches(model, version)
    if isinstance(caches, str) or not caches:
        return ""
    what = " + ".join(c.words() for c in caches)
    noun = "caches" if len(caches) > 1 else "cache"
    return (f" + the rotary cos/sin {noun} {what} (vLLM get_rope's buffer over the config's "
            "positions, built while loading; one per rank)")


def rotary_cache_note(model: ModelSpec, version: str | None = None) -> str | None:
    """Why no rotary cache is booked, for a model that may have one (None where booked)."""
    caches = rotary_caches(model, version)
    if not isinstance(caches, str):
        return None
    return (f"vLLM's rotary cos/sin cache (a buffer built while loading, 1-64 MiB for most "
            f"models) is not booked: {caches}")
