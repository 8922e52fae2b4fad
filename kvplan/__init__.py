"""kvplan: a KV-cache capacity planner for LLM serving."""

__version__ = "0.1.0"
