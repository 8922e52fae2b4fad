"""The public Python scripts of tests/assets/check/python (SOURCES.md): each file's verdicts and
the key record fields written by hand in EXPECTED.yaml before kvplan read them (task h60pyllm);
the held-out quarter is scored on its own and never used to change the reader. Round 2
(python/round2, task h60pyround2) is scored by the same helpers: every file held out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kvplan.check import check_paths, read_targets
from tests.conftest import ASSETS

PY = ASSETS / "check" / "python"
ROUND2 = PY / "round2"
EXPECTED = yaml.safe_load((PY / "EXPECTED.yaml").read_text())
EXPECTED2 = yaml.safe_load((ROUND2 / "EXPECTED.yaml").read_text())
# vLLM's --dtype spellings of one 16-bit float (vllm/config/model.py _STR_DTYPE_TO_TORCH_DTYPE)
_DTYPE = {"half": "fp16", "float16": "fp16"}
_FIELDS = {"gpu_memory_utilization", "max_model_len", "max_num_batched_tokens", "max_num_seqs",
           "entrypoint", "weight_dtype", "kv_cache_dtype", "enforce_eager",
           "enable_prefix_caching"}


def _verdicts(folder: Path, expected: dict[str, Any]) -> dict[str, list[str]]:
    report = check_paths([str(folder / name) for name in expected])
    out: dict[str, list[str]] = {}
    for o in report.outcomes:
        out.setdefault(Path(o.file).name, []).append(o.verdict)
    return out


def _key_fields(path: Path, at: int) -> dict[str, Any]:
    t = read_targets(path, {})[at]
    d = t.deployment
    assert d is not None, t.problems
    got = {"engine": d.engine.name, "model": d.model, "tensor": d.parallel.tensor,
           "gpus": d.hardware.count}
    for f in _FIELDS:
        value = getattr(d.engine, f)
        got[f] = _DTYPE.get(value, value) if f == "weight_dtype" else value
    return got


@pytest.fixture(scope="module")
def verdicts() -> dict[str, list[str]]:
    return _verdicts(PY, EXPECTED)


@pytest.mark.parametrize("part", [False, True], ids=["development", "held-out"])
def test_verdicts_agree_with_the_hand_written_ones(verdicts: dict[str, list[str]],
                                                   part: bool) -> None:
    names = [n for n, e in EXPECTED.items() if bool(e.get("held_out")) == part]
    assert len(names) == (5 if part else 14)
    assert {n: verdicts.get(n) for n in names} == {n: EXPECTED[n]["verdicts"] for n in names}


@pytest.mark.parametrize("name", [n for n, e in EXPECTED.items() if "key" in e])
def test_key_record_fields(name: str) -> None:
    got = _key_fields(PY / name, 0)
    key = EXPECTED[name]["key"]
    assert {k: got[k] for k in key} == key


# Round 2's disagreements with the verdicts written by hand (held out; round2/SOURCES.md gives
# the first-measured figures: 18 of 19 files, 20 of 21 constructions).
# trtllm-ray-placement.py: the hand-written [WARN] passes over line 39's `ray.remote(...)(LLM)
# .remote(model=..., tensor_parallel_size=2, ...)`, the docs of the time being silent on it; since
# task h60pyreview the reader refuses an engine class handed on as a value (as it does
# functools.partial(LLM, ...): docs/check.md), so that is a first construction, an ERROR, and
# line 56's LLM(...) (the hand-written one) is the second. First measured, line 56 was an ERROR
# too: trtllm_config's guard against a YAML stating no key it reads fired on the keywords of
# `LLM(model=..., executor_type="ray")`, though docs/check.md says an unread keyword is a note.
# That defect was fixed after round 2 was measured (so this file is no longer a clean held-out
# figure for it): line 56 is the WARN written by hand, with executor_type named as not read.
ROUND2_MEASURED = {"trtllm-ray-placement.py": ["ERROR", "WARN"]}
ROUND2_KEY_AT = {"trtllm-ray-placement.py": 1}


def test_round2_verdicts() -> None:
    """Round 2, all held out (round2/SOURCES.md): 19 files, 21 constructions; 18 files (20
    constructions) as written by hand, one reader defect (ROUND2_MEASURED)."""
    assert len(EXPECTED2) == 19 and all(e.get("held_out") for e in EXPECTED2.values())
    got = _verdicts(ROUND2, EXPECTED2)
    assert got == {n: ROUND2_MEASURED.get(n, e["verdicts"]) for n, e in EXPECTED2.items()}


@pytest.mark.parametrize("name", [n for n, e in EXPECTED2.items() if "key" in e])
def test_round2_key_record_fields(name: str) -> None:
    e = EXPECTED2[name]
    got = _key_fields(ROUND2 / name, ROUND2_KEY_AT.get(name, e.get("key_at", 0)))
    assert {k: got[k] for k in e["key"]} == e["key"]
