"""Whole-output goldens for every `kvplan check` format (KVPLAN_UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import ASSETS, invoke

ROOT = Path(__file__).parents[2]
GOLDEN = ASSETS / "check" / "golden"
# Inputs whose output does not move when the GPU catalog grows: H200s (no NVIDIA GPU with more
# memory passes where they fail) and an input error.
FILES = [
    "tests/assets/check/kvplan/pass-h200.yaml",
    "tests/assets/check/kvplan/fail-weights-h200.yaml",
    "tests/assets/check/k8s/sglang-pass.yaml",
    "tests/assets/check/invalid/unknown-key.yaml",
    # one of each kind that is not kvplan/v1 or Kubernetes, as ERRORs the catalog cannot move:
    # a compose service (`compose`), a script's server start (`script`) and `docker run` line
    # (`docker_run`), each in its own words
    "tests/assets/check/qa/selfhost-vllm-compose.yml",
    "tests/assets/check/scripts/synthetic/loop-and-function.sh",
]


@pytest.mark.parametrize(
    ("fmt", "suffix"), [("text", "txt"), ("json", "json"), ("junit", "xml"), ("github", "txt")]
)
def test_whole_output(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, fmt: str, suffix: str
) -> None:
    monkeypatch.chdir(ROOT)
    result = invoke(runner, "check", *FILES, "--format", fmt)
    assert result.exit_code == 2, result.output
    golden = GOLDEN / f"check-{fmt}.{suffix}"
    if os.environ.get("KVPLAN_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(result.output)
    assert result.output == golden.read_text()


# --- independent anchors: the golden's key numbers, worked by hand ----------------------------
# Regenerating the goldens cannot hide a wrong number: the JSON golden and a fresh run must both
# carry these values. H200: 150,109,880,320 B; usable floor(0.9 x) = 135,098,892,288.
ANCHORS = [
    # Llama-3-8B on H200: pool 135,098,892,288 - 16,060,522,496 weights - 2 GiB = 116,890,886,144;
    # one max_model_len sequence: 8,192 x 131,072 B = 1,073,741,824; 1,500 required (no headroom)
    ("pass-h200.yaml", "kv_pool_bytes_per_gpu", 116_890_886_144, "135,098,892,288 - 16,060,522,496 - 2 GiB"),
    ("pass-h200.yaml", "max_sequence_bytes_per_gpu", 1_073_741_824, "8,192 x 32 x 2 x 8 x 128 x 2"),
    ("pass-h200.yaml", "users_required", 1_500, "peak 1,500 x (1 + 0)"),
    ("pass-h200.yaml", "gpus", 4, "hardware.count"),
    # Llama-3.1-405B, TP 4: 405,853,388,800 x 2 / 4 = 202,926,694,400 B of weights per GPU >
    # 135,098,892,288 usable: no pool, nobody held. One 32,768-token sequence per GPU: 126 layers
    # x 2 x (8 / 4 = 2 heads) x 128 x 2 B x 32,768 = 4,227,858,432
    ("fail-weights-h200.yaml", "kv_pool_bytes_per_gpu", 0, "weights exceed usable memory"),
    ("fail-weights-h200.yaml", "users_held", 0, "no pool"),
    ("fail-weights-h200.yaml", "max_sequence_bytes_per_gpu", 4_227_858_432, "32,768 x 129,024"),
    ("fail-weights-h200.yaml", "users_required", 64, "peak 64"),
    ("fail-weights-h200.yaml", "gpus_per_replica", 4, "TP 4"),
    # SGLang 0.4.1, Llama-3.1-70B, TP 4, fp8 cache, mem_fraction_static 0.85 on H200:
    # free before weights 150,109,880,320 - 2,072 MiB (start-up use with TP on an NVLink module,
    # fitted on log 03) = 147,937,230,848; weights 70,553,706,496 x 2 / 4 = 35,276,853,248 + 290 MiB
    # of load-time buffers with TP (issue #13: SGLang's "mem usage" at TP 4, log 14) =
    # 35,580,940,288; free after 112,356,290,560; held back floor(147,937,230,848 x 0.15) =
    # 22,190,584,627; rest 90,165,705,933; cell 80 x 2 x 2 x 128 x 1 B = 40,960; tokens 2,201,311;
    # pool 2,201,311 x 40,960 = 90,165,698,560
    ("sglang-pass.yaml", "kv_pool_bytes_per_gpu", 90_165_698_560, "2,201,311 tokens x 40,960 B"),
    ("sglang-pass.yaml", "max_sequence_bytes_per_gpu", 1_342_177_280, "32,768 x 40,960"),
    ("sglang-pass.yaml", "users_required", 500, "ceil(400 x 1.25)"),
    ("sglang-pass.yaml", "gpus", 8, "2 replicas x TP 4"),
    ("sglang-pass.yaml", "replicas", 2, "StatefulSet replicas"),
]


def _result(doc: dict, name: str) -> dict:
    (found,) = [r for r in doc["results"] if r["file"].endswith("/" + name)]
    return found


@pytest.mark.parametrize(("name", "field", "value", "arithmetic"), ANCHORS,
                         ids=[f"{a[0]}-{a[1]}" for a in ANCHORS])
def test_golden_key_numbers_by_hand(runner: CliRunner, monkeypatch: pytest.MonkeyPatch,
                                    name: str, field: str, value: int, arithmetic: str) -> None:
    import json

    monkeypatch.chdir(ROOT)
    golden = json.loads((GOLDEN / "check-json.json").read_text())
    assert _result(golden, name)[field] == value, arithmetic
    fresh = json.loads(invoke(runner, "check", *FILES, "--format", "json").stdout)
    assert _result(fresh, name)[field] == value, arithmetic


def test_golden_users_held_add_up(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.chdir(ROOT)
    doc = json.loads(invoke(runner, "check", *FILES, "--format", "json").stdout)
    for r in doc["results"]:
        if r["verdict"] != "ERROR":  # held = replicas x users per replica
            assert r["users_held"] == r["replicas"] * r["users_per_replica"]
            assert (r["verdict"] == "PASS") == (r["users_held"] >= r["users_required"])
