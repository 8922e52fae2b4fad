"""SGLang start-up lines kvplan reads."""

from __future__ import annotations

import re

from kvplan.calibrate.lines import NUM, Run, _f, pattern, setting, values

# --- SGLang -----------------------------------------------------------------------------------
values("sglang", r"Load weight begin\. avail mem=" + NUM + r" GB", "before_gib")


@pattern("sglang", r"Load weight end\..*?avail mem=" + NUM + r" GB")
def _s_after(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("after_gib", _f(m[1]), n, t)
    usage = re.search(r"mem usage=" + NUM + " GB", t)
    if usage:
        r.put("weights_gib", _f(usage[1]), n, t)
        r.values.setdefault("before_gib", _f(m[1]) + _f(usage[1]))
        r.lines.setdefault("before_gib", (n, t.strip()))


@pattern("sglang", r"KV Cache is allocated\.(?: dtype: \S+,)?(?: #tokens: (\d+),)? K size: " + NUM
         + r" GB, V size: " + NUM + " GB")
def _s_kv(r: Run, m: re.Match[str], n: int, t: str) -> None:
    if m[1]:
        r.put("tokens", _f(m[1]), n, t)
    r.put("kv_gib", _f(m[2]) + _f(m[3]), n, t)


@pattern("sglang", r"KV Cache is allocated\.(?: dtype: \S+,)? #tokens: (\d+), KV size: " + NUM + " GB")
def _s_kv_mla(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # MLA pools (DeepSeek/Kimi shapes) keep one latent per token and log one size, not K and V.
    r.put("tokens", _f(m[1]), n, t)
    r.put("kv_gib", _f(m[2]), n, t)


@pattern("sglang", r"max_total_num_tokens=(\d+)")
def _s_tokens(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("tokens", _f(m[1]), n, t)
    ctx = re.search(r"context_len=(\d+)", t)
    if ctx:
        r.settings.setdefault("max_model_len", ctx[1])


_SERVER_ARGS = (("mem_fraction_static", r"mem_fraction_static=([\d.]+)"),
                ("tp", r"tp_size=(\d+)"), ("model", r"model_path='([^']+)'"),
                ("chunked_prefill_size", r"chunked_prefill_size=(\d+)"),
                ("cuda_graph_max_bs", r"cuda_graph_max_bs=(\d+)"),
                ("max_running_requests", r"max_running_requests=(\d+)"),
                ("max_tokens", r"max_total_tokens=(\d+)"),
                ("page_size", r"page_size=(\d+)"),
                ("attention_backend", r"(?<![_a-z])attention_backend='(\w+)'"),
                ("mm_feature_transport", r"mm_feature_transport='(\w+)'"),
                # speculative decoding (kvplan.engines.sglang_spec), resolved values
                ("speculative_algorithm", r"speculative_algorithm='(\w+)'"),
                ("speculative_model", r"speculative_draft_model_path='([^']+)'"),
                ("speculative_num_steps", r"speculative_num_steps=(\d+)"),
                ("speculative_eagle_topk", r"speculative_eagle_topk=(\d+)"),
                ("speculative_num_draft_tokens", r"speculative_num_draft_tokens=(\d+)"))


@pattern("sglang", r"server_args=ServerArgs\((.*)")
def _s_args(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.read_settings(m[1], _SERVER_ARGS)
    # a field the line states, but not as a value kvplan reads: said, not set aside in silence
    # (task h90hostile: mem_fraction_static=abc left the default fraction, +9.92% on log 361)
    for _, rx in _SERVER_ARGS:
        name = rx.removeprefix("(?<![_a-z])").split("=", 1)[0]
        given = re.search(rf"(?<![_a-z]){name}=([^,)]*)", m[1])
        if given and given[1].strip() != "None" and not re.search(rx, m[1]):
            r.overridden.append(f"line {n}: ServerArgs {name}={given[1].strip()[:40]} is not a "
                                "value kvplan reads there: planned as if the log did not state "
                                "it")


setting("sglang", r"Attention backend not (?:specified|set)\. Use (\w+) backend by default",
        "attention_backend")
setting("sglang", r"changing page_size from \w+ to (\d+)", "page_size")


values("sglang", r"Memory pool end\. avail mem=" + NUM + " GB", "pool_end_gib")


@pattern("sglang", r"Capture (?:piecewise )?cuda graph (?:begin|end)")
def _s_graphs(r: Run, m: re.Match[str], n: int, t: str) -> None:
    usage = re.search(r"mem usage=" + NUM + " GB", t)
    if usage:
        r.put("graphs_after_gib", r.values.get("graphs_after_gib", 0.0) + _f(usage[1]), n, t)
