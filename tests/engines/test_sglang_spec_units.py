"""kvplan.engines.sglang_spec's small rules at their release boundaries (the lead: the mutation
script left their mutants alive, since test_sglang_spec.py reaches them through whole plans at a
few releases only). The boundaries are the module's, read by task h90sglspec in SGLang's wheels
(server_args.py, file:line in the module docstring): the EAGLE family's reserve +2 GiB from 0.4.8
and +4 GiB from 0.5.10, STANDALONE +6 GiB, none from 0.5.14 (the draft in the budget); 48 running
requests from 0.4.6 (EAGLE family) and 0.5.3 (NGRAM); auto_choose_speculative_params from 0.4.6."""

from __future__ import annotations

import pytest

from kvplan.engines.sglang_spec import (
    DEFAULT_PARAMS,
    SMALL_PARAMS,
    default_running,
    family,
    headroom_params,
    reserve_mib,
)


@pytest.mark.parametrize(("algorithm", "worker"), [
    ("EAGLE", "EAGLE"), ("EAGLE3", "EAGLE"), ("NEXTN", "EAGLE"),
    ("STANDALONE", "STANDALONE"), ("NGRAM", "NGRAM")])
def test_family(algorithm: str, worker: str) -> None:
    assert family(algorithm) == worker


@pytest.mark.parametrize(("version", "algorithm", "running"), [
    ("0.4.5", "EAGLE", None), ("0.4.6", "EAGLE", 48), ("0.4.6", "EAGLE3", 48),
    ("0.4.6", "NEXTN", 48), ("0.5.2", "STANDALONE", 48), ("0.5.2", "NGRAM", None),
    ("0.5.3", "NGRAM", 48), ("0.5.23", None, None), (None, "EAGLE", 48)])
def test_default_running(version: str | None, algorithm: str | None,
                         running: int | None) -> None:
    assert default_running(version, algorithm) == running


@pytest.mark.parametrize(("version", "algorithm", "mib"), [
    ("0.5.5", None, 0), ("0.4.7", "EAGLE", 0), ("0.4.8", "EAGLE", 2048), ("0.5.9", "EAGLE3", 2048),
    ("0.5.10", "EAGLE", 4096), ("0.5.13", "NEXTN", 4096), ("0.5.14", "EAGLE", 0),
    ("0.5.2", "STANDALONE", 6144), ("0.5.13", "STANDALONE", 6144), ("0.5.14", "STANDALONE", 0),
    ("0.5.3", "NGRAM", 0), (None, "EAGLE", 0)])
def test_reserve_mib(version: str | None, algorithm: str | None, mib: int) -> None:
    assert reserve_mib(version, algorithm) == mib


def test_headroom_params_stated() -> None:
    # topk 1 from 0.4.6: draft tokens = steps + 1, whatever was stated
    assert headroom_params("0.4.6", "EAGLE", (3, 1, 8)) == ((3, 1, 4), (3, 1, 4))
    assert headroom_params("0.4.5", "EAGLE", (3, 1, 8)) == ((3, 1, 8), (3, 1, 8))
    assert headroom_params("0.5.0", "EAGLE", (5, 4, 8)) == ((5, 4, 8), (5, 4, 8))


def test_headroom_params_unstated() -> None:
    assert DEFAULT_PARAMS == (5, 4, 8) and SMALL_PARAMS == (3, 1, 4)
    assert headroom_params("0.4.5", "EAGLE", None) == (DEFAULT_PARAMS, DEFAULT_PARAMS)
    assert headroom_params("0.4.5", "STANDALONE", None) == (DEFAULT_PARAMS, DEFAULT_PARAMS)
    assert headroom_params("0.4.6", "STANDALONE", None) == (SMALL_PARAMS, SMALL_PARAMS)
    assert headroom_params("0.4.6", "EAGLE", None) == (DEFAULT_PARAMS, SMALL_PARAMS)
