"""Round 5 of the deployments whose real outcome is public (tests/assets/check/outcomes, files
47-55; task h56outcomes5): the round's score when first measured (no reader defect showed on its
tuned part, so first measured is also now) and, for the two misses that are the release a script
cannot carry, the same servers with the release pinned in a `docker run` (OUTCOMES.md, "Round 5
score")."""

from __future__ import annotations

from pathlib import Path

from tests.check.test_check_outcomes import held_out, hits, one, run_round


def test_round_five_as_first_measured() -> None:
    """Round 5 (files 47-55, committed blind in a5965ae; held out: 49, 52, 55). First measured:
    5 of 9 verdicts (tuned 5 of 6: 47, 48, 50, 51, 53; held out 0 of 3); started right 4 of 5
    (54 FAILs), failures right 1 of 4 (50, refused for an option the newest SGLang lacks, not
    for the run's out-of-memory: the image tag `latest`). The misses, explained in OUTCOMES.md:
    49 (Qwen3-Next-80B at TP 2 on H20s: SGLang's "Not enough memory" where kvplan's pool holds
    450,228 tokens), 52 (vLLM 0.8.5 out of memory on four A10s where --enforce-eager started:
    kvplan plans both alike), 54 and 55 (the release the script does not carry)."""
    round5, got = run_round(5)
    assert len(round5) == 9
    assert held_out(round5) == ["49", "52", "55"]
    assert {n: o.verdict for n, o in got.items()} == {
        "47": "PASS", "48": "PASS", "49": "PASS", "50": "FAIL", "51": "PASS", "52": "PASS",
        "53": "PASS", "54": "FAIL", "55": "PASS"}
    assert hits(round5, got) == ["47", "48", "50", "51", "53"]
    # 50 FAILs as the run did, but on an option: the tag `latest` is read as SGLang 0.5.23,
    # whose option table has no --torchao-config (the run's September 2025 image had it)
    assert got["50"].reasons == ["the engine refuses it: SGLang 0.5.23 has no option "
                                 "--torchao-config; did you mean --hisparse-config?"]
    # 52 and 53 differ by --enforce-eager only; kvplan plans the same pool for both
    assert got["52"].summary == got["53"].summary
    assert "(185,248 tokens in the pool)" in (got["52"].summary or "")


def test_the_release_the_scripts_cannot_carry_explains_54_and_50(tmp_path: Path) -> None:
    """54 ran SGLang 0.4.6.post1 (the post) on four A10s; the script names no release and
    kvplan's default SGLang leaves -0.60 GiB for the KV cache (FAIL). The same server as a
    `docker run` of lmsysorg/sglang:v0.4.6.post1-cu124 (the release pinned; not in the folder)
    starts with 153,385 tokens. 50 with the image of its month pinned (lmsysorg/sglang:v0.5.2)
    takes --torchao-config and FAILs on what the run hit, memory: 148 GiB of bf16 weights on
    one 95 GiB H20."""
    cases = {
        "s54": ("docker run --gpus all lmsysorg/sglang:v0.4.6.post1-cu124 python3 -m "
                "sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4\n", "a10"),
        "s50": ("docker run --gpus all lmsysorg/sglang:v0.5.2 python3 -m sglang.launch_server "
                "--model-path Qwen/Qwen3-Next-80B-A3B-Instruct --torchao-config int8dq "
                "--disable-cuda-graph\n", "h20"),
    }
    got = {}
    for name, (text, gpu) in cases.items():
        (tmp_path / f"{name}.sh").write_text(text)
        (tmp_path / f"{name}.kvplan.yaml").write_text(f"gpu: {gpu}\n")
        got[name] = one(tmp_path / f"{name}.sh")
    assert got["s54"].verdict == "PASS"
    assert "(153,385 tokens in the pool)" in (got["s54"].summary or "")
    assert got["s54"].engine_version == "0.4.6.post1"
    assert got["s50"].verdict == "FAIL"
    numbers = got["s50"].numbers
    assert numbers is not None and not numbers.would_start
    assert any("not enough memory for the KV cache (-66.25 GiB)" in r for r in numbers.reasons)
    # the option the newest table lacks is 0.5.2's (read in its wheel, task h70sglkw): taken,
    # and noted as not modelled: kvplan plans the bf16 weights
    assert any(n.startswith("--torchao-config: SGLang quantizes the loaded weights in place")
               for n in got["s50"].notes)
