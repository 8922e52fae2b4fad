"""Task h56review: defects found by running the SkyPilot task reader and the production-stack
values reader on odd inputs (tests/assets/check/synthetic/skypilot and tmp files, synthetic inputs
written for each defect)."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.formats import verdict_lines
from tests.check.check_api import verdict_lines_of

SYN = Path(__file__).parents[1] / "assets" / "check" / "synthetic" / "skypilot"


def test_a_docker_run_is_on_the_tasks_accelerators() -> None:
    """`docker run --gpus all vllm/vllm-openai ... --tensor-parallel-size 2` in `run` on H100:1:
    first read as a GPU named nowhere (WARN listing every catalog GPU, 'name one with --gpu');
    the GPU is the candidate's and `all` is the node's 1 GPU, too few for TP 2."""
    lines = verdict_lines_of(SYN / "docker-run.yaml")
    assert lines[:2] == [
        "ERROR line 7: --gpus: tensor 2 needs 2 GPUs but the engine has 1 (--gpus all)",
        "      note: --gpus all: 1 GPU(s)"]  # an ERROR's notes are said too (task h71sglfix)
    assert lines[2].startswith("      note: SkyPilot's H100 is h100-sxm-80gb")


def test_any_of_and_ordered_options_lie_over_the_top_level() -> None:
    """SkyPilot lays each any_of / ordered option over the top-level resources (sky/resources.py
    `_override_resources`, skypilot-org/skypilot, code index id 735762845): an option's own
    accelerators replace the top level's, and an option with none (and no top-level ones) is a
    machine without GPUs. First measured: an `ordered` option `cloud: gcp` was dropped in
    silence (PASS on H100:1 alone), and a top-level A100:8 was checked beside options that
    replace it."""
    lines = verdict_lines_of(SYN / "ordered-no-gpu.yaml")
    assert lines[0] == (
        "WARN  line 5  ordered-no-gpu.yaml: starts on: H100:1; would not start on: "
        "resources.ordered option 2 (no accelerators) (not checked) (SkyPilot may launch any of "
        "them; drop the candidates it does not start on) (qwen2.5-7b, vllm (default version))")
    assert lines[-1] == (
        "      note: resources.ordered option 2 (no accelerators): not checked: SkyPilot may "
        "launch this option on a machine without GPUs, where no engine of this task runs; name "
        "its accelerators")
    lines = verdict_lines_of(SYN / "any-of-overrides.yaml")
    assert lines[0] == (
        "WARN  line 6  any-of-overrides.yaml: starts on: H100:1; would not start on: T4:1 "
        "(SkyPilot may launch any of them; drop the candidates it does not start on) "
        "(qwen2.5-7b, vllm (default version))")
    assert lines[1] == (
        "      note: top-level resources.accelerators A100:8: every resources.any_of option names "
        "its own accelerators, which replace it (SkyPilot lays each option over the top level), "
        "so it is launched by none: not checked")


def test_an_option_that_is_no_mapping_is_refused(tmp_path: Path) -> None:
    """`any_of: [H100:1]` (a name where SkyPilot wants a mapping) was skipped, and the task
    refused as naming no accelerators."""
    f = tmp_path / "t.yaml"
    f.write_text("resources:\n  any_of:\n    - H100:1\nrun: |\n  vllm serve Qwen/Qwen2.5-7B\n")
    assert verdict_lines_of(f) == ["ERROR line 3: resources.any_of: option 1, 'H100:1', is not a mapping "
                         "of resources (accelerators: ..., cloud: ...)"]


def test_the_else_of_a_decided_if_is_said_as_the_else() -> None:
    """The head node's server in the else of `if [ "${SKYPILOT_NODE_RANK}" != "0" ]`: first
    noted as 'inside the `if` of line 8, which holds: ... != 0', a test that fails there."""
    lines = verdict_lines_of(SYN / "else-head.yaml")
    assert lines[0].startswith("PASS  line 11  else-head.yaml: starts; holds 406 sequences")
    assert lines[1] == ("      note: inside the `if` of line 8, in its else branch, as "
                        "${SKYPILOT_NODE_RANK} != 0 with SKYPILOT_NODE_RANK=0 fails")


def test_an_elif_after_a_decided_if_that_holds_does_not_run() -> None:
    """`if rank -eq 0; then vllm serve A; elif rank -eq 1; then vllm serve B; else sleep; fi`:
    first refused as '`run` starts 2 servers (lines 8, 10)', the decided if given up at its
    elif; on the head node the if holds, so neither the elif nor the else runs."""
    lines = verdict_lines_of(SYN / "elif-head.yaml")
    assert lines[0].startswith("PASS  line 8  elif-head.yaml: starts; holds 406 sequences of "
                               "8,192 tokens per replica (3,326,688 tokens in the pool)")
    assert lines[1] == ("      note: inside the `if` of line 7, which holds: $SKYPILOT_NODE_RANK "
                        "-eq 0 with SKYPILOT_NODE_RANK=0")


def test_a_replica_count_below_zero_is_refused() -> None:
    """`service.replicas: -1` was noted as 'service.replicas: -1 (SkyServe): each replica is one
    copy of this task' beside a PASS; SkyPilot's service schema wants a count."""
    assert verdict_lines_of(SYN / "replicas-negative.yaml") == [
        "ERROR line 4: service.replicas: -1 is not a count of replicas (a whole number, 0 or "
        "more)"]


def test_kubernetes_shaped_resources_are_no_task(tmp_path: Path) -> None:
    """A YAML with `run` and a container's `resources: {limits: {nvidia.com/gpu: 1}}` (no kind)
    was read as a SkyPilot task: with --gpu it PASSed, its limits never read; SkyPilot has no
    limits / requests key, so it is no task and is refused as a document kvplan does not read."""
    from kvplan.check.manifests.skypilot import is_task

    assert not is_task({"run": "vllm serve m", "resources": {"limits": {"nvidia.com/gpu": 1}}})
    assert not is_task({"run": "vllm serve m", "resources": {"requests": {"cpu": 1}}})
    assert is_task({"run": "vllm serve m", "resources": {"accelerators": "L4:1"}})
    f = tmp_path / "t.yaml"
    f.write_text("run: vllm serve Qwen/Qwen2.5-7B-Instruct\nresources:\n  limits:\n"
                 "    nvidia.com/gpu: 1\n")
    report = check_paths([str(f)], default_gpu="h100-sxm-80gb")
    assert [o.verdict for o in report.outcomes] == ["ERROR"]
    assert "it is not a Kubernetes object, compose file or chart values kvplan reads" in (
        report.outcomes[0].problems[0].message)


def test_production_stack_quoted_false_is_said(tmp_path: Path) -> None:
    """production-stack values with `enablePrefixCaching: "false"` and `enabled: "false"`: the
    chart's Go template reads a non-empty string as true, so it renders --enable-prefix-caching
    and the model, as kvplan did, without a word (task h56review); now each is noted."""
    f = tmp_path / "values.yaml"
    f.write_text(
        "servingEngineSpec:\n  modelSpec:\n  - name: llama\n    repository: vllm/vllm-openai\n"
        "    tag: v0.10.1\n    modelURL: meta-llama/Llama-3.1-8B-Instruct\n    requestGPU: 1\n"
        "    enabled: \"false\"\n    vllmConfig:\n      enablePrefixCaching: \"false\"\n"
        "      maxModelLen: 8192\n")
    lines = [line for o in check_paths([str(f)], default_gpu="l40s").outcomes
             for line in verdict_lines(o, path=False)]
    assert lines[0].startswith("PASS  line 3  llama: starts")
    assert ("      note: vllmConfig.enablePrefixCaching: 'false' is a string, which the chart's "
            "template reads as true (any non-empty string is): it renders the option on, and so "
            "kvplan checks it; write false, unquoted, to turn it off") in lines
    assert ("      note: enabled: 'false' is a string, not false: the chart's `ne "
            "$modelSpec.enabled false` renders the model, and so kvplan checks it; write false, "
            "unquoted, to leave it out") in lines


def test_the_setup_pin_packages_come_from_the_engine_layer() -> None:
    """skypilot.py matched `(vllm|sglang)==X` with the engine names written in its own regex
    (engine-name logic outside the engine layer); the packages are now EngineTraits.pip_package."""
    import inspect

    from kvplan.check.manifests import skypilot
    from kvplan.engine_traits import pip_packages

    assert pip_packages() == {"vllm": "vllm", "sglang": "sglang", "tensorrt_llm": "trtllm"}
    assert "vllm|sglang" not in inspect.getsource(skypilot)
    assert skypilot._releases({"setup": "pip install 'sglang[all]==0.4.6'"}, {})[0] == {
        "sglang": ("0.4.6", "setup installs sglang[all]==0.4.6: sglang 0.4.6")}
