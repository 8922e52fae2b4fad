"""A plan whose weights alone overflow the GPU keeps its reserve in every export (task h101left).

Llama-3-70B (bf16) on one H100 SXM 80GB, the plain arithmetic (no engine), defaults: weights
141,107,412,992 B (model_specs/llama-3-70b.yaml params x 2 B), memory 85,045,477,376 B
(hardware_specs), usable floor(0.9 x memory) = 76,540,929,638 B, reserve DEFAULT_RESERVE_BYTES
2 GiB = 2,147,483,648 B. The reason's shortfall counts the reserve: 141,107,412,992 +
2,147,483,648 - 76,540,929,638 = 66,713,967,002 B (62.13 GiB). Until task h101left the
breakdown (and so reserve_bytes in the CSV and JSON) took min(reserve, usable - weights) floored
at 0, i.e. 0, beside that reason's "the reserve 2 GiB".
"""

from __future__ import annotations

import csv
import io
import json

from typer.testing import CliRunner

from kvplan.capacity import SizeRequest, size
from kvplan.cli import app
from kvplan.specs import load_hardware, load_model

WEIGHTS = 141_107_412_992
MEMORY = 85_045_477_376
RESERVE = 2_147_483_648
ARGS = ["llama-3-70b", "--gpu", "h100", "--peak-users", "100"]


def test_the_arithmetic() -> None:
    assert MEMORY * 9 // 10 == 76_540_929_638
    assert WEIGHTS + RESERVE - 76_540_929_638 == 66_713_967_002
    assert MEMORY - WEIGHTS - RESERVE == -58_209_419_264


def test_size_keeps_the_reserve_the_reason_counts() -> None:
    r = size(SizeRequest(model=load_model("llama-3-70b"), gpu=load_hardware("h100"),
                         context_tokens=8192))
    assert not r.fits and r.weights_bytes == WEIGHTS
    assert r.breakdown.reserve_bytes == RESERVE
    assert r.breakdown.unallocated_bytes == -58_209_419_264
    assert sum(r.breakdown.parts().values()) == MEMORY  # the parts still add up
    assert r.reason is not None and "the reserve 2 GiB" in r.reason
    assert r.reason.endswith("62.13 GiB short")


def test_a_reserve_partly_beside_the_weights_is_kept_whole() -> None:
    """Llama-3-8B (16,060,522,496 B of weights) with a 70 GB reserve: usable - weights =
    60,480,407,142 B, less than the reserve, so the pool is negative; the reserve stays
    70,000,000,000 B (it was clamped to 60,480,407,142) and unallocated = 85,045,477,376 -
    16,060,522,496 - 70,000,000,000 = -1,015,045,120 B."""
    r = size(SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"),
                         context_tokens=8192, reserve_bytes=70_000_000_000))
    assert not r.fits and r.weights_bytes == 16_060_522_496
    assert r.breakdown.reserve_bytes == 70_000_000_000
    assert r.breakdown.unallocated_bytes == -1_015_045_120


def test_fleet_json_and_csv_export_the_reserve_of_the_reason() -> None:
    res = CliRunner().invoke(app, ["fleet", *ARGS, "-f", "json"])
    assert res.exit_code == 1, res.output  # nothing fits: exit 1 (docs/fleet.md)
    rec = json.loads(res.stdout)["results"][0]
    assert rec["fits"] is False and rec["reserve_bytes"] == RESERVE
    assert rec["breakdown"]["reserve_bytes"] == RESERVE
    assert "the reserve 2 GiB" in rec["reason"]
    res = CliRunner().invoke(app, ["fleet", *ARGS, "-f", "csv"])
    assert res.exit_code == 1, res.output  # nothing fits: exit 1 (docs/fleet.md)
    row = next(csv.DictReader(io.StringIO(res.stdout)))
    assert row["fits"] == "false" and row["reserve_bytes"] == str(RESERVE)
    assert "the reserve 2 GiB" in row["reason"]
