"""benchmarks/measure_gpu.sh runs end to end (on the CPU here): a GPU session gets one try."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_measure_gpu_script_on_the_cpu(measure_extra: None, tmp_path: Path) -> None:
    out = tmp_path / "run"
    tarball = tmp_path / "run.tar.gz"
    env = {
        **os.environ, "PY": sys.executable, "DEVICE": "cpu", "CONTEXT": "16", "TIME_LIMIT": "10",
        "TARBALL": str(tarball),
        "RUNS": "tiny-test-model|--layers 2 --kv-budget-gib 0.001\n"
                "tests/assets/tiny-sliding-test.yaml|--kv-budget-gib 0.001",
    }
    proc = subprocess.run(["bash", str(ROOT / "benchmarks" / "measure_gpu.sh"), str(out)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    codes = (out / "exit-codes.txt").read_text().splitlines()
    assert [c.split()[:2] for c in codes] == [
        ["tiny-test-model-layers2kvbudgetgib0001", "exit=0"],
        ["tiny-sliding-test-kvbudgetgib0001", "exit=0"],
    ]
    env_txt = (out / "env.txt").read_text()
    assert "torch:" in env_txt and "transformers:" in env_txt and "date_utc:" in env_txt
    report = json.loads((out / "tiny-test-model-layers2kvbudgetgib0001.json").read_text())
    assert report["num_layers"] == 2 and report["passed"] is True
    table = (out / "tiny-sliding-test-kvbudgetgib0001.txt").read_text()
    assert "sliding layer: tokens held" in table and "PASS" in table
    assert (out / "tiny-sliding-test-kvbudgetgib0001.csv").read_text().startswith(
        "model,device,figure,")
    with tarfile.open(tarball) as tar:
        names = {Path(n).name for n in tar.getnames()}
    assert {"env.txt", "exit-codes.txt", "tiny-test-model-layers2kvbudgetgib0001.json"} <= names
