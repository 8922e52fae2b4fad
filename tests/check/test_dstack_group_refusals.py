"""dstack replica groups' refusals that had no test (task h58review found the branches
unexercised): an empty list, a group that is no mapping, `commands` that is no list, and a
service none of whose groups starts an engine (no deployment: the file runs none)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.check import check_paths


@pytest.mark.parametrize(("groups", "line", "field", "message"), [
    ("groups: []\n", 3, "groups", "an empty list of replica groups (dstack refuses it: `groups` "
     "cannot be an empty list)"),
    ("replicas:\n  - H100\n", 4, "replicas[0]", "'H100' is not a replica group (a mapping of "
     "count, commands, resources, ...)"),
    ("groups:\n  - commands: vllm serve Qwen/Qwen3-8B\n", 4, "groups[0].commands",
     "replica group 0 `commands` 'vllm serve Qwen/Qwen3-8B' is not a list of shell commands"),
])
def test_a_group_list_kvplan_or_dstack_refuses(tmp_path: Path, groups: str, line: int,
                                               field: str, message: str) -> None:
    path = tmp_path / "s.dstack.yml"
    path.write_text("type: service\nport: 8000\n" + groups)
    [o] = check_paths([str(path)]).outcomes
    assert (o.verdict, o.line) == ("ERROR", line)
    assert [(p.field, p.message) for p in o.problems] == [(field, message)]


def test_groups_none_of_which_starts_an_engine_are_no_deployment(tmp_path: Path) -> None:
    path = tmp_path / "s.dstack.yml"
    path.write_text("type: service\nport: 8000\ngroups:\n  - commands: [echo hi]\n"
                    "  - commands: [python router.py]\n")
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "ERROR"
    assert [p.message for p in o.problems] == [
        "no kvplan/v1 deployment and nothing that runs vLLM, SGLang or TensorRT-LLM in this file"]
