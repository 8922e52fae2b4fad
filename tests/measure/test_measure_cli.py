"""`kvplan size MODEL --measure --device cpu` through the CLI: the GPU path's code, no mock."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

ASSETS = Path(__file__).parent.parent / "assets"
# 5 MiB of cache at 32 tokens x 23,040 B (SmolLM2-135M's 30 layers x 3 KV heads x 64 x 2 x 2 B)
CPU_ARGS = ("--measure", "--device", "cpu", "--context", "32", "--kv-budget-gib", "0.005")


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, ["size", *args])


def _figures(payload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["figure"]: f for f in payload["figures"]}


@pytest.fixture(scope="module")
def tiny_json(measure_extra: None) -> dict[str, Any]:
    result = _run("tiny-test-model", *CPU_ARGS, "-f", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_kv_bytes_per_token_measured_equals_prediction(tiny_json: dict[str, Any]) -> None:
    f = _figures(tiny_json)["kv_bytes_per_token"]
    assert f["predicted"] == f["measured"] == 30 * 3 * 64 * 2 * 2 == 23_040
    assert f["error_pct"] == 0.0 and f["within_tolerance"] is True
    alloc = _figures(tiny_json)["kv_bytes_per_token_allocator"]
    assert alloc["measured"] is None and "n/a on the CPU" in alloc["note"]


def test_weights_are_built_in_bf16(tiny_json: dict[str, Any]) -> None:
    f = _figures(tiny_json)["weights_bytes"]
    assert f["predicted"] == f["measured"] == 2 * 134_515_008


def test_capacity_search_finds_a_batch(tiny_json: dict[str, Any]) -> None:
    figures = _figures(tiny_json)
    budget = tiny_json["kv_budget_bytes"]
    assert budget == 5_368_709  # floor(0.005 GiB)
    predicted = budget // (32 * 23_040)
    assert predicted == 7
    for key in ("capacity_reserved", "capacity_growing"):
        assert figures[key]["predicted"] == predicted
        assert figures[key]["measured"] == predicted  # the cache tensors hold exactly the plan
    for key in ("decode_tokens_per_s_reserved", "decode_tokens_per_s_growing"):
        assert figures[key]["measured"] > 0
        assert figures[key]["predicted"] is None  # no CPU hardware spec: bound n/a


def test_token_cost_with_and_without_cache(tiny_json: dict[str, Any]) -> None:
    figures = _figures(tiny_json)
    for length in (2, 8, 31):
        assert figures[f"token_ms_cached_{length}"]["measured"] > 0
        assert figures[f"token_ms_uncached_{length}"]["measured"] > 0
    # no order between the two timings is asserted: on a shared machine a cached step timed
    # during a burst of other work took 200.8 ms against 112.1 ms uncached (full suite, load 9);
    # timings are the benchmarks' business (benchmarks/), the test holds what the code decides
    for length in (2, 8, 31):
        for kind in ("cached", "uncached"):
            figure = figures[f"token_ms_{kind}_{length}"]
            assert figure["predicted"] is None  # no CPU hardware spec: no bound to compare with


def test_run_record(tiny_json: dict[str, Any]) -> None:
    assert tiny_json["passed"] is True and tiny_json["failed_figures"] == []
    assert tiny_json["device"] == "cpu" and tiny_json["hardware"] is None
    assert set(tiny_json["versions"]) >= {"python", "torch", "transformers"}


def test_exit_status_follows_the_tolerance(measure_extra: None) -> None:
    # a spec whose params_total (the full 30-layer count) no longer fits its 2 layers:
    # no count matches, so the head is untied: 63,703,872 parameters built against 134,515,008
    # predicted, -52.64%
    spec = str(ASSETS / "stale-params-test.yaml")
    args = ("--measure", "--device", "cpu", "--context", "16", "--kv-budget-gib", "0.001")
    strict = _run(spec, *args, "--tolerance", "5", "-f", "csv")
    assert strict.exit_code == 1, strict.output
    rows = {r["figure"]: r for r in csv.DictReader(io.StringIO(strict.stdout))}
    assert rows["weights_bytes"]["within_tolerance"] == "false"
    assert rows["weights_bytes"]["error_pct"] == "-52.642"
    assert rows["kv_bytes_per_token"]["within_tolerance"] == "true"
    loose = _run(spec, *args, "--tolerance", "80")
    assert loose.exit_code == 0, loose.output
    assert "PASS: every checked figure within ±80%" in loose.stdout


def test_sliding_window_cache_stops_growing(measure_extra: None) -> None:
    result = _run(str(ASSETS / "tiny-sliding-test.yaml"), "--measure", "--device", "cpu",
                  "--context", "48", "--kv-budget-gib", "0.001", "-f", "json")
    assert result.exit_code == 0, result.output
    figures = _figures(json.loads(result.stdout))
    assert figures["kv_bytes_per_token"]["measured"] == 2 * 3 * 64 * 2 * 2  # inside the window
    held = figures["sliding_tokens_held"]
    assert held["predicted"] == 16
    # once decoding, a layer keeps the window allocated: attention sees the kept 15 + the new
    # one, and the 15 are a view of the 16-token append (storage, not shape, is what is held)
    assert held["measured"] == 16
    assert "attention sees 15 cached + the new one" in held["note"]
    # the capacity trials fill a sliding layer with only what it keeps: all 43 hold, as
    # predicted (handing it the whole 44-token prompt held 44 tokens per layer: 15 fitted)
    budget = 1_073_741  # floor(0.001 GiB)
    assert budget // (2 * 16 * 3 * 64 * 2 * 2) == 43
    for key in ("capacity_reserved", "capacity_growing"):
        assert figures[key]["predicted"] == figures[key]["measured"] == 43
    # a real prefill: right after the 48-token prompt both sliding layers still hold all 48
    # tokens (the kept window is a view of the prompt): 2 x 48 x 768 B = 73,728 B a sequence,
    # 1,073,741 // 73,728 = 14 sequences
    prefill = figures["capacity_prefill"]
    assert budget // (2 * 48 * 3 * 64 * 2 * 2) == 14
    assert prefill["predicted"] == prefill["measured"] == 14


def test_mla_caches_the_latent(measure_extra: None) -> None:
    result = _run(str(ASSETS / "tiny-mla-test.yaml"), "--measure", "--device", "cpu",
                  "--context", "32", "--kv-budget-gib", "0.0005", "-f", "json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    f = _figures(payload)["kv_bytes_per_token"]
    assert f["predicted"] == f["measured"] == 2 * (64 + 16) * 2  # latent + RoPE key, 2 layers
    assert any("expands it" in n for n in payload["notes"])


def test_cuda_never_falls_back_to_cpu(measure_extra: None) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    result = _run("tiny-test-model", "--measure", "--device", "cuda")
    assert result.exit_code == 2
    assert "sees no CUDA device" in result.stderr and "--device cpu" in result.stderr


def test_cpu_runs_with_no_other_flag(measure_extra: None) -> None:
    """Issue #15 item 5: `size tiny-test-model --measure --device cpu` alone exits 0."""
    from kvplan.measure.progress import available_ram_bytes

    result = _run("tiny-test-model", "--measure", "--device", "cpu", "-f", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    payload = json.loads(result.stdout)
    avail = available_ram_bytes()
    # 16 MiB = 16,777,216 B unless a quarter of the available RAM is less
    expect = 16_777_216 if avail is None else min(16_777_216, avail // 4)
    assert payload["kv_budget_bytes"] == expect
    assert payload["context_tokens"] == 128
    caps = _figures(payload)
    # 128 tokens x 23,040 B per token = 2,949,120 B per sequence; 16 MiB holds 5 of them
    assert caps["capacity_growing"]["predicted"] == expect // 2_949_120
    # task h61misc: no seconds promised ("about 10 s" took 21 s); what the time depends on
    assert ("time not estimated (the device's speed, PyTorch's overhead per step and the "
            "machine's other work decide it): building 134,515,008 parameters, then searches and "
            "timings that start no new trial once --time-limit (120 s) has passed since the run "
            "began") in payload["notes"]


def test_without_the_extra_measure_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec",
        lambda name, *a: None if name in ("torch", "transformers") else real(name, *a),
    )
    result = _run("tiny-test-model", "--measure", "--device", "cpu")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --measure needs torch and transformers, which are not installed; run: "
        "pip install 'torch>=2.4' 'transformers>=5.17' (or, from a kvplan checkout, pip install "
        '".[measure]")'
    )


