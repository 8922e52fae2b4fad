"""dstack run configurations (kvplan.check.manifests.dstack): the real configurations of the
blind round blind-2026-12-06-dstack (tests/assets/check/corpus/dstack, sources in its
SOURCES.md), whole verdicts asserted, and the refusals the reader owes (synthetic files in
tests/assets/check/synthetic/dstack)."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from tests.check.check_api import verdict_lines_of

ASSETS = Path(__file__).parents[1] / "assets" / "check"
DSTACK = ASSETS / "corpus" / "dstack"
SYN = ASSETS / "synthetic" / "dstack"
NOT_CONTAINED = ("      note: started outside a container: the vllm release is the one "
                 "installed, which the script does not name; options the newest option table "
                 "lacks are noted, not refused")


def test_a_memory_size_is_every_catalog_gpu_of_that_memory() -> None:
    """`gpu: 24GB` is a range of one value (dstack's Range._parse): the GPUs gpuhunt knows with
    24 GB, each judged; A5000 and RTX6000 are not in the catalog and are named, not judged.
    `commands` is read with `env` (MODEL_ID, MAX_MODEL_LEN) and $DSTACK_GPUS_NUM = 1."""
    assert verdict_lines_of(DSTACK / "deployment-vllm.dstack.yml") == [
        "PASS  line 26  deployment-vllm.dstack.yml: starts on every candidate GPU: A10:1, A10G:1, "
        "L4:1, RTX3090:1, RTX4090:1 (dstack may launch any of them); no traffic declared "
        "(llama-3.1-8b, vllm (default version))",
        "      note: resources.gpu 24GB: 5 candidate GPUs in kvplan's catalog (A10:1, A10G:1, "
        "L4:1, RTX3090:1, RTX4090:1); dstack may also provision A5000 (24 GB), RTX6000 (24 GB), "
        "not in kvplan's catalog: not checked",
        NOT_CONTAINED,
        "      note: model meta-llama/Meta-Llama-3.1-8B-Instruct → llama-3.1-8b (alias)",
    ]


def test_memory_and_count_name_both_80_gb_parts() -> None:
    """`80GB:2`: A100's 80 GB part and H100, two of each; TP $DSTACK_GPUS_NUM = 2."""
    assert verdict_lines_of(DSTACK / "mixtral-vllm.dstack.yml")[:2] == [
        "PASS  line 16  mixtral-vllm.dstack.yml: starts on every candidate GPU: A100 80GB:2, "
        "H100:2 (dstack may launch any of them); no traffic declared (mixtral-8x7b, vllm "
        "(default version))",
        "      note: resources.gpu 80GB:2: 2 candidate GPUs in kvplan's catalog (A100 80GB:2, "
        "H100:2)",
    ]


def test_count_before_name_and_trtllm_serve() -> None:
    """`8:H200` (tokens in any order): eight H200s, TP 8 from $DSTACK_GPUS_NUM."""
    assert verdict_lines_of(DSTACK / "trtllm-serve-r1.dstack.yml") == [
        "PASS  line 17  trtllm-serve-r1.dstack.yml: starts; holds 45 sequences of 16,384 tokens "
        "per replica (753,472 tokens in the pool); capacity against traffic not checked "
        "(deepseek-r1, trtllm (default version))",
        "      note: image tag '9b931c0f6305aefa3660e6fb84a76a42c0eef167' names no version: the "
        "trtllm profile's default version is used",
        "      note: resources.gpu H200:8: 8 GPU(s)",
        "      note: dstack's H200 (141 GB) is h200-141gb; $DSTACK_GPUS_NUM = 8",
    ]


def test_candidates_some_of_which_do_not_start_warn_with_each_reason() -> None:
    """SGLang's 0.5.20-on tier reserve (6.7 GiB on a 24 GB card) leaves no KV pool for an 8B
    bf16 model on A10, A10G and L4; the two 24 GiB cards start (the hand said PASS)."""
    lines = verdict_lines_of(DSTACK / "deepseek-sglang-nvidia.dstack.yml")
    assert lines[0] == (
        "WARN  line 18  deepseek-sglang-nvidia.dstack.yml: starts on: RTX3090:1, RTX4090:1; "
        "would not start on: A10:1, A10G:1, L4:1 (dstack may launch any of them; drop the "
        "candidates it does not start on) (llama-3.1-8b, sglang (default version))")
    assert ("      note: L4:1: does not start: SGLang would not start: not enough memory for the "
            "KV cache (-0.27 GiB); raise --mem-fraction-static or add GPUs") in lines


def test_the_image_tag_is_the_release() -> None:
    head = verdict_lines_of(DSTACK / "deepseek-v2-lite-vllm-amd.dstack.yml")[:2]
    assert head[0].endswith("(deepseek-v2-lite, vllm 0.6.4)")
    assert head[1].startswith("      note: image tag 'rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4'"
                              ": vllm release 0.6.4")


def test_an_env_entry_without_a_value_is_set_at_launch() -> None:
    assert verdict_lines_of(SYN / "launch-env.dstack.yml")[0] == (
        "ERROR line 6: '$MAX_MODEL_LEN': env MAX_MODEL_LEN has no value: it is set at launch "
        "(from the shell or `dstack apply -e`), which the file does not hold; write its value "
        "in `env:` (- NAME=VALUE) to have it checked")


def test_gpu_refusals() -> None:
    assert verdict_lines_of(SYN / "unknown-gpu.dstack.yml")[0].startswith(
        "ERROR line 6: resources.gpu: 'X9000:1': X9000: not a GPU dstack knows (gpuhunt's "
        "names: A10, A100, A10G,")
    assert verdict_lines_of(SYN / "no-gpu.dstack.yml") == [
        "ERROR line 1: resources.gpu: the configuration names no GPU: dstack runs it on a "
        "machine without GPUs; name them (resources: gpu: H100:1) or pass --gpu"]
    assert verdict_lines_of(SYN / "tpu.dstack.yml") == [
        "ERROR line 6: resources.gpu: 'tpu:v5litepod-4': tpu accelerators are not GPUs kvplan's "
        "catalog holds (it models NVIDIA and AMD GPUs)"]
    # top-level commands beside replica groups: dstack's own refusal (task h58launch: the
    # groups were refused as not read; dstack 0.22.5 validate_top_level_properties_with_groups)
    assert verdict_lines_of(SYN / "replica-groups.dstack.yml") == [
        "ERROR line 2: commands: top-level `commands` is not allowed when `replicas` is a list "
        "of replica groups (dstack refuses it); write `commands` in each group"]
    assert verdict_lines_of(SYN / "two-servers.dstack.yml") == [
        "ERROR line 4: commands: `commands` start 2 servers (lines 3, 4): they share the "
        "machine's GPUs, which kvplan does not divide; write one server per configuration (or a "
        "kvplan/v1 file per server) to have each checked"]


def test_a_named_gpu_the_catalog_lacks_is_a_candidate_not_checked() -> None:
    """{name: [A5000, A10G], count: 1..2}: A10G judged, A5000 (gpuhunt knows it, the catalog
    does not) named as not checked -> WARN; the count range is read at its least; replicas
    noted; env as a mapping feeds the commands."""
    assert verdict_lines_of(SYN / "named-absent.dstack.yml") == [
        "WARN  line 9  named-absent.dstack.yml: starts on: A10G:1; would not start on: A5000 "
        "(24 GB) (not checked) (dstack may launch any of them; drop the candidates it does not "
        "start on) (llama-3.1-8b, vllm (default version))",
        "      note: count 1..2 is a range: dstack may provision more; read at its least, 1",
        "      note: replicas: 2: each replica is one copy of this service; the verdict is per "
        "engine and replicas do not move it",
        NOT_CONTAINED,
        "      note: A5000 (24 GB): not checked: A5000 (24 GB) is not in kvplan's GPU catalog; "
        "check this GPU with a kvplan/v1 file",
    ]


def test_nodes_multiply_the_gpus() -> None:
    """nodes: 2 x A100:40GB:4: TP $DSTACK_GPUS_PER_NODE = 4 x PP $DSTACK_NODES_NUM = 2."""
    lines = verdict_lines_of(SYN / "nodes.dstack.yml")
    assert lines[0].startswith("PASS  line 4  nodes.dstack.yml: starts; holds 58 sequences of "
                               "8,192 tokens per replica")
    assert lines[-1] == ("      note: dstack's A100 (40 GB) is a100-40gb; $DSTACK_GPUS_NUM = 8 "
                         "(4 a node on each of nodes 2)")


def test_gpu_spec_grammar() -> None:
    from kvplan.check.manifests.dstack_gpus import read_spec

    def labels(value: object) -> list[str]:
        return [c.label for c in read_spec(value).choices]

    assert labels("A100") == ["A100 40GB:1", "A100 80GB:1"]  # both memories of the name
    assert labels("A100:40GB") == ["A100 40GB:1"]
    assert labels("40GB..48GB") == ["A40:1", "A100 40GB:1", "A6000:1", "L40:1", "L40S:1",
                                    "RTX6000Ada:1"]
    assert labels({"name": ["A100", "H100"], "memory": "80GB", "count": 2}) == [
        "A100 80GB:2", "H100:2"]
    assert labels("amd:192GB") == ["MI300X:1"]
    assert labels("150GB..") == ["B200:1", "MI300X:1", "MI325X:1"]
    assert read_spec("H100:0").problem == "count '0' is not a count of GPUs (2, 1..2)"
    assert read_spec("H100:lots").problem is not None  # 'lots' is read as a second name
    assert read_spec({"name": "H100", "total_memory": "160GB"}).problem == (
        "total_memory: kvplan reads a GPU by vendor, name, memory and count only; write the "
        "GPUs by those to have them checked")


def test_vllm_demo_server_is_read_as_vllm_serve() -> None:
    """`python -m vllm.entrypoints.api_server` (vLLM's demo server: the same engine from the
    same AsyncEngineArgs) is read as `vllm serve`, with a note saying what differs."""
    lines = verdict_lines_of(SYN / "demo-server.dstack.yml")
    assert lines[0] == (
        "PASS  line 3  demo-server.dstack.yml: starts; holds 9 sequences of 4,096 tokens per "
        "replica (36,864 tokens in the pool); capacity against traffic not checked "
        "(llama-3.1-8b, vllm (default version))")
    assert lines[2] == (
        "      note: python -m vllm.entrypoints.api_server is vLLM's demo server (not for "
        "production, says its source): it builds the same engine from the same engine "
        "arguments, read as `vllm serve`; on V1 releases an unstated --max-num-batched-tokens / "
        "--max-num-seqs takes the scheduler's own defaults (2,048 / 128), at most serve's, so "
        "the pool kvplan books with serve's is at most the engine's; options are checked "
        "against the OpenAI server's table, which also holds options the demo server does not "
        "take (--api-key, --chat-template, ...)")


def test_detection_takes_run_configurations_only() -> None:
    from kvplan.check.manifests.dstack import is_config

    assert is_config({"type": "service", "commands": ["vllm serve m"]})
    assert is_config({"type": "task", "commands": ["vllm serve m"], "nodes": 2})
    assert not is_config({"type": "service", "image": "vllm/vllm-openai"})  # no commands
    assert not is_config({"type": "fleet", "commands": ["x"]})
    assert not is_config({"type": "service", "commands": "vllm serve m"})  # not a list
    assert not is_config({"kind": "Pod", "type": "service", "commands": ["x"]})  # Kubernetes
    assert not is_config({"services": {}, "type": "service", "commands": ["x"]})  # compose
    assert not is_config({"run": "x", "type": "task", "commands": ["x"]})  # SkyPilot
    assert not is_config({"apiVersion": "kvplan/v1", "type": "service", "commands": ["x"]})


def test_blind_round_is_scored_on_its_own() -> None:
    """Round blind-2026-12-06-dstack (task h56dstack): 15 public configurations from
    dstackai/dstack's examples, verdicts committed (285b999) before kvplan read dstack files; 4
    held out. First measured with the reader (cd81810): development 10 of 11, held out 4 of 4.
    The miss, deepseek-sglang-nvidia (hand PASS, kvplan WARN), is the hand's: it guessed SGLang's
    static fraction on a 24 GB card at 0.8-0.85, where the profile's sourced 0.5.20-on tier
    reserves 6.7 GiB and leaves an 8B bf16 model no pool on A10, A10G and L4; left as
    measured. No reader defect was found on the development files."""
    import yaml

    expected = yaml.safe_load((ASSETS / "corpus-expected.yaml").read_text())
    blind = {k: e for k, e in expected.items() if e.get("round") == "blind-2026-12-06-dstack"}
    assert len(blind) == 15 and sum(bool(e.get("held_out")) for e in blind.values()) == 4
    report = check_paths([str(ASSETS / "corpus" / k) for k in sorted(blind)])
    got: dict[str, list[str]] = {}
    for o in report.outcomes:
        got.setdefault(str(Path(o.file).relative_to(ASSETS / "corpus")), []).append(o.verdict)
    misses = {k: got.get(k) for k, e in blind.items() if got.get(k) != e["verdicts"]}
    assert misses == {"dstack/deepseek-sglang-nvidia.dstack.yml": ["WARN"]}


def test_a_docker_run_in_the_commands_is_on_the_runs_gpu() -> None:
    """`docker run --gpus all vllm/vllm-openai:v0.10.1 ... --tensor-parallel-size 2` in
    `commands` (task h56review saw it, in SkyPilot's `run` first): the site was left on no GPU
    (a WARN listing every catalog GPU, 'name one with --gpu'); the GPU is the run's and `all`
    is the node's count: 1 H100 is too few for TP 2, 2 start."""
    assert verdict_lines_of(SYN / "docker-run.dstack.yml") == [
        "ERROR line 7: --gpus: tensor 2 needs 2 GPUs but the engine has 1 (--gpus all)",
        # an ERROR's notes are said too (task h71sglfix)
        "      note: --gpus all: 1 GPU(s)",
        "      note: dstack's H100 (80 GB) is h100-sxm-80gb; $DSTACK_GPUS_NUM = 1"]
    two = verdict_lines_of(SYN / "docker-run-2.dstack.yml")
    assert two[0].startswith("PASS  line 7  docker-run-2.dstack.yml: starts; holds ")
    assert two[0].endswith("(qwen2.5-7b, vllm 0.10.1)")
    assert "      note: --gpus all: 2 GPU(s)" in two


GROUP_BIG = ("PASS  line 31  replica group big: starts; holds 53 sequences of 8,192 tokens per "
             "replica (441,408 tokens in the pool); capacity against traffic not checked "
             "(llama-3.1-70b, vllm 0.9.2)")


def test_each_replica_group_is_its_own_deployment() -> None:
    """`groups:` (dstack 0.22.5's ReplicaGroup): the router group starts no engine and is noted;
    `small` (Llama-3.1-70B on one L4, its own `pip install vllm==0.10.1`: 131.45 GiB of weights
    on a 22 GiB card) FAILs; `big` (H100:4, its own image v0.9.2) PASSes; the service's env
    feeds both, the top-level `resources` (A100) is used by neither; each verdict names its
    group and release (task h58launch)."""
    lines = verdict_lines_of(SYN / "groups.dstack.yml")
    assert lines[0] == ("FAIL  line 24  replica group small: does not start on 1 replica(s) x 1 "
                        "l4; no traffic declared (llama-3.1-70b, vllm 0.10.1)")
    assert GROUP_BIG in lines
    assert "      note: groups[1].commands (line 23) installs vllm==0.10.1: vllm 0.10.1" in lines
    assert ("      note: replica group small: count 1..2: each replica is one copy of this "
            "group; the verdict is per engine and replicas do not move it") in lines
    assert ("      note: replica group big: count 2: each replica is one copy of this group; "
            "the verdict is per engine and replicas do not move it") in lines
    assert lines.count("      note: replica group router starts no engine kvplan reads and "
                       "names none (a router or a helper): not judged") == 2
    assert lines.count("      note: top-level resources: not used by replica groups (dstack "
                       "provisions each group with its own `resources`)") == 2
    assert not any("a100" in line.lower() for line in lines)


def test_a_group_named_by_position_judges_each_candidate() -> None:
    """The legacy `replicas:` list, a group without a name: dstack names it '0'; its `80GB`
    matches A100 80 GB and H100, each judged."""
    lines = verdict_lines_of(SYN / "groups-candidates.dstack.yml")
    assert lines[:2] == [
        "PASS  line 11  replica group 0: starts on every candidate GPU: A100 80GB:1, H100:1 "
        "(dstack may launch any of them); no traffic declared (llama-3.1-8b, vllm (default "
        "version))",
        "      note: replicas[0].resources.gpu 80GB: 2 candidate GPUs in kvplan's catalog (A100 "
        "80GB:1, H100:1)"]


def test_replica_group_refusals() -> None:
    """dstack's own refusals (ServiceConfiguration / ReplicaGroup validators, 0.22.5) and a group
    kvplan cannot read (its image's own entry point)."""
    assert verdict_lines_of(SYN / "groups-both.dstack.yml") == [
        "ERROR line 2: replicas: `replicas` and `groups` are mutually exclusive (dstack refuses "
        "both); keep the groups"]
    assert verdict_lines_of(SYN / "groups-duplicate.dstack.yml") == [
        "ERROR line 8: groups[1].name: 'decode' names two replica groups (dstack refuses "
        "duplicate group names)"]
    assert verdict_lines_of(SYN / "groups-image-only.dstack.yml") == [
        "ERROR line 3: groups[0].commands: replica group serve runs its image's own entry "
        "point, which the file does not hold; write its server in the group's `commands` to "
        "have it checked"]
    assert verdict_lines_of(SYN / "groups-two-images.dstack.yml") == [
        "ERROR line 5: groups[0].image: `image` is set at both the service level and in this "
        "replica group (dstack refuses it); set it in one place"]


def test_detection_takes_a_service_of_replica_groups() -> None:
    from kvplan.check.manifests.dstack import is_config

    group = {"commands": ["vllm serve m"], "resources": {"gpu": "H100"}}
    assert is_config({"type": "service", "groups": [group], "port": 8000})
    assert is_config({"type": "service", "replicas": [group], "port": 8000})
    # a task has no groups: taken as dstack's, to be refused on its key (test_dstack_task_groups)
    assert is_config({"type": "task", "replicas": [group]})
    assert is_config({"type": "task", "groups": [group]})
    assert not is_config({"type": "service", "replicas": 2})  # no commands, no groups


def test_a_pip_pin_in_commands_is_the_release() -> None:
    """`uv pip install --system "vllm==0.10.1"` in `commands` is the release, read by the same
    code as SkyPilot's `setup` (launcher_sites.pip_pins), the note naming the line; a range
    (`sglang[all]>=0.4.6`) is noted (task h58launch)."""
    lines = verdict_lines_of(SYN / "pip-pin.dstack.yml")
    assert lines[0].endswith("(llama-3.1-8b, vllm 0.10.1)")
    assert lines[1:3] == [
        "      note: commands (line 6) installs sglang[all]>=0.4.6: a range, not a release; the "
        "sglang profile's default version is used",
        "      note: commands (line 5) installs vllm==0.10.1: vllm 0.10.1"]


def test_the_replica_groups_round_is_scored_on_its_own() -> None:
    """Round blind-2026-12-07-dstack-groups (task h58launch): the two public services with
    replica groups in dstackai/dstack (docs pages at 511c318c), verdicts committed (f95af8a)
    before kvplan read groups; vllm-pd-groups held out. First measured with the reader:
    development 1 of 1 (amd-pd-groups PASS, PASS), held out 1 of 1 (vllm-pd-groups ERROR,
    ERROR: `python3 -m vllm.entrypoints.grpc_server` is no server kvplan reads)."""
    import yaml

    expected = yaml.safe_load((ASSETS / "corpus-expected.yaml").read_text())
    blind = {k: e for k, e in expected.items()
             if e.get("round") == "blind-2026-12-07-dstack-groups"}
    assert len(blind) == 2 and sum(bool(e.get("held_out")) for e in blind.values()) == 1
    report = check_paths([str(ASSETS / "corpus" / k) for k in sorted(blind)])
    got: dict[str, list[str]] = {}
    for o in report.outcomes:
        got.setdefault(str(Path(o.file).relative_to(ASSETS / "corpus")), []).append(o.verdict)
    assert got == {k: e["verdicts"] for k, e in blind.items()}
    assert [o.name for o in report.outcomes] == ["replica group 1", "replica group 2",
                                                 "replica group 1", "replica group 2"]
