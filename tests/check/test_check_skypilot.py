"""SkyPilot task YAML (kvplan.check.manifests.skypilot): the real tasks of the blind round
blind-2026-12-06-skypilot (tests/assets/check/corpus/skypilot, sources in its SOURCES.md), whole
verdicts asserted, and the refusals the reader owes (synthetic files beside them)."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from tests.check.check_api import verdict_lines_of

ASSETS = Path(__file__).parents[1] / "assets" / "check"
SKY = ASSETS / "corpus" / "skypilot"
SYN = ASSETS / "synthetic" / "skypilot"


def test_a_flow_set_of_accelerators_is_each_candidate() -> None:
    """`{L4:1, L4:4, A100:1, A100-80GB:1}` is YAML keys "L4:1" with null values: first read
    as GPUs named 'L4:1' and refused (first measurement of the round); each is NAME:COUNT."""
    head = verdict_lines_of(SKY / "gemma3.yaml")[0]
    assert head.startswith("PASS  line 2  gemma3.yaml: starts on every candidate GPU: L4:1, "
                           "L4:4, A100:1, A100-80GB:1 (SkyPilot may launch any of them)")


def test_the_head_node_branch_is_the_engine() -> None:
    """kimi-k2.sky.yaml runs `vllm serve` under `if [ "$SKYPILOT_NODE_RANK" == "0" ]`, the other
    node `sleep infinity`: first refused as an if whose branches are alternatives; SkyPilot sets
    SKYPILOT_NODE_RANK (0 on the head), so the if is decided. TP 8 x PP 2 over 2 x H100:8."""
    lines = verdict_lines_of(SKY / "kimi-k2.sky.yaml")
    assert lines[0] == ("PASS  line 59  kimi-k2.sky.yaml: starts; holds 5 sequences of 32,768 "
                        "tokens per replica (167,424 tokens in the pool); capacity against "
                        "traffic not checked (kimi-k2, vllm 0.10.0)")
    assert ("      note: inside the `if` of line 58, which holds: $SKYPILOT_NODE_RANK == 0 with "
            "SKYPILOT_NODE_RANK=0") in lines


def test_a_test_is_decided_only_over_given_variables() -> None:
    from kvplan.check.manifests.shell_lex import read_script
    from kvplan.check.manifests.shell_test import decide

    words = ["[", "$RANK", "==", "0", "]"]
    assert decide(words, {}, {"RANK": "0"}) is None  # set by the script itself: undecided
    assert decide(words, {"RANK": "0"}, {"RANK": "0"}) == (True, "$RANK == 0 with RANK=0")
    assert decide(["[", "$N", "-gt", "1", "]"], {"N": "2"}, {"N": "2"}) == (True,
                                                                            "$N -gt 1 with N=2")
    assert decide(["[", "-f", "x", "]"], {"N": "2"}, {"N": "2"}) is None
    text = "if [ \"$RANK\" == \"0\" ]; then\n  vllm serve m\nelse\n  sleep infinity\nfi\n"
    assert read_script(text).branched == {1}  # a script alone reads as it always did
    given = read_script(text, {"RANK": "1"})
    assert given.branched == set() and [c.words for c, _, _ in given.commands] == [
        ["sleep", "infinity"]]


def test_candidates_some_of_which_do_not_start_warn_with_each_reason() -> None:
    """qwen3-235b.yaml: SGLang --tp 4 of Qwen3-235B-A22B-FP8 (58.8 GB a GPU) on five candidate
    nodes; the 40 GB A100 cannot hold it, the others can; TP 4 leaves 4 of 8 GPUs idle."""
    assert verdict_lines_of(SKY / "qwen3-235b.yaml") == [
        "WARN  line 20  qwen3-235b.yaml: starts on: A100-80GB:4, A100-80GB:8, H100:8, H200:8; "
        "would not start on: A100:8 (SkyPilot may launch any of them; drop the candidates it "
        "does not start on) (qwen3-235b-a22b-fp8, sglang (default version))",
        "      note: service.replicas: 2 (SkyServe): each replica is one copy of this task; the "
        "verdict is per engine and replicas do not move it",
        "      note: setup installs sglang>=0.4.6: a range, not a release; the sglang profile's "
        "default version is used",
        "      note: started outside a container: the sglang release is the one installed, which "
        "the script does not name; options the newest option table lacks are noted, not refused",
        "      note: not used by kvplan's plan: --port, --reasoning-parser (kvplan reads the "
        "options docs/check.md lists; these are taken as not moving the KV pool)",
        "      note: A100:8, A100-80GB:8, H100:8, H200:8: 4 of 8 GPUs per engine unused",
        "      note: A100:8: does not start: SGLang would not start: not enough memory for the KV "
        "cache (-25.23 GiB); raise --mem-fraction-static or add GPUs",
    ]


def test_setup_pin_is_the_release_and_envs_feed_the_run() -> None:
    """vllm-service.yaml pins vllm==0.3.0 in setup (read as an image tag is: V0's profile);
    nebius-qwen72b's image_id docker:vllm/vllm-openai:v0.11.0 is the release, and its
    NUM_SHARDS=${SKYPILOT_NUM_GPUS_PER_NODE:-1} the 8 of H200:8; envs give --max-model-len."""
    service = verdict_lines_of(SKY / "vllm-service.yaml")
    assert service[0] == (
        "PASS  line 15  vllm-service.yaml: starts on every candidate GPU: L4:1, A10G:1, A10:1, "
        "A100:1, A100-80GB:1 (SkyPilot may launch any of them); no traffic declared (llama-2-7b, "
        "vllm 0.3.0)")
    assert "      note: setup installs vllm==0.3.0: vllm 0.3.0" in service
    nebius = verdict_lines_of(SKY / "nebius-qwen72b-inference-vllm.yaml")
    assert nebius[0] == (
        "PASS  line 77  nebius-qwen72b-inference-vllm.yaml: starts; holds 338 sequences of 8,192 "
        "tokens per replica (2,771,392 tokens in the pool); at most 256 run at once "
        "(engine.max_num_seqs); capacity against traffic not checked (qwen2.5-72b, vllm 0.11.0)")
    assert "      note: SkyPilot's H200 is h200-141gb; $SKYPILOT_NUM_GPUS_PER_NODE = 8" in nebius


def test_a_list_and_any_of_are_candidates() -> None:
    assert verdict_lines_of(SYN / "list-any-of.yaml")[0] == (
        "WARN  line 4  list-any-of.yaml: starts on: A100-80GB:1; would not start on: T4:1 "
        "(SkyPilot may launch any of them; drop the candidates it does not start on) "
        "(qwen2.5-7b, vllm 0.8.5)")


NAMES = ("a10, a100, a100-80gb, a100-80gb-sxm, a10g, a40, a6000, a800, b200, b300, gb200, "
         "h100, h100-mega, h100-nvl, h100-sxm, h200, h200-sxm, l4, l40, l40s, mi300x, rtx3090, "
         "rtx4000-ada, rtx4090, rtx5090, rtx6000-ada, rtxa6000, t4, v100, v100-32gb")


def test_an_unknown_accelerator_is_refused_alone_and_named_beside_others() -> None:
    assert verdict_lines_of(SYN / "unknown-accelerator.yaml") == [
        f"ERROR line 3: resources.accelerators: 'GH200' is not in kvplan's table of SkyPilot GPU "
        f"names ({NAMES}); name one of them, or check this GPU with a kvplan/v1 file"]
    some = verdict_lines_of(SYN / "some-unknown.yaml")
    assert some[0] == (
        "WARN  line 3  some-unknown.yaml: starts on: L4:1; would not start on: GH200:1 (not "
        "checked) (SkyPilot may launch any of them; drop the candidates it does not start on) "
        "(qwen2.5-7b, vllm (default version))")
    assert some[-1].startswith("      note: GH200:1: not checked: 'GH200' is not in kvplan's")


def test_refusals() -> None:
    assert verdict_lines_of(SYN / "two-engines.yaml") == [
        "ERROR line 7: run: `run` starts 2 servers (lines 6, 7): they share the node's GPUs, "
        "which kvplan does not divide; write one server per task (or a kvplan/v1 file per "
        "server) to have each checked"]
    null_env = verdict_lines_of(SYN / "null-env.yaml")
    assert null_env[0] == (
        "ERROR line 9: '$MODEL_NAME': envs.MODEL_NAME is null: it is set at launch (`sky launch "
        "--env MODEL_NAME=...`), which the file does not hold; write its value in `envs:` to "
        "have it checked")
    # an ERROR's notes are said too (task h71sglfix)
    assert null_env[1] == ("      note: started outside a container: the vllm release is the "
                           "one installed, which the script does not name; options the newest "
                           "option table lacks are noted, not refused")
    assert len(null_env) == 3 and null_env[2].startswith("      note: SkyPilot's L4 is l4")
    assert verdict_lines_of(SYN / "fraction.yaml") == [
        "ERROR line 3: resources.accelerators: 'L4:0.5': '0.5' is not a whole number of GPUs (a "
        "fraction shares a GPU with other tasks, which kvplan does not model)"]
    assert verdict_lines_of(SYN / "no-accelerators.yaml") == [
        "ERROR line 2: resources.accelerators: the task names no accelerators: SkyPilot launches "
        "it on a machine without GPUs; name them (resources: accelerators: H100:1) or pass --gpu"]
    # a `run` that starts no engine and names none (a training task) is no deployment: skipped
    # in a folder, an ERROR when named
    assert str(SYN / "no-engine.yaml") in check_paths([str(SYN)]).skipped
    assert verdict_lines_of(SYN / "no-engine.yaml") == [
        "ERROR line 1: no kvplan/v1 deployment and nothing that runs vLLM, SGLang or TensorRT-LLM "
        "in this file"]
    # a `run` that names an engine but starts no server kvplan reads is an ERROR naming it
    # (vllm-serve.yaml was that example until vLLM's demo server was read, task h56dstack)
    assert verdict_lines_of(SYN / "no-server.yaml")[0].startswith(
        "ERROR line 4: run: `run` mentions vLLM, but none of its commands starts a server "
        "kvplan reads (vllm serve, python -m vllm.entrypoints.openai.api_server")
    # vLLM's demo server is read as `vllm serve`: its model was the refusal, until task
    # h91catalog added the spec vicuna-7b-v1.3 (2,048 positions); it plans now
    assert verdict_lines_of(SKY / "vllm-serve.yaml")[0].startswith(
        "PASS  line 25  vllm-serve.yaml: starts; holds 24 sequences of 2,048 tokens per replica")


def test_detection_takes_tasks_only() -> None:
    from kvplan.check.manifests.skypilot import is_task

    assert is_task({"resources": {"accelerators": "L4:1"}, "run": "vllm serve m"})
    assert is_task({"envs": {"A": 1}, "run": "vllm serve m"})
    assert not is_task({"run": "vllm serve m"})  # a bare `run:` is no task
    assert not is_task({"services": {"a": {}}, "resources": {}, "run": "x"})  # compose
    assert not is_task({"kind": "Pod", "resources": {}, "run": "x"})  # Kubernetes
    assert not is_task({"apiVersion": "kvplan/v1", "resources": {}, "run": "x"})
    assert not is_task({"resources": {}, "run": ["vllm", "serve"]})  # run must be a script


def test_blind_round_is_scored_on_its_own() -> None:
    """Round blind-2026-12-06-skypilot (task h55sky): 21 public task YAMLs from
    skypilot-org/skypilot, nebius/nebius-ps-services, nebius/ml-cookbook and vllm-project/vllm,
    verdicts committed (10cbcc8) before kvplan read SkyPilot files; 6 held out. Before the
    reader every file was an ERROR ("not a Kubernetes object, compose file or chart values").
    First measured with the reader: development 8 of 15, held out 3 of 6 (flow sets read as
    GPU names 'L4:1'; kimi-k2's head-node branch refused). After the two fixes (each from a
    development file): development 15 of 15, held out 6 of 6; then reading setup's `pip install
    vllm==X` pin as the release: held out 5 of 6 (gpt-oss-vllm.sky.yaml: vLLM 0.10.1's profile
    books 7.29 GiB of activations for gpt-oss-120b on one H100, which then does not start: WARN
    where the hand said PASS; left as measured, not tuned). Two ERRORs matched for another reason
    than the hand's (vllm-serve, qwen-serve-7b: `python -m vllm.entrypoints.api_server` was not a
    server kvplan reads; the hand said their models are not in the catalog); since task
    h56dstack reads vLLM's demo server (both re-derived by hand first: still ERROR) they match
    for the hand's reason. Task h58launch refuses a count no cloud of SkyPilot's catalog offers
    on one node: llama-3_1.yaml's A10:8 (A10 at most 4) is named 'not checked', so its verdict
    moved PASS -> WARN with that fix, and its expectation was re-derived. Task h91catalog added
    the specs vicuna-7b-v1.3 and qwen1.5-7b-chat: vllm-serve (PASS on an A100-40GB) and the
    held-out qwen-serve-7b (WARN: L4, A10G and A10 cannot hold one 32,768-token sequence of its
    multi-head cache, 512 KiB a token) no longer ERROR; their rows keep the first verdict as
    first_written."""
    import yaml

    expected = yaml.safe_load((ASSETS / "corpus-expected.yaml").read_text())
    blind = {k: e for k, e in expected.items() if e.get("round") == "blind-2026-12-06-skypilot"}
    assert len(blind) == 21 and sum(bool(e.get("held_out")) for e in blind.values()) == 6
    report = check_paths([str(ASSETS / "corpus" / k) for k in sorted(blind)])
    got: dict[str, list[str]] = {}
    for o in report.outcomes:
        got.setdefault(str(Path(o.file).relative_to(ASSETS / "corpus")), []).append(o.verdict)
    misses = {k: got.get(k) for k, e in blind.items() if got.get(k) != e["verdicts"]}
    assert misses == {"skypilot/gpt-oss-vllm.sky.yaml": ["WARN"]}
    assert {k: e["first_written"] for k, e in blind.items() if "first_written" in e} == {
        "skypilot/vllm-serve.yaml": ["ERROR"], "skypilot/qwen-serve-7b.yaml": ["ERROR"]}


def test_a_count_no_cloud_offers_on_one_node_is_refused() -> None:
    """`H100:1000` passed with a note (task h58launch): SkyPilot's catalog offers at most 12 H100s
    on one node (`sky show-gpus -a`, docs/source/compute/show-gpus-all.txt at 1c9d60bd); alone
    it is an ERROR naming the most and its source, beside a candidate that fits it is named
    'not checked' and the verdict is at best WARN."""
    assert verdict_lines_of(SYN / "over-node.yaml") == [
        "ERROR line 4: resources.accelerators: no cloud in SkyPilot's catalog offers 1000 H100 on "
        "one node (the counts offered are 1, 2, 3, 4, 5, 6, 7, 8, 12: `sky show-gpus -a` of "
        "SkyPilot's catalog, skypilot-org/skypilot docs/source/compute/show-gpus-all.txt at "
        "1c9d60bd; per cloud: GCP 1, 2, 4, 8; Hyperbolic 1, 2, 3, 4, 5, 6, 7, 8; Lambda 1, 2, 4, 8; "
        "RunPod 1, 2, 4, 8); accelerators is a count per node: write H100:12 or another count "
        "offered, and num_nodes for more GPUs"]
    some = verdict_lines_of(SYN / "over-node-some.yaml")
    assert some[0] == (
        "WARN  line 4  over-node-some.yaml: starts on: H100:8; would not start on: A100-80GB:16 "
        "(not checked) (SkyPilot may launch any of them; drop the candidates it does not start "
        "on) (qwen2.5-7b, vllm (default version))")
    assert some[-1].startswith("      note: A100-80GB:16: not checked: no cloud in SkyPilot's "
                               "catalog offers 16 A100-80GB on one node (the counts offered are "
                               "1, 2, 4, 8: ")


def test_the_node_ceiling_table_is_sourced() -> None:
    """The ceilings are `sky show-gpus -a`'s largest quantity per GPU (1c9d60bd): A100 16 (GCP
    a2-megagpu-16g), H100 12, A10 and A6000 4, RTX5090 2; every name is one of kvplan's SkyPilot
    names, and the three that listing lacks (B300, GB200, H200-SXM) have no ceiling."""
    from kvplan.check.manifests.skypilot_gpus import (
        SKYPILOT_GPUS,
        SKYPILOT_MAX_PER_NODE,
        Candidate,
        over_node,
    )

    assert set(SKYPILOT_MAX_PER_NODE) <= set(SKYPILOT_GPUS)
    assert set(SKYPILOT_GPUS) - set(SKYPILOT_MAX_PER_NODE) == {"b300", "gb200", "h200-sxm"}
    assert [SKYPILOT_MAX_PER_NODE[k] for k in ("a100", "h100", "a10", "a6000", "rtx5090", "h200")
            ] == [16, 12, 4, 4, 2, 8]
    assert over_node(Candidate("A100", 16, 1)) is None  # a2-megagpu-16g
    assert over_node(Candidate("a100", 17, 1)) is not None  # names compared in lower case
    assert over_node(Candidate("GB200", 1000, 1)) is None  # no ceiling known: not refused


def test_an_options_own_image_id_is_that_candidates_release() -> None:
    """An any_of option's `image_id` replaces the top level's for that option alone (SkyPilot's
    `_override_resources`: the top-level config copied and updated with the option; task
    h58launch: it was not read): H100 runs vLLM 0.6.6.post1, A100-80GB the top level's 0.10.1."""
    lines = verdict_lines_of(SYN / "any-of-image.yaml")
    assert lines[0] == (
        "PASS  line 7  any-of-image.yaml: starts on every candidate GPU: H100:1 "
        "(docker:vllm/vllm-openai:v0.6.6.post1), A100-80GB:1 (SkyPilot may launch any of them); "
        "no traffic declared (qwen2.5-7b, vllm 0.6.6.post1)")
    assert lines[1] == (
        "      note: the release differs by candidate (the first's is named above): H100:1 "
        "(docker:vllm/vllm-openai:v0.6.6.post1): vllm 0.6.6.post1; A100-80GB:1: vllm 0.10.1")


def test_a_count_of_no_gpu_or_no_number_says_so(tmp_path: Path) -> None:
    """`H100:0` was told "'0' is not a whole number of GPUs" (task h58review): zero is whole,
    and asks for no GPU; a count that is no number is named as such."""
    run = "run: |\n  vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096\n"
    for count, why in (("0", "asks for no GPU: state a count of 1 or more"),
                       ("-2", "asks for no GPU: state a count of 1 or more"),
                       ("many", "is not a number of GPUs")):
        f = tmp_path / f"task-{count}.yaml"
        f.write_text(f"resources:\n  accelerators: H100:{count}\n\n{run}")
        assert verdict_lines_of(f) == [f"ERROR line 2: resources.accelerators: 'H100:{count}': "
                             f"'{count}' {why}"], count
