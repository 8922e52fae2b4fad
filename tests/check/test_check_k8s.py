"""`kvplan check` on Kubernetes manifests running vLLM and SGLang, and the manifest reader."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check import check_paths, gpus, read_targets
from kvplan.check.gpus import GPU_PRODUCTS, UnknownLabel, catalog_name, label_for
from kvplan.check.manifests.engine import tokens as _tokens
from kvplan.check.manifests.side import is_side_file, side_file_for
from tests.check.check_cli_run import K8S, run
from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns


def test_vllm_deployment_passes(runner: CliRunner) -> None:
    result = run(runner, K8S / "vllm-pass.yaml")
    assert result.exit_code == 0, result.output
    # 9 pods x 1 H100 x 225 users (2,000-token conversations, vLLM 0.6.3's own pool: the image
    # tag names the version; 224 until 0.6.3's init-free-minus-free profiler, which books
    # non-torch growth, 0.07 GiB, not the CUDA context, 0.35 GiB); ceil(1,500 x 1.2) = 1,800
    assert result.output.splitlines()[0] == (
        f"PASS  {K8S / 'vllm-pass.yaml'}:1  llama3-8b: holds 2,025 users >= 1,800 required; "
        "starts: yes (llama-3-8b on 9 replica(s) x 1 h100-sxm-80gb, vllm 0.6.3 profile)"
    )


def test_engine_annotation_ideal_gives_the_plain_arithmetic(runner: CliRunner, tmp_path) -> None:
    """9 pods x 222 users: 0.9 x 85,045,477,376 - 16,060,522,496 - 2 GiB = 58,332,923,494 bytes
    of pool, over 2,000 tokens x 131,072 bytes = 262,144,000 per conversation: 222."""
    text = (K8S / "vllm-pass.yaml").read_text()
    assert "annotations:" in text
    path = tmp_path / "vllm-pass.yaml"
    path.write_text(text.replace("annotations:", "annotations:\n    kvplan.io/engine: ideal", 1))
    result = run(runner, path)
    assert result.exit_code == 0, result.output
    assert "holds 1,998 users >= 1,800 required" in result.output
    assert "vllm checked with ideal arithmetic" in result.output


def test_vllm_deployment_fails_with_replicas_fix(runner: CliRunner) -> None:
    result = run(runner, K8S / "vllm-fail.yaml")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(f"FAIL  {K8S / 'vllm-fail.yaml'}:10  llama3-8b-small: ")  # replicas
    assert "holds 450 users < 1,800 required; starts: yes" in lines[0]
    # 2 replicas hold 450 (225 each, vLLM 0.6.3's growth-only non-torch term): ceil(1,800 / 225)
    # = 8 replicas hold 1,800
    assert "      or:  replicas: 2 -> 8 (holds 1,800 users on 8 GPU(s))" in lines


def test_vllm_shell_api_server_that_would_not_start(runner: CliRunner) -> None:
    """`sh -c "... && exec python3 -m vllm.entrypoints.openai.api_server --model $(MODEL_ID)"`."""
    result = run(runner, K8S / "vllm-api-server-shell.yaml")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert (
        "llama31-70b-long: holds 0 users < 4 required; starts: no (llama-3.1-70b on 1 " in lines[0]
    )
    assert lines[0].startswith(f"FAIL  {K8S / 'vllm-api-server-shell.yaml'}:29 ")  # the script
    # vLLM 0.5.4 books the caching allocator's reserved bytes (kvplan.engines.vllm_v0_reserved,
    # task h27oldv0): at 16,640 tokens, no longer chunked, the profile run reserves more than
    # the fitted allocated-peak model booked (18,224 before); 16,640 until task h39rope booked the
    # rotary cos/sin cache with the weights (131,072 x 128 x 2 B = 33,554,432 B a GPU)
    assert lines[2] == "      fix: --max-model-len 131072 -> 16530 (holds 4 users on 2 GPU(s))"
    assert lines[3] == (
        "      or:  nvidia.com/gpu.product: NVIDIA-H200 (h200-141gb) (holds 95 users on 2 GPU(s))"
    )  # GPUs a node label selects only
    assert lines[4] == (
        "      or:  --tensor-parallel-size 2 -> 4 with nvidia.com/gpu: 4 "
        "(holds 120 users on 4 GPU(s))"
    )


def test_sglang_statefulset_from_helm_output_with_side_file(runner: CliRunner) -> None:
    result = run(runner, K8S / "sglang-fail.yaml")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    # Llama-3.1-70B, TP 4 on H200 at --mem-fraction-static 0.85, SGLang 0.4.1's own pool: 183
    # conversations of 6,000 tokens per replica (page size 1; 185 before the NVLink start-up term
    # of issue #13's ninth round); the side file's mean 6,000 and p95 24,000 fit a lognormal, and
    # at the default 1% overflow risk a replica holds 146 (what `kvplan fleet` plans; exact sum
    # over the 1-token lattice, plain inverse FFT of phi^n: 146 overflows 0.861%, 147 1.029%;
    # 148 by the normal approximation until task h100review, which overflows 1.224%);
    # ceil(400 x 1.25) = 500 required
    assert (
        "llama31-70b: holds 292 users < 500 required; starts: yes (llama-3.1-70b on 2 " in lines[0]
    )
    assert "sglang 0.4.1 profile" in lines[0]
    assert lines[0].startswith(f"FAIL  {K8S / 'sglang-fail.yaml'}:19 ")  # spec.replicas
    assert lines[1] == ("      at 1.00% overflow risk a replica holds 146 conversations (183 if "
                        "every one had the mean length)")
    # SGLang 0.4.1's --kv-cache-dtype takes auto, fp8_e5m2 (server_args.py:330 in its wheel):
    # the fix offers what it takes (task h71sglfix; fp8_e4m3 before, which 0.4.1 refuses)
    assert lines[2] == ("      fix: --kv-cache-dtype fp8_e5m2 (SGLang 0.4.1 has no fp8_e4m3, which "
                        "came in 0.4.1.post6; fp8_e5m2 is 8 bits a value too) (holds 630 users "
                        "on 8 GPU(s))")
    assert "      or:  replicas: 2 -> 4 (holds 584 users on 16 GPU(s))" in lines  # 4 x 146
    assert lines[-2] == "      note: traffic from sglang-fail.kvplan.yaml"
    passing = run(runner, K8S / "sglang-pass.yaml")
    assert passing.exit_code == 0, passing.output
    assert "holds 630 users >= 500 required" in passing.output


K8S_ERRORS = [
    (
        "unknown-hf-model.yaml",
        21,
        "--model: 'acme/Unknown-Chat-8B' is not in the "
        "catalog (no spec has this name, hf_id or alias); add it with `kvplan import ",
    ),
    (
        "tp-exceeds-gpus.yaml",
        23,
        "nvidia.com/gpu: tensor 4 needs 4 GPUs but the engine has 2 (nvidia.com/gpu 2 x 1 "
        "pod(s))",
    ),
    (
        "gpu-not-in-catalog.yaml",
        17,
        "nvidia.com/gpu.product: nvidia.com/gpu.product='NVIDIA-Z100' is not in kvplan's label "
        "table; set the annotation kvplan.io/gpu",
    ),
    (
        "unknown-annotation.yaml",
        8,
        "kvplan.io/headroom-percent: unknown kvplan annotation (did you mean: headroom-pct?)",
    ),
]


@pytest.mark.parametrize(("name", "line", "message"), K8S_ERRORS)
def test_manifest_errors(runner: CliRunner, name: str, line: int, message: str) -> None:
    result = run(runner, K8S / name)
    assert result.exit_code == 2, result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"ERROR {K8S / name}:{line}: {message}"), first


def test_label_mapped_to_a_gpu_the_catalog_lacks(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Labels map to catalog names that may not exist yet (the table runs ahead)."""
    monkeypatch.setitem(gpus._BY_LABEL, "nvidia-z100", "z100-96gb")
    result = run(runner, K8S / "gpu-not-in-catalog.yaml")
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[0] == (
        f"ERROR {K8S / 'gpu-not-in-catalog.yaml'}:17: nvidia.com/gpu.product: NVIDIA-Z100 maps "
        "to 'z100-96gb', which the GPU catalog does not hold; add hardware_specs/z100-96gb.yaml "
        "or set the annotation kvplan.io/gpu to a catalog name (`kvplan gpus`)"
    )


