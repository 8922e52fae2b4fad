"""KAITO Workspace / InferenceSet (kaito.sh) read by kvplan.check.manifests.kaito (task h58kaito):
the vLLM command KAITO's operator writes (kaito-project/kaito at 056b8280: pkg/model/interface.go
buildVLLMInferenceCommand, configureParallelism; the node estimator; the Azure SKU table), the
inference ConfigMap's vllm: options appended after it, and vLLM's --max-model-len auto. Shapes
by hand from model_specs/ (phi-3-mini-4k: 32 layers, 32 KV heads of 96; llama-3.1-8b: 32 layers,
8 KV heads of 128; llama-3.3-70b: 80 layers, 8 KV heads of 128)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import check_paths
from kvplan.check.manifests.kaito_tables import GIB, data_parallel, node_count, presets, skus
from tests.check.kaito_files import configmap
from tests.check.kaito_files import workspace as _workspace
from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke

CORPUS = Path(__file__).parents[1] / "assets" / "check" / "corpus" / "kaito"


def results(runner: CliRunner, *paths: Path) -> list[dict]:
    out = invoke(runner, "check", *(str(p) for p in paths), "-f", "json").output
    return json.loads(out)["results"]


def test_the_sku_and_preset_tables_are_kaitos() -> None:
    """pkg/sku/azure_sku_handler.go's 14 SKUs; the NC A100 v4 series is the A100 PCIe 80 GB."""
    table = skus()
    assert len(table) == 14
    nc24 = table["Standard_NC24ads_A100_v4"]
    assert (nc24.gpus, nc24.gpu_mem_bytes, nc24.catalog_gpu, nc24.utilization) == (
        1, 80 * GIB, "a100-pcie-80gb", "0.84")
    a10 = table["Standard_NV72ads_A10_v5"]
    assert (a10.gpus, a10.catalog_gpu, a10.utilization) == (2, "a10", "0.82")
    assert table["Standard_NG32ads_V620_v1"].catalog_gpu is None
    assert "Standard_NC6s_v3" not in table  # V100: KAITO needs compute capability 8.0
    p = presets()["phi-4"]
    assert p is presets()["microsoft/phi-4"]
    # 27.31Gi rounded up; 2 x 10 KV heads x 128 x 40 layers x 2 B
    assert (p.hf_id, p.file_bytes, p.bytes_per_token) == ("microsoft/phi-4", 29_323_889_214,
                                                          204_800)
    assert presets()["gpt-oss-20b"].quant == "mxfp4"


def test_kaitos_node_estimator_and_data_parallel_choice() -> None:
    """estimator.go: Llama-3.3-70B (131.42Gi) on 80Gi A100s: (80 x 0.84 - 2.3 - 16,384 x 327,680
    B / 2 GPUs) / 1.05 = 59.4 GiB a GPU -> int(134.05 / 59.4) + 1 = 3 GPUs -> 2 nodes of 2;
    gpt-oss-120b (121.54Gi, both weight copies counted) on one A100 a node -> 3 nodes.
    interface.go modelFitsOnSingleGPU: 14.96Gi x 4 x 2 < 320Gi."""
    table, p = skus(), presets()
    assert node_count(p["llama-3.3-70b-instruct"], table["Standard_NC48ads_A100_v4"], 16_384)[0] == 2
    assert node_count(p["gpt-oss-120b"], table["Standard_NC24ads_A100_v4"], None)[0] == 3
    assert node_count(p["phi-4"], table["Standard_NC24ads_A100_v4"], None)[0] == 1
    assert data_parallel(p["llama-3.1-8b-instruct"], table["Standard_NC96ads_A100_v4"])
    assert not data_parallel(p["llama-3.3-70b-instruct"], table["Standard_NC48ads_A100_v4"])
    assert not data_parallel(p["phi-4"], table["Standard_NC24ads_A100_v4"])  # one GPU


def test_the_public_phi_3_workspace(runner: CliRunner) -> None:
    """KAITO's own example: phi-3-mini-4k-instruct on Standard_NC24ads_A100_v4, vLLM 0.25.1.
    One 4,096-token sequence keeps its sliding window (model_specs: sliding_window_tokens 2047
    on every layer): 32 x 32 x 96 x 2 x 2 B = 393,216 B a token x 2,048 = 805,306,368 B."""
    [row] = results(runner, CORPUS / "kaito_workspace_phi_3_mini_4k.yaml")
    assert row["verdict"] == "PASS"
    assert (row["model"], row["gpu"], row["engine"], row["engine_version"]) == (
        "phi-3-mini-4k", "a100-pcie-80gb", "vllm", "0.25.1")
    assert (row["gpus"], row["max_model_len_tokens"]) == (1, 4_096)
    assert row["max_sequence_bytes_per_gpu"] == 393_216 * 2_048 == 805_306_368
    assert "--max-model-len auto: the model's own 4,096 tokens fit the KV pool" in row["notes"]


