"""KubeAI `Model` (kubeai.org/v1) read by kvplan.check.manifests.kubeai (task h42readers): the
vLLM command KubeAI's controller builds from spec.url and spec.args, the GPU and count of the
resource profile (substratusai/kubeai charts/kubeai/values.yaml at 2f32ef49), the replicas
between minReplicas and maxReplicas. Numbers are worked by hand from the model specs' shapes
(model_specs/qwen2.5-7b.yaml: 28 layers, 4 KV heads of 128; model_specs/llama-3.1-8b.yaml:
32 layers, 8 KV heads of 128)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.check.check_cli_run import results
from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke

CORPUS = Path(__file__).parents[1] / "assets" / "check" / "corpus" / "kubeai"


def _model(tmp: Path, body: str, name: str = "m.yaml") -> Path:
    path = tmp / name
    path.write_text("apiVersion: kubeai.org/v1\nkind: Model\nmetadata:\n  name: m\nspec:\n"
                    + body)
    return path


def test_the_public_qwen_model_on_one_l4(runner: CliRunner) -> None:
    """KubeAI's own qwen2.5-7b-instruct-l4 Model: hf://Qwen/Qwen2.5-7B-Instruct, engine VLLM,
    resourceProfile nvidia-gpu-l4:1 (one nvidia.com/gpu, an L4), the chart's default image
    vllm/vllm-openai:v0.8.3, --max-model-len=8192 --kv-cache-dtype=fp8, minReplicas 0 (checked
    as the first replica). One sequence: 28 layers x 4 KV heads x 128 x 2 (K, V) x 1 B (fp8) =
    28,672 B a token x 8,192 = 234,881,024 B."""
    [row] = results(runner, CORPUS / "qwen2.5-7b-instruct-l4.yaml")
    assert row["verdict"] == "PASS"
    assert (row["model"], row["gpu"], row["engine"], row["engine_version"]) == (
        "qwen2.5-7b", "l4", "vllm", "0.8.3")
    assert (row["replicas"], row["gpus"], row["gpus_per_replica"]) == (1, 1, 1)
    assert row["max_model_len_tokens"] == 8_192
    assert row["max_sequence_bytes_per_gpu"] == 28 * 4 * 128 * 2 * 1 * 8_192 == 234_881_024
    assert ("minReplicas 0 (scale to zero): checked as the first replica it starts (KubeAI's "
            "autoscaler scales with no maxReplicas)") in row["notes"]


TP2 = """  url: hf://meta-llama/Llama-3.1-8B-Instruct
  engine: VLLM
  args:
    - --max-model-len=16384
    - --tensor-parallel-size=2
  minReplicas: 1
  replicas: 3
  maxReplicas: 2
  resourceProfile: nvidia-gpu-l4:2
"""


def test_profile_multiple_and_replicas_capped_at_max(runner: CliRunner, tmp_path: Path) -> None:
    """nvidia-gpu-l4:2 multiplies the profile's one nvidia.com/gpu by 2 (getModelConfig), which
    --tensor-parallel-size=2 uses; replicas 3 is capped at maxReplicas 2
    (applyAutoscalingReplicaBounds): 2 replicas x 2 GPUs = 4 L4. One sequence a GPU: 32 layers x
    (8 KV heads / TP 2) x 128 x 2 x 2 B (bf16) = 65,536 B a token x 16,384 = 1,073,741,824 B."""
    [row] = results(runner, _model(tmp_path, TP2))
    assert (row["model"], row["gpu"]) == ("llama-3.1-8b", "l4")
    assert (row["replicas"], row["gpus"], row["gpus_per_replica"]) == (2, 4, 2)
    assert row["max_sequence_bytes_per_gpu"] == 32 * 4 * 128 * 2 * 2 * 16_384 == 1_073_741_824
    assert "checked at 2 replica(s) (KubeAI's autoscaler scales up to maxReplicas 2)" \
        in row["notes"]


def test_a_bad_vllm_flag_in_args_is_named_on_its_line(runner: CliRunner,
                                                      tmp_path: Path) -> None:
    """spec.args go to vLLM as they are: a misspelled one fails on its own line (line 11: the
    third item of args, after the 5 header lines (to `spec:`), url, engine, `args:` and two
    items)."""
    path = _model(tmp_path, TP2.replace("    - --tensor-parallel-size=2\n",
                                        "    - --tensor-parallel-size=2\n    - --max-num-seqz=4\n"))
    out = flat(invoke(runner, "check", str(path))).output
    assert (f"FAIL  {path}:11  m: the engine refuses it: vLLM has no option --max-num-seqz; did "
            "you mean --max-num-seqs?") in out


UNKNOWN = """  url: hf://Qwen/Qwen2.5-7B-Instruct
  engine: VLLM
  args: [--max-model-len=8192]
  resourceProfile: my-cluster-gpu:1