def test_unknown_hf_model_says_how_to_add_it(runner: CliRunner) -> None:
    result = run(runner, K8S / "unknown-hf-model.yaml")
    assert "`kvplan import acme/Unknown-Chat-8B`" in result.output
    assert "kvplan.io/model" in result.output


def test_folder_skips_non_llm_workloads_and_side_files(runner: CliRunner) -> None:
    report = check_paths([str(K8S)])
    assert report.skipped == [str(K8S / "not-an-llm.yaml")]
    files = {Path(o.file).name for o in report.outcomes}
    assert not any(f.endswith(".kvplan.yaml") for f in files)
    # no-traffic.yaml now PASSes on start-up; no-gpu-product.yaml WARNs (no GPU named)
    assert report.counts() == {"PASS": 3, "FAIL": 3, "WARN": 1, "ERROR": 4}
    assert report.exit_code == 2


def test_annotation_model_and_gpu_override(tmp_path: Path) -> None:
    text = (
        (K8S / "no-gpu-product.yaml")
        .read_text()
        .replace(
            'kvplan.io/peak-concurrent-users: "100"',
            'kvplan.io/peak-concurrent-users: "100"\n    kvplan.io/gpu: h200\n'
            "    kvplan.io/model: llama-3.1-8b\n    kvplan.io/context-tokens-mean: '4000'",
        )
    )
    path = tmp_path / "m.yaml"
    path.write_text(text)
    [outcome] = check_paths([str(path)]).outcomes
    assert (outcome.verdict, outcome.model, outcome.gpu) == ("PASS", "llama-3.1-8b", "h200-141gb")


