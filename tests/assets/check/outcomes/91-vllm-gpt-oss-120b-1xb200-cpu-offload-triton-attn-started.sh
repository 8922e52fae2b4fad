#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/33572 ("[Bug]: GPT-OSS with CPU KV cache offload break with
#   FlashInfer"), description by cquil11, 2026-02-02: after the script of file 90, "Note that setting
#   `--attention-backend TRITON_ATTN`, the server runs with the same settings." This server started, the outcome
#   recorded here.
# RECONSTRUCTED: the post's script (file 90, copied verbatim) with `--attention-backend TRITON_ATTN` added as the last
#   option, the one change the post names; nothing else differs.
# GPU: "NVIDIA B200" (collect_env) -> 91-...kvplan.yaml names b200.
# Release: as file 90 (not in the excerpt read; the 0.15 series by date, an inference). The script names no release.

cat > config.yaml << EOF
kv-cache-dtype: fp8
compilation-config: '{"pass_config":{"fuse_allreduce_rms":true,"eliminate_noops":true}}'
async-scheduling: true
max-cudagraph-capture-size: 2048
max-num-batched-tokens: 8192
EOF

export TORCH_CUDA_ARCH_LIST="10.0"
export VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1
export PYTHONNOUSERSITE=1

vllm serve openai/gpt-oss-120b --host 0.0.0.0 --port 8888 \
--config config.yaml \
--gpu-memory-utilization 0.9 \
--tensor-parallel-size 1 \
--max-num-seqs 512 \
--kv_offloading_backend native \
--kv_offloading_size 200 \
--disable-hybrid-kv-cache-manager \
--attention-backend TRITON_ATTN
