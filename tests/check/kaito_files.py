"""KAITO files the check tests write (tests/check/test_check_kaito.py, test_max_model_len_auto.py,
test_kaito_underscore_keys.py): a Workspace (kaito.sh/v1beta1, resource and inference top-level)
and the inference ConfigMap whose `inference_config.yaml` holds the `vllm:` options KAITO appends
to the command (kaito-project/kaito 056b8280, presets/workspace/inference/vllm)."""

from __future__ import annotations

from pathlib import Path


def configmap(name: str, *vllm: str) -> str:
    """The ConfigMap `name` as one YAML document, each of `vllm` ("key: value") a line under
    `vllm:`; join it to a Workspace with "---\\n"."""
    return ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
            f"  name: {name}\ndata:\n  inference_config.yaml: |\n    vllm:\n"
            + "".join(f"      {line}\n" for line in vllm))


def workspace(tmp: Path, preset: str, sku: str, extra: str = "", before: str = "",
              name: str = "ws.yaml") -> Path:
    """The Workspace `ws` of `preset` on the Azure SKU `sku`, `extra` appended (as `  config:
    cm\\n`, then other documents), `before` put ahead of it; written to tmp/name."""
    path = tmp / name
    path.write_text(before + "apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n"
                    f"  name: ws\nresource:\n  instanceType: {sku}\ninference:\n  preset:\n"
                    f"    name: {preset}\n" + extra)
    return path
