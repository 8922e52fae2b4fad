# Source: https://github.com/vllm-project/vllm/issues/21361 ("[Bug]: OOM Error with Qwen/Qwen3-235B-A22B on Python SDK"),
#   description by lucky0604, 2025-07-22: the `vllm serve` command of file 105 "runs successfully. However, when I try to
#   launch it programmatically using the following code: [the code below]" the engine fails with the title's OOM (the
#   excerpt read ends in the workers' `SystemExit`; the stage of the OOM is not in it). Environment: "vllm 0.8.3 ...
#   Hardware: H20 8 x 96G". This engine did not start, the outcome recorded here.
# The code below is the post's, copied verbatim up to the engine's construction (the prompt and generate lines that
#   follow it in the post run only after the engine is built, which it was not).
# GPU: "H20 8 x 96G" -> 106-...kvplan.yaml names h20.
# Model: the folder /data/model/Qwen/Qwen3-235B-A22B (the title names Qwen/Qwen3-235B-A22B) -> the side file names it.
# Release: vLLM 0.8.3 (the post's environment); the script pins none.
from transformers import AutoTokenizer
from vllm import LLM, SamplingParams

# Initialize the tokenizer
tokenizer = AutoTokenizer.from_pretrained("/data/model/Qwen/Qwen3-235B-A22B", swap_space=4, max_num_seqs=128)

# Configurae the sampling parameters (for thinking mode)
sampling_params = SamplingParams(temperature=0.6, top_p=0.95, top_k=20, max_tokens=16384)

# Initialize the vLLM engine
llm = LLM(model="/data/model/Qwen/Qwen3-235B-A22B", tensor_parallel_size=8)