def test_the_configmap_and_the_estimators_two_nodes(runner: CliRunner) -> None:
    """llama-3.3-70b-instruct on Standard_NC48ads_A100_v4 with a ConfigMap of
    gpu-memory-utilization 0.95 and max-model-len 16384: 2 nodes x 2 GPUs, TP 2 x PP 2. One
    sequence a GPU: 80 layers / 2 stages x 8 KV heads / 2 ranks x 128 x 2 x 2 B x 16,384 =
    1,342,177,280 B."""
    [row] = results(runner, CORPUS / "kaito_workspace_llama-3.3_70b_instruct.yaml")
    assert row["verdict"] == "PASS"
    assert (row["gpus"], row["gpus_per_replica"], row["max_model_len_tokens"]) == (4, 4, 16_384)
    assert row["max_sequence_bytes_per_gpu"] == 40 * 4 * 128 * 2 * 2 * 16_384 == 1_342_177_280
    notes = "\n".join(row["notes"])
    assert "= 3 GPU(s) -> 2 node(s) of 2" in notes
    assert "--gpu-memory-utilization 0.84: KAITO's for NVIDIA A100 (interface.go); the " \
           "ConfigMap's 0.95 comes later and wins" in notes


def test_data_parallel_on_four_gpus_and_an_inferenceset(runner: CliRunner) -> None:
    """Llama-3.1-8B on Standard_NC96ads_A100_v4: 4 data-parallel engines of one GPU; the
    InferenceSet's 2 Workspaces of one A100 each."""
    [dp] = results(runner, CORPUS / "kaito_workspace_llama-3.1_8b_instruct.yaml")
    assert (dp["verdict"], dp["gpus"], dp["gpus_per_replica"]) == ("PASS", 4, 1)
    assert "4 data-parallel engines per pod" in dp["notes"]
    [iset] = results(runner, CORPUS / "kaito_inferenceset_llama-3.1_8b_instruct.yaml")
    assert (iset["verdict"], iset["replicas"], iset["gpus"]) == ("PASS", 2, 2)


def test_auto_max_model_len_is_the_longest_that_fits(runner: CliRunner, tmp_path: Path) -> None:
    """Llama-3.1-8B on one A10 at KAITO's 0.82: 131,072 tokens (16 GiB) do not fit; auto-fit
    starts it at the longest context the pool holds: the length the same server, written as a
    Deployment with --max-model-len 131072, names as the longest that fits."""
    [row] = results(runner, _workspace(tmp_path, "llama-3.1-8b-instruct",
                                       "Standard_NV36ads_A10_v5"))
    ref = tmp_path / "ref.yaml"
    ref.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ref\n  annotations:\n"
        "    kvplan.io/gpu: a10\nspec:\n  template:\n    spec:\n      containers:\n"
        "      - name: v\n        image: vllm/vllm-openai:v0.25.1\n        command: [vllm, serve, "
        "meta-llama/Llama-3.1-8B-Instruct, --dtype=bfloat16, --gpu-memory-utilization=0.82, "
        "--max-model-len=131072]\n        resources: {limits: {nvidia.com/gpu: 1}}\n")
    [full] = results(runner, ref)
    assert full["verdict"] == "FAIL" and not full["would_start"]
    longest = full["longest_context_that_fits_tokens"]
    assert longest == 23_168
    assert row["verdict"] == "PASS"
    assert row["max_model_len_tokens"] == longest
    assert ("--max-model-len auto: 131,072 tokens do not fit the KV pool, so vLLM shortens the "
            "context to the longest that fits, 23,168 tokens (checked at that length)"
            ) in row["notes"]
    assert "--gpu-memory-utilization 0.82: KAITO's for NVIDIA A10 (interface.go)" in row["notes"]


