"""production-stack's chart, as helm/templates/deployment-vllm-multi.yaml and ray-cluster.yaml
render it (vllm-project/production-stack at a6c01db0; runner and convert since 20a65804), on
the real values files under tests/assets/check/corpus/production-stack (task h55gaps). Each
vllmConfig key is rendered as the chart renders it, named as not read, or refused: the reader
had dropped `false` (enableChunkedPrefill: false renders --no-enable-chunked-prefill, an unset
or false enablePrefixCaching --no-enable-prefix-caching), never rendered runner and convert,
rendered pipelineParallelSize and maxNumBatchedTokens the Deployment never renders, read a Ray
cluster as one pod, and counted a MIG slice or HAMi share as whole GPUs."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.check import Outcome, check_paths
from kvplan.check.manifests import helm_values
from kvplan.check.manifests.pods import PodSite
from kvplan.deploy.yamldoc import read_docs

PS = Path(__file__).parents[1] / "assets" / "check" / "corpus" / "production-stack"


def _sites(name: str) -> list[PodSite]:
    (doc,) = read_docs(PS / name)
    return helm_values.sites(doc.data, doc)


def _command(site: PodSite) -> list[str]:
    return site.containers[0][0]["command"]


def _outcomes(name: str, gpu: str | None = None) -> list[Outcome]:
    return check_paths([str(PS / name)], default_gpu=gpu).outcomes


def test_false_and_unset_switches_render_their_no_form() -> None:
    """values-02-basic-config.yaml: enableChunkedPrefill false and enablePrefixCaching false
    render --no-enable-chunked-prefill (:150-156) and --no-enable-prefix-caching (:157-161);
    values-25-v100-single-gpu.yaml sets no enablePrefixCaching, and the chart renders the same
    --no- form for it. The options come in the chart's order, extraArgs last."""
    (site,) = _sites("values-02-basic-config.yaml")
    assert _command(site) == [
        "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--no-enable-chunked-prefill",
        "--no-enable-prefix-caching", "--max-model-len", "4096", "--dtype", "bfloat16",
        "--gpu-memory-utilization", "0.8"]
    (unset,) = _sites("values-25-v100-single-gpu.yaml")
    assert "--no-enable-prefix-caching" in _command(unset)
    assert "--enable-prefix-caching" not in _command(unset)
    (on,) = _sites("values-17-kv-aware.yaml")  # enablePrefixCaching: true
    assert "--enable-prefix-caching" in _command(on)
    assert "--no-enable-prefix-caching" not in _command(on)
    # the engine layer sees it: --no-enable-chunked-prefill is named, not dropped
    (o,) = _outcomes("values-02-basic-config.yaml", gpu="h100")
    assert o.verdict == "PASS"
    assert any("--no-enable-chunked-prefill" in n and n.startswith("not used by kvplan's plan")
               for n in o.notes), o.notes


def test_runner_and_convert_are_rendered_and_named() -> None:
    """The chart's helm/values.yaml: vllmConfig runner "pooling", convert "embed" render
    --runner pooling --convert embed (:186-193); gpuMemoryUtilization and maxLoras as the chart
    spells them (--gpu_memory_utilization, --max_loras); extraArgs after them."""
    (site,) = _sites("chart-values.yaml")
    cmd = _command(site)
    assert cmd[cmd.index("--runner"):] == [
        "--runner", "pooling", "--convert", "embed", "--gpu-memory-utilization", "0.4"]
    assert cmd[cmd.index("--gpu_memory_utilization"):cmd.index("--runner")] == [
        "--gpu_memory_utilization", "0.95", "--max_loras", "4"]
    assert "enabled: false: the chart renders nothing for this model; checked as it renders " \
           "once enabled" in site.notes


