"""vLLM 0.10's sampler path as a deployment setting: engine.topk_topp_sampler, --topk-topp-sampler,
and what a manifest says of it (the vllm/vllm-openai image, VLLM_USE_FLASHINFER_SAMPLER).

Qwen3-32B at TP 8 on an H100 with vLLM 0.10.0 (defaults: 1,024 sequences, 8,192 batched tokens,
so the profiling sampler runs min(1,024, 8,192) = 1,024 rows of the 151,936-token vocabulary):
native holds 38 B a logit at the sort, FlashInfer 16 B (kvplan/engines/vllm_sort_sampler.py),
so the pool differs by 1,024 x 151,936 x (38 - 16) = 3,422,814,208 B a GPU.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check import read_targets
from tests.check.test_check_engine_flags import manifest
from tests.conftest import explain_record, invoke, step_value

RUN = ("qwen3-32b", "--gpu", "h100", "--tp", "8", "--engine", "vllm", "--engine-version",
       "0.10.0")
ROWS, VOCAB = 1024, 151_936
GAP = ROWS * VOCAB * (38 - 16)
HEAD = ("apiVersion: kvplan/v1\nname: q\nmodel: qwen3-32b\nhardware: {gpu: h100}\n"
        "parallel: {tensor: 8}\ntraffic: {peak_concurrent_users: 10, context_tokens: "
        "{mean: 2000}}\n")


def _field(result: dict) -> tuple[str, str] | None:
    row = next((r for r in result["record"] if r["field"] == "engine.topk_topp_sampler"), None)
    return None if row is None else (row["value"], row["from"])


def test_the_flag_moves_the_pool_by_the_hand_figure() -> None:
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 1,806,672 -> 1,806,352, 1,911,136 -> 1,910,816
    unset = explain_record(*RUN)
    native = explain_record(*RUN, "--topk-topp-sampler", "native")
    fi = explain_record(*RUN, "--topk-topp-sampler", "flashinfer")
    assert GAP == 3_422_814_208
    assert step_value(native, "activation peak") == ROWS * VOCAB * 38 == 5_912_133_632
    assert step_value(fi, "activation peak") == ROWS * VOCAB * 16 == 2_489_319_424
    assert step_value(fi, "KV cache memory") - step_value(native, "KV cache memory") == GAP
    assert step_value(unset, "KV cache memory") == step_value(native, "KV cache memory")  # the pip default
    assert (step_value(native, "GPU KV cache size"), step_value(fi, "GPU KV cache size")) == (
        1_806_352, 1_910_816)
    assert _field(fi) == ("flashinfer", "--topk-topp-sampler")
    value, origin = _field(unset)
    assert value == "native" and origin.startswith("default: as pip installs a 0.8-0.11 release")


def test_a_kvplan_file_states_it(tmp_path: Path) -> None:
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 1,911,136 -> 1,910,816, 1,806,672 -> 1,806,352
    path = tmp_path / "q.yaml"
    path.write_text(HEAD +
                    "engine: {name: vllm, version: 0.10.0, "
                    "topk_topp_sampler: flashinfer}\n")
    got = explain_record(str(path))
    assert _field(got) == ("flashinfer", "file")
    assert step_value(got, "GPU KV cache size") == 1_910_816
    # the flag overrides the file's value
    assert step_value(explain_record(str(path), "--topk-topp-sampler", "native"),
                      "GPU KV cache size") == 1_806_352


def test_a_bad_value_is_one_line_and_exit_2(tmp_path: Path) -> None:
    res = invoke(CliRunner(), "size", *RUN, "--topk-topp-sampler", "sort")
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "--topk-topp-sampler" in lines[0] and "'native'" in lines[0]
    path = tmp_path / "bad.yaml"
    path.write_text(HEAD +
                    "engine: {name: vllm, version: 0.10.0, topk_topp_sampler: sort}\n")
    res = invoke(CliRunner(), "size", str(path))
    assert res.exit_code == 2 and "engine.topk_topp_sampler" in res.output


@pytest.mark.parametrize(("extra", "why"), [
    ((), "only the 0.8-0.16 series (0.8.0-0.16.x) sort the logits natively"),  # 0.33.0 default
    (("--engine-version", "0.17.1"), "vLLM 0.17.1 samples as it does with FlashInfer or without"),
    (("--engine-version", "0.10.0-v0"), "the V0 engine's sampler does not take this path"),
])
def test_a_flag_where_it_does_not_apply_is_refused(extra: tuple[str, ...], why: str) -> None:
    res = invoke(CliRunner(), "size", "qwen3-32b", "--engine", "vllm", *extra,
                 "--topk-topp-sampler", "flashinfer")
    assert res.exit_code == 2
    [line] = res.output.strip().splitlines()
    assert "(--topk-topp-sampler)" in line and why in line


def test_another_engine_refuses_the_flag_and_notes_the_key(tmp_path: Path) -> None:
    res = invoke(CliRunner(), "size", "qwen3-32b", "--engine", "sglang",
                 "--topk-topp-sampler", "native")
    assert res.exit_code == 2 and "only vllm reads it, not sglang" in res.output
    path = tmp_path / "s.yaml"
    path.write_text(HEAD +
                    "engine: {name: sglang, topk_topp_sampler: native}\n")
    res = invoke(CliRunner(), "size", str(path))
    assert res.exit_code == 0
    assert "engine.topk_topp_sampler: only vllm reads it, not sglang, so it is not used" in \
        res.output


def test_a_file_outside_the_series_or_below_128_rows_notes_it(tmp_path: Path) -> None:
    def notes(version: str, seqs: int | None = None) -> list[str]:
        path = tmp_path / "v.yaml"
        path.write_text(HEAD +
                        f"engine: {{name: vllm, version: {version}, topk_topp_sampler: native"
                        + (f", max_num_seqs: {seqs}" if seqs else "") + "}\n")
        res = invoke(CliRunner(), "size", str(path), "-f", "json")
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)["results"][0]["assumptions"]

    assert any(a.startswith("topk_topp_sampler native: only the 0.8-0.16 series") and
               a.endswith("so it is not used") for a in notes("0.17.1"))
    assert any(a.startswith("topk_topp_sampler native: 64 sampler rows take PyTorch's full-sort")
               for a in notes("0.10.0", 64))
    assert not any("topk_topp_sampler" in a for a in notes("0.10.0"))  # stated and used


POD_ENV = """          env:
            - name: VLLM_USE_FLASHINFER_SAMPLER
              value: "{value}"
          resources:"""


def _qwen(tmp: Path, image: str, env: str | None = None) -> Path:
    path = manifest(tmp, "q", image, ["vllm", "serve", "Qwen/Qwen3-32B"],
                    ["--tensor-parallel-size", "8"], gpus=8)
    if env is not None:
        path.write_text(path.read_text().replace("          resources:",
                                                 POD_ENV.format(value=env)))
    return path


def _target(path: Path):  # noqa: ANN202
    [t] = read_targets(path, {})
    return t


def test_the_official_0_10_image_has_flashinfer(tmp_path: Path) -> None:
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 1,911,136 -> 1,910,816
    t = _target(_qwen(tmp_path, "vllm/vllm-openai:v0.10.0"))
    assert t.deployment.engine.version == "0.10.0"
    assert t.deployment.engine.topk_topp_sampler == "flashinfer"
    res = explain_record(str(_qwen(tmp_path, "vllm/vllm-openai:v0.10.0")))
    value, origin = _field(res)
    assert value == "flashinfer"
    assert origin.startswith("manifest: image vllm/vllm-openai:v0.10.0 (vLLM's Dockerfile "
                             "installs FlashInfer")
    assert step_value(res, "GPU KV cache size") == 1_910_816
    # 0.11 takes FlashInfer as 0.10 does (read in the 0.11.0 wheel); from 0.12 FlashInfer's
    # sampler is opt-in, so the official image says nothing; neither does a series that does
    # not sort (0.17.1, Triton)
    assert _target(_qwen(tmp_path, "vllm/vllm-openai:v0.11.0")).deployment.engine \
        .topk_topp_sampler == "flashinfer"
    for tag in ("v0.13.0", "v0.17.1"):
        assert _target(_qwen(tmp_path, f"vllm/vllm-openai:{tag}")).deployment.engine \
            .topk_topp_sampler is None
    opt = explain_record(str(_qwen(tmp_path, "vllm/vllm-openai:v0.13.0")))
    value, origin = _field(opt)
    assert value == "native" and origin.startswith(
        "default: as 0.12-0.16 run unless VLLM_USE_FLASHINFER_SAMPLER=1")
    other = _qwen(tmp_path, "registry.example.com/team/vllm:v0.10.0")
    assert _target(other).deployment.engine.topk_topp_sampler is None
    value, origin = _field(explain_record(str(other)))
    assert value == "native" and origin.startswith("default: as pip installs")


def test_the_environment_variable(tmp_path: Path) -> None:
    off = _target(_qwen(tmp_path, "vllm/vllm-openai:v0.10.0", "0"))
    assert off.deployment.engine.topk_topp_sampler == "native"
    assert off.field_name("engine.topk_topp_sampler").startswith("VLLM_USE_FLASHINFER_SAMPLER=0")
    on = _target(_qwen(tmp_path, "vllm/vllm-openai:v0.10.2", "1"))
    assert on.deployment.engine.topk_topp_sampler == "flashinfer"
    # 0.12-0.16 require FlashInfer: 1 opts in on any image
    opted = _target(_qwen(tmp_path, "myorg/vllm:0.14.0", "1"))
    assert opted.deployment.engine.topk_topp_sampler == "flashinfer"
    assert opted.field_name("engine.topk_topp_sampler").startswith(
        "VLLM_USE_FLASHINFER_SAMPLER=1 (vLLM 0.12-0.16 require FlashInfer")
    # 1 on an image not known to hold FlashInfer: noted, the pip default planned
    pip = _target(_qwen(tmp_path, "myorg/vllm:0.10.0", "1"))
    assert pip.deployment.engine.topk_topp_sampler is None
    assert any(n.startswith("VLLM_USE_FLASHINFER_SAMPLER=1 takes FlashInfer's sampler only "
                            "where FlashInfer is installed") for n in pip.notes)
    # not an integer: vLLM 0.10.0 stops at import (bool(int(value)))
    bad = _target(_qwen(tmp_path, "vllm/vllm-openai:v0.10.0", "true"))
    [refusal] = bad.refusals
    assert refusal.field == "VLLM_USE_FLASHINFER_SAMPLER" and "not an integer" in refusal.message


def test_the_annotation_states_it(tmp_path: Path) -> None:
    path = _qwen(tmp_path, "myorg/vllm:0.10.0")
    path.write_text(path.read_text().replace(
        "  annotations:\n", "  annotations:\n    kvplan.io/topk-topp-sampler: flashinfer\n"))
    t = _target(path)
    assert t.deployment.engine.topk_topp_sampler == "flashinfer"
    assert t.field_name("engine.topk_topp_sampler") == "kvplan.io/topk-topp-sampler"
