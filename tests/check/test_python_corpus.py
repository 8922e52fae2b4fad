"""The public Python scripts of tests/assets/check/python (SOURCES.md): each file's verdicts and
the key record fields written by hand in EXPECTED.yaml before kvplan read them (task h60pyllm);
the held-out quarter is scored on its own and never used to change the reader."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kvplan.check import check_paths, read_targets
from tests.conftest import ASSETS

PY = ASSETS / "check" / "python"
EXPECTED = yaml.safe_load((PY / "EXPECTED.yaml").read_text())
# vLLM's --dtype spellings of one 16-bit float (vllm/config/model.py _STR_DTYPE_TO_TORCH_DTYPE)
_DTYPE = {"half": "fp16", "float16": "fp16"}
_FIELDS = {"gpu_memory_utilization", "max_model_len", "max_num_batched_tokens", "max_num_seqs",
           "entrypoint", "weight_dtype"}


@pytest.fixture(scope="module")
def verdicts() -> dict[str, list[str]]:
    report = check_paths([str(PY / name) for name in EXPECTED])
    out: dict[str, list[str]] = {}
    for o in report.outcomes:
        out.setdefault(Path(o.file).name, []).append(o.verdict)
    return out


@pytest.mark.parametrize("part", [False, True], ids=["development", "held-out"])
def test_verdicts_agree_with_the_hand_written_ones(verdicts: dict[str, list[str]],
                                                   part: bool) -> None:
    names = [n for n, e in EXPECTED.items() if bool(e.get("held_out")) == part]
    assert len(names) == (5 if part else 14)
    assert {n: verdicts.get(n) for n in names} == {n: EXPECTED[n]["verdicts"] for n in names}


@pytest.mark.parametrize("name", [n for n, e in EXPECTED.items() if "key" in e])
def test_key_record_fields(name: str) -> None:
    t = read_targets(PY / name, {})[0]
    d = t.deployment
    assert d is not None, t.problems
    got = {"engine": d.engine.name, "model": d.model}
    for f in _FIELDS:
        value = getattr(d.engine, f)
        got[f] = _DTYPE.get(value, value) if f == "weight_dtype" else value
    key = EXPECTED[name]["key"]
    assert {k: got[k] for k in key} == key
