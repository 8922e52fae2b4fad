"""Defects the reviews of `kvplan check` left after blind round blind-2026-12-06-r4 (task
h53checkgaps), each on the real public file that showed it (tests/assets/check/corpus, sources
in its SOURCES.md). Expected texts and numbers are worked out by hand from the file and the
specs named."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.specs import load_hardware
from tests.check.check_api import corpus_outcomes

ASSETS = Path(__file__).parents[1] / "assets" / "check"
CORPUS = ASSETS / "corpus"


def test_single_device_boards_are_not_listed_for_a_tensor_parallel_8_engine() -> None:
    """user-repos/crossplane-inference-vllm-kimi.yaml: a VLLMRuntime of Kimi-K2.5 with
    tensorParallelSize 8 and gpu "8" in one pod. gb10 (DGX Spark) and jetson-thor (Jetson AGX
    Thor) hold 121.6 and 122.8 GiB (their runtimes' totals), so the memory arithmetic alone let
    them in; but each is one board with one GPU (hardware spec gpus_per_node: 1, sourced in
    the spec), and one pod of 8 GPUs cannot be scheduled on a 1-GPU node: 8 > 1. The GPUs
    left are the 8-GPU servers whose memory holds the weights: b200, b300, h200-141gb. gb200
    and gb300 were listed here until task h55gaps: a GB200/GB300 NVL72 compute tray is one host
    of 4 GPUs (gpus_per_node: 4, sourced in their specs), so this one pod of 8 GPUs cannot be
    scheduled on one either: 8 > 4."""
    assert load_hardware("gb10").gpus_per_node == load_hardware("jetson-thor").gpus_per_node == 1
    assert load_hardware("gb200").gpus_per_node == load_hardware("gb300").gpus_per_node == 4
    (out,) = corpus_outcomes("user-repos/crossplane-inference-vllm-kimi.yaml")
    assert out.verdict == "WARN"
    assert out.summary.startswith("no GPU named; starts on: b200, b300, h200-141gb; would not "
                                  "start on: ")
    no = out.summary.split("would not start on: ")[1].split(" (")[0].split(", ")
    assert {"gb10", "jetson-thor", "gb200", "gb300"} <= set(no)


def test_production_stack_values_keys_the_chart_renders_are_seen() -> None:
    """production-stack tutorials/assets/values-09-lora-helm.yaml and values-13-tool-enabled.yaml
    (a6c01db0): the chart renders modelSpec.enableLoRA as --enable-lora and enableTool,
    toolCallParser, chatTemplate as --enable-auto-tool-choice, --tool-call-parser llama3_json,
    --chat-template /templates/<chatTemplate> (helm/templates/deployment-vllm-multi.yaml
    :139-148, :218-221). They were dropped in silence. --enable-lora moves GPU memory (vLLM's LoRA
    stacks) and kvplan does not book it: the same note a command line's --enable-lora gets; the
    tool and template options are named as not used. Verdicts stay WARN (no GPU named)."""
    from kvplan.check.manifests.unread import MOVES_MEMORY

    (lora,) = corpus_outcomes("production-stack/values-09-lora-helm.yaml")
    assert lora.verdict == "WARN"
    assert f"--enable-lora: {MOVES_MEMORY['vllm']['--enable-lora']}" in lora.notes
    (tool,) = corpus_outcomes("production-stack/values-13-tool-enabled.yaml")
    assert tool.verdict == "WARN"
    assert ("not used by kvplan's plan: --chat-template, --enable-auto-tool-choice, "
            "--tool-call-parser (kvplan reads the options docs/check.md lists; these are taken as "
            "not moving the KV pool)") in tool.notes


def test_production_stack_values_revision_and_max_loras(tmp_path: Path) -> None:
    """modelRevision renders as --revision R (deployment-vllm-multi.yaml :200-203) and
    vllmConfig.maxLoras as --max_loras N (:181-184): the one named as not used, the other with
    its LoRA note."""
    f = tmp_path / "values.yaml"
    f.write_text("servingEngineSpec:\n  modelSpec:\n  - name: m\n    repository: vllm/vllm-openai\n"
                 "    tag: v0.10.1\n    modelURL: meta-llama/Llama-3.1-8B-Instruct\n"
                 "    modelRevision: main\n    enableLoRA: true\n    requestGPU: 1\n"
                 "    vllmConfig:\n      maxLoras: 4\n")
    (out,) = check_paths([str(f)]).outcomes
    assert any(n.startswith("--max-loras: the LoRA adapters a batch holds") for n in out.notes)
    assert any(n.startswith("not used by kvplan's plan: --revision ") for n in out.notes)


def test_vllmruntime_tool_options_are_seen(tmp_path: Path) -> None:
    """The operator renders spec.model.enableTool, toolCallParser and chatTemplate too
    (vllmruntime_controller.go :453-459, :513-515 at a6c01db0). The operator's sample
    (production-stack_v1alpha1_vllmruntime.yaml) sets enableTool false and toolCallParser "":
    nothing rendered, its notes unchanged; with them set, as the tutorial's values do, the three
    are named as not used."""
    sample = (CORPUS / "production-stack" / "production-stack_v1alpha1_vllmruntime.yaml")
    (out,) = check_paths([str(sample)]).outcomes
    unread = [n for n in out.notes if n.startswith("not used by kvplan's plan")]
    assert unread == ["not used by kvplan's plan: --no-enable-chunked-prefill (kvplan reads the "
                      "options docs/check.md lists; these are taken as not moving the KV pool)"]
    f = tmp_path / "vllmruntime.yaml"
    f.write_text(sample.read_text().replace("enableTool: false", "enableTool: true")
                 .replace('toolCallParser: ""', 'toolCallParser: "llama3_json"\n'
                          '    chatTemplate: "tool_chat_template_llama3.1_json.jinja"'))
    (out,) = check_paths([str(f)]).outcomes
    unread = [n for n in out.notes if n.startswith("not used by kvplan's plan")]
    assert unread == ["not used by kvplan's plan: --chat-template, --enable-auto-tool-choice, "
                      "--no-enable-chunked-prefill, --tool-call-parser (kvplan reads the options "
                      "docs/check.md lists; these are taken as not moving the KV pool)"]


def test_stormservice_role_names_each_option_once() -> None:
    """aibrix samples/disaggregation/sglang/tp-1p1d.yaml: each role's `sh -c` runs
    `python3 -m sglang.launch_server ... --dist-init-addr "${PODSET_NAME}-0.${STORM_SERVICE_NAME}
    .default.svc.cluster.local:5000" --nnodes 2 --node-rank $POD_GROUP_INDEX --tp-size 2` in a
    pod group of podGroupSize 2 (1 GPU a pod). --dist-init-addr was named twice (its
    shell-expansion note and the not-used list): now once. --nnodes and --node-rank were "not
    used", though they say how the engine spans the group kvplan counts GPUs from (2 pods x 1
    GPU = TP 2): named for that, and 2 = 2 agrees."""
    for out in corpus_outcomes("aibrix/sglang-tp-1p1d.yaml"):
        assert sum("--dist-init-addr" in n for n in out.notes) == 1
        assert ("--nnodes, --node-rank: the nodes one engine spans and this pod's place among "
                "the nodes (not a KV-pool option); kvplan counts the engine's GPUs from the pods "
                "that run it, a group of 2 pods, which --nnodes 2 agrees with") in out.notes
        assert ("not used by kvplan's plan: --disaggregation-mode, "
                "--disaggregation-transfer-backend, --host, --log-level, --port, "
                "--trust-remote-code (kvplan reads the options docs/check.md lists; these are "
                "taken as not moving the KV pool)") in out.notes


def test_nnodes_that_disagrees_with_the_pods_is_said() -> None:
    """One pod of a Deployment with --nnodes 2: the note says kvplan counts that pod's GPUs."""
    from kvplan.check.manifests.node_options import node_note

    assert node_note({"--nnodes": ("2", 3)}, 1) == (
        "--nnodes: the nodes one engine spans (not a KV-pool option); --nnodes 2 says 2 nodes, "
        "but the file runs one pod per engine: kvplan counts the engine's GPUs from those pods")
    assert node_note({"--port": ("8000", 3)}, 1) is None