def test_a_mig_slice_and_a_hami_memory_share_are_refused() -> None:
    """helm/values.yaml asks for requestGPUType nvidia.com/mig-4g.71gb and HAMi's
    requestGPUMem/limitGPUMem 3000 MiB (chart.resources, _helpers.tpl :167-207): parts of a GPU,
    counted as one whole nvidia.com/gpu before."""
    (o,) = _outcomes("chart-values.yaml", gpu="h100")
    assert o.verdict == "ERROR"
    texts = [p.text() for p in o.problems]
    assert texts[0].startswith("requestGPUType: nvidia.com/mig-4g.71gb: the chart asks "
                               "Kubernetes for this resource in place of whole GPUs")
    assert texts[1].startswith("requestGPUMem: requestGPUMem 3000, requestGPUMemPercentage 80, "
                               "limitGPUMem 3000, limitGPUMemPercentage 80: HAMi caps the GPU "
                               "memory the container sees")
    assert any(n.startswith("requestGPUCores, limitGPUCores: HAMi's share") for n in o.notes)


def test_keys_the_deployment_does_not_render_are_named() -> None:
    """values-09-lora-helm.yaml and values-14-vllm-v1.yaml set vllmConfig v1, which an older
    chart rendered as VLLM_USE_V1 (7b5a59f1) and the Deployment at a6c01db0 reads nowhere."""
    (site,) = _sites("values-14-vllm-v1.yaml")
    assert ("vllmConfig v1: the chart's Deployment template (helm/templates/deployment-vllm-"
            "multi.yaml) reads no such key, so what it renders does not change with it; an "
            "engine option goes in vllmConfig.extraArgs") in site.notes


def test_a_ray_spec_renders_the_ray_cluster() -> None:
    """values-15-a: raySpec.enabled; the head (requestGPU 1) runs `vllm serve ...
    --distributed-executor-backend ray` with --pipeline-parallel-size 2 (ray-cluster.yaml
    :716-718; the Deployment template has no such option) over the head and replicaCount 1
    worker of requestGPU 1: 2 GPUs, where the reader had said 'tensor 1 x pipeline 2 needs 2
    GPUs but the engine has 1'. No --no-enable-prefix-caching on this path (:700-702), and
    VLLM_USE_V1 "0" without vllmConfig.v1 (:113-121)."""
    (site,) = _sites("values-15-a-minimal-pipeline-parallel-example-raycluster.yaml")
    assert _command(site) == [
        "vllm", "serve", "distilbert/distilgpt2", "--distributed-executor-backend", "ray",
        "--tensor-parallel-size", "1", "--pipeline-parallel-size", "2"]
    assert (site.gpus_total, site.pods_per_engine, site.replicas) == (2, 2, 1)
    assert site.containers[0][0]["env"] == [{"name": "VLLM_USE_V1", "value": "0"}]
    assert site.notes[0] == ("raySpec.enabled: the chart renders a RayCluster (helm/templates/"
                             "ray-cluster.yaml), not a Deployment: a head with 1 GPU(s) and 1 "
                             "worker(s) (replicaCount) with 1 each run one engine of 2 GPU(s) "
                             "(--distributed-executor-backend ray)")
    (o,) = _outcomes("values-15-a-minimal-pipeline-parallel-example-raycluster.yaml", gpu="h100")
    assert o.verdict == "ERROR"  # distilgpt2 is not in the catalog; the GPUs add up
    assert [p.field for p in o.problems] == ["the served model"]
    ray, plain = _outcomes("values-15-b-minimal-pipeline-parallel-example-multiple-modelspec.yaml")
    assert (ray.verdict, plain.verdict) == ("ERROR", "WARN")


@pytest.mark.parametrize(("value", "rendered"), [
    (True, True), ("false", True), ("0", True), (1, True),  # Go: a non-empty string is true
    (False, False), (0, False), ("", False), (None, False), ([], False), ({}, False)])
def test_go_template_truth(value: object, rendered: bool) -> None:
    assert helm_values.go_true(value) is rendered
