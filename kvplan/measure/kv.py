"""`--measure` stage 2: KV bytes per token, from a real prefill's cache (and a sliding window's
steady state)."""

from __future__ import annotations

from kvplan.measure.compare import Figure
from kvplan.measure.session import Session
from kvplan.measure.tensors import _cache_bytes, _LayerShape, _number, _storage_bytes, _token_bytes


class KvStage(Session):
    """Measures what the cache holds per token."""

    def kv_per_token(self) -> None:
        t, att = self.t, self.spec.attention
        window = att.sliding_window_tokens if self.pred.tokens_held_per_sliding_layer else None
        limit = 2048 if t.cuda else 32
        # inside the window (a dynamic sliding layer keeps window - 1 tokens once it is reached)
        tokens = min(self.context, limit, window - 1 if window else self.context)
        batch = 2
        ids = self._ids(batch, tokens)
        cache = self._new_cache(static=False)
        t.release()
        before = t.allocated()
        out = self._forward(ids, cache)
        del out
        t.sync()
        after = t.allocated()
        held = batch * tokens
        per_token = _cache_bytes(cache) / held
        self.shapes = [
            _LayerShape(layer.keys.shape[1], layer.keys.shape[-1], layer.values.shape[1],
                        layer.values.shape[-1])
            for layer in cache.layers
        ]
        self.cache_dtype = cache.layers[0].keys.dtype
        alloc = None if before is None or after is None else (after - before) / held
        kind = "MLA latent" if att.mla is not None else "keys + values"
        self.figures += [
            Figure("kv_bytes_per_token", f"KV per token ({kind}, tensors)", "B",
                   self.pred.kv_bytes_per_token, _number(per_token),
                   note=f"prefill of {batch} x {tokens:,} tokens, {len(self.shapes)} layers"),
            Figure("kv_bytes_per_token_allocator", "KV per token (allocator)", "B",
                   self.pred.kv_bytes_per_token, None if alloc is None else _number(alloc),
                   note="" if t.cuda else "n/a on the CPU: from the tensors only"),
        ]
        if att.mla is not None:
            self.notes.append(
                "transformers caches the MLA latent but expands it to full keys and values for "
                "every head inside attention: a per-layer transient the plan does not count"
            )
        del cache
        t.release()
        if window is not None and window + 64 <= self.spec.max_context_tokens:
            self._sliding(window)

    def _sliding(self, window: int) -> None:
        tokens = window + 64
        if not self.t.cuda and tokens > 4096:
            self.notes.append("sliding window past 4,096 tokens: not measured on the CPU")
            return
        cache = self._new_cache(static=False)
        out = self._forward(self._ids(1, tokens), cache)
        out = self._forward(self._ids(1, 1), cache)  # one decode step: the steady state
        del out
        sliding = [layer for layer, slides in zip(cache.layers, cache.is_sliding, strict=True)
                   if slides]
        # tokens the layer keeps allocated (its storage), and the tokens attention sees (shape)
        held = max(_storage_bytes([x.keys]) // _token_bytes(x.keys) for x in sliding)
        visible = max(x.keys.shape[-2] for x in sliding)
        self.figures.append(
            Figure("sliding_tokens_held", "sliding layer: tokens held", "tokens", window, held,
                   note=f"allocated after a {tokens:,}-token prompt and one decode step "
                        f"(window {window:,}; attention sees {visible:,} cached + the new one)")
        )
        del cache
        self.t.release()
