"""`fleet --search`'s table says why each configuration that cannot carry the load fails, where
there are few of them; with many it points to the JSON, which lists each with its reason.

Found by task h90review asking "which is cheapest for Qwen3-235B-A22B: H200 TP4 or B200 TP2":
`--search-gpus h200,b200 --tp 2,4` listed H200 and B200 at TP 4 and said only "8 configurations
tried, 4 cannot carry 1,000 conversations", so the B200 TP 2 the user asked about was gone without
a word in the table. Qwen3-235B-A22B's 235,093,634,560 bf16 parameters (model_specs, estimated
from its config) are 218.95 GiB a GPU at TP 2; a B200's 191,514,017,792 B at 0.9 leave
floor(172,362,616,012.8) B = 160.53 GiB: 60.42 GiB short with the 2 GiB reserve."""

from __future__ import annotations

from typer.testing import CliRunner

from kvplan.cli import app

ARGS = ["fleet", "qwen3-235b-a22b", "--peak-users", "1000", "--context", "32K",
        "--avg-context", "4000", "--search", "--search-gpus", "h200,b200", "--tp", "2,4"]


def _out(*more: str) -> str:
    res = CliRunner().invoke(app, [*ARGS, *more])
    assert res.exit_code == 0, res.output
    return " ".join(res.stdout.split())


def test_few_rejections_are_listed_with_the_reason():
    out = _out()
    assert "8 configurations tried, 4 cannot carry 1,000 conversations:" in out
    assert ("b200 TP 2 (fp16, fp8): weights need 218.95 GiB per GPU and the reserve 2 GiB, but "
            "only 160.53 GiB of b200's memory is usable at 0.9 utilization: 60.42 GiB short"
            ) in out
    assert ("h200-141gb TP 2 (fp16, fp8): weights need 218.95 GiB per GPU and the reserve 2 GiB, "
            "but only 125.82 GiB of h200-141gb's memory is usable at 0.9 utilization: 95.13 GiB "
            "short") in out


def test_many_rejections_point_to_the_json():
    res = CliRunner().invoke(app, ["fleet", "llama-3-8b", "-n", "20000", "--context", "8192",
                                   "--avg-context", "2000", "--search",
                                   "--min-tokens-per-s-per-user", "40", "--top", "3"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    assert ("252 configurations tried, 31 cannot carry 20,000 conversations at the SLO "
            "(-f json lists each with its reason)") in out
