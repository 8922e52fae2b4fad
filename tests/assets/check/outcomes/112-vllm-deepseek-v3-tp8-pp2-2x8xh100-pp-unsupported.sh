#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/11539 ("[Model] Deepseek V3 Enhancements"), comment by mphilippnv,
#   2024-12-31: "Deepseek v3 doesn't appear to support pipeline parallelism. I get this error when attempting to deploy
#   to 2 8x H100 nodes: NotImplementedError: Pipeline parallelism is only supported for the following  architectures:
#   ['AquilaForCausalLM', ..., 'DeepseekV2ForCausalLM', ..., 'Qwen2VLForConditionalGeneration']. I'm using
#   `--tensor-parallel-size 8 --pipeline-parallel-size" (the excerpt read ends there). This server did not start (a
#   config error, not memory), the outcome recorded here.
# RECONSTRUCTED: the comment gives two flags, the second's value cut; the command below is `vllm serve` of the thread's
#   model (deepseek-ai/DeepSeek-V3, the issue's subject) with `--tensor-parallel-size 8 --pipeline-parallel-size 2`, the
#   2 the comment's "2 8x H100 nodes" (8 x 2 = 16 GPUs); any other flag the run had is not known.
# GPU: "2 8x H100 nodes" -> 112-...kvplan.yaml names h100 (the catalog's SXM 80GB).
# Release: not named (2024-12-31: vLLM 0.6.6.post1 was the newest release, the first with DeepSeek-V3); the command
#   pins none.
vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --pipeline-parallel-size 2
