"""A seeded corpus of distinct kvplan/v1 deployment files, like a platform team's repo.

Each file deploys its own catalog model on its own catalog GPU and tensor-parallel size,
with its own traffic: a peak of concurrent users, a mean and a p95 conversation length
(p95 / mean between 1.5 and 4), an overflow risk between 0.1% and 2% and, in some, headroom.
The GPU count is set around what the mean length needs (0.75x to 1.6x the replicas), so
about half the files fall short once the spread of lengths is counted and their fixes are
searched. A few have a p95 beyond max_model_len or an fp8 cache.

Run: `python benchmarks/corpus.py OUT_DIR [--files 100] [--seed 14]`.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kvplan.capacity.plan import SizeRequest, size  # noqa: E402
from kvplan.errors import InputError  # noqa: E402
from kvplan.specs import all_hardware, all_models  # noqa: E402
from kvplan.specs.schema import HardwareSpec, ModelSpec  # noqa: E402
from kvplan.units import DType  # noqa: E402

MAX_LENS = (4096, 8192, 16384, 32768, 65536, 131072)
SKIP_MODELS = {"tiny-test-model"}  # a test fixture, not a model anyone deploys


def _users_per_replica(model: ModelSpec, gpu: HardwareSpec, tp: int, max_len: int, mean: int,
                       kv: DType) -> int:
    """What one replica holds with every conversation at the mean (0: would not start)."""
    try:
        one = size(SizeRequest(model=model, gpu=gpu, context_tokens=max_len, kv_dtype=kv, tp=tp))
        if one.users_per_replica < 1:
            return 0
        res = size(SizeRequest(model=model, gpu=gpu, context_tokens=max_len, kv_dtype=kv, tp=tp,
                               avg_context_tokens=mean))
    except InputError:
        return 0
    return res.users_per_replica


def deployment(rng: random.Random, index: int, models: list[ModelSpec],
               gpus: list[HardwareSpec]) -> str:
    """One deployment file's text (retries until the model starts on the chosen GPUs)."""
    while True:
        model = rng.choice(models)
        gpu = rng.choice(gpus)
        tps = [t for t in (1, 2, 4, 8) if model.num_attention_heads % t == 0]
        tp = rng.choice(tps)
        lens = [n for n in MAX_LENS if n <= model.max_context_tokens]
        if not lens:
            continue
        max_len = rng.choice(lens)
        fp8 = gpu.fp8_supported and rng.random() < 0.25
        kv = DType.fp8 if fp8 else model.weight_dtype
        if kv.bits > 16:
            kv = DType.fp16
        mean = rng.randint(300, max(301, min(max_len // 3, 12_000)))
        spread = rng.uniform(1.5, 4.0)
        p95 = int(mean * spread)
        if p95 > max_len and rng.random() < 0.9:
            p95 = max_len  # most teams keep the p95 inside max_model_len
        per = _users_per_replica(model, gpu, tp, max_len, mean, kv)
        if per < 1:
            continue
        peak = rng.randint(max(1, per // 2), per * 40)
        needed = math.ceil(peak / per)
        replicas = max(1, round(needed * rng.uniform(0.75, 1.6)))
        risk = round(10 ** rng.uniform(-3, math.log10(0.02)), 5)
        lines = [
            "apiVersion: kvplan/v1",
            f"name: gen-{index:04d}-{model.name}",
            f"model: {model.name}",
            "hardware:",
            f"  gpu: {gpu.name}",
            f"  count: {replicas * tp}",
        ]
        if tp > 1:
            lines += ["parallel:", f"  tensor: {tp}"]
        lines += ["engine:", f"  max_model_len: {max_len}"]
        if kv is not model.weight_dtype:  # else `auto` (the weight dtype) is what it gets
            lines.append(f"  kv_cache_dtype: {kv.value}")
        lines += [
            "traffic:",
            f"  peak_concurrent_users: {peak}",
            "  context_tokens:",
            f"    mean: {mean}",
            f"    p95: {p95}",
            f"  risk: {risk}",
        ]
        if rng.random() < 0.3:
            lines += ["requirement:", f"  headroom_pct: {rng.choice((5, 10, 20))}"]
        return "\n".join(lines) + "\n"


def build(folder: Path, files: int, seed: int = 14) -> list[Path]:
    """Write `files` distinct deployment files into `folder`; returns their paths."""
    rng = random.Random(seed)
    models = [m for m in all_models()[0] if m.name not in SKIP_MODELS]
    gpus = all_hardware()[0]
    folder.mkdir(parents=True, exist_ok=True)
    out, seen = [], set()
    i = 0
    while len(out) < files:
        text = deployment(rng, i, models, gpus)
        body = text.split("\n", 2)[2]  # everything but the name: distinct deployments only
        if body in seen:
            continue
        seen.add(body)
        path = folder / f"gen-{i:04d}.yaml"
        path.write_text(text, encoding="utf-8")
        out.append(path)
        i += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    build(args.out, args.files, args.seed)
    print(f"{args.files} deployment files in {args.out}")


if __name__ == "__main__":
    main()