def test_the_sampler_kvplan_assumed_is_named_where_it_moves_the_pool() -> None:
    """kubeai/llama-3.1-tulu-3-8b-l4.yaml: KubeAI's default vLLM image vllm/vllm-openai:v0.8.3
    on an L4, --max-num-seqs 256 (rows >= 128, a 128,264-entry vocabulary > 4,096: the 0.8
    profile run sorts natively unless FlashInfer is installed). The plan takes FlashInfer's
    sampler from the image, and the note now says so with both pools. By hand (kvplan explain's
    steps): requested 22,391,708,057 B - weights 16,094,208,000 - non-torch 367,001,600 -
    activation peak max(forward 8,192 x 55,296 x 2 B = 905,969,664, sampler 256 x 128,264 x 16
    B = 525,369,344) = 5,024,528,793 B; / 1,048,576 B a block (16 tokens x 32 layers x 2,048 B,
    fp8) = 4,791 blocks = 76,656 tokens. With the sort the sampler is 256 x 128,264 x 38 B =
    1,247,752,192 B, the peak: 5,024,528,793 - (1,247,752,192 - 905,969,664) = 4,682,746,265 B
    = 4,465 blocks = 71,440 tokens (`kvplan explain` without --topk-topp-sampler flashinfer)."""
    (out,) = corpus_outcomes("kubeai/llama-3.1-tulu-3-8b-l4.yaml")
    assert out.verdict == "PASS"
    assert ("sampler: FlashInfer's top-k/top-p sampler (16 B a logit in the profile run) assumed "
            "(image vllm/vllm-openai:v0.8.3: vLLM's Dockerfile installs FlashInfer in "
            "vllm/vllm-openai): 76,656 tokens in the pool, 71,440 with the sort; "
            "VLLM_USE_FLASHINFER_SAMPLER=0 or an image without FlashInfer takes the sort"
            ) in out.notes


