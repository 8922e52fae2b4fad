"""`fleet --search` ranks configurations by cost; checked against a brute-force enumeration."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

from kvplan.capacity import SizeRequest, size
from kvplan.specs import load_hardware, load_model
from kvplan.traffic import Traffic, slo_batch
from kvplan.traffic.plan import kv_read_bytes
from kvplan.traffic.search import search
from kvplan.units import DType

LLAMA = load_model("llama-3-8b")
# Prices pinned here (the catalog's are placeholders): test figures, not market quotes.
H100 = load_hardware("h100").model_copy(update={"price_per_hour_usd": 2.0})
H200 = load_hardware("h200").model_copy(update={"price_per_hour_usd": 3.5})
UNPRICED = load_hardware("h200").model_copy(
    update={"name": "test-unpriced", "aliases": [], "price_per_hour_usd": None}
)
GPUS = [H100, H200, UNPRICED]
BASE = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, avg_context_tokens=2000)
CHATBOT = Traffic(peak_users=20_000)  # the seeds' chatbot: 20,000 conversations, 2,000 tokens


def brute_force(slo: Fraction | None = None) -> list[tuple[float, int, str, int, str]]:
    """Every (GPU, TP, cache) by the plain `size` arithmetic: (cost, GPUs, gpu, tp, kv)."""
    out = []
    for gpu, tp, kv in itertools.product(GPUS, (1, 2, 4, 8), (DType.fp16, DType.fp8)):
        if gpu.price_per_hour_usd is None:
            continue
        req = SizeRequest(model=LLAMA, gpu=gpu, context_tokens=8192, avg_context_tokens=2000,
                          tp=tp, kv_dtype=kv)
        users = size(req).users_per_replica
        if slo is not None:
            weights = LLAMA.params_total * 2 // tp
            users = min(users, slo_batch(weights, kv_read_bytes(req, 2000),
                                         gpu.memory_bandwidth_bytes_per_s, slo))
        if users == 0:
            continue
        gpus = math.ceil(20_000 / users) * tp
        out.append((gpus * gpu.price_per_hour_usd, gpus, gpu.name, tp, kv.value))
    return sorted(out, key=lambda r: (r[0], r[1], r[2], r[3], -DType(r[4]).bits))


def ranked(result) -> list[tuple[float, int, str, int, str]]:  # noqa: ANN001
    rows = []
    for r in result.rows:
        if r.rank is None:
            continue
        q = r.plan.size.request
        rows.append((r.plan.cost_per_hour_usd, r.plan.gpus_needed, q.gpu.name, q.tp,
                     q.kv_dtype.value))
    return rows


def test_search_ranking_matches_brute_force():
    result = search(BASE, CHATBOT, GPUS)
    expected = brute_force()
    got = ranked(result)
    assert got == [tuple(e) for e in expected]
    assert got[0] == min(expected)  # the first row is the cheapest that carries the load
    assert [r.rank for r in result.rows if r.rank is not None] == list(range(1, len(got) + 1))
    costs = [g[0] for g in got]
    assert costs == sorted(costs)


def test_search_ranking_with_an_slo_matches_brute_force():
    slo = Fraction(60)
    result = search(BASE, Traffic(peak_users=20_000, min_tokens_per_s_per_user=slo), GPUS)
    assert ranked(result) == [tuple(e) for e in brute_force(slo)]
    assert any(r.plan.binding_constraint == "slo" for r in result.rows)
    for r in result.rows:
        assert r.plan.decode_tokens_per_s_per_user is not None
        assert r.plan.decode_tokens_per_s_per_user >= 60


def test_unpriced_gpus_are_listed_not_dropped():
    result = search(BASE, CHATBOT, GPUS)
    unpriced = [r for r in result.rows if r.rank is None]
    assert {r.plan.size.request.gpu.name for r in unpriced} == {"test-unpriced"}
    assert len(unpriced) == 8  # 4 TP sizes x 2 cache precisions
    assert result.rows[-len(unpriced):] == tuple(unpriced)  # after every ranked row
    assert result.unpriced_gpus == ["test-unpriced"]


def test_price_override_reorders():
    result = search(BASE, CHATBOT, GPUS, prices={"h200": 1.0, "test-unpriced": 10.0})
    first = result.rows[0]
    assert first.plan.size.request.gpu.name == "h200-141gb"
    assert first.price_per_hour_usd == 1.0
    assert all(r.rank is not None for r in result.rows)


def test_fp8_only_where_supported_and_tp_divides_heads():
    no_fp8 = H100.model_copy(update={"name": "test-nofp8", "fp8_supported": False})
    result = search(BASE, CHATBOT, [no_fp8], tps=(1, 3))
    assert {(r.plan.size.request.tp, r.plan.size.request.kv_dtype) for r in result.rows} == {
        (1, DType.fp16)
    }


def test_search_progress_goes_to_a_terminal_only(runner, monkeypatch) -> None:
    """`fleet --search` reports progress on stderr only when stderr is a terminal; the JSON on
    stdout is the same either way (a bar forced on from the first candidate does not leak)."""
    from kvplan.cli import app, progress

    args = ["fleet", "llama-3-8b", "-n", "2000", "--context", "8192", "--context-p50", "1200",
            "--context-p95", "6000", "--search", "--search-gpus", "h100,h200", "--format", "json"]
    plain = runner.invoke(app, args)
    assert plain.exit_code == 0, plain.output
    assert plain.stderr == ""
    rows = json.loads(plain.stdout)["results"]
    assert {r["gpu"] for r in rows} == {"h100-sxm-80gb", "h200-141gb"}

    bars: list[progress.LazyProgress] = []
    start = progress.LazyProgress.__init__

    def on_a_terminal(self: progress.LazyProgress, description: str, delay_s: float = 1.0) -> None:
        start(self, description, 0.0)
        self.enabled = True  # as if stderr were a terminal, shown from the start
        bars.append(self)

    monkeypatch.setattr(progress.LazyProgress, "__init__", on_a_terminal)
    shown = runner.invoke(app, args)
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == plain.stdout
    assert [b.description for b in bars] == ["searching"]
    assert bars[0]._bar is not None  # the bar was drawn (on stderr)