def test_side_file_names_and_detection(tmp_path: Path) -> None:
    manifest = tmp_path / "llm.yaml"
    manifest.write_text("kind: Deployment\n")
    side = tmp_path / "llm.kvplan.yaml"
    side.write_text("traffic: {peak_concurrent_users: 1}\n")
    assert side_file_for(manifest) == side
    assert is_side_file(side)
    lonely = tmp_path / "other.kvplan.yaml"
    lonely.write_text("apiVersion: kvplan/v1\n")
    assert not is_side_file(lonely)  # no manifest next to it: an ordinary file


def test_side_file_with_unknown_key_is_reported(tmp_path: Path) -> None:
    for name in ("vllm-fail.yaml",):
        (tmp_path / name).write_text((K8S / name).read_text())
    (tmp_path / "vllm-fail.kvplan.yaml").write_text("trafic:\n  peak_concurrent_users: 10\n")
    [outcome] = check_paths([str(tmp_path)]).outcomes
    assert outcome.verdict == "ERROR"
    assert [p.text() for p in outcome.problems] == [
        f"in side file {tmp_path / 'vllm-fail.kvplan.yaml'}, line 1: trafic: unknown field; "
        "did you mean 'traffic'?"
    ]


def test_gpu_label_table() -> None:
    assert catalog_name("NVIDIA-H100-80GB-HBM3") == "h100-sxm-80gb"
    assert catalog_name("nvidia-h100-80gb-hbm3-SHARED") == "h100-sxm-80gb"  # time-sliced
    assert catalog_name("NVIDIA-A100-SXM4-80GB") == "a100-80gb"
    assert catalog_name("NVIDIA-L4") == "l4"
    assert catalog_name("nvidia-l4") == "l4"  # GKE
    assert label_for("h200-141gb") == "NVIDIA-H200"
    with pytest.raises(UnknownLabel, match="MIG slice"):
        catalog_name("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb")
    with pytest.raises(UnknownLabel, match="not in kvplan's label table"):
        catalog_name("NVIDIA-Z9000")
    assert len({k.lower() for k in GPU_PRODUCTS}) == len(GPU_PRODUCTS)


