"""Manifests as teams write them: engine options parsed as the engines parse them, the
start-up verdict, and no silent skips. Expected values are read off the files by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check import check_paths, read_targets
from kvplan.check.argv import Invocation, Word, join_continuations, parse, split_script
from kvplan.cli import app
from kvplan.errors import InputError

SYN = Path(__file__).parents[1] / "assets" / "check" / "synthetic"
CORPUS = Path(__file__).parents[1] / "assets" / "check" / "corpus"


def _vllm(*words: str) -> Invocation:
    return Invocation("vllm", "vllm serve", [Word(w, 1) for w in words])


def test_prefix_and_underscore_as_vllm_parses_them() -> None:
    parsed = parse(_vllm("m", "--max-num-seq", "4", "--tensor_parallel_size", "2"))
    # argparse: --max-num-seq is the unique prefix of --max-num-seqs; FlexibleArgumentParser
    # turns _ into - in option names
    assert parsed.options["--max-num-seqs"][0] == "4"
    assert parsed.options["--tensor-parallel-size"][0] == "2"
    assert parsed.unknown == []


def test_sglang_does_not_take_underscores_but_takes_prefixes() -> None:
    inv = Invocation("sglang", "python -m sglang.launch_server",
                     [Word(w, 1) for w in ("--tp", "2", "--context_length", "4096")])
    parsed = parse(inv)
    assert parsed.options["--tp-size"][0] == "2"  # --tp: the unique prefix of --tp-size
    assert [u[0] for u in parsed.unknown] == ["--context_length"]  # plain argparse


def test_flush_left_continuations_join_before_splitting() -> None:
    script = "vllm serve m \\\n--max-num-seqs 8 \\\n      --max-model-len 4096\n"
    assert join_continuations(script).split() == [
        "vllm", "serve", "m", "--max-num-seqs", "8", "--max-model-len", "4096"]
    assert split_script("pip install x && exec " + script)[1][:3] == ["vllm", "serve", "m"]


def test_manifest_with_prefix_underscore_and_flush_left_lines() -> None:
    [target] = read_targets(SYN / "flags-prefix-underscore.yaml", {})
    dep = target.deployment
    assert dep is not None, target.problems
    assert (dep.engine.max_num_seqs, dep.parallel.tensor, dep.engine.max_model_len) == (4, 2, 4096)
    assert dep.hardware.count == 2  # 1 replica x tensor 2


def test_misspelled_flag_fails_with_did_you_mean() -> None:
    [o] = check_paths([str(SYN / "misspelled-flag.yaml")]).outcomes
    assert o.verdict == "FAIL"
    assert "--gpu-memory-utilisation" in o.reasons[0]
    assert "did you mean --gpu-memory-utilization?" in o.reasons[0]
    assert o.line == 13


def test_startup_failures() -> None:
    report = check_paths([str(SYN / n) for n in ("tp-heads.yaml", "too-long.yaml",
                                                  "weights-too-big.yaml")])
    tp, long, big = report.outcomes
    # 32 heads % 3 != 0; 8 KV heads vs tp 3: 8 % 3 != 0
    assert tp.verdict == "FAIL" and len(tp.reasons) == 2
    assert "200,000 is above llama-3.1-8b's limit of 131,072" in long.reasons[0]
    # 70.6e9 params x 2 bytes = 141 GB of weights > 24 GB x 0.9 on one L4
    assert big.verdict == "FAIL" and big.numbers is not None and not big.numbers.would_start
    assert report.exit_code == 1


def test_gke_l4_tutorial_case_at_32k_misses_by_a_small_margin() -> None:
    """Llama-3.1-8B at --max-model-len 32768 on one L4 under vLLM 0.9.0: 32 layers x 8 KV heads
    x 128 x 2 (K,V) x 2 bytes = 131,072 B/token -> 4,294,967,296 B for 32,768 tokens. The pool:
    0.9 x 23,570,219,008 B = 21,213,197,107 B, less 16,060,522,496 B of weights, the V1
    sampler's 256 rows x 128,256 x 16 B = 525,336,576 B and 367,001,600 B of non-torch memory
    (V1 before 0.9.1 books the whole device, the CUDA context included: gpu_worker.py
    determine_available_memory) = 4,260,336,435 B, 34,630,861 B short: 2,031 blocks of
    2,097,152 B, 32,496 tokens. (With the 70 MiB growth term, 4,553,937,715 B, it started; with
    V0's 40 B sampler, 1,313,341,440 B, it did not.) Task h39rope adds the rotary cos/sin cache
    to the weights, 131,072 x 128 x 2 B = 33,554,432 B: 4,226,782,003 B, 2,015 blocks, 32,240
    tokens. The broken ConfigMap beside it is ignored, not fatal."""
    report = check_paths([str(SYN / "broken-secret-beside-workload.yaml")])
    [o] = report.outcomes
    assert o.numbers is not None
    assert o.numbers.max_sequence_bytes == 32_768 * 131_072
    assert not o.numbers.would_start
    assert o.verdict == "FAIL" and "(longest that fits: 32,240 tokens)" in str(o.numbers)
    assert len(report.ignored) == 1


def test_unrendered_templates_say_render_first() -> None:
    report = check_paths([str(SYN / "unrendered-helm.yaml")])
    assert [o.verdict for o in report.outcomes] == ["ERROR", "ERROR"]
    assert all("render first" in o.problems[0].message for o in report.outcomes)


def test_empty_folder_and_unknown_crd_exit_non_zero(tmp_path: Path) -> None:
    assert check_paths([str(tmp_path)]).exit_code == 2
    crd = tmp_path / "crd.yaml"
    crd.write_text("apiVersion: example.com/v1\nkind: MyLLM\nmetadata: {name: x}\nspec:\n"
                   "  image: vllm/vllm-openai:v0.9.0\n")
    [o] = check_paths([str(tmp_path)]).outcomes
    assert o.verdict == "ERROR" and "MyLLM runs vLLM" in o.problems[0].message


def test_no_gpu_named_warns_and_gpu_option_sets_it() -> None:
    path = str(Path(__file__).parents[1] / "assets" / "check" / "k8s" / "no-gpu-product.yaml")
    [o] = check_paths([path]).outcomes
    assert o.verdict == "WARN" and o.summary is not None and "starts on: " in o.summary
    [o] = check_paths([path], default_gpu="l4").outcomes
    assert o.gpu == "l4" and o.verdict in ("PASS", "FAIL")


POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
{annotations}spec:
  nodeSelector: {{{label}}}
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.9.0
      args: [{args}]
      resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def _pod(tmp_path: Path, args: str, label: str = "nvidia.com/gpu.product: NVIDIA-L4",
         annotations: str = "") -> Path:
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(args=args, label=label, annotations=annotations))
    return path


def test_container_path_named_by_served_model_name_or_annotation(tmp_path: Path) -> None:
    bare = check_paths([str(_pod(tmp_path, '"--model", "/models/llama"'))]).outcomes[0]
    assert bare.verdict == "ERROR" and "path inside the container" in bare.problems[0].message
    served = _pod(tmp_path, '"--model", "/models/llama", "--served-model-name", '
                  '"meta-llama/Llama-3.2-1B-Instruct", "--max-model-len", "8192"')
    assert check_paths([str(served)]).outcomes[0].model == "llama-3.2-1b"
    annotated = _pod(tmp_path, '"--model", "/models/llama"',
                     annotations="  annotations: {kvplan.io/model: llama-3.2-1b}\n")
    assert check_paths([str(annotated)]).outcomes[0].model == "llama-3.2-1b"


def test_label_families_and_the_fixes_they_allow(tmp_path: Path) -> None:
    args = '"--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "40960"'
    # an AWS g6.xlarge is one L4 (instances.py); Karpenter's a10g is an A10G
    cases = (("node.kubernetes.io/instance-type: g6.xlarge", "l4",
              "node.kubernetes.io/instance-type: p4d.24xlarge (a100-40gb)"),
             ("karpenter.k8s.aws/instance-gpu-name: a10g", "a10g",
              "karpenter.k8s.aws/instance-gpu-name: a100 (a100-40gb)"))
    for label, gpu, swap in cases:
        [o] = check_paths([str(_pod(tmp_path, args, label))]).outcomes
        # 40,960 x 128 KiB = 5 GiB > the pool (4.24 GiB on an L4: 0.9 x 21.95 GiB - 14.96 GiB of
        # weights - 0.49 GiB of sampler - 0.07 GiB non-torch; 32,768 tokens, 4 GiB, would fit)
        assert o.gpu == gpu and o.verdict == "FAIL"
        # the GPU swap stays in the file's label family (an A100 40GB is the smallest NVIDIA
        # card above 24 GB that these families reach)
        assert [t for t in o.fix_text if "(a100-40gb)" in t][0].startswith(swap), o.fix_text
        assert not any("gpu.product" in t for t in o.fix_text)


def test_azure_nc_a100_v4_is_the_pcie_card(tmp_path: Path) -> None:
    """Azure's NC A100 v4 sizes carry A100 80GB PCIe cards (Microsoft's HPC blog; KAITO's SKU
    table reads them the same), not the SXM part that ND96amsr_A100_v4 carries."""
    args = '"--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"'
    for label, gpu in (("node.kubernetes.io/instance-type: Standard_NC24ads_A100_v4",
                        "a100-pcie-80gb"),
                       ("node.kubernetes.io/instance-type: Standard_ND96amsr_A100_v4",
                        "a100-80gb")):
        [o] = check_paths([str(_pod(tmp_path, args, label))]).outcomes
        assert o.gpu == gpu, (label, o.gpu)


def test_a_label_for_a_gpu_the_catalog_lacks_names_the_spec_to_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kvplan.check.manifests import hardware  # reads the node labels' GPU

    real = hardware.resolve_gpu

    def without_l20(ref: str):  # noqa: ANN202 - every shipped label has its spec: hide one
        if ref == "l20":
            raise InputError("unknown GPU 'l20'")
        return real(ref)

    monkeypatch.setattr(hardware, "resolve_gpu", without_l20)
    [o] = check_paths([str(_pod(tmp_path, '"--model", "Qwen/Qwen3-8B"',
                                "nvidia.com/gpu.product: NVIDIA-L20"))]).outcomes
    assert o.verdict == "ERROR"
    assert "add hardware_specs/l20.yaml" in o.problems[0].message


def test_compose_service(tmp_path: Path) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.9.0\n"
                    "    command: --model Qwen/Qwen3-8B --max-model-len 8192\n"
                    "    deploy: {resources: {reservations: {devices: "
                    "[{driver: nvidia, count: 1, capabilities: [gpu]}]}}}\n")
    [o] = check_paths([str(path)], default_gpu="h100-sxm-80gb").outcomes
    # Qwen3-8B: 8.2e9 x 2 B = 16.4 GB of weights on an 85 GB H100: starts
    assert (o.verdict, o.model, o.gpu) == ("PASS", "qwen3-8b", "h100-sxm-80gb")
    assert o.summary is not None and o.summary.startswith("starts; holds ")


def test_config_json_beside_the_manifest_names_a_container_path(tmp_path: Path) -> None:
    import shutil

    configs = Path(__file__).parents[1] / "assets" / "hf_configs"
    shutil.copy(configs / "deepseek-r1.json", tmp_path / "config.json")
    [o] = check_paths([str(_pod(tmp_path, '"--model", "/models/m", "--max-model-len", "512"'))
                       ]).outcomes
    # DeepSeek-R1's 671e9 parameters (>= 671 GB at fp8) cannot fit one 23.6 GB L4
    assert o.verdict == "FAIL" and o.numbers is not None and not o.numbers.would_start
    assert any("config.json" in n for n in o.notes)


def test_a_fail_inside_the_engines_range_says_it_is_borderline(tmp_path: Path) -> None:
    """GKE's L4 tutorial (vLLM 0.8.5, Llama-3.1-8B at 32,768 tokens) misses by 34,630,861 B on
    the best estimate, but the pool's range (high activation 1.11 GiB and non-torch 0.56 GiB to
    low 0.37 and 0.2 GiB, `kvplan explain`; both ends 0.03 GiB lower since task h39rope's rotary
    cache, 33,554,432 B) reaches past the 4 GiB one sequence needs: the FAIL
    stays (the best estimate decides) and says that it may start. A clear miss says nothing."""
    res = CliRunner().invoke(app, ["check", str(CORPUS / "gke" / "deploy-llm.yaml"), "--no-color"],
                             env={"COLUMNS": "250"})
    assert res.exit_code == 1, res.output
    flat = " ".join(res.output.split())
    assert ("borderline: kvplan's range for this pool is 3.08 GiB to 4.21 GiB (the ranges of the "
            "terms it books, `kvplan explain`), so it may start; the verdict follows the best "
            "estimate") in flat
    clear = tmp_path / "clear-miss.yaml"  # 131,072 tokens need 16 GiB; the pool is about 4
    clear.write_text("apiVersion: kvplan/v1\nname: clear\nmodel: llama-3.1-8b\nhardware: {gpu: l4, "
                     "count: 1}\nengine: {name: vllm, version: 0.8.5, max_model_len: 131072}\n"
                     "traffic: {peak_concurrent_users: 1}\n",
                     encoding="utf-8")
    [o] = check_paths([str(clear)]).outcomes
    assert o.verdict == "FAIL" and o.numbers is not None
    assert o.numbers.reasons[0].startswith("would not start: one 131,072-token sequence")
    assert not any(r.startswith("borderline:") for r in o.numbers.reasons)
