"""Issue #13: the calibrate breakdown check takes SGLang's fraction as the profile does, SGLang's
own attention backend on ROCm included (aiter for a model without MLA from 0.4.7, whose fraction
is x 0.85 above 8,192 tokens of context; kvplan.engines.sglang_backend.default_backend). The logs below are
synthetic: an AMD MI300X start-up that states no backend, its numbers chosen for the arithmetic."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.calibrate.compare import calibrate_files

LOG = """# engine: sglang
# kvplan: {directives}
[2026-12-04 10:00:00] Load weight begin. avail mem=191.60 GB
[2026-12-04 10:00:09] Load weight end. type=LlamaForCausalLM, avail mem=176.58 GB, mem usage=15.02 GB.
[2026-12-04 10:00:10] KV Cache is allocated. #tokens: 944292, K size: 57.64 GB, V size: 57.63 GB
"""


def _kv_check(tmp_path: Path, directives: str):  # noqa: ANN202 - a Check
    path = tmp_path / "amd.log"
    path.write_text(LOG.format(directives=directives))
    [rep] = calibrate_files([path])
    [check] = [c for c in rep.checks if c.basis == "breakdown" and c.quantity == "KV memory"]
    return check


def test_an_amd_log_without_a_backend_gets_sglangs_default(tmp_path: Path) -> None:
    check = _kv_check(tmp_path, "spec=llama-3.1-8b gpu=mi300x version=0.5.21 "
                                "mem_fraction_static=0.8 max_model_len=32768")
    # aiter (no MLA) at 32,768 tokens of context: 0.8 x 0.85 = 0.68;
    # 176.58 - 191.60 x 0.32 = 176.58 - 61.312 = 115.268 GiB (logged 57.64 + 57.63 = 115.27)
    assert check.predicted == pytest.approx(115.268)
    assert check.logged == pytest.approx(115.27)
    assert check.ok
    assert check.note == ("after - before x (1 - mem_fraction_static 0.8 stated x 0.85: aiter "
                          "backend (aiter: SGLang's default on ROCm) above 8,192 tokens of context)")


def test_a_stated_backend_and_other_gpus_keep_the_stated_fraction(tmp_path: Path) -> None:
    # --attention-backend triton in the log's server_args: no derate, 176.58 - 191.60 x 0.2
    # = 138.26 GiB (the logged 115.27 is then a miss, as it would be for such a run)
    log = LOG.replace("[2026-12-04 10:00:00] Load", "[2026-12-04 09:59:59] server_args=ServerArgs("
                      "model_path='x', mem_fraction_static=0.8, attention_backend='triton')\n"
                      "[2026-12-04 10:00:00] Load")
    path = tmp_path / "triton.log"
    path.write_text(log.format(directives="spec=llama-3.1-8b gpu=mi300x version=0.5.21 "
                                          "max_model_len=32768"))
    [rep] = calibrate_files([path])
    [check] = [c for c in rep.checks if c.basis == "breakdown" and c.quantity == "KV memory"]
    assert check.predicted == pytest.approx(138.26)
    assert check.note == "after - before x (1 - mem_fraction_static 0.8 stated)"
    # on an NVIDIA GPU SGLang's default backend moves nothing
    check = _kv_check(tmp_path, "spec=llama-3.1-8b gpu=h200 version=0.5.21 mem_fraction_static=0.8 "
                                "max_model_len=32768")
    assert check.predicted == pytest.approx(138.26)
    # before 0.4.7 SGLang has no derate (and kvplan names no default)
    check = _kv_check(tmp_path, "spec=llama-3.1-8b gpu=mi300x version=0.4.6 "
                                "mem_fraction_static=0.8 max_model_len=32768")
    assert check.predicted == pytest.approx(138.26)


def test_without_the_model_the_default_backend_is_not_guessed(tmp_path: Path) -> None:
    # an MLA model may get triton on ROCm: unknown model, no derate, and the note says so
    check = _kv_check(tmp_path, "gpu=mi300x version=0.5.21 mem_fraction_static=0.8 "
                                "max_model_len=32768")
    assert check.predicted == pytest.approx(138.26)
    assert check.note == ("after - before x (1 - mem_fraction_static 0.8 stated; model unknown: "
                          "SGLang's default backend on ROCm not applied)")
