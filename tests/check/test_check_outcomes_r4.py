"""Round 4 of the deployments whose real outcome is public (tests/assets/check/outcomes, files
36-46; task h55outcomes4): the reader defect its tuned part showed, each test on the real file
with the value a correct reader gives worked out by hand, and the round's score when first
measured and after the fix (OUTCOMES.md, "Round 4 score")."""

from __future__ import annotations

import shutil
from pathlib import Path

from kvplan.check import check_paths
from tests.check.test_check_outcomes import OUTCOMES

DSV3 = OUTCOMES / "36-vllm-deepseek-v3-tp8-8xh20-6500-started.sh"


def _one(path: Path) -> object:
    [outcome] = check_paths([str(path)]).outcomes
    return outcome


def test_a_model_set_outside_the_script_is_the_one_the_side_file_names(tmp_path: Path) -> None:
    """File 36 (vllm-project/vllm#12890) starts `--model ${model_path}` with `model_path` set
    outside the posted command; its side file names the model (deepseek-ai/DeepSeek-V3, the
    issue's title). kvplan refused it ("the script does not set model_path") though the side
    file replaces the model anyway. It now plans the side file's model, with a note. By hand:
    671e9 fp8 weights / 8 = 78.1 GiB an H20 (95.0 GiB), 0.98 x 95.0 = 93.1 GiB, one 6,500-token
    sequence at 61 x 576 x 2 B = 70,272 B a token (MLA) = 0.43 GiB: it starts. Without the
    side file's `model:` (a GPU only, or no side file) the refusal stands."""
    outcome = _one(DSV3)
    assert outcome.verdict == "PASS", outcome.problems
    assert ("the model '${model_path}' is set outside the script (the shell expands it when "
            "the script runs); the side file names the model: deepseek-ai/DeepSeek-V3"
            ) in outcome.notes
    assert outcome.model == "deepseek-v3"
    assert "sequences of 6,500 tokens" in (outcome.summary or "")

    gpu_only = tmp_path / "serve.sh"
    shutil.copy(DSV3, gpu_only)
    (tmp_path / "serve.kvplan.yaml").write_text("gpu: h20\n")
    refused = _one(gpu_only)
    assert refused.verdict == "ERROR"
    assert any("the script does not set model_path" in p.message for p in refused.problems)

    bare = tmp_path / "bare" / "serve.sh"
    bare.parent.mkdir()
    shutil.copy(DSV3, bare)
    assert _one(bare).verdict == "ERROR"


def test_an_unset_option_kvplan_reads_still_refuses_the_script(tmp_path: Path) -> None:
    """The side file names the model only: `--max-model-len $len` unset still refuses the
    file, so the fix passes over the model word alone."""
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve $model --max-model-len $len\n")
    (tmp_path / "serve.kvplan.yaml").write_text("gpu: h100\nmodel: Qwen/Qwen3-8B\n")
    outcome = _one(script)
    assert outcome.verdict == "ERROR"
    assert any("the script does not set len" in p.message for p in outcome.problems)
