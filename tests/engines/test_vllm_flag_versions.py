"""A vLLM setting the stated release has no flag for is refused, never priced as if the flag
existed: `size` exits 2 naming the flag and the first release with it, `kvplan check` FAILs the
manifest (vLLM's argparse would stop at start-up). The first releases are read from each
release's vllm/engine/arg_utils.py (kvplan/engines/vllm_flag_versions.py's docstring)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check import check_paths
from kvplan.cli import app
from kvplan.deploy.schema import Engine as Block
from kvplan.engines.vllm_flag_versions import FLAG_SINCE, missing_flags

# (key, value, the last release without the flag, the first with it)
BOUNDARIES = [
    ("enforce_eager", True, "0.2.5", "0.2.6"),
    ("speculative_model", "llama-3.2-1b", "0.4.0", "0.4.1"),
    ("num_speculative_tokens", 4, "0.4.0", "0.4.1"),
    ("cpu_offload_gb", 2.0, "0.5.2", "0.5.3"),
    ("limit_mm_per_prompt", 1, "0.5.4", "0.5.5"),
    ("kv_cache_memory_bytes", 8 * 2**30, "0.10.1", "0.10.2"),
    ("disable_hybrid_kv_cache_manager", True, "0.9.0", "0.9.1"),
    ("enable_extensible_kv_cache", True, "0.33.0", "0.34.0"),
]


def block(key: str, value: object, version: str | None, name: str = "vllm") -> Block:
    return Block.model_validate({"name": name, "version": version, key: value})


def test_every_gated_flag_has_a_boundary_here() -> None:
    assert sorted(FLAG_SINCE) == sorted(b[0] for b in BOUNDARIES)


@pytest.mark.parametrize(("key", "value", "before", "since"), BOUNDARIES)
def test_refused_before_the_first_release_and_read_from_it(
        key: str, value: object, before: str, since: str) -> None:
    flag = FLAG_SINCE[key][1]
    assert missing_flags(block(key, value, before)) == [(
        f"engine.{key}", f"vLLM {before} has no {flag} (first in {since}, "
        "vllm/engine/arg_utils.py), so it would not start with it; drop it or serve vLLM "
        f"{since} or newer")]
    assert missing_flags(block(key, value, since)) == []
    assert missing_flags(block(key, value, f"v{since}.post1")) == []
    assert missing_flags(block(key, value, None)) == []  # the newest series has them all


def test_the_extensible_cache_is_refused_off_too_before_0_34() -> None:
    """0.33.0's argparse has no --no-enable-extensible-kv-cache either (task h41flags034)."""
    assert missing_flags(block("enable_extensible_kv_cache", False, "0.33.0")) == [(
        "engine.enable_extensible_kv_cache", "vLLM 0.33.0 has no --no-enable-extensible-kv-cache "
        "(first in 0.34.0, vllm/engine/arg_utils.py), so it would not start with it; drop it or "
        "serve vLLM 0.34.0 or newer")]
    assert missing_flags(block("enable_extensible_kv_cache", False, "0.34.0")) == []


def test_unset_false_and_other_engines_are_not_refused() -> None:
    assert missing_flags(block("enforce_eager", False, "0.2.5")) == []
    assert missing_flags(Block.model_validate({"name": "vllm", "version": "0.1.7"})) == []
    assert missing_flags(block("enforce_eager", True, "0.2.5", name="sglang")) == []


def test_size_exits_2_naming_the_flag_and_the_first_release() -> None:
    res = CliRunner().invoke(app, ["size", "llama-3-8b", "--gpu", "a100-80gb", "--engine",
                                   "vllm", "--engine-version", "0.2.5", "--enforce-eager"])
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines() == [
        "error: command line: engine.enforce_eager (--enforce-eager): vLLM 0.2.5 has no "
        "--enforce-eager (first in 0.2.6, vllm/engine/arg_utils.py), so it would not start "
        "with it; drop it or serve vLLM 0.2.6 or newer"]
    ok = CliRunner().invoke(app, ["size", "llama-3-8b", "--gpu", "a100-80gb", "--engine",
                                  "vllm", "--engine-version", "0.2.6", "--enforce-eager",
                                  "-f", "json"])
    assert ok.exit_code == 0, ok.output
    assert "CUDA graphs: none (enforce_eager)" in json.loads(ok.output)["results"][0][
        "assumptions"]


POD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: old-vllm
  annotations:
    kvplan.io/peak-concurrent-users: "4"
spec:
  replicas: 1
  selector: {{matchLabels: {{app: x}}}}
  template:
    metadata: {{labels: {{app: x}}}}
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
      containers:
        - name: server
          image: vllm/vllm-openai:{tag}
          args: ["--model", "meta-llama/Meta-Llama-3-8B-Instruct", {flags}]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def test_check_fails_a_manifest_whose_vllm_image_lacks_the_flag(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text(POD.format(tag="v0.10.1", flags='"--kv-cache-memory-bytes", "8589934592"'))
    new = tmp_path / "new.yaml"
    new.write_text(POD.format(tag="v0.10.2", flags='"--kv-cache-memory-bytes", "8589934592"'))
    [o] = check_paths([str(old)]).outcomes
    assert o.verdict == "FAIL", (o.verdict, o.reasons, o.problems)
    assert o.reasons == ["vLLM 0.10.1 has no --kv-cache-memory-bytes (first in 0.10.2, "
                         "vllm/engine/arg_utils.py), so it would not start with it; drop it or "
                         "serve vLLM 0.10.2 or newer"]
    [o] = check_paths([str(new)]).outcomes
    assert o.verdict == "PASS", (o.verdict, o.reasons, o.problems)
