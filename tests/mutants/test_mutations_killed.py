"""Every mutation issue #18 lists is caught: apply it to a copy of the code, run the tests
that guard it, and expect them to fail.

Each mutation is a (file, original text, mutated text) patch applied to a temporary copy of the
repository; pytest then runs the named test files there in a subprocess (so that no module
imported here is affected). A patch whose original text is not found exactly once fails loudly:
the code moved, and the mutation must be re-targeted, not dropped.

The subprocesses are started together when the module's first test asks (two at a time: CI has
two cores and this process only waits on them); each test then asserts on its own run's result,
so a failure still names its mutation and shows that run's output.
"""

from __future__ import annotations

import compileall
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Mutation:
    id: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]


M = "tests/mutants/"
MUTATIONS = [
    # --- pipeline parallelism
    Mutation("bottleneck-picks-most-users", "kvplan/capacity/plan.py",
             "if best is None or users < best[1]:", "if best is None or users > best[1]:",
             (M + "test_pipeline.py",)),
    Mutation("decode-reads-weights-once", "kvplan/traffic/plan.py",
             "weights_bytes_per_gpu(req.model, req.effective_weight_dtype, gpus) * req.pp",
             "weights_bytes_per_gpu(req.model, req.effective_weight_dtype, gpus)",
             (M + "test_pipeline.py",)),
    Mutation("pp-remainder-to-first-stages", "kvplan/capacity/kv.py",
             "sizes[-i] += 1", "sizes[i - 2] += 1", (M + "test_pipeline.py",)),
    # --- the PASS/FAIL threshold, in each of its copies
    # one implementation of the rule since the record work: capacity, traffic, deploy and check
    # all call kvplan.plan.rules.required_users
    Mutation("required-floor", "kvplan/plan/rules.py",
             "max(math.ceil(peak * (1 + Fraction(headroom))), min_users or 0)",
             "max(math.floor(peak * (1 + Fraction(headroom))), min_users or 0)",
             (M + "test_threshold.py",)),
    # --- the overflow-risk search
    Mutation("bisection-stops-early", "kvplan/traffic/risk.py",
             "while hi - lo > 1:\n        mid = (lo + hi) // 2\n        if ok(mid):",
             "while hi - lo > 2:\n        mid = (lo + hi) // 2\n        if ok(mid):",
             (M + "test_risk_search.py",)),
    Mutation("bracket-up-skips", "kvplan/traffic/risk.py",
             "lo += step\n", "lo += step + 1\n", (M + "test_risk_search.py",)),
    Mutation("bracket-down-skips", "kvplan/traffic/risk.py",
             "lo = max(floor_n, hi - step)\n", "lo = max(floor_n, hi - step) + 1\n",
             (M + "test_risk_search.py",)),
    Mutation("no-continuity-correction", "kvplan/traffic/risk.py",
             "z = (m + 0.5 - n * mu) / sd", "z = (m - n * mu) / sd", (M + "test_risk_search.py",)),
    Mutation("pool-at-n-base-overflows", "kvplan/traffic/risk.py",
             "return room // lat.unit_bytes if room >= 0 else -1",
             "return room // lat.unit_bytes if room > 0 else -1", (M + "test_risk_search.py",)),
    # --- shapes that do not divide
    Mutation("kv-heads-floor", "kvplan/capacity/kv.py",
             "return max(1, ceil_div(num_kv_heads, tp))", "return max(1, num_kv_heads // tp)",
             (M + "test_shapes.py",)),
    Mutation("int4-groups-floor", "kvplan/capacity/kv.py",
             "bits += ceil_div(values, self.group_size) * SCALE_BITS",
             "bits += values // self.group_size * SCALE_BITS", (M + "test_shapes.py",)),
    # --- engines and fixes off the H100
    Mutation("vllm-no-a100-exception", "kvplan/engines/vllm_series.py",
             'big = (memory >= BIG_GPU_BYTES and ("a100" not in name or ver < A100_SMALL_FROM)',
             "big = (memory >= BIG_GPU_BYTES and (True)", (M + "test_engines_fixes.py",)),
    Mutation("vllm-group-boundary-inclusive", "kvplan/engines/vllm_groups.py",
             "large < small * 1.5", "large <= small * 1.5", (M + "test_engines_fixes.py",)),
    Mutation("vllm-group-boundary-2x", "kvplan/engines/vllm_groups.py",
             "large < small * 1.5", "large < small * 2", (M + "test_engines_fixes.py",)),
    Mutation("vllm-stated-budget-ignored", "kvplan/engines/vllm_memory.py",
             "elif req.kv_budget_bytes is not None:", "elif False:",
             (M + "test_engines_fixes.py",)),
    Mutation("sglang-tier-60gib", "kvplan/engines/sglang_defaults.py",
             '(60, "35-60 GiB', '(50, "35-60 GiB', (M + "test_engines_fixes.py",)),
    Mutation("sglang-tier-160gib", "kvplan/engines/sglang_defaults.py",
             '(160, "90-160 GiB', '(200, "90-160 GiB', (M + "test_engines_fixes.py",)),
    Mutation("fp8-fix-without-fp8", "kvplan/check/fixes.py",
             "if not req.gpu.fp8_supported or req.kv_dtype.bits <= 8:",
             "if req.kv_dtype.bits <= 8:", (M + "test_engines_fixes.py",)),
    # --- state and means
    Mutation("linear-state-subtracted-reserved", "kvplan/capacity/kv.py",
             "return [t * full + h * sliding + base", "return [t * full + h * sliding - base",
             (M + "test_state_means.py",)),
    Mutation("mean-floored", "kvplan/traffic/plan.py",
             "min(req.context_tokens, round(mean))", "min(req.context_tokens, int(mean))",
             (M + "test_state_means.py",)),
]

IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".hypothesis",
                                ".pytest_cache", ".mypy_cache", ".ruff_cache", "*.pyc")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One clean copy of the repository's code, specs and tests; kvplan's modules compiled once
    here, so that each copy's subprocess does not compile them again (apply() drops the mutated
    module's .pyc, so its copy compiles the mutated text)."""
    root = tmp_path_factory.mktemp("pristine")
    for name in ("kvplan", "model_specs", "hardware_specs", "tests"):
        shutil.copytree(REPO / name, root / name, ignore=IGNORE)
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    compileall.compile_dir(root / "kvplan", quiet=1)
    return root


def apply(root: Path, mutation: Mutation) -> None:
    path = root / mutation.file
    text = path.read_text()
    count = text.count(mutation.old)
    assert count == 1, (
        f"mutation {mutation.id}: {mutation.old!r} occurs {count} times in {mutation.file}; "
        "the code moved: re-target this mutation in tests/mutants/test_mutations_killed.py")
    path.write_text(text.replace(mutation.old, mutation.new))
    for compiled in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        compiled.unlink()


def run_tests(root: Path, tests: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root), "HYPOTHESIS_PROFILE": "ci"}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
        cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False)


def run_mutated(pristine: Path, root: Path, mutation: Mutation) -> subprocess.CompletedProcess[str]:
    shutil.copytree(pristine, root)
    apply(root, mutation)
    return run_tests(root, mutation.tests)


UNMUTATED = "test_the_guarding_tests_pass_unmutated"


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, pristine: Path,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future]]:
    """The pytest subprocess of every selected test of this module, started together (two at
    a time), by mutation id (UNMUTATED: the guarding tests on the pristine copy)."""
    here = [item for item in request.session.items if getattr(item, "module", None) is request.module]
    workers = max(1, min(2, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        started: dict[str, Future] = {}
        for item in here:  # in the order the tests will ask
            mutation = getattr(item, "callspec", None) and item.callspec.params.get("mutation")
            if isinstance(mutation, Mutation):
                root = tmp_path_factory.mktemp(mutation.id) / "repo"
                started[mutation.id] = pool.submit(run_mutated, pristine, root, mutation)
            elif item.name == UNMUTATED:
                files = tuple(sorted({t for m in MUTATIONS for t in m.tests}))
                started[UNMUTATED] = pool.submit(run_tests, pristine, files)
        yield started
        for future in started.values():
            future.cancel()


def test_the_guarding_tests_pass_unmutated(runs: dict[str, Future]):
    done = runs[UNMUTATED].result()
    assert done.returncode == 0, done.stdout[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.id for m in MUTATIONS])
def test_mutation_is_killed(runs: dict[str, Future], mutation: Mutation):
    done = runs[mutation.id].result()
    # exit 1: tests ran and failed (not 2-4: an interrupted run or a broken patch)
    assert done.returncode == 1, f"{mutation.id} survived:\n{done.stdout[-3000:]}"
    assert "= FAILURES =" in done.stdout  # an assertion failed, not a collection error