"""
UNKNOWN_WHY = ("resourceProfile 'my-cluster-gpu' is not one of the profiles of "
               "KubeAI's chart (amd-gpu-mi300x, google-tpu-v5e-1x1, google-tpu-v5e-2x2, "
               "google-tpu-v5e-2x4, nvidia-gpu-a100-40gb, nvidia-gpu-a100-80gb, nvidia-gpu-a16, "
               "nvidia-gpu-gh200, nvidia-gpu-h100, nvidia-gpu-l4, nvidia-gpu-l40s, "
               "nvidia-gpu-rtx4070-8gb, nvidia-gpu-t4), so kvplan cannot tell its GPU (your "
               "cluster's Helm values define it); run kvplan check --gpu NAME or give gpu: in a "
               "side file")


def test_an_unknown_profile_is_an_error_until_the_gpu_is_named(runner: CliRunner,
                                                               tmp_path: Path) -> None:
    """A profile the chart does not define (line 9): ERROR naming it and what to do; --gpu l4
    or a side file's `gpu: l4` names the GPU, checked as 1 nvidia.com/gpu a pod (the :1)."""
    path = _model(tmp_path, UNKNOWN)
    [row] = results(runner, path)
    assert row["verdict"] == "ERROR"
    assert [(e["line"], e["field"], e["message"]) for e in row["errors"]] == [
        (9, "resourceProfile", UNKNOWN_WHY)]
    [given] = results(runner, path, "--gpu", "l4")
    assert (given["verdict"], given["gpu"], given["gpus"]) == ("PASS", "l4", 1)
    (tmp_path / "m.kvplan.yaml").write_text("gpu: l4\n")
    [side] = results(runner, path)
    assert (side["verdict"], side["gpu"], side["gpus"]) == ("PASS", "l4", 1)


def test_other_engines_are_refused_with_the_reason(runner: CliRunner, tmp_path: Path) -> None:
    """engine: OLlama runs Ollama (engine_ollama.go), not vLLM: ERROR on the engine line (7)."""
    path = _model(tmp_path, "  url: ollama://qwen2.5:7b\n  engine: OLlama\n"
                  "  resourceProfile: nvidia-gpu-l4:1\n")
    [row] = results(runner, path)
    assert row["verdict"] == "ERROR"
    assert [(e["line"], e["field"], e["message"]) for e in row["errors"]] == [(
        7, "engine", "engine OLlama: KubeAI runs Ollama, not vLLM; kvplan plans vLLM, SGLang and "
        "TensorRT-LLM servers only (KubeAI's engine: VLLM)")]


def test_a_profile_gpu_outside_the_catalog_asks_for_gpu(runner: CliRunner,
                                                        tmp_path: Path) -> None:
    """nvidia-gpu-gh200 is the chart's, but kvplan's GPU catalog holds no GH200: ERROR on the
    resourceProfile line (8) asking for --gpu or a side file."""
    path = _model(tmp_path, "  url: hf://Qwen/Qwen2.5-7B-Instruct\n  engine: VLLM\n"
                  "  resourceProfile: nvidia-gpu-gh200:1\n")
    [row] = results(runner, path)
    assert [(e["line"], e["field"], e["message"]) for e in row["errors"]] == [(
        8, "resourceProfile", "resourceProfile nvidia-gpu-gh200's GPU is not in kvplan's GPU "
        "catalog (`kvplan gpus`); run kvplan check --gpu NAME or give gpu: in a side file")]


def test_only_an_hf_url_names_the_model(runner: CliRunner, tmp_path: Path) -> None:
    """url s3://... : vLLM gets --model=s3://my-bucket/qwen --load-format=runai_streamer
    (engine_vllm.go), which names no catalog model, nor does the served name m: ERROR on the url
    line (6) saying so; a side file's `model: qwen2.5-7b` names it."""
    path = _model(tmp_path, "  url: s3://my-bucket/qwen\n  engine: VLLM\n"
                  "  args: [--max-model-len=8192]\n  resourceProfile: nvidia-gpu-l4:1\n")
    [row] = results(runner, path)
    assert [(e["line"], e["message"]) for e in row["errors"]] == [(
        6, "'s3://my-bucket/qwen', and its served name 'm' is not a catalog model: "
        "s3://my-bucket/qwen streams the weights from a bucket (--load-format=runai_streamer); "
        "kvplan reads the model from a KubeAI url only as hf://org/name: set the annotation "
        "kvplan.io/model (or a side file's model:) to the model it holds")]
    (tmp_path / "m.kvplan.yaml").write_text("model: qwen2.5-7b\n")
    [named] = results(runner, path)
    assert (named["verdict"], named["model"], named["gpu"]) == ("PASS", "qwen2.5-7b", "l4")
