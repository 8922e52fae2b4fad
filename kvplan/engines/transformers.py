"""Hugging Face transformers `generate()`: no pool, one cache per batch, and its transients.

Assumptions (transformers cache_utils.py and the Llama/Mistral attention code):
- version "dynamic" (default, DynamicCache): the cache grows by torch.cat on every step, which
  allocates the layer's new cache while the old one is still alive: one layer's cache for the
  whole batch is needed again, transiently.
- version "static" (StaticCache): the cache is preallocated at max_cache_len for every sequence
  (reserved), and attention with a mask (sdpa/eager) expands grouped KV heads to all query
  heads with repeat_kv for one layer at a time: query heads / KV heads x one layer's K and V
  (4x one layer's cache for Llama-3-8B, 32 query / 8 KV heads).
- one decode step's activations: batch x (3 x hidden + 3 x intermediate) x 2 bytes, plus the
  last token's logits in fp32 (batch x vocab x 4 bytes x 2 for the softmax copy).
- DeepSeek (MLA) layers cache the latent (kv_lora_rank + qk_rope_head_dim values per token, one
  "head" of keys and one of values), and expand it for every head inside attention
  (modeling_deepseek_v3.py `expand_kv`, transformers 5.17 and 5.24): kv_b_proj's output
  (heads x (qk_nope + v)) and the assembled keys (heads x (qk_nope + rope)) for every cached
  token of one layer are alive at once: the transient, in place of the cat copy.
- sliding-window layers keep at most the window (storage of W tokens once decoding: the kept
  W - 1 are a view of the W-token result of the last append); a model without full layers
  copies and expands one window, not the context.
- prefill peak (DynamicCache): right after the prompt's forward every sliding layer still holds
  the whole prompt's storage (the kept window is a view of the prompt's K/V) until its next
  append, so at that moment the cache is every cached layer at the full length, like a
  full-attention model; the batch is the smaller of the prefill-bound and the decode-bound
  one. StaticCache preallocates sliding layers at the window: no prefill peak.
- the prefill's own activations (the whole batch's prompt through the MLP at once) are not
  modelled: prefill in smaller batches.
- usable memory = total - CUDA context (0.5 GiB); no utilization fraction.
Users = the largest batch whose weights + caches + transients + activations fit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from kvplan.capacity.kv import Allocation, Precision
from kvplan.capacity.plan import SizeRequest
from kvplan.engines.activation import ACT_BYTES, forward_elements_per_token
from kvplan.engines.common import LayerShape, gib, stage_shape, users_steps, weights_bytes
from kvplan.engines.interface import Engine, EngineResult, EngineSettings, Steps, finish_size
from kvplan.errors import InputError
from kvplan.specs.schema import ModelSpec
from kvplan.units import MIB, ceil_div

CUDA_CONTEXT = 512 * MIB
CACHES = ("dynamic", "static")


@dataclass(frozen=True)
class BatchCost:
    """What one more sequence in the batch costs transformers at `length` tokens (bytes)."""

    shape: LayerShape
    window: int  # tokens a sliding layer holds (the context when there are no sliding layers)
    per_token_layer: int  # cache bytes per token per layer
    cache_bytes: int  # the sequence's cache, all layers
    transient_bytes: int  # the largest one-layer transient of a decode step
    transient_formula: str
    activation_bytes: int  # one decode token's activations + fp32 logits (x2)
    prefill_cache_bytes: int = 0  # the cache right after prefill (sliding layers: the prompt)

    @property
    def total_bytes(self) -> int:
        return self.cache_bytes + self.transient_bytes + self.activation_bytes

    @property
    def prefill_total_bytes(self) -> int:
        """Per sequence at the prefill peak: the prompt-long cache, the larger of the decode
        transient and one layer's prompt-long K/V (copied on store), and the activations."""
        if self.prefill_cache_bytes <= self.cache_bytes:
            return self.total_bytes
        prompt_layer = self.prefill_cache_bytes // max(1, self.shape.cached_layers)
        return self.prefill_cache_bytes + max(self.transient_bytes, prompt_layer) + (
            self.activation_bytes)


