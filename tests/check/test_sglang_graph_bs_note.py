"""SGLang's older `--cuda-graph-bs B1 B2 ...`: the graph batch kvplan plans with is max(list),
and the check output says so (task h44checkgaps; until then it was applied without a word, and
a `--cuda-graph-max-bs` written after the list replaced it, which SGLang does not do)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.check.discover import read_targets
from tests.check.test_check_multi_value import NARGS, rows, sglang_pod


def test_specforge_list_is_said_in_a_note(runner: CliRunner) -> None:
    """sgl-project/SpecForge docs/basic_usage/data_preparation.md (2cece767, the asset's header):
    `--cuda-graph-bs 1 2 4 8 16 32 64 128`, 8 sizes, the largest 128 (sglang 0.5.5
    server_args.py:775-778: cuda_graph_max_bs = max(cuda_graph_bs))."""
    [row] = rows(runner, str(NARGS / "specforge-data-preparation.sh"))
    assert ("--cuda-graph-bs 1 2 4 8 16 32 64 128: SGLang captures decode graphs at 8 batch "
            "size(s) and sets cuda_graph_max_bs to the largest, 128 (sglang 0.5.5 server_args.py:"
            "775-778); kvplan plans the graph reserve with that max batch") in row["notes"]


def test_the_list_wins_over_a_stated_max_in_either_order(tmp_path: Path) -> None:
    """SGLang 0.5.5 __post_init__ sets cuda_graph_max_bs = max(cuda_graph_bs) whenever the list
    is given (:775-778), after --cuda-graph-max-bs is parsed: max(8, 16) = 16 whichever option
    comes first; the note names the 256 it replaces."""
    for args in (("--cuda-graph-bs", "8", "16", "--cuda-graph-max-bs", "256"),
                 ("--cuda-graph-max-bs", "256", "--cuda-graph-bs", "8", "16")):
        [target] = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.5.5", *args), {})
        assert target.deployment is not None, target.problems
        assert target.deployment.engine.cuda_graph_max_bs == 16, args
        assert any("it replaces --cuda-graph-max-bs 256" in n for n in target.notes), args
