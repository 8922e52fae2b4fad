#!/bin/bash
# source: the SGLang cookbook's DeepSeek-R1 page, https://lmsysorg.mintlify.app/cookbook/autoregressive/DeepSeek/DeepSeek-R1
#   (sgl-project/sglang docs_new/cookbook/autoregressive/DeepSeek/DeepSeek-R1.mdx; read through the
#   search tool's stored copy, 79,077 characters). The command is the page's generator output for
#   hardware h200, quantization fp8, 8 GPUs, scenario high-throughput (its lookupData "parameters",
#   each key turned into its flag by the page's fieldToFlag: tensor_parallel_size -> --tp), with
#   the page's advice "Data Parallelism Attention (`--attn-dp-size`): Recommended for
#   high-throughput scenarios. Use `--tp 8 --attn-dp-size 8` on a single 8-GPU node" applied
#   (added by task h43sglopts: the generator itself does not emit --attn-dp-size).
python3 -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-R1-0528 \
  --trust-remote-code \
  --tp 8 \
  --attn-dp-size 8 \
  --disable-radix-cache \
  --max-running-requests 512 \
  --cuda-graph-max-bs-decode 512 \
  --chunked-prefill-size 32768 \
  --max-prefill-tokens 32768 \
  --mem-fraction-static 0.82 \
  --attention-backend flashinfer \
  --stream-interval 10 \
  --decode-log-interval 1
