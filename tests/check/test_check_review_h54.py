"""Odd inputs that today's new check readers (task h54review's line-by-line review of
h52/h53's changes) read wrongly: each case written by hand, its expected text derived from the
rule the module states."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.manifests.model_hints import is_folder

_SGLANG_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: n}}
spec:
  template:
    spec:
      containers:
      - name: s
        image: lmsysorg/sglang:v0.4.6
        command: ["sh", "-c", "{script}"]
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def test_a_relative_folder_on_its_own_is_a_folder() -> None:
    """`./`, `../` and `~/` are folders as `./Models/x` is (model_hints.is_folder); with the
    one-slash rule `../` read as a catalog name and check advised `kvplan import ../`. A spec
    file (`./llama.yaml`) and a hub id stay what they were."""
    assert is_folder("./Models/llama3.1-8b-instruct") and is_folder("~/models/x")
    assert is_folder("../") and is_folder("~/") and is_folder("..") and is_folder("./")
    assert not is_folder("./llama.yaml") and not is_folder("meta-llama/Llama-3.1-8B-Instruct")


def test_a_parent_folder_model_is_not_sent_to_kvplan_import(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve ../ --max-model-len 4096\n")
    (out,) = check_paths([str(script)], default_gpu="l4").outcomes
    assert out.verdict == "ERROR"
    (said,) = [p.message for p in out.problems]
    assert said.startswith("'../' is a folder kvplan does not find here; name the model with "
                           "--served-model-name <hf id>")
    assert "kvplan import" not in said