def test_no_sampler_note_where_the_path_moves_nothing(tmp_path: Path) -> None:
    """production-stack values-01-minimal-example.yaml: vllm/vllm-openai:latest (the default
    vLLM release, past the 0.8-0.16 sort): no sampler note. And the AIBrix 1p1d roles
    (aibrix/vllm-openai 0.10.0, not vLLM's image): the pip default's sort is named, the
    annotation to state FlashInfer with it. The sample's `vllm serve --model M` is refused by
    0.10.0 (task h60leftovers), so its model is given as serve's word here."""
    (plain,) = corpus_outcomes("production-stack/values-01-minimal-example.yaml")
    assert not [n for n in plain.notes if n.startswith("sampler:")]
    sample = Path(__file__).parents[1] / "assets" / "check" / "corpus" / "aibrix" / "1p1d.yaml"
    path = tmp_path / "1p1d.yaml"
    path.write_text(sample.read_text().replace("--model /models/Qwen3-8B", "/models/Qwen3-8B"))
    outs = check_paths([str(path)]).outcomes
    assert [o.verdict for o in outs] == ["WARN", "WARN"]
    for out in outs:
        assert ("sampler: PyTorch's sort (38 B a logit in the profile run) assumed (the image is "
                "not vLLM's own vllm/vllm-openai, which installs FlashInfer: taken as pip "
                "installs the release, without it), which moves the pool; if the image has "
                "FlashInfer, set the annotation kvplan.io/topk-topp-sampler: flashinfer"
                ) in out.notes
