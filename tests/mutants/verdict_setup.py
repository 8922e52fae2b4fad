"""What the check-verdict mutation tests share (test_verdict.py, test_verdict_fixes.py,
test_verdict_traffic.py): Llama-3-8B on catalog GPUs, one sequence and the H100 pool, and the
request and Setup builders.

Facts used throughout (model_specs/llama-3-8b.yaml, hardware_specs/*.yaml):
- Llama-3-8B: 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 B (fp16) = 131,072 B per token, so an
  8,192-token sequence is 512 blocks of 16 = 1 GiB; fp8 halves it (512 MiB); TP 2 holds 4 heads a
  rank (512 MiB a GPU), TP 8 one head (16,384 B per token, 128 MiB a GPU).
- its weights: 8,030,261,248 params x 2 B (bf16) = 16,060,522,496 B on one GPU.
- H100 SXM: 85,045,477,376 B, $3.78/h; usable at 0.9 = floor(76,540,929,638.4) = 76,540,929,638;
  pool = usable - weights - 2 GiB reserve = 76,540,929,638 - 16,060,522,496 - 2,147,483,648
  = 58,332,923,494 B -> 54 sequences of 1 GiB (54.33).
- H100 NVL: 99,861,594,112 B, no price; usable floor(89,875,434,700.8) = 89,875,434,700; pool
  89,875,434,700 - 16,060,522,496 - 2,147,483,648 = 71,667,428,556 -> 66 sequences (66.75).
- A100 80GB: 85,100,068,864 B, no fp8; usable 76,590,061,977; pool 58,382,055,833 -> 54.
"""

from __future__ import annotations

from dataclasses import replace

from kvplan.capacity import SizeRequest
from kvplan.check.verdict import Setup
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB

__all__ = ["A100", "GB10", "H100", "H200", "LLAMA", "MI300X", "NVL", "POOL_H100", "SEQ", "req",
           "setup"]

LLAMA = load_model("llama-3-8b")
H100 = load_hardware("h100")
NVL = load_hardware("h100-nvl")
A100 = load_hardware("a100-80gb")
H200 = load_hardware("h200")
GB10 = load_hardware("gb10")
MI300X = load_hardware("mi300x")
SEQ = GIB  # one 8,192-token fp16 sequence of Llama-3-8B on one GPU
POOL_H100 = 58_332_923_494  # 54 sequences


def req(**kw: object) -> SizeRequest:
    base = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    return replace(base, **kw)  # type: ignore[arg-type]


def setup(gpus: int = 1, **kw: object) -> Setup:
    extra = {k: kw.pop(k) for k in ("max_num_seqs", "engines_per_unit", "engine", "traffic")
             if k in kw}
    return Setup(gpus, req(**kw), **extra)  # type: ignore[arg-type]
