"""SkyPilot task YAML (kvplan.check.manifests.skypilot): the real tasks of the blind round
blind-2026-12-06-skypilot (tests/assets/check/corpus/skypilot, sources in its SOURCES.md), whole
verdicts asserted, and the refusals the reader owes (synthetic files beside them)."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.formats import verdict_lines

ASSETS = Path(__file__).parents[1] / "assets" / "check"
SKY = ASSETS / "corpus" / "skypilot"
SYN = ASSETS / "synthetic" / "skypilot"


def _lines(path: Path) -> list[str]:
    report = check_paths([str(path)])
    return [line for o in report.outcomes for line in verdict_lines(o, path=False)]


def test_a_flow_set_of_accelerators_is_each_candidate() -> None:
    """`{L4:1, L4:4, A100:1, A100-80GB:1}` is YAML keys "L4:1" with null values: first read
    as GPUs named 'L4:1' and refused (first measurement of the round); each is NAME:COUNT."""
    head = _lines(SKY / "gemma3.yaml")[0]
    assert head.startswith("PASS  line 2  gemma3.yaml: starts on every candidate GPU: L4:1, "
                           "L4:4, A100:1, A100-80GB:1 (SkyPilot may launch any of them)")


def test_the_head_node_branch_is_the_engine() -> None:
    """kimi-k2.sky.yaml runs `vllm serve` under `if [ "$SKYPILOT_NODE_RANK" == "0" ]`, the other
    node `sleep infinity`: first refused as an if whose branches are alternatives; SkyPilot sets
    SKYPILOT_NODE_RANK (0 on the head), so the if is decided. TP 8 x PP 2 over 2 x H100:8."""
    lines = _lines(SKY / "kimi-k2.sky.yaml")
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
