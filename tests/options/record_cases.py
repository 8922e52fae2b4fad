"""The option walk's cases for the record commands (size, fleet and explain): the reasons each
option is refused alone on the ideal base, and the base on which each applies (its engine, an int4
cache, a MoE model, a spread of lengths, ...)."""

from __future__ import annotations

from tests.options.case_table import (
    BASE,
    CHANGES,
    OWN_OPTIONS,
    REFUSED,
    TRTCONFIG,
    VALUE,
    Case,
    alone,
    pair,
)

# the engine's own settings: refused under the base's ideal engine, applied under their own
_VLLM = ("--enforce-eager", "--kv-cache-memory-bytes", "--cpu-offload-gb", "--speculative-model",
         "--speculative-config", "--num-speculative-tokens", "--disable-custom-all-reduce",
         "--topk-topp-sampler", "--entrypoint", "--enable-extensible-kv-cache",
         "--cudagraph-capture-sizes", "--max-cudagraph-capture-size", "--cudagraph-mode",
         "--disable-hybrid-kv-cache-manager", "--chunked-local-hybrid")
_SGLANG = ("--cuda-graph-max-bs", "--max-total-tokens", "--attention-backend",
           "--mm-feature-transport", "--speculative-algorithm", "--speculative-num-steps",
           "--speculative-eagle-topk", "--speculative-num-draft-tokens", "--moe-dense-tp-size",
           "--enable-dp-lm-head", "--moe-a2a-backend")
_TRTLLM = ("--max-tokens-in-paged-kv-cache", "--trtllm-config", "--trt-activation-bytes",
           "--trtllm-backend")
# a STANDALONE draft on SGLang 0.5.5 with the three shapes stated (topk 2: SGLang keeps the
# stated draft tokens only when topk is above 1; 2 is another value for each)
_SPEC_BASE = ("--engine-version", "0.5.5", "--speculative-algorithm", "STANDALONE",
              "--speculative-model", "llama-3.2-1b", "--speculative-num-steps", "3",
              "--speculative-eagle-topk", "3", "--speculative-num-draft-tokens", "6")
_ENGINE_OWN_NAMES = {"--page-size": "sglang and trtllm's name", "--chunked-prefill-size":
                     "sglang's name", "--max-running-requests": "sglang's name",
                     "--max-batch-size": "trtllm's name", "--max-num-tokens": "trtllm's name",
                     "--max-seq-len": "trtllm's name", "--tokens-per-block": "trtllm's name",
                     "--free-gpu-memory-fraction": "trtllm's name"}
# each option alone on the ideal base: refused with this reason
_ALONE_REFUSED_RECORD: dict[str, str] = {
    "--ep": "expert parallelism applies to mixture-of-experts models; llama-3-8b has no experts",
    "--engine-version": "read only by an engine profile",
    "--max-num-batched-tokens": "read only by an engine profile",
    "--max-num-seqs": "the ideal profile never caps the sequences",
    "--kv-group-size": "only an int4 cache has groups of values sharing a scale",
    "--nodes": "a replica of 1 GPU(s) (tensor 1 x pipeline 1) cannot span 2 servers",
    "--limit-mm-per-prompt": "only vllm reads it, not ideal",
    "--attention-dp": "kvplan models it for sglang only, not ideal",
    **{f: "only vllm reads it, not ideal; add --engine vllm" for f in _VLLM},
    "--speculative-model": "only vllm and sglang read it, not ideal; add --engine vllm",
    "--tp-transport": "only vllm reads it, not ideal: it books no tensor-parallel buffers; add "
                      "--engine vllm",
    **{f: "only sglang reads it, not ideal; add --engine sglang" for f in _SGLANG},
    **{f: "only trtllm reads it, not ideal; add --engine trtllm" for f in _TRTLLM},
    **{f: f"{f} is {why}" for f, why in _ENGINE_OWN_NAMES.items()},
}
_TRAFFIC_ALONE_REFUSED = {
    "--peak-to-mean": "it scales a mean arrival rate to the peak",
    "--risk": "an overflow risk needs a spread of lengths",
    **{f: "give mean, at least two of p50/p95/p99, or a sample file"
       for f in ("--context-p50", "--context-p95", "--context-p99")},
}
_MEASURE_ONLY = ("--device", "--tolerance", "--time-limit", "--layers")


