"""check applies vLLM's own switches of its hybrid KV cache manager (task h100vllmhyb,
kvplan.check.manifests.hybrid_off): --kv-events-config (0.9.1-0.19.x), --kv-transfer-config
(0.9.1-0.21.x; noted from 0.22.0), VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE, and
--no-disable-hybrid-kv-cache-manager beside a condition (vLLM raises from 0.13.0).
Llama-4-Scout on 4 H100s at 131,072 tokens, vLLM's default utilization: 2 sequences with every
layer full (17,297 blocks of 786,432 B), 6 with the chunked layers grouped
(tests/engines/test_vllm_hybrid_off.py); Llama-3.1-8B has no sliding layers: unmoved."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

_MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: srv}}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v{version}
        command: ["vllm", "serve", "{model}", "--tensor-parallel-size", "4",
                  "--max-model-len", "131072"{extra}]
{env}        resources: {{limits: {{nvidia.com/gpu: 4}}}}
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
"""
SCOUT = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
ENV = ('        env: [{name: VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE, '
       'value: "1"}]\n')


def _check(tmp_path: Path, version: str, extra: str = "", env: str = "",
           model: str = SCOUT) -> str:
    path = tmp_path / "m.yaml"
    path.write_text(_MANIFEST.format(version=version, model=model, extra=extra, env=env))
    return CliRunner().invoke(app, ["check", str(path)]).output


@pytest.mark.parametrize(("version", "extra", "env", "held"), [
    ("0.19.1", "", "", "holds 2 sequences"),  # chunked local attention: off by default
    ("0.19.1", "", ENV, "holds 6 sequences"),  # the environment keeps the manager on
    ("0.19.1", ', "--kv-events-config", "{}"', ENV, "holds 2 sequences"),  # events: off
    ("0.20.0", ', "--kv-events-config", "{}"', ENV, "holds 6 sequences"),  # gone from 0.20.0
    ("0.21.0", ', "--kv-transfer-config", "{}"', ENV, "holds 2 sequences"),  # a connector
    ("0.22.0", ', "--kv-transfer-config", "{}"', ENV, "holds 6 sequences"),  # by class: noted
])
def test_switches(tmp_path: Path, version: str, extra: str, env: str, held: str) -> None:
    out = _check(tmp_path, version, extra, env)
    assert held in out, out


def test_connector_from_0220_is_noted(tmp_path: Path) -> None:
    out = _check(tmp_path, "0.22.0", ', "--kv-transfer-config", "{}"', ENV)
    assert "SupportsHMA" in out and "not listed" not in out


def test_explicit_enable_fails_from_0130(tmp_path: Path) -> None:
    out = _check(tmp_path, "0.13.0", ', "--no-disable-hybrid-kv-cache-manager"')
    assert "FAIL" in out and "explicitly enabled but is not supported" in out
    out = _check(tmp_path, "0.19.1", ', "--no-disable-hybrid-kv-cache-manager", '
                 '"--kv-events-config", "{}"', ENV)
    assert "FAIL" in out and "--kv-events-config turns the manager off" in out


def test_a_model_without_sliding_layers_is_unmoved(tmp_path: Path) -> None:
    plain = _check(tmp_path, "0.19.1", model="meta-llama/Llama-3.1-8B-Instruct")
    events = _check(tmp_path, "0.19.1", ', "--kv-events-config", "{}"',
                    model="meta-llama/Llama-3.1-8B-Instruct")
    held = [line for line in plain.splitlines() if "holds" in line]
    assert held and held == [line for line in events.splitlines() if "holds" in line]
