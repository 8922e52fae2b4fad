"""Round 4 of the deployments whose real outcome is public (tests/assets/check/outcomes, files
36-46; task h55outcomes4): the reader defect its tuned part showed, each test on the real file
with the value a correct reader gives worked out by hand, and the round's score when first
measured and after the fix (OUTCOMES.md, "Round 4 score")."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.check.test_check_outcomes import OUTCOMES, POOL, held_out, hits, one, run_round

DSV3 = OUTCOMES / "36-vllm-deepseek-v3-tp8-8xh20-6500-started.sh"


def test_a_model_set_outside_the_script_is_the_one_the_side_file_names(tmp_path: Path) -> None:
    """File 36 (vllm-project/vllm#12890) starts `--model ${model_path}` with `model_path` set
    outside the posted command; its side file names the model (deepseek-ai/DeepSeek-V3, the
    issue's title). kvplan refused it ("the script does not set model_path") though the side
    file replaces the model anyway. It now plans the side file's model, with a note. By hand:
    671e9 fp8 weights / 8 = 78.1 GiB an H20 (95.0 GiB), 0.98 x 95.0 = 93.1 GiB, one 6,500-token
    sequence at 61 x 576 x 2 B = 70,272 B a token (MLA) = 0.43 GiB: it starts. Without the
    side file's `model:` (a GPU only, or no side file) the refusal stands."""
    outcome = one(DSV3)
    assert outcome.verdict == "PASS", outcome.problems
    assert ("the model '${model_path}' is set outside the script (the shell expands it when "
            "the script runs); the side file names the model: deepseek-ai/DeepSeek-V3"
            ) in outcome.notes
    assert outcome.model == "deepseek-v3"
    assert "sequences of 6,500 tokens" in (outcome.summary or "")

    gpu_only = tmp_path / "serve.sh"
    shutil.copy(DSV3, gpu_only)
    (tmp_path / "serve.kvplan.yaml").write_text("gpu: h20\n")
    refused = one(gpu_only)
    assert refused.verdict == "ERROR"
    assert any("the script does not set model_path" in p.message for p in refused.problems)

    bare = tmp_path / "bare" / "serve.sh"
    bare.parent.mkdir()
    shutil.copy(DSV3, bare)
    assert one(bare).verdict == "ERROR"


def test_an_unset_option_kvplan_reads_still_refuses_the_script(tmp_path: Path) -> None:
    """The side file names the model only: `--max-model-len $len` unset still refuses the
    file, so the fix passes over the model word alone."""
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve $model --max-model-len $len\n")
    (tmp_path / "serve.kvplan.yaml").write_text("gpu: h100\nmodel: Qwen/Qwen3-8B\n")
    outcome = one(script)
    assert outcome.verdict == "ERROR"
    assert any("the script does not set len" in p.message for p in outcome.problems)


def test_round_four_as_first_measured_and_after() -> None:
    """Round 4 (files 36-46, committed blind in 91f7f73; held out: 37, 40, 43, 46). First
    measured: 5 of 11 verdicts (tuned 4 of 7: 39, 41, 42, 44; held out 1 of 4: 46); started
    right 5 of 7 (36 and 37 were reader ERRORs), failures right 0 of 4. After the reader fix
    above: 7 of 11 (tuned 5 of 7, held out 2 of 4). The misses, explained in OUTCOMES.md: 38 and
    40 (Qwen3-VL-235B quantized online to fp8 ran out of memory where every term kvplan books
    fits; 40 through vLLM's Transformers fallback), 43 (a bitsandbytes checkpoint the catalog
    lacks), 45 (a release the script does not carry: vLLM 0.6.4's V0 profile of one
    29,000-token batch)."""
    round4, got = run_round(4)
    assert len(round4) == 11
    assert held_out(round4) == ["37", "40", "43", "46"]
    assert {n: o.verdict for n, o in got.items()} == {
        "36": "PASS", "37": "WARN", "38": "PASS", "39": "PASS", "40": "PASS", "41": "PASS",
        "42": "PASS", "43": "ERROR", "44": "PASS", "45": "PASS", "46": "PASS"}
    assert hits(round4, got) == ["36", "37", "39", "41", "42", "44", "46"]
    # 44's logged pool, 1,952 V0 blocks of 16 = 31,232 tokens: kvplan's default (V1) vLLM
    # plans 50,272 (+61%), the release again (below)
    m = POOL.search(got["44"].summary or "")
    assert m is not None and int(m.group(1).replace(",", "")) == 50_272


def test_the_release_the_scripts_cannot_carry_explains_44_and_45(tmp_path: Path) -> None:
    """44-46 ran vLLM's 0.6.4 series (V0), whose profile of a 29,000-token batch left 23,648
    tokens (45 failed) and of a 20,000-token one 31,232 (44). The same servers as a `docker
    run` of vllm/vllm-openai:v0.6.4.post1 (the release pinned; not in the folder): 44 plans
    31,440 tokens (+0.67%, within vLLM's 5%), 45 FAILs with a pool of 23,840 tokens (the log:
    23,648), 46 starts."""
    got = {}
    for n in (20000, 29000, 35000):
        script = tmp_path / f"l{n}.sh"
        script.write_text("docker run --gpus all vllm/vllm-openai:v0.6.4.post1 --model "
                          f"meta-llama/Llama-3.1-8B-Instruct --max-model-len {n}\n")
        (tmp_path / f"l{n}.kvplan.yaml").write_text("gpu: rtx-3090\n")
        got[n] = one(script)
    assert [got[n].verdict for n in (20000, 29000, 35000)] == ["PASS", "FAIL", "PASS"]
    assert "(31,440 tokens in the pool)" in (got[20000].summary or "")
    assert abs(31_440 - 31_232) / 31_232 < 0.05
    numbers = got[29000].numbers
    assert numbers is not None and numbers.longest_context_tokens == 23_840
    assert abs(23_840 - 23_648) / 23_648 < 0.05