def batch_cost(
    model: ModelSpec, length: int, precision: Precision, cache: str = "dynamic",
    tp: int = 1, pp: int = 1,
) -> BatchCost:
    """Per-sequence cache, transient and activation bytes of a decode step at `length` tokens.

    Pure arithmetic shared by the profile and by `--measure`, which holds it against a real
    transformers decode.
    """
    shape = stage_shape(model, precision, tp, pp)
    att = model.attention
    per_token_layer = shape.bytes_per_token_per_layer
    window = min(length, shape.window or length)
    seq = per_token_layer * (shape.full_layers * length + shape.sliding_layers * window)
    # the longest layer decides the one-layer transients: the context, or the window when
    # every cached layer slides
    layer_tokens = length if shape.full_layers else window
    per_layer_seq = per_token_layer * layer_tokens
    if att.mla is not None:
        mla = att.mla
        nope = mla.qk_nope_head_dim or (att.head_dim - mla.qk_rope_head_dim)
        v_dim = mla.v_head_dim or att.value_head_dim
        heads = ceil_div(model.num_attention_heads, tp)
        width = heads * (nope + v_dim + nope + mla.qk_rope_head_dim)
        transient = width * precision.dtype.bits // 8 * layer_tokens
        formula = (f"one layer's latent expanded to {heads} heads: kv_b_proj output "
                   f"({nope} + {v_dim}) + keys ({nope} + {mla.qk_rope_head_dim}) per head")
    elif cache == "dynamic":
        transient = per_layer_seq
        formula = "one layer's cache, copied by torch.cat on append"
    else:
        expand = max(1, model.num_attention_heads // att.num_kv_heads)
        transient = per_layer_seq * expand
        formula = f"one layer's K and V expanded to all query heads ({expand}x)"
    act = forward_elements_per_token(model, tp) * ACT_BYTES + model.vocab_size * 4 * 2
    prefill = per_token_layer * shape.cached_layers * length if cache == "dynamic" else seq
    return BatchCost(shape, window, per_token_layer, seq, transient, formula, act, prefill)


def profile(req: SizeRequest, s: EngineSettings) -> EngineResult:
    """The largest batch `generate()` can run at max_model_len tokens per sequence."""
    req.check()
    s.check()
    cache = (s.version or "dynamic").lower()
    if cache not in CACHES:
        raise InputError(
            f"transformers engine version {s.version!r}: use dynamic (DynamicCache) or static "
            "(StaticCache)"
        )
    m = s.measured
    memory = m.memory_bytes or req.gpu.memory_bytes
    frac = s.memory_fraction if s.memory_fraction is not None else Fraction(1)
    model = req.model
    length = req.context_tokens
    cost = batch_cost(model, length, Precision(req.kv_dtype, req.kv_group_size), cache,
                      req.tp, req.pp)
    shape, window = cost.shape, cost.window
    per_token_layer, seq = cost.per_token_layer, cost.cache_bytes
    transient, t_formula = cost.transient_bytes, cost.transient_formula
    act_seq = cost.activation_bytes
    weights = weights_bytes(req, m.weights_bytes)
    nt = m.non_torch_bytes if m.non_torch_bytes is not None else CUDA_CONTEXT
    st = Steps()
    st.given("GPU memory", memory, "bytes", "device total")
    st.given("memory fraction", frac, "ratio", "share torch may use (default 1)")
    st.op("usable memory", "mul", ["GPU memory", "memory fraction"], "bytes", "floor(memory x f)")
    st.given("weights", weights, "bytes", "parameters x weight bytes / GPUs"
             if m.weights_bytes is None else "measured")
    st.given("CUDA context", nt, "bytes", "non-torch memory")
    st.op("room for the batch", "sum", ["usable memory", "-weights", "-CUDA context"], "bytes",
          "usable - weights - CUDA context")
    st.given("cache per sequence", seq, "bytes",
             f"{length:,} tokens x {shape.full_layers} full layers"
             + (f" + {window:,} x {shape.sliding_layers} sliding" if shape.sliding_layers else "")
             + f", {per_token_layer:,} B per token per layer")
    st.given("transient per sequence", transient, "bytes", t_formula)
    st.given("activations per sequence", act_seq, "bytes",
             "one decode token + fp32 logits (x2)")
    st.op("bytes per sequence", "sum", ["cache per sequence", "transient per sequence",
                                         "activations per sequence"], "bytes", "sum")
    st.op("batch (raw)", "div", ["room for the batch", "bytes per sequence"], "users",
          "floor(room / bytes per sequence)")
    batch_label = "batch (raw)"
    if cost.prefill_total_bytes > cost.total_bytes:
        st.given("prefill bytes per sequence", cost.prefill_total_bytes, "bytes",
                 f"every cached layer holding the {length:,}-token prompt until the next append"
                 " + transient + activations")
        st.op("batch (prefill-bound)", "div", ["room for the batch", "prefill bytes per sequence"],
              "users", "floor(room / prefill bytes per sequence)")
        batch_label = "batch (smaller)"
        st.op(batch_label, "min", ["batch (raw)", "batch (prefill-bound)"], "users",
              "the prefill peak or the decode steady state, whichever binds")
    batch = int(st.op("batch", "max", [batch_label, 0], "users", "never below 0"))
    kv = int(st.op("KV cache memory", "mul", ["batch", "cache per sequence"], "bytes",
                   "batch x cache per sequence"))
    tokens = int(st.op("KV cache tokens", "mul", ["batch", length], "tokens",
                       "batch x max_model_len"))
    room = st.int("room for the batch")
    starts = batch > 0
    largest = 0
    if room > 0:
        per_token = per_token_layer * shape.cached_layers
        per_token_all = per_token + (transient // length)
        largest = min(model.max_context_tokens, max(0, (room - act_seq) // per_token_all))
    reason = None if starts else (
        f"transformers would run out of memory: one sequence of {length:,} tokens needs "
        f"{gib(seq + transient + act_seq)} and {gib(room)} is left after the weights")
    assumptions = [
        f"transformers generate() with {'DynamicCache' if cache == 'dynamic' else 'StaticCache'}",
        f"transient {gib(transient)} per sequence: {t_formula}",
        "the prefill's activations not modelled (prefill the batch in smaller groups)",
    ]
    if cost.prefill_total_bytes > cost.total_bytes:
        assumptions.append(
            f"prefill peak: sliding layers hold the whole prompt until the next append "
            f"({gib(cost.prefill_total_bytes)} per sequence against {gib(cost.total_bytes)} "
            "decoding)")
    preq = replace(req, allocation=Allocation.reserved, avg_context_tokens=None)
    sized = finish_size(preq, kv, batch * (transient + act_seq) + nt, st.int("usable memory"),
                        starts, reason, largest, assumptions, weights_bytes=weights,
                        users_override=(batch, kv))
    users_steps(st, sized, "KV cache memory", starts, users_from="batch")
    return EngineResult(
        engine=Engine.transformers, engine_version=cache, size=sized, memory_bytes=memory,
        requested_bytes=st.int("usable memory"), weights_bytes=weights,
        activation_bytes=batch * (act_seq + transient),
        activation_bytes_low=batch * act_seq,
        activation_bytes_high=batch * (act_seq + transient),
        non_torch_bytes=nt, cuda_graph_bytes=0,
        kv_cache_bytes=kv, kv_cache_bytes_low=kv, kv_cache_bytes_high=kv,
        kv_cache_tokens=tokens, kv_cache_tokens_low=tokens, kv_cache_tokens_high=tokens,
        blocks=batch, block_size_tokens=length, max_model_len=length,
        max_concurrency=Fraction(batch), starts=starts, reason=reason,
        max_model_len_that_starts=largest, steps=tuple(st.items),
        assumptions=tuple(assumptions), log_lines=(),
    )
