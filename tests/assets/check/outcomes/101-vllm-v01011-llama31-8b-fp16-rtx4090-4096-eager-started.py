# Source: https://ermolushka.github.io/posts/vllm-benchmark-4090 ("Memory Optimization Deep Dive Running 8B Models on a
#   Single 4090 using vLLM"), "Experiment 1: FP16 Baseline", its "Configuration" (the LLM(...) below) and "Results":
#   "GPU Memory Used 22,631MB (92.1% of VRAM) | Load Time 16.1s | Tokens/Second 339.6 | Peak GPU Utilization 99.2%".
#   Hardware: "GPU: NVIDIA RTX 4090 (24GB VRAM, Ada Lovelace architecture)"; software: "vLLM: v0.10.1.1 (for FP16, AWQ,
#   GPTQ experiments)". This engine started and generated (7 prompts, 256 tokens each), the outcome recorded here.
# The code below is the post's configuration, copied verbatim, with the `from vllm import LLM` line the post's
#   configuration block leaves out (its `llm = LLM(...)` names vLLM's class; the page's other blocks import it so).
# GPU: "NVIDIA RTX 4090 (24GB VRAM)" (the post) -> 101-...kvplan.yaml names rtx-4090.
# Release: vLLM v0.10.1.1 (the post's software stack); the script pins none.
from vllm import LLM

llm = LLM(
   model="meta-llama/Meta-Llama-3.1-8B-Instruct",
   dtype="float16",
   tensor_parallel_size=1,
   gpu_memory_utilization=0.9,
   max_model_len=4096,
   enforce_eager=True,  # Disable CUDA graphs for more consistent memory measurement
)