def test_kaitos_estimator_spreads_a_long_context_over_nodes(runner: CliRunner,
                                                          tmp_path: Path) -> None:
    """An explicit max-model-len 131072 on A10s: the estimator books 131,072 x 131,072 B = 16 GiB
    of KV a GPU, leaving (24 x 0.84 - 2.3 - 16) / 1.05 = 1.77 GiB for weights -> 9 GPUs -> 9
    nodes: TP 1 x PP 9 over Ray, each stage holding its layers' share of the sequence."""
    cm = configmap("p", "max-model-len: 131072") + "---\n"
    path = _workspace(tmp_path, "llama-3.1-8b-instruct", "Standard_NV36ads_A10_v5",
                      "  config: p\n", cm)
    [row] = results(runner, path)
    assert (row["verdict"], row["gpus_per_replica"], row["max_model_len_tokens"]) == (
        "PASS", 9, 131_072)
    assert any("= 9 GPU(s) -> 9 node(s) of 1" in n for n in row["notes"])


def test_what_kvplan_refuses_with_a_reason(runner: CliRunner, tmp_path: Path) -> None:
    cases = {
        "transformers": (_workspace(tmp_path, "phi-4", "Standard_NC24ads_A100_v4", name="t.yaml"),
                         "kaito.sh/runtime: transformers runs KAITO's Hugging Face transformers"),
        "preset": (_workspace(tmp_path, "falcon-7b", "Standard_NC24ads_A100_v4", name="p.yaml"),
                   "'falcon-7b' is not one of KAITO's preset models"),
        "sku": (_workspace(tmp_path, "phi-4", "Standard_NC6s_v3", name="s.yaml"),
                "'Standard_NC6s_v3' is not one of KAITO's Azure GPU SKUs"),
        "card": (_workspace(tmp_path, "phi-4", "Standard_NG32ads_V620_v1", name="c.yaml"),
                 "(AMD Radeon PRO V620) is not in kvplan's GPU catalog"),
        "configmap": (_workspace(tmp_path, "phi-4", "Standard_NC24ads_A100_v4",
                                 "  config: absent\n", name="m.yaml"),
                      "ConfigMap 'absent' is not among the files checked"),
    }
    cm = configmap("p", "max-model-len: 131072") + "---\n"
    # phi-3-mini-128k: 131,072 x 393,216 B = 48 GiB of KV over 24 Gi x 0.84 a GPU
    cases["estimator"] = (_workspace(tmp_path, "phi-3-mini-128k-instruct",
                                     "Standard_NV36ads_A10_v5", "  config: p\n", cm,
                                     name="e.yaml"),
                          "KAITO's node estimator refuses it: 24 GiB a GPU x 0.84 is below its "
                          "reserve of 50.3 GiB (2.3 GiB + 131,072 tokens of KV)")
    text = cases["transformers"][0].read_text().replace(
        "  name: ws\n", "  name: ws\n  annotations:\n    kaito.sh/runtime: transformers\n")
    cases["transformers"][0].write_text(text)
    spec = tmp_path / "spec.yaml"
    spec.write_text("apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: w\nspec:\n"
                    "  resource:\n    instanceType: Standard_NC24ads_A100_v4\n  inference:\n"
                    "    preset:\n      name: phi-4\n")
    cases["spec"] = (spec, "a KAITO Workspace has no spec: resource and inference are top-level")
    for case, (path, said) in cases.items():
        [row] = results(runner, path)
        assert row["verdict"] == "ERROR", case
        assert said in row["errors"][0]["message"], (case, row["errors"])


def test_a_model_kvplans_catalog_lacks_names_kvplan_import(runner: CliRunner) -> None:
    [row] = results(runner, CORPUS / "kaito_workspace_deepseek_r1.yaml")
    assert row["verdict"] == "ERROR"
    assert "add it with `kvplan import deepseek-ai/DeepSeek-R1-0528`" in row["errors"][0]["message"]


def test_a_tuning_workspace_and_a_hub_preset(runner: CliRunner, tmp_path: Path) -> None:
    """A tuning Workspace runs no server: skipped, like any file without a deployment. A preset
    named by its repository and absent from KAITO's catalog: one node, TP = the SKU's GPUs."""
    report = check_paths([str(CORPUS)])
    assert report.skipped == [str(CORPUS / "kaito_workspace_tuning_phi_3.yaml")]
    hub = _workspace(tmp_path, "Qwen/Qwen2.5-7B-Instruct", "Standard_NC48ads_A100_v4")
    [row] = results(runner, hub)
    assert (row["verdict"], row["model"], row["gpus_per_replica"]) == ("PASS", "qwen2.5-7b", 2)
    assert any("KAITO reads its size from the Hub at run time" in n for n in row["notes"])
