#!/usr/bin/env bash
# Source: https://github.com/SemiAnalysisAI/InferenceX/issues/1587 ("[vLLM] Missing --max-model-len guard for
#   offload-disabled agentic runs causes KV cache OOM on H100"), description by Aavache, 2026-05-29: "When running
#   Kimi-K2.5 INT4 agentic benchmarks with vLLM on 8xH100 (TP=8) without CPU offloading, the engine crashes immediately
#   at startup due to insufficient KV cache memory. The server never starts and all TP workers are terminated.",
#   pointing at benchmarks/single_node/agentic/kimik2.5_int4_h100.sh and .github/configs/nvidia-master.yaml#L9195 at
#   commit c9798a7708826dd4ead79acad4500000f72d5576; "To Reproduce ... 2. Set offloading to `none` ... 3. Do not set
#   `--max-model-len` in the `vllm serve` command 4. Observe engine crash at startup"; "Root cause: without
#   `--max-model-len`, vLLM defaults to the model's full context length (262,144 tokens), which requires 8.58 GiB of KV
#   cache." This server failed at start (KV cache memory), the outcome recorded here.
# RECONSTRUCTED: the script at c9798a77 runs `vllm serve $MODEL ... --tensor-parallel-size $TP --max-num-seqs $CONC
#   ... $OFFLOAD_ARGS` with values its harness sets. The harness's values are those of nvidia-master.yaml@c9798a77,
#   key kimik2.5-int4-h100-vllm (lines 9178-9195): image vllm/vllm-openai:v0.20.2, model moonshotai/Kimi-K2.5,
#   search space `{ tp: 8, offloading: none, conc-list: [1, 2, 4, 8, 12, 16, 20] }`; PORT=${PORT:-8888} in the script;
#   OFFLOADING=none leaves OFFLOAD_ARGS empty (the script's `case`). The command below is the script's `vllm serve`
#   line with those values written in (CONC 1, the first of the list; the issue says the crash comes at start for the
#   sweep), as a `docker run` of the key's image (the harness runs the script inside it), the script's two
#   `export`s as `-e`. Every option is the script's, in its order.
# GPU: "8xH100 (TP=8)" (the issue; runner h100 in the config) -> 88-...kvplan.yaml names h100.
# Release: vLLM 0.20.2 (the config's image tag, carried by the docker run).
docker run --gpus all --ipc=host -e PYTHONNOUSERSITE=1 -e VLLM_USE_FLASHINFER_MOE_INT4=1 vllm/vllm-openai:v0.20.2 \
  moonshotai/Kimi-K2.5 \
  --host 0.0.0.0 \
  --port 8888 \
  --gpu-memory-utilization 0.95 \
  --tensor-parallel-size 8 \
  --max-num-seqs 1 \
  --reasoning-parser kimi_k2 \
  --tool-call-parser kimi_k2 \
  --compilation_config.pass_config.fuse_allreduce_rms true \
  --kv-cache-dtype fp8 \
  --trust-remote-code
