"""Releases that count memory other processes hold on the GPU against vLLM's own budget
(kvplan.engines.vllm_nontorch.counts_other_processes) say so, with the room left, in `explain`
and in `kvplan check` (vllm-project/vllm#17431: the same command started under V0 and failed
under 0.8.5's V1 at utilization 0.4 on a shared A800; tests/assets/check/outcomes 23 and 24)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.vllm_nontorch import counts_other_processes
from kvplan.engines.vllm_series import flavour
from kvplan.units import fmt_bytes


@pytest.mark.parametrize(("version", "counted"), [
    ("0.8.5", "V1 before 0.9.1"), ("0.9.0", "V1 before 0.9.1"), ("0.9.1", None),
    ("0.34.0", None), ("0.8.5-v0", None), ("0.6.5", None), ("0.6.4", "V0 0.6.4"),
    ("0.6.4.post1", "V0 0.6.4"), ("0.6.3", None), ("0.3.1", None), ("0.3.0", "V0 0.2.5-0.3.0"),
    ("0.2.5", "V0 0.2.5-0.3.0"), ("0.2.4", None),
])
def test_which_releases_count_other_processes(version: str, counted: str | None) -> None:
    rule = counts_other_processes(flavour(version))
    assert (rule if rule is None else rule.split(" books")[0]) == counted


def test_explain_gives_the_room_left() -> None:
    """Qwen3-8B, A800 80GB, 0.8.5, utilization 0.4, 40,960 tokens: the pool is 11,366,524,108 B
    (explain's KV cache memory); one request is ceil(40,960 / 16) = 2,560 blocks x 16 x 147,456 B
    (2 x 36 layers x 8 KV heads x 128 x 2 B) = 6,039,797,760 B, so others may hold
    5,326,726,348 B = 4.96 GiB."""
    res = CliRunner().invoke(app, ["explain", "qwen3-8b", "--gpu", "a800-80gb", "-e", "vllm",
                                   "--engine-version", "0.8.5", "--context", "40960",
                                   "--memory-utilization", "0.4"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "KV cache memory 10.59 GiB (11,366,524,108 B)" in text
    assert 11_366_524_108 - 2_560 * 16 * 147_456 == 5_326_726_348
    assert round(5_326_726_348 / 2**30, 2) == 4.96
    assert ("nothing else on the GPU: vLLM 0.8.5 counts memory any other process holds there "
            "against its budget (V1 before 0.9.1 books mem_get_info's total - free after the "
            "profile run, gpu_worker.py determine_available_memory, 0.8.5 :203-207), so it comes "
            "off this pool; it starts while they hold under 4.96 GiB (the pool less one "
            "40,960-token request)") in text
    later = CliRunner().invoke(app, ["explain", "qwen3-8b", "--gpu", "a800-80gb", "-e", "vllm",
                                     "--engine-version", "0.9.1", "--context", "40960",
                                     "--memory-utilization", "0.4"])
    assert later.exit_code == 0 and "nothing else on the GPU" not in later.output


@pytest.mark.parametrize(("tag", "noted"), [("v0.8.5", True), ("v0.9.1", False)])
def test_check_notes_the_room_per_gpu(tmp_path: Path, tag: str, noted: bool) -> None:
    """The #17431 command as a `docker run` on the image it names: the note's room is the pool
    less one 40,960-token sequence (40,960 x 147,456 B = 6,039,797,760 B a GPU)."""
    script = tmp_path / "serve.sh"
    script.write_text(f"docker run --gpus all vllm/vllm-openai:{tag} --model Qwen/Qwen3-8B "
                      "--gpu-memory-utilization 0.4 --max-model-len 40960\n", encoding="utf-8")
    (tmp_path / "serve.kvplan.yaml").write_text("gpu: a800-80gb\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["check", str(script), "--format", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    assert row["verdict"] == "PASS" and row["max_sequence_bytes_per_gpu"] == 6_039_797_760
    notes = [n for n in row["notes"] if "other process" in n]
    if not noted:
        assert notes == []
        return
    room = row["kv_pool_bytes_per_gpu"] - 6_039_797_760
    assert [n.split("under ")[-1] for n in notes] == [f"{fmt_bytes(room)} a GPU"]
    assert notes[0].startswith("vLLM 0.8.5 counts memory any other process holds on a GPU "
                               "against its budget (V1 before 0.9.1 books")