def record_cases(command: str, options: list[str]) -> list[Case]:
    """size, fleet and explain: every record flag alone on the ideal base, and each one that
    is refused there again where it applies (its engine, an int4 cache, a MoE model, ...)."""
    refused = dict(_ALONE_REFUSED_RECORD)
    for f in _MEASURE_ONLY:
        refused[f] = f"{f} applies only with --measure"
    if command != "size":
        refused.update(_TRAFFIC_ALONE_REFUSED)
    if command == "fleet":
        refused["--search-gpus"] = "applies only with --search"
        refused["--top"] = "applies only with --search"
        for f in ("--arrival-rate", "--mean-duration-s"):
            refused[f] = "give peak_concurrent_users or an arrival rate, not both"
    if command == "explain":
        for f in ("--arrival-rate", "--mean-duration-s"):
            refused[f] = "arrival_rate_per_s and mean_duration_s go together"
        refused["--format"] = "explain prints a table or json; use --format table or --format json"
    walked = [o for o in options if o not in OWN_OPTIONS.get(command, ()) and o not in (
        "--output", "--save") and (o != "--format" or command == "explain")]
    cases = alone(command, refused, walked)
    vllm, sglang, trtllm = ("--engine", "vllm"), ("--engine", "sglang"), ("--engine", "trtllm")
    pairs = [
        ("--engine-version", vllm, "--engine-version", "0.10.2"),
        ("--max-num-batched-tokens", vllm, "--max-num-batched-tokens", "2048"),
        ("--max-num-seqs", sglang, "--max-num-seqs", "8"),  # caps SGLang's users
        ("--kv-group-size", ("--kv-dtype", "int4"), "--kv-group-size", "32"),
        ("--nodes", ("--tp", "2"), "--nodes", "2"),
        ("--enforce-eager", vllm, "--enforce-eager"),
        ("--kv-cache-memory-bytes", vllm, "--kv-cache-memory-bytes", "10737418240"),
        ("--cpu-offload-gb", vllm, "--cpu-offload-gb", "2"),
        ("--speculative-model", vllm, "--speculative-model", "llama-3.2-1b",
         "--num-speculative-tokens", "4"),
        ("--num-speculative-tokens", (*vllm, "--speculative-model", "llama-3.2-1b",
                                      "--num-speculative-tokens", "2"),
         "--num-speculative-tokens", "6"),
        ("--speculative-config", vllm, "--speculative-config", VALUE["--speculative-config"][0]),
        # on the default H100 (SXM: the NVLink term by its label) at TP 2: host books the
        # one-GPU growth; --disable-custom-all-reduce takes custom all-reduce's 16 MiB off on a
        # release that snapshots before the TP set-up (0.10; from 0.11 its buffers precede the
        # snapshot and the term does not hold them, task h31tpterm)
        ("--tp-transport", (*vllm, "--tp", "2"), "--tp-transport", "host"),
        ("--disable-custom-all-reduce", (*vllm, "--tp", "2", "--engine-version", "0.10.2"),
         "--disable-custom-all-reduce"),
        # vLLM 0.10's profiling sampler: FlashInfer's 16 B a logit instead of the sort's 38 B
        # (256 rows x 128,256 x 22 B more pool on llama-3-8b; tests/engines/
        # test_topk_topp_sampler_setting.py)
        ("--topk-topp-sampler", (*vllm, "--engine-version", "0.10.0"), "--topk-topp-sampler",
         "flashinfer"),
        # the offline LLM class's 16,384 batched tokens on the H100 (serve: 8,192); the pool
        # keeps the sampler's peak on llama-3-8b, the plan names the defaults it applied
        # (tests/engines/test_vllm_entrypoint.py moves the pool on Llama-3.1-70B)
        ("--entrypoint", vllm, "--entrypoint", "offline"),
        # vLLM 0.34's extensible KV cache turned off: 0.33's sizing at 0.92 utilization (the on
        # spelling is the default release's own default)
        ("--enable-extensible-kv-cache", vllm, "--no-enable-extensible-kv-cache"),
        # stated CUDA-graph capture (task h43capsz): fewer graphs booked, a larger pool
        ("--cudagraph-capture-sizes", vllm, "--cudagraph-capture-sizes", "1,2,4"),
        ("--max-cudagraph-capture-size", vllm, "--max-cudagraph-capture-size", "64"),
        ("--cudagraph-mode", vllm, "--cudagraph-mode", "PIECEWISE"),
        ("--page-size", sglang, "--page-size", "32"),
        ("--chunked-prefill-size", sglang, "--chunked-prefill-size", "4096"),
        ("--cuda-graph-max-bs", sglang, "--cuda-graph-max-bs", "256"),
        ("--max-running-requests", sglang, "--max-running-requests", "8"),
        ("--max-total-tokens", sglang, "--max-total-tokens", "100000"),
        # speculative decoding (task h90sglspec): NGRAM's 48 running requests cap the users;
        # the three draft shapes move the draft headroom of SGLang 0.4.3.post4-0.5.6 (each
        # given again over a stated set: SGLang takes all three or none)
        ("--speculative-algorithm", sglang, "--speculative-algorithm", "NGRAM"),
        *((flag, (*sglang, *_SPEC_BASE), flag, "2") for flag in (
            "--speculative-num-steps", "--speculative-eagle-topk",
            "--speculative-num-draft-tokens")),
        ("--max-batch-size", trtllm, "--max-batch-size", "8"),
        ("--max-num-tokens", trtllm, "--max-num-tokens", "4096"),
        ("--max-seq-len", trtllm, "--max-seq-len", "4096"),
        ("--tokens-per-block", trtllm, "--tokens-per-block", "64"),
        ("--free-gpu-memory-fraction", trtllm, "--free-gpu-memory-fraction", "0.8"),
        ("--max-tokens-in-paged-kv-cache", trtllm, "--max-tokens-in-paged-kv-cache", "100000"),
        ("--trtllm-config", trtllm, "--trtllm-config", TRTCONFIG),
        # a TensorRT engine's setting: applied on the engine path (before 1.0); the default
        # 1.3.0 is the PyTorch backend, which refuses it (tests/engines/test_flag_effects.py)
        ("--trt-activation-bytes", (*trtllm, "--engine-version", "0.13.0"), "--trt-activation-bytes",
         "1811942912"),
        # the default 1.3.0 is the PyTorch backend (1.58 GiB outside torch); a TensorRT engine
        # books 0.75 GiB (tests/engines/test_trtllm_backend.py)
        ("--trtllm-backend", trtllm, "--trtllm-backend", "tensorrt"),
    ]
    for opt, context, *extra in pairs:
        if opt in options:
            cases.append(pair(command, opt, tuple(context), *extra))
    moe = (command, "qwen3-30b-a3b", *BASE[command][2:])
    cases.append(pair(command, "--ep", (), "--ep", "2", base=moe))  # 2 ranks beyond TP 1
    cases.append(Case(command, "--ep", (*moe, "--tp", "2", "--ep", "2"), REFUSED,
                      "up to the tensor-parallel size (2) the experts are split over the same "
                      "GPUs either way"))
    if "--attention-backend" in options:  # on ROCm, unstated is SGLang's default aiter, which
        # derates above 8,192 tokens; triton lifts the derate (1,237,743 vs 1,033,625 tokens:
        # tests/engines/test_attention_backend.py)
        cases.append(pair(command, "--attention-backend",
                          (*sglang, "--gpu", "mi300x", "--context", "32768"),
                          "--attention-backend", "triton",
                          base=(command, "llama-3.1-8b", *BASE[command][2:])))
    if "--disable-hybrid-kv-cache-manager" in options:  # gpt-oss-20b's 12 sliding layers cached
        # as full (tests/engines/test_vllm_disable_hybrid.py); llama-3-8b has none: moot
        cases.append(pair(command, "--disable-hybrid-kv-cache-manager", vllm,
                          "--disable-hybrid-kv-cache-manager",
                          base=(command, "gpt-oss-20b", *BASE[command][2:])))
        cases.append(Case(command, "--disable-hybrid-kv-cache-manager",
                          (*BASE[command], *vllm, "--disable-hybrid-kv-cache-manager"), REFUSED,
                          "has no sliding-window layers beside full-attention ones"))
    if "--attention-dp" in options:  # SGLang's data-parallel attention and its shards
        # (tests/engines/test_sglang_dp.py): Kimi-K2 over 32 H100s; on llama-3-8b each is moot
        kimi = (command, "kimi-k2", *BASE[command][2:], "--engine", "sglang", "--gpu", "h100",
                "--tp", "32", "--nodes", "4", "--context", "32768")
        cases += [pair(command, "--attention-dp", (), "--attention-dp", "32", base=kimi),
                  pair(command, "--moe-dense-tp-size", ("--attention-dp", "32"),
                       "--moe-dense-tp-size", "1", base=kimi),
                  pair(command, "--enable-dp-lm-head", ("--attention-dp", "32"),
                       "--enable-dp-lm-head", base=kimi),
                  pair(command, "--moe-a2a-backend", ("--attention-dp", "32"),
                       "--moe-a2a-backend", "deepep", base=kimi),
                  Case(command, "--enable-dp-lm-head", (*BASE[command], *sglang,
                                                        "--enable-dp-lm-head"), REFUSED,
                       "without data-parallel attention SGLang turns it off"),
                  Case(command, "--moe-dense-tp-size", (*BASE[command], *sglang, "--tp", "2",
                                                        "--moe-dense-tp-size", "1"), REFUSED,
                       "has no dense MLP layers that SGLang builds by it"),
                  Case(command, "--moe-a2a-backend", (*BASE[command], *sglang,
                                                      "--moe-a2a-backend", "deepep"), REFUSED,
                       "llama-3-8b has no experts")]
    if "--chunked-local-hybrid" in options:  # Llama-4-Scout's 36 chunked layers kept grouped
        # (tests/engines/test_vllm_hybrid_off.py); llama-3-8b has none: moot
        cases.append(pair(command, "--chunked-local-hybrid", vllm, "--chunked-local-hybrid",
                          base=(command, "llama-4-scout", *BASE[command][2:], "--tp", "4",
                                "--context", "131072")))
        cases.append(Case(command, "--chunked-local-hybrid",
                          (*BASE[command], *vllm, "--chunked-local-hybrid"), REFUSED,
                          "has no chunked local attention"))
    mm = (command, "qwen2.5-vl-7b", *BASE[command][2:], "--engine", "vllm")
    if "--mm-feature-transport" in options:  # a multimodal model's GPU feature pool, 1,024 MiB
        # out of the KV budget from 0.5.18 (tests/engines/test_sglang_mm.py)
        cases.append(pair(command, "--mm-feature-transport", sglang, "--mm-feature-transport",
                          "cuda_ipc", base=(*mm[:-2], "--engine", "sglang")))
    if "--limit-mm-per-prompt" in options:
        cases.append(pair(command, "--limit-mm-per-prompt", (), "--limit-mm-per-prompt", "0",
                          base=mm))
    if command != "size":  # the traffic flags where they apply
        spread = ("--avg-context", "2000")
        cases += [
            pair(command, "--context-p50", spread, "--context-p50", "1200",
                 "--context-p95", "6000"),
            pair(command, "--context-p95", spread, "--context-p95", "6000"),
            pair(command, "--context-p99", spread, "--context-p99", "7000"),
            pair(command, "--risk", (*spread, "--context-p95", "6000"), "--risk", "0.05"),
            Case(command, "--risk", (*BASE[command], *spread, "--context-p95", "6000",
                                     "--allocation", "reserved", "--risk", "0.05"), REFUSED,
                 "a reserved cache sets aside the full context for every conversation"),
        ]
        rate = (command, "llama-3-8b", "--arrival-rate", "10", "--mean-duration-s", "300",
                *BASE[command][-2:])
        cases += [Case(command, "--arrival-rate", rate, CHANGES),
                  Case(command, "--mean-duration-s", rate, CHANGES),
                  pair(command, "--peak-to-mean", (), "--peak-to-mean", "1.5", base=rate)]
    if command == "explain":
        cases.append(Case(command, "--format", ("explain", "llama-3-8b", "-f", "table"),
                          CHANGES))
    return cases

