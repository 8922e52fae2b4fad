#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/1362 ("[Bug] sgLang v0.3 breaks TP8 Llama 3.1 405B FP8 on
#   8xH100"), comments by zhyncs (a maintainer), 2024-09-10: "```python -m sglang.launch_server --model-path
#   meta-llama/Meta-Llama-3.1-405B-FP8 --tp 8 --disable-radix --mem-frac 0.87``` It works well for me on 8xH100
#   SXM.", followed by a bench_serving result (1000 successful requests): the server started and served, the
#   outcome recorded here (the reporter's own failure is not quoted in the excerpt read and is not this file).
# The command below is the comment's, copied verbatim.
# GPU: "8xH100 SXM" (the comment) -> 59-...kvplan.yaml names h100 (the catalog's SXM 80GB).
# Release: SGLang v0.3 (the title; the v0.3.0 series of September 2024): not printed in the comment; the script
#   names none.
python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-405B-FP8 --tp 8 --disable-radix --mem-frac 0.87
