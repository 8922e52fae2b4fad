"""Speed of the traffic maths: users at risk (exact and normal) and `fleet --search`.

Run: python benchmarks/traffic_speed.py  (prints a table; appends JSON lines to
benchmarks/results/traffic_speed.jsonl with the machine, Python version and date).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvplan.capacity import SizeRequest  # noqa: E402
from kvplan.specs import load_hardware, load_model  # noqa: E402
from kvplan.traffic import (  # noqa: E402
    Traffic,
    blocks,  # noqa: E402
    fit_lognormal,
    plan_traffic,
    users_at_risk,
)
from kvplan.traffic.plan import sequence_lattice  # noqa: E402
from kvplan.traffic.search import search  # noqa: E402
from kvplan.units import GIB, DType  # noqa: E402

LLAMA = load_model("llama-3-8b")
H100 = load_hardware("h100").model_copy(update={"price_per_hour_usd": 2.0})
H200 = load_hardware("h200").model_copy(update={"price_per_hour_usd": 3.5})
LENGTHS = fit_lognormal({0.5: 1200, 0.95: 6000})


def timed(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    rows = []
    for kv in (DType.fp16, DType.fp8):
        req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_dtype=kv,
                          kv_budget_bytes=60 * GIB)
        for method, limit in (("exact", 1 << 18), ("normal", 1)):
            # a fresh lattice (and length CDF grid) each time: their caches would otherwise
            # flatter the repeats
            secs, est = timed(lambda req=req, limit=limit: (blocks._GRIDS.clear(), users_at_risk(
                sequence_lattice(req, LENGTHS), 60 * GIB, 0.01, limit))[1])
            rows.append({"case": f"users_at_risk llama-3-8b h100 {kv.value} 60GiB p50=1200 "
                                 f"p95=6000 risk=0.01 [{method}]",
                         "seconds": round(secs, 4), "result": est.users,  # type: ignore[attr-defined]
                         "method": est.method})  # type: ignore[attr-defined]
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=60 * GIB)
    secs, plan = timed(lambda: plan_traffic(req, Traffic(peak_users=20_000, lengths=LENGTHS)))
    rows.append({"case": "plan_traffic chatbot lognormal", "seconds": round(secs, 4),
                 "result": plan.gpus_needed})  # type: ignore[attr-defined]
    base = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, avg_context_tokens=2000)
    secs, res = timed(lambda: search(base, Traffic(peak_users=20_000), [H100, H200]), repeat=1)
    rows.append({"case": "search chatbot mean-only, 2 GPUs x 4 TP x 2 caches",
                 "seconds": round(secs, 4), "result": len(res.rows)})  # type: ignore[attr-defined]
    secs, res = timed(lambda: search(base, Traffic(peak_users=20_000, lengths=LENGTHS),
                                     [H100, H200]), repeat=1)
    rows.append({"case": "search chatbot lognormal, 2 GPUs x 4 TP x 2 caches",
                 "seconds": round(secs, 4), "result": len(res.rows)})  # type: ignore[attr-defined]
    stamp = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    width = max(len(r["case"]) for r in rows)
    for r in rows:
        print(f"{r['case']:<{width}}  {r['seconds']:>8.3f} s  -> {r['result']}")
    out = ROOT / "benchmarks" / "results" / "traffic_speed.jsonl"
    out.parent.mkdir(exist_ok=True)
    with out.open("a", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps({**stamp, **r}) + "\n")
    print(f"recorded in {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