def test_token_lengths_as_vllm_writes_them() -> None:
    assert _tokens("8192") == 8192
    assert _tokens("32k") == 32_000
    assert _tokens("32K") == 32_768
    assert _tokens("1M") == 1_048_576
    with pytest.raises(ValueError):
        _tokens("lots")


def test_env_expansion_in_the_server_command() -> None:
    [target] = read_targets(K8S / "vllm-fail.yaml", {})
    assert target.deployment is not None
    assert target.deployment.model == "llama-3-8b"  # $(MODEL) -> meta-llama/Meta-Llama-3-8B


def test_an_image_tag_that_names_no_version_uses_the_profile_default(
    runner: CliRunner, tmp_path: Path
) -> None:
    text = (K8S / "vllm-pass.yaml").read_text()
    path = tmp_path / "vllm-latest.yaml"
    path.write_text(text.replace("vllm/vllm-openai:v0.6.3", "vllm/vllm-openai:latest"))
    result = run(runner, path)
    assert result.exit_code == 0, result.output
    assert "vllm (default version) profile" in result.output
    assert "note: image tag 'latest' names no version: the vllm profile's default version is used" \
        in result.output


# issue #12, round 2: each new GPU's node label, as GPU feature discovery writes the runtime name
# (spaces -> hyphens), the AMD node labeller (spaces -> underscores) and Ray name it
NEW_GPU_LABELS = {
    ("nvidia.com/gpu.product", "NVIDIA-A100-80GB-PCIe"): "a100-pcie-80gb",
    ("nvidia.com/gpu.product", "NVIDIA-A100-PCIE-40GB"): "a100-pcie-40gb",
    ("nvidia.com/gpu.product", "NVIDIA-A40"): "a40",
    ("nvidia.com/gpu.product", "NVIDIA-L40"): "l40",
    ("nvidia.com/gpu.product", "NVIDIA-RTX-A6000"): "rtx-a6000",
    ("nvidia.com/gpu.product", "NVIDIA-RTX-4000-Ada-Generation"): "rtx-4000-ada",
    ("amd.com/gpu.product-name", "AMD_Instinct_MI210"): "mi210",
    ("accelerator_type", "AMD-Instinct-MI210"): "mi210",
}


@pytest.mark.parametrize(("key", "label"), sorted(NEW_GPU_LABELS))
def test_new_gpu_labels_resolve_to_their_specs(key: str, label: str) -> None:
    from kvplan.specs import load_hardware

    name = NEW_GPU_LABELS[key, label]
    assert catalog_name(label, key) == name
    assert load_hardware(name).name == name
    if key == "nvidia.com/gpu.product":  # the label is the runtime name with hyphens
        assert label.replace("-", " ").lower() in {
            d.replace("-", " ").lower() for d in load_hardware(name).device_names}
        assert catalog_name(label + "-SHARED", key) == name
    assert label_for(name, key) == label


def test_l40_and_pcie_a100_nodes_are_checked_on_their_own_specs(runner: CliRunner, tmp_path) -> None:
    # before round 2 an NVIDIA-L40 node was an unknown label and NVIDIA-A100-80GB-PCIe was read
    # as the SXM4 board; both now name their own spec in the verdict
    text = (K8S / "vllm-pass.yaml").read_text()
    for label, name in (("NVIDIA-L40", "l40"), ("NVIDIA-A100-80GB-PCIe", "a100-pcie-80gb")):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text.replace("NVIDIA-H100-80GB-HBM3", label))
        result = run(runner, path)
        assert result.exit_code in (0, 1), result.output
        assert f"x 1 {name}, vllm 0.6.3 profile" in result.output, result.output
