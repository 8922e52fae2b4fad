"""Public Kubernetes manifests and chart values as people write them (tasks h29qa, h30qa), run
through the CLI as a new user would. tests/assets/check/qa/SOURCES.md names each file's
repository, path and commit; the expected values are read off the files by hand."""

from __future__ import annotations

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.check.qa_inputs import check, check_json

# ---- a command of server options passed to an image whose entrypoint kvplan cannot see ----

def test_k8s_args_under_a_templated_image_say_render_first(runner: CliRunner) -> None:
    # felipemoz/vllm-on-azure: image ${VLLM_IMAGE}, args --model ${VLLM_MODEL} ... (envsubst)
    code, out = check(runner, "azure-envsubst.yaml")
    assert code == 2
    assert ("azure-envsubst.yaml:31: args: image '${VLLM_IMAGE}' is an unrendered template and the "
            "command is server options only (--model ...): render first") in out


def test_options_only_under_vllm_openai_are_still_planned(runner: CliRunner) -> None:
    # hsb943/eks-vllm-inference-benchmark: args only under vllm/vllm-openai = `vllm serve`;
    # Qwen2.5-7B on an L4 at util 0.90, 8,192-token context: 83,264 tokens, 10 sequences
    data = check_json(runner, "eks-qwen25-7b.yaml", "--gpu", "l4")
    (result,) = data["results"]
    assert result["verdict"] == "PASS"
    assert (result["model"], result["gpu"], result["users_per_replica"]) == ("qwen2.5-7b", "l4", 10)
    assert result["max_sequence_bytes_per_gpu"] == 8192 * 57_344  # 28 x 4 x 128 x 2 x 2 B


# ---- a CPU server is not a GPU server missing its limit ----

def test_device_cpu_is_named_not_a_missing_gpu_limit(runner: CliRunner) -> None:
    # marcin119a/bielik_vllm: args --device cpu, no nvidia.com/gpu anywhere
    code, out = check(runner, "bielik-cpu.yaml")
    assert code == 2
    assert "bielik-cpu.yaml:29: --device: the server runs on 'cpu', not a GPU: kvplan plans GPU " \
           "memory (a CPU or other device's KV cache is sized by its own settings, e.g. " \
           "VLLM_CPU_KVCACHE_SPACE)" in out  # vLLM's own words stay vLLM's (task h42mend)
    assert "sets no nvidia.com/gpu limit" not in out


# ---- values of a chart ----

def test_values_of_an_unknown_chart_are_named_as_such(runner: CliRunner) -> None:
    # UjwalNagrikar/Production-Grade-vLLM-Deployment-on-Kubernetes: a chart's own values.yaml;
    # it read "kvplan cannot read a this document yet"
    code, out = check(runner, "helm-values-custom-chart.yaml")
    assert code == 2
    assert "this document runs vLLM, but it is not a Kubernetes object, compose file or chart " \
           "values kvplan reads (no `kind:`)" in out
    assert "a this document" not in out


def test_production_stack_amd_values_offer_amd_gpus(runner: CliRunner) -> None:
    # vllm-project/production-stack values-01-minimal-amd-example.yaml: repository rocm/vllm,
    # requestGPUType amd.com/gpu, a placeholder node label (names no GPU)
    code, out = check(runner, "production-stack-amd-values.yaml")
    assert code == 0
    assert ("opt125m: no GPU named; starts on: mi210, mi250x, mi300x, mi325x, mi355x; would not "
            "start on: none") in out
    data = check_json(runner, "production-stack-amd-values.yaml", "--gpu", "mi300x")
    (row,) = data["results"]
    assert (row["verdict"], row["model"], row["gpus"]) == ("PASS", "opt-125m", 1)


# ---- quantization named by a flag alone ----

def test_awq_by_flag_alone_is_refused_with_the_way_to_model_it(runner: CliRunner) -> None:
    # R-D-Engineering/vllm-serving-aks: Qwen2.5-7B-Instruct-AWQ with --quantization=awq on a T4.
    # The flag does not say the group size or which layers stay 16-bit: refused, naming the spec
    # route (`kvplan import` reads the checkpoint's quantization_config into weight_quant).
    code, out = check(runner, "aks-t4-qwen25-7b-awq.yaml")
    assert code == 2
    assert ("--quantization: 'awq' weights are not modelled from the flag alone; set "
            "kvplan.io/model to a spec with the quantized weight dtype (`kvplan import` of the "
            "checkpoint's config.json writes one with its awq layout)") in out


# ---- a Deployment's misplaced fields and an image pinned by digest ----

def test_misplaced_node_selector_and_a_digest_image_are_said(runner: CliRunner) -> None:
    # walidshaari/sample-aws-eks-auto-mode vllm-deepseek-gpu.yaml: nodeSelector and tolerations
    # on the Deployment's spec (not the pod template), image vllm/vllm-openai@sha256:bfb0...,
    # --model=$(MODEL_ID) from env, tensor 4 on 4 GPUs
    data = check_json(runner, "eks-automode-deepseek-digest.yaml", "--gpu", "h100")
    (row,) = data["results"]
    assert (row["verdict"], row["model"], row["gpus"], row["max_model_len_tokens"]) == (
        "PASS", "qwen2.5-32b", 4, 32_768)
    notes = row["notes"]
    assert ("spec.nodeSelector sits on the Deployment, not its pod template: an unknown field "
            "there, which kubectl apply refuses (move it under spec.template.spec); not read"
            in notes)
    assert ("image pinned by digest sha256:bfb040301006…: a digest names no vllm release; the "
            "vllm profile's default version is used") in notes
    assert not any("image tag" in n for n in notes)  # it read the digest as a tag
