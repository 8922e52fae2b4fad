"""A "does not fit" fix names the options file and key that set the value it changes (task
h42trt): trtllm-serve applies its --extra_llm_api_options / --config file over its flags, so a
flag would be overridden; vLLM's --config values lose to the command line, so a flag would leave
the file contradicting it. Checked on Dynamo's DeepSeek-R1 options file as published
(tests/assets/trtllm_configs/dynamo-deepseek-r1-mtp_agg.yaml) and the Dynamo-style ConfigMap
asset (tests/assets/check/trtllm-options/llama8b-fp8-options.yaml)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.check.check_cli_run import check_words

ASSETS = Path(__file__).resolve().parents[1] / "assets"
DYNAMO = ASSETS / "trtllm_configs" / "dynamo-deepseek-r1-mtp_agg.yaml"
LLAMA = ASSETS / "check" / "trtllm-options" / "llama8b-fp8-options.yaml"

R1 = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: r1-trtllm
  annotations:
    kvplan.io/peak-concurrent-users: "8"
    kvplan.io/context-tokens-mean: "8448"
spec:
  replicas: 1
  selector:
    matchLabels: {app: r1}
  template:
    metadata:
      labels: {app: r1}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H200
      containers:
        - name: trtllm
          image: nvcr.io/nvidia/tensorrt-llm/release:1.2.0
          command: ["trtllm-serve", "deepseek-ai/DeepSeek-R1", "--tp_size", "4"]
          args: ["--extra_llm_api_options", "dynamo-deepseek-r1-mtp_agg.yaml"]
          resources:
            limits:
              nvidia.com/gpu: GPUS
"""


def test_a_tensor_parallel_fix_changes_the_files_key(tmp_path: Path) -> None:
    """Dynamo's file states tensor_parallel_size 4 (and --tp_size 4 too, which the file would
    override): DeepSeek-R1 does not start on four H200s, and the TP fix is the file's key, not
    --tp_size. Its figure is the plan of the same manifest with the file's key set to 8 on
    eight GPUs: the fix is that change, re-checked."""
    shutil.copy(DYNAMO, tmp_path / DYNAMO.name)
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(R1.replace("GPUS", "4"))
    code, out = check_words(manifest)
    assert code == 1, out
    tip = "fix: tensor_parallel_size 4 -> 8 in dynamo-deepseek-r1-mtp_agg.yaml with nvidia.com/gpu: 8"
    assert tip in out
    assert "--tp_size 4 -> 8" not in out
    held = int(out.split(tip)[1].split("holds ")[1].split(" users")[0])
    (tmp_path / DYNAMO.name).write_text(
        DYNAMO.read_text().replace("tensor_parallel_size: 4", "tensor_parallel_size: 8"))
    manifest.write_text(R1.replace("GPUS", "8").replace('"--tp_size", "4"', '"--tp_size", "8"'))
    code, out = check_words(manifest)
    assert code == 0, out
    assert f"holds {held} users >= 8 required" in out


def test_a_cache_dtype_fix_changes_the_files_key(tmp_path: Path) -> None:
    """The ConfigMap's kv_cache_config.dtype auto: 30 users < 45 on one H100 (16-bit cache); the
    fix is that key set to fp8, 61 users (floor(33,191,718,912 B / 65,536 B a token) = 506,465
    -> 506,496 tokens in blocks of 32; 506,496 x 65,536 B / (8,192 x 65,536 B) = 61). A file
    silent on the dtype gets the key added there (it is applied over --kv_cache_dtype)."""
    path = tmp_path / "auto.yaml"
    path.write_text(LLAMA.read_text().replace("dtype: fp8", "dtype: auto"))
    code, out = check_words(path)
    assert code == 1 and "holds 30 users < 45 required" in out
    assert ("fix: kv_cache_config.dtype: auto -> fp8 in ConfigMap llama8b-trtllm-options "
            "agg.yaml (holds 61 users on 1 GPU(s))") in out
    path.write_text(LLAMA.read_text().replace("      dtype: fp8\n", ""))
    code, out = check_words(path)
    assert ("fix: kv_cache_config.dtype: fp8 (add to ConfigMap llama8b-trtllm-options agg.yaml) "
            "(holds 61 users on 1 GPU(s))") in out


VLLM = """apiVersion: v1
kind: ConfigMap
metadata:
  name: vllm-cfg
data:
  serve.yaml: |
    kv-cache-dtype: auto
    max-model-len: 32768
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama8b
  annotations:
    kvplan.io/peak-concurrent-users: "100"
    kvplan.io/context-tokens-mean: "8192"
spec:
  replicas: 1
  selector:
    matchLabels: {app: l}
  template:
    metadata:
      labels: {app: l}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--config",
                    "/etc/cfg/serve.yaml"]
          volumeMounts:
            - {name: cfg, mountPath: /etc/cfg}
          resources:
            limits:
              nvidia.com/gpu: 1
      volumes:
        - name: cfg
          configMap: {name: vllm-cfg}
"""


def test_a_vllm_config_files_key(tmp_path: Path) -> None:
    """vLLM's --config serve.yaml states kv-cache-dtype auto: the fix changes that key (a
    --kv-cache-dtype flag would win and leave the file saying auto). The fp8 pool holds the
    same bytes at half the bytes a token (32 layers x 8 x 128 x 2 x 1 B against 2 B): 2 x 54 =
    108 users."""
    path = tmp_path / "vllm.yaml"
    path.write_text(VLLM)
    code, out = check_words(path)
    assert code == 1 and "holds 54 users < 100 required" in out
    assert ("fix: kv-cache-dtype: auto -> fp8 in ConfigMap vllm-cfg serve.yaml (holds 108 users "
            "on 1 GPU(s))") in out
    assert "--kv-cache-dtype fp8 (" not in out


def test_a_kvplan_files_trtllm_config_key(tmp_path: Path) -> None:
    """A kvplan/v1 record whose engine.trtllm_config is Dynamo's file: parallel.tensor comes from
    the file's tensor_parallel_size 4, and a record stating 8 would be refused ("state one"), so
    the fix changes the file's key; it holds what the manifest's same fix holds."""
    shutil.copy(DYNAMO, tmp_path / "mtp.yaml")
    record = tmp_path / "r1.yaml"
    record.write_text("apiVersion: kvplan/v1\nname: r1\nmodel: deepseek-r1\nhardware:\n"
                      "  gpu: h200\n  count: 4\nengine:\n  name: trtllm\n  version: 1.2.0\n"
                      "  trtllm_config: mtp.yaml\ntraffic:\n  peak_concurrent_users: 8\n"
                      "  context_tokens:\n    mean: 8448\n")
    code, out = check_words(record)
    assert code == 1, out
    assert "fix: tensor_parallel_size 4 -> 8 in mtp.yaml and hardware.count: 4 -> 8" in out
    assert "parallel.tensor: 4 -> 8" not in out
    shutil.copy(DYNAMO, tmp_path / DYNAMO.name)
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(R1.replace("GPUS", "4"))
    _, from_manifest = check_words(manifest)
    held = out.split("hardware.count: 4 -> 8 (holds ")[1].split(" users")[0]
    assert f"with nvidia.com/gpu: 8 (holds {held} users on 8 GPU(s))" in from_manifest
