"""Synthetic: two engines started in-process (docs/check.md, "Python scripts")."""
import os

from vllm import LLM

os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"
MODEL = os.environ.get("MODEL", "Qwen/Qwen3-8B")

llm = LLM(model=MODEL, tensor_parallel_size=2, gpu_memory_utilization=0.85, max_model_len=16384)


def judge(args):
    return LLM(model="Qwen/Qwen3-8B", max_model_len=args.max_len)
