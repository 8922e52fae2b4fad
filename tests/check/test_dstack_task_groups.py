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