def test_size_never_imports_torch() -> None:
    code = (
        "import sys; from typer.testing import CliRunner; from kvplan.cli import app; "
        "r = CliRunner().invoke(app, ['size', 'llama-3-8b', '-f', 'json']); "
        "assert r.exit_code == 0, r.output; "
        "bad = [m for m in ('torch', 'transformers') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_bad_device_is_an_input_error() -> None:
    result = _run("tiny-test-model", "--measure", "--device", "tpu")
    assert result.exit_code == 2
    assert "use cpu, cuda or cuda:N" in result.stderr


def _mla_session() -> Any:
    """The tiny MLA model built on the CPU, its KV per token measured: ready for capacity."""
    from kvplan.measure.run import MeasureOptions, _Session
    from kvplan.specs import load_model

    spec = load_model(str(ASSETS / "tiny-mla-test.yaml"))
    opts = MeasureOptions(device="cpu", gpu=None, catalog=(), context_tokens=32, layers=None,
                          tolerance_pct=10, time_limit_s=60, kv_budget_bytes=100_000)
    session = _Session(spec, opts)
    session.build()
    session.kv_per_token()
    return session


def test_capacity_search_walks_down_when_the_device_runs_out(
    measure_extra: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The GPU's failure mode on the CPU: trials past 5 sequences raise torch's OOM error."""
    import torch

    session = _mla_session()
    real = session._decode_trial
    oom = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError

    def limited(static: bool, batch: int) -> list[float] | None:
        if batch > 5:
            if static:
                raise oom("CUDA out of memory. Tried to allocate 2.00 GiB")
            raise RuntimeError("CUDA error: CUBLAS_STATUS_ALLOC_FAILED")
        return real(static, batch)

    monkeypatch.setattr(session, "_decode_trial", limited)
    session.capacity()
    report = session.report()
    figures = {f.key: f for f in report.figures}
    for key in ("capacity_reserved", "capacity_growing"):
        assert figures[key].predicted == 100_000 // (32 * 320) == 9
        assert figures[key].measured == 5
        # down by doubling steps, then bisect; an explicit budget bounds the cache alone
        assert figures[key].note == (
            "predicted: the cache budget / cache per sequence; tried 9x, 8x, 6x, 2, 4, 5")
    assert not report.passed  # -44%: beyond the 10% tolerance
    assert {f.key for f in report.failures} == {"capacity_reserved", "capacity_growing"}
    # progress names each trial as it starts (stderr on a terminal; recorded in `lines`)
    trials = [line.split("trial: ")[1] for line in session.progress.lines if "trial: " in line]
    assert trials == [f"{n} sequences of {session.context:,} tokens, {cache} cache"
                      for cache in ("reserved", "growing") for n in (9, 8, 6, 2, 4, 5)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--layers", "2"), "--layers applies only with --measure"),
        (("--device", "cpu"), "--device applies only with --measure"),
        (("--tolerance", "5", "--time-limit", "9"), "--tolerance, --time-limit apply only with "
         "--measure"),
        (("--measure", "--tp", "2", "--kv-dtype", "fp8"), "--kv-dtype, --tp: --measure builds one"),
        (("--measure", "--context", "1024,2048"), "--measure takes one --context"),
    ],
)
def test_options_that_do_not_apply_are_refused(args: tuple[str, ...], message: str) -> None:
    result = _run("llama-3-8b", *args)
    assert result.exit_code == 2
    assert message in result.output


def test_a_measurement_that_breaks_off_is_reported_not_a_crash(
    measure_extra: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One failing measurement never hides the others: it is an error line and exit 1."""
    from kvplan.measure import run as run_mod

    def boom(self: object) -> None:
        raise RuntimeError("CUDA error: an illegal memory access was encountered\nmore")

    monkeypatch.setattr(run_mod._Session, "token_cost", boom)
    args = ("tiny-test-model", "--measure", "--device", "cpu", "--context", "16",
            "--layers", "2", "--kv-budget-gib", "0.001")
    result = _run(*args, "-f", "json")
    assert result.exit_code == 1, result.output
    payload = json.loads(result.stdout)
    assert payload["errors"] == [
        "cost of a token: RuntimeError: CUDA error: an illegal memory access was encountered"
    ]
    assert payload["passed"] is False and payload["failed_figures"] == []
    figures = _figures(payload)
    assert figures["kv_bytes_per_token"]["measured"] == 2 * 3 * 64 * 2 * 2  # still measured
    assert figures["capacity_growing"]["measured"] > 0
    table = _run(*args)
    assert table.exit_code == 1
    assert "error: cost of a token: RuntimeError: CUDA error" in table.stdout
    assert "FAIL: 1 measurement(s) broke off" in table.stdout
    debug = CliRunner().invoke(app, ["--debug", "size", *args])
    assert isinstance(debug.exception, RuntimeError)  # --debug: raised, for its traceback


def test_a_trial_that_fails_for_another_reason_does_not_hold(
    measure_extra: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _mla_session()
    real = session._decode_trial

    def limited(static: bool, batch: int) -> list[float] | None:
        if batch > 6:
            raise RuntimeError("CUBLAS_STATUS_NOT_SUPPORTED when calling cublasGemmEx")
        return real(static, batch)

    monkeypatch.setattr(session, "_decode_trial", limited)
    session.capacity()
    figures = {f.key: f for f in session.report().figures}
    assert figures["capacity_growing"].measured == 6
    assert any("batch 9 (growing): RuntimeError: CUBLAS_STATUS_NOT_SUPPORTED" in n
               for n in session.notes)
