"""A dstack task has no replica groups (task h58review): a task's `groups` list beside its
`commands` was not read and not refused (the top-level commands were judged: PASS), and a
task's `groups` or `replicas` list without `commands` was not taken as a dstack configuration
("not a Kubernetes object ... kvplan reads"). Now each is refused on its key, as a task's
`replicas` list beside `commands` already was."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.check import check_paths

GROUP = "  - commands: [vllm serve Qwen/Qwen3-8B]\n    resources: {gpu: L4:1}\n"
TOP = "commands: [vllm serve Qwen/Qwen3-8B]\nresources: {gpu: H100:1}\n"


@pytest.mark.parametrize(("key", "top", "line"), [
    ("groups", TOP, 4), ("groups", "", 2), ("replicas", TOP, 4), ("replicas", "", 2)])
def test_a_tasks_list_of_replica_groups_is_refused_on_its_key(
        tmp_path: Path, key: str, top: str, line: int) -> None:
    path = tmp_path / "t.dstack.yml"
    path.write_text(f"type: task\n{top}{key}:\n{GROUP}")
    [o] = check_paths([str(path)]).outcomes
    assert (o.verdict, o.line) == ("ERROR", line)
    assert [(p.field, p.message) for p in o.problems] == [(key, (
        "a list of replica groups is a service's (dstack's ServiceConfiguration); a task has "
        "none: write `type: service`, or one task per group"))]


def test_a_key_a_replica_group_does_not_take_is_refused_as_dstack_refuses_it(
    tmp_path: Path,
) -> None:
    """A group's `env` was neither read nor noted (seen by task h58review): the group ran with
    the service's env and passed. dstack's ReplicaGroup has no `env` and its models forbid
    unknown keys (CoreModel extra="forbid", dstackai/dstack 511c318c), so `dstack apply`
    refuses the file; kvplan says so on the key's line."""
    f = tmp_path / "svc.dstack.yml"
    f.write_text(
        "type: service\nname: llama\nport: 8000\nenv:\n  - HF_TOKEN\ngroups:\n  - name: main\n"
        "    count: 1\n    env:\n      - FOO=bar\n    commands:\n"
        "      - vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"
        "    resources:\n      gpu: H100:1\n")
    [o] = check_paths([str(f)]).outcomes
    assert o.verdict == "ERROR"
    assert [(p.line, p.text()) for p in o.problems] == [(9, (
        "groups[0].env: replica group main: 'env' is not a key of a dstack replica group "
        "(dstack refuses unknown keys; a group takes commands, count, docker, image, name, nvcc, "
        "privileged, python, replicas, reservation, resources, router, scaling, spot_policy); "
        "set it at the service level (the service's env applies to every group)"))]
