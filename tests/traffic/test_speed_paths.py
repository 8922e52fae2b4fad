"""The fast paths (numpy risk, array lattice, closed-form guess) against the old ones and oracles.

tests/traffic/oldpath/ keeps the pure-Python FFT, risk, lattice and fix search as they were;
each test here computes an answer both ways, or by brute force, and asks for the same result.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.capacity import SizeRequest
from kvplan.check import verdict
from kvplan.specs import load_hardware, load_model
from kvplan.traffic import LogNormal, PointMass, SequenceLattice, fit_lognormal, users_at_risk
from kvplan.traffic import plan as plan_module
from kvplan.traffic.lengths import Empirical
from kvplan.traffic.plan import sequence_lattice
from kvplan.traffic.risk import _normal_guess, overflow_probability
from kvplan.units import GIB, DType
from tests.conftest import invoke
from tests.traffic.oldpath import lattice as old_lattice
from tests.traffic.oldpath import risk as old_risk
from tests.traffic.oldpath import verdict as old_verdict

ROOT = Path(__file__).resolve().parents[2]


def brute_tail(pmf: list[float], n: int, m: int) -> float:
    """P(d_1 + ... + d_n > m) by n direct convolutions (the oracle)."""
    dist = [1.0]
    for _ in range(n):
        out = [0.0] * (len(dist) + len(pmf) - 1)
        for i, a in enumerate(dist):
            for j, b in enumerate(pmf):
                out[i + j] += a * b
        dist = out
    return max(0.0, 1.0 - sum(dist[: m + 1])) if m >= 0 else 1.0


def linear_scan(lat: SequenceLattice, pool: int, risk: float) -> int:
    """The largest n whose brute-force overflow probability is at most `risk`, counting up."""
    n = 0
    while True:
        room = pool - (n + 1) * lat.base_bytes
        m = room // lat.unit_bytes if room >= 0 else -1
        if brute_tail(list(lat.pmf), n + 1, m) > risk:
            return n
        n += 1


def test_users_at_risk_equals_a_linear_scan_where_the_normal_guess_is_off() -> None:
    """Skewed small lattices (where the normal approximation misjudges the tail): the bracket
    and bisection land on the linear scan's answer, including where the guess is one off."""
    rng = random.Random(14)
    off_by_one = 0
    cases = 0
    while cases < 40:
        span = rng.randint(3, 8)
        weights = [rng.random() ** 3 for _ in range(span + 1)]
        weights[-1] = max(weights[-1], 0.01)  # the longest length is possible
        unit = rng.randint(1, 4) * 10
        base = unit * rng.randint(1, 3)  # small next to the spread: far from normal
        lat = SequenceLattice.from_bytes({base + unit * d: w for d, w in enumerate(weights)})
        pool = rng.randint(3, 15) * (base + unit * span // 2)  # a handful of conversations
        risk = rng.choice((0.001, 0.01, 0.05))
        floor_n = pool // lat.max_bytes
        expected = linear_scan(lat, pool, risk)
        if expected <= floor_n:
            continue
        cases += 1
        got = users_at_risk(lat, pool, risk)
        assert got.users == expected, (lat, pool, risk)
        assert got.method == "exact"
        assert got.probability == pytest.approx(
            brute_tail(list(lat.pmf), expected, (pool - expected * base) // unit), abs=1e-12)
        off_by_one += abs(_normal_guess(lat, pool, risk, floor_n) - expected) == 1
    assert off_by_one >= 5  # the bracket really had to move (7 of the 40 on this seed)


def test_normal_guess_equals_the_bisection_it_replaces() -> None:
    """The closed-form guess walked to the crossing equals the old bisection on the normal
    tail, on realistic lattices and pools."""
    lengths = fit_lognormal({0.5: 1200, 0.95: 6000})
    req = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"),
                      context_tokens=8192)
    lat = sequence_lattice(req, lengths)
    old = old_lattice.sequence_lattice(req, lengths)
    for pool_gib in (1, 5, 20, 60, 300):
        for risk in (0.001, 0.005, 0.01, 0.02, 0.2):
            pool = pool_gib * GIB
            floor_n = pool // lat.max_bytes
            assert _normal_guess(lat, pool, risk, floor_n) == old_risk._normal_guess(
                old, pool, risk, floor_n)


LATTICE_CASES = [
    ("llama-3-8b", 8192, LogNormal(7.1, 0.9), 0, DType.fp16, 1),
    ("gemma-2-9b", 8192, fit_lognormal({0.5: 900, 0.95: 5000}), 300, DType.fp8, 2),  # windows
    ("gpt-oss-20b", 32768, fit_lognormal({0.5: 3000, 0.95: 20000}), 0, DType.fp16, 1),
    ("qwen3-next-80b-a3b", 32768, fit_lognormal({0.5: 3000, 0.95: 9000}), 0, DType.fp8, 4),
    ("llama-3.1-8b", 4000, Empirical((5, 16, 17, 900, 3000, 3000, 9000), "t"), 0, DType.fp16, 1),
    ("llama-3.1-8b", 4096, PointMass(2001), 32, DType.fp16, 1),
]


@pytest.mark.parametrize(("model", "ctx", "lengths", "shared", "kv", "tp"), LATTICE_CASES)
def test_array_lattice_equals_the_block_by_block_one(model, ctx, lengths, shared, kv, tp) -> None:
    req = SizeRequest(model=load_model(model), gpu=load_hardware("h100"), context_tokens=ctx,
                      shared_prefix_tokens=shared, kv_dtype=kv, tp=tp)
    new, old = sequence_lattice(req, lengths), old_lattice.sequence_lattice(req, lengths)
    assert (new.base_bytes, new.unit_bytes, new.pmf) == (old.base_bytes, old.unit_bytes, old.pmf)
    limit = 1 << 18  # the old module's lattice limit (task h100review raised the default to 2^23)
    for pool in (2 * GIB, 30 * GIB):
        for risk in (0.001, 0.01):
            a, b = users_at_risk(new, pool, risk, limit), old_risk.users_at_risk(old, pool, risk)
            assert (a.users, a.method) == (b.users, b.method)
            assert a.probability == pytest.approx(b.probability, abs=1e-12)
            c = overflow_probability(new, a.users + 1, pool, limit)
            assert c.probability == pytest.approx(
                old_risk.overflow_probability(old, a.users + 1, pool).probability, abs=1e-12)


def check_json(paths: list[str]) -> dict:
    verdict._PLANS.clear()
    verdict._LATTICES.clear()
    result = invoke(CliRunner(), "check", *paths, "--format", "json")
    out: dict = json.loads(result.stdout)
    return out


# every check folder with a traffic section (kvplan/v1 files, golden, k8s) or failing verdicts
# that carry fixes (synthetic, qa)
SPEED_PATH_FOLDERS = ("golden", "kvplan", "k8s", "synthetic", "qa")


@pytest.mark.slow
def test_check_gives_what_the_old_path_gave(monkeypatch: pytest.MonkeyPatch) -> None:
    """`kvplan check --format json` over the shipped examples and the check folders that hold
    traffic, failing verdicts and fixes: the same verdicts, numbers and fixes through the old
    risk, lattice and fix search. A fixed list of folders: the whole of tests/assets/check (473
    files, most of them manifests read for their flags alone) made this one test the tail of
    the parallel suite."""
    paths = [str(ROOT / "examples")] + [str(ROOT / "tests" / "assets" / "check" / name)
                                         for name in SPEED_PATH_FOLDERS]
    new = check_json(paths)
    with monkeypatch.context() as patch:
        for name in old_verdict.SWAPPED:
            patch.setattr(verdict, name, getattr(old_verdict, name))
        patch.setattr(plan_module, "sequence_lattice", old_lattice.sequence_lattice)
        patch.setattr(plan_module, "users_at_risk", old_risk.users_at_risk)
        patch.setattr(plan_module, "overflow_probability", old_risk.overflow_probability)
        old_verdict._PLANS.clear()
        old_verdict._LATTICES.clear()
        old = check_json(paths)
        assert old_verdict._PLANS  # the old fix search ran (it fills its own plan cache)
    assert new["summary"]["pass"] + new["summary"]["fail"] >= 20  # real verdicts compared
    assert new["summary"]["fail"] >= 5  # the fix search ran on failing verdicts
    assert new == old
