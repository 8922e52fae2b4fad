"""Odd inputs that today's new check readers (task h54review's line-by-line review of
h52/h53's changes) read wrongly: each case written by hand, its expected text derived from the
rule the module states."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.manifests.model_hints import is_folder
from kvplan.check.manifests.node_options import node_note

_SGLANG_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: n}}
spec:
  template:
    spec:
      containers:
      - name: s
        image: lmsysorg/sglang:v0.4.6
        command: ["sh", "-c", "{script}"]
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def test_a_relative_folder_on_its_own_is_a_folder() -> None:
    """`./`, `../` and `~/` are folders as `./Models/x` is (model_hints.is_folder); with the
    one-slash rule `../` read as a catalog name and check advised `kvplan import ../`. A spec
    file (`./llama.yaml`) and a hub id stay what they were."""
    assert is_folder("./Models/llama3.1-8b-instruct") and is_folder("~/models/x")
    assert is_folder("../") and is_folder("~/") and is_folder("..") and is_folder("./")
    assert not is_folder("./llama.yaml") and not is_folder("meta-llama/Llama-3.1-8B-Instruct")


def test_a_parent_folder_model_is_not_sent_to_kvplan_import(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve ../ --max-model-len 4096\n")
    (out,) = check_paths([str(script)], default_gpu="l4").outcomes
    assert out.verdict == "ERROR"
    (said,) = [p.message for p in out.problems]
    assert said.startswith("'../' is a folder kvplan does not find here; name the model with "
                           "--served-model-name <hf id>")
    assert "kvplan import" not in said


def test_a_shell_expanded_node_rank_is_named_once(tmp_path: Path) -> None:
    """`--node-rank ${RANK}` in a `sh -c` script: the node-options note names --node-rank for
    what it is (node_options), so the shell-runtime note must not say as well that kvplan's plan
    does not read it (two notes on one option, one calling it unread). --dist-init-addr, which
    no other note names, keeps its shell-runtime note."""
    path = tmp_path / "sglang.yaml"
    path.write_text(_SGLANG_POD.format(script=(
        "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
        "--nnodes 1 --node-rank ${RANK} --dist-init-addr ${ADDR}:5000 --tp 1")))
    (out,) = check_paths([str(path)], default_gpu="l4").outcomes
    assert out.verdict != "ERROR", out.summary
    about_rank = [n for n in out.notes if "--node-rank" in n]
    assert about_rank == ["--nnodes, --node-rank: the nodes one engine spans and this pod's "
                          "place among the nodes (not a KV-pool option); kvplan counts the "
                          "engine's GPUs from the pods that run it, one pod, which --nnodes 1 "
                          "agrees with"]
    assert any(n.startswith("--dist-init-addr: '${ADDR}:5000' is expanded by the shell")
               for n in out.notes)


def test_a_node_count_below_one_is_not_read_as_nodes() -> None:
    """`--nnodes -3` / `--nnodes 0` named no nodes; the note said '--nnodes -3 says -3 nodes'."""
    said = node_note({"--nnodes": ("-3", 1)}, 1)
    assert said == ("--nnodes: the nodes one engine spans (not a KV-pool option); --nnodes -3 is "
                    "not a node count (1 or more): kvplan counts the engine's GPUs from the pods "
                    "that run it, one pod")
    assert node_note({"--nnodes": ("0", 1)}, 2) is not None
    assert "--nnodes 0 is not a node count" in str(node_note({"--nnodes": ("0", 1)}, 2))


def test_an_lmcache_config_enabled_as_a_string_is_named(tmp_path: Path) -> None:
    """production-stack's chart renders the LMCache connector under `{{- if
    $modelSpec.lmcacheConfig.enabled }}` (deployment-vllm-multi.yaml): a Go template's `if` is
    true for any non-empty string, so `enabled: "true"` runs LMCache as `enabled: true` does;
    the note was given only for YAML's true. `enabled: false` still gives none."""
    values = ("servingEngineSpec:\n  modelSpec:\n  - name: m\n    repository: vllm/vllm-openai\n"
              "    tag: v0.10.1\n    modelURL: meta-llama/Llama-3.1-8B-Instruct\n"
              "    requestGPU: 1\n    lmcacheConfig:\n      enabled: {enabled}\n"
              "      cpuOffloadingBufferSize: \"20\"\n")
    f = tmp_path / "values.yaml"
    for enabled, noted in (('"true"', True), ("true", True), ("false", False)):
        f.write_text(values.format(enabled=enabled))
        (out,) = check_paths([str(f)]).outcomes
        said = [n for n in out.notes if n.startswith("lmcacheConfig:")]
        assert said == ([
            "lmcacheConfig: the chart runs LMCache as vLLM's KV connector (--kv-transfer-config, "
            "LMCACHE_* env); cpuOffloadingBufferSize 20 (LMCACHE_MAX_LOCAL_CPU_SIZE, GB) is host "
            "memory; the plan is vLLM's own GPU KV pool (LMCache's GPU buffers are not booked)"]
            if noted else []), enabled


def test_a_brace_variable_from_a_value_from_entry_says_kubernetes_expands_parens(
        tmp_path: Path) -> None:
    """`--model=${MODEL_ID}` in args, outside a shell, beside env MODEL_ID: Kubernetes expands
    only $(MODEL_ID) there, a `valueFrom` entry as a `value` one (the pod spec's own dependent
    variables), so the engine gets `${MODEL_ID}` as written whichever way the entry is set. Only
    a `value` entry was matched: a ConfigMap's MODEL_ID got "render first", which cannot fix it."""
    f = tmp_path / "d.yaml"
    f.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: m}\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: s\n        image: vllm/vllm-openai:v0.10.1\n"
        "        args: ['--model=${MODEL_ID}']\n"
        "        env:\n        - name: MODEL_ID\n          valueFrom:\n"
        "            configMapKeyRef: {name: cfg, key: model}\n"
        "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    (o,) = check_paths([str(f)]).outcomes
    assert o.verdict == "ERROR"
    assert [p.message for p in o.problems] == [
        "'--model=${MODEL_ID}': the container sets MODEL_ID in its env, but Kubernetes expands "
        "$(MODEL_ID) in command and args, not ${MODEL_ID}, and no shell runs them, so the engine "
        "would receive the text as written; write $(MODEL_ID) or run the command through sh -c"]


def test_a_script_node_count_below_one_is_named() -> None:
    """A launch script's `--nnodes -3` (SCRIPT pods): planned on this one machine, and the note
    says -3 is not a node count rather than passing over it (the lead, after merging task
    h54outcomes3's script reading with h54review's fix)."""
    from kvplan.check.manifests.node_options import SCRIPT

    assert node_note({"--nnodes": ("-3", 1)}, SCRIPT) == (
        "--nnodes: the machines one engine spans (not a KV-pool option); this script starts one "
        "machine's share: --nnodes -3 is not a node count (1 or more): kvplan counts the "
        "engine's GPUs on this one machine")
    assert node_note({"--nnodes": ("2", 1)}, SCRIPT) == (
        "--nnodes: the machines one engine spans (not a KV-pool option); this script starts one "
        "machine's share: the same command runs on each of the 2 machines, so kvplan counts the "
        "engine's GPUs as this machine's x 2")
