"""A KAITO inference ConfigMap's vLLM keys written with underscores (`max_model_len`) are the
dashed options (vLLM's FlexibleArgumentParser reads `--max_model_len` as `--max-model-len`;
task h58review). Before, they were applied to the pool but KAITO's node estimator ran without
the context, the utilization note did not say the ConfigMap's value wins, and the note said
--max-model-len was KAITO's auto. Now both spellings give the same verdict and notes."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from tests.check.kaito_files import configmap, workspace


def _outcome(tmp_path: Path, name: str, length: str, util: str) -> object:
    path = workspace(tmp_path, "phi-4", '"Standard_NC24ads_A100_v4"',
                     "  config: cfg\n---\n" + configmap("cfg", f"{length}: 4096", f"{util}: 0.5"),
                     name=f"{name}.yaml")
    [o] = check_paths([str(path)]).outcomes
    return o


def test_underscore_keys_read_as_the_dashed_options(tmp_path: Path) -> None:
    under = _outcome(tmp_path, "u", "max_model_len", "gpu_memory_utilization")
    dash = _outcome(tmp_path, "d", "max-model-len", "gpu-memory-utilization")
    for o in (under, dash):
        assert o.summary.startswith(  # type: ignore[attr-defined]
            "starts; holds 15 sequences of 4,096 tokens per replica (62,112 tokens in the pool)")
        assert ("--gpu-memory-utilization 0.84: KAITO's for NVIDIA A100 (interface.go); the "
                "ConfigMap's 0.5 comes later and wins") in o.notes  # type: ignore[attr-defined]
        assert any("- 4,096 tokens x 204,800 B / 1)" in n for n in o.notes)  # type: ignore[attr-defined]
        assert not any(n.startswith("--max-model-len=auto") for n in o.notes)  # type: ignore[attr-defined]
    assert under.notes == dash.notes  # type: ignore[attr-defined]
