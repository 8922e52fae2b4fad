"""The public-manifest corpus (tests/assets/check/corpus, sources in its SOURCES.md): every file
gets a verdict or a named ERROR, and the verdicts match the hand arithmetic written down in
corpus-expected.yaml before kvplan was run on them (held-out quarter scored on its own)."""

from __future__ import annotations

from pathlib import Path

import yaml

from kvplan.check import check_paths
from tests.conftest import checked_corpus

ASSETS = Path(__file__).parents[1] / "assets" / "check"
CORPUS = ASSETS / "corpus"


def _score() -> tuple[dict[bool, list[int]], list[str]]:
    expected = yaml.safe_load((ASSETS / "corpus-expected.yaml").read_text())
    report = checked_corpus()
    by_file: dict[str, list[str]] = {}
    for o in report.outcomes:
        by_file.setdefault(str(Path(o.file).relative_to(CORPUS)), []).append(o.verdict)
    hits = {True: [0, 0], False: [0, 0]}
    misses = []
    for rel, e in expected.items():
        got = by_file.get(rel) or (["SKIP"] if str(CORPUS / rel) in report.skipped else [])
        held = bool(e.get("held_out"))
        hits[held][1] += 1
        if got == e["verdicts"]:
            hits[held][0] += 1
        else:
            misses.append(f"{rel}: expected {e['verdicts']}, got {got}")
    return hits, misses


def test_corpus_is_large_and_every_file_is_listed() -> None:
    expected = yaml.safe_load((ASSETS / "corpus-expected.yaml").read_text())
    files = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.y*ml")}
    assert files == set(expected)
    assert len(files) >= 40
    assert len({f.split("/")[0] for f in files}) >= 10  # projects
    held = sum(bool(e.get("held_out")) for e in expected.values())
    assert held >= len(files) // 4


def test_corpus_verdicts_match_the_hand_arithmetic() -> None:
    hits, misses = _score()
    for held in (False, True):
        right, total = hits[held]
        assert right >= 0.9 * total, misses


def test_no_file_is_silently_skipped() -> None:
    report = checked_corpus()
    judged = {o.file for o in report.outcomes}
    # skipped: `python -m huggingfaceserver` names no engine; llm-d's values-cpu runs the
    # llm-d-inference-sim simulator, no engine; OME's ClusterBaseModels hold weights only (read
    # as the model of the runtimes checked with them, task h43ome)
    # KAITO's tuning Workspace runs a fine-tuning job, no server (task h58kaito)
    # a Deployment of llm-d's simulator with vLLM's flags runs no engine either (task corpus10)
    # round r11 (task corpus11): a Kustomize patch with no image (nova-agent), two Triton
    # servers with no LLM backend in the file, a private image with no command (k8s-ssm), and
    # four compose services named for an engine whose server is in an image or build kvplan
    # cannot see (augmentum, mineru-web, open-audio-llm, vkr-check): named alone, each of those
    # four is an ERROR saying so (compose.unread_services); a folder walk counts them skipped
    users = ("augmentum-compose.vllm.yaml", "gpu-inference-platform-triton-deployment.yaml",
             "inference-router-vllm-deployment.yaml", "k8s-ssm-llm-deployment.yaml",
             "mineru-web-docker-compose.sglang.yaml", "nova-agent-eks-vllm-gpu-patch.yaml",
             "open-audio-llm-compose.vllm.yaml", "otus-llm-mlflow-triton-deployment.yaml",
             "vkr-check-docker-compose.vllm.yaml")
    assert sorted(report.skipped) == [str(CORPUS / "kaito" / "kaito_workspace_tuning_phi_3.yaml"),
                                      str(CORPUS / "kserve" / "kserve-huggingfaceserver.yaml"),
                                      str(CORPUS / "llm-d" / "values-cpu.yaml"),
                                      str(CORPUS / "ome" / "basemodel-llama-3-1-8b-instruct.yaml"),
                                      str(CORPUS / "ome" / "basemodel-qwen3-8b.yaml"),
                                      *(str(CORPUS / "user-repos" / u) for u in users)]
    assert len(judged) + len(report.skipped) == len(list(CORPUS.rglob("*.y*ml")))


def test_blind_round_of_2026_12_05_is_scored_on_its_own() -> None:
    """The 20 files of the blind round (`round: blind-2026-12-05`, task h39gate), verdicts
    committed before kvplan ran on them. First measured: 17 of 20 (misses: the Vertex date tag
    read as vLLM 20250312 refusing --swap-space; a launcher tag refusing --disable-log-requests;
    the quoted --limit_mm_per_prompt an ERROR where the hand said PASS and vLLM refuses). After
    the reader fixes, with two expectations re-derived in the open (each `why` says which and
    why): 20 of 20. A change that loses one fails here."""
    expected = yaml.safe_load((ASSETS / "corpus-expected.yaml").read_text())
    blind = {rel: e for rel, e in expected.items() if e.get("round") == "blind-2026-12-05"}
    assert len(blind) == 20 and all(e.get("held_out") for e in blind.values())
    report = check_paths([str(CORPUS / rel) for rel in sorted(blind)])
    got: dict[str, list[str]] = {}
    for o in report.outcomes:
        got.setdefault(str(Path(o.file).relative_to(CORPUS)), []).append(o.verdict)
    misses = [f"{rel}: expected {e['verdicts']}, got {got.get(rel)}" for rel, e in blind.items()
              if got.get(rel) != e["verdicts"]]
    assert not misses, misses


def test_blind_round_of_ome_multi_node_runtimes_is_scored_on_its_own() -> None:
    """Round blind-2026-12-06-ome (task h43ome): three public OME multi-node runtimes and two
    ClusterBaseModels, verdicts committed (57e5246, 71cb4e4) before kvplan read them. First
    measured with the leader/worker reader: 3 of 5 (srt-deepseek-rdma-rt WARN and both
    BaseModels SKIP met; both PD runtimes' dp-attention engines ERROR: --dp-size 16 read as
    16 x 16 GPUs). After the dp-attention fix (SGLang's dp ranks inside the TP group): still 3
    of 5, the engines now planned: the two decode engines are FAIL where the hand said WARN:
    `--cuda-graph-bs` (SGLang 0.5.5's option) is ambiguous in the newer option table
    (--cuda-graph-bs-decode/-prefill), read by engine.read_options, which this task leaves
    alone; kimi-k2's decode is also refused for TP 96 over 64 heads, whose attention runs at
    tp / dp = 1 with dp-attention. The held-out srt-deepseek-rdma-pd-rt missed both times.
    Then three public InferenceService samples (7caf200, committed before kvplan ran on them):
    3 of 3 first measured (qwen3-8b WARN through its runtime and BaseModel; the llama one an
    ERROR naming the missing runtime, the deepseek-v3-pd one the missing model). 6 of 8.
    Task h43nargs: `--cuda-graph-bs` read as SGLang 0.5.5 takes it (argv.OLD_OPTIONS, nargs="+")
    and the heads rule checked at tp / dp with dp-attention: 8 of 8. srt-deepseek-rdma-pd-rt's
    miss led to that fix, so it moved out of the held-out part (1 held out left)."""
    expected = yaml.safe_load((ASSETS / "corpus-expected.yaml").read_text())
    blind = {rel: e for rel, e in expected.items() if e.get("round") == "blind-2026-12-06-ome"}
    assert len(blind) == 8 and sum(bool(e.get("held_out")) for e in blind.values()) == 1
    # isvc-qwen3-8b's runtime, srt-qwen3-8b, is a file of the earlier round: checked with it
    report = check_paths([str(CORPUS / rel) for rel in sorted(blind)]
                         + [str(CORPUS / "ome" / "srt-qwen3-8b-rt.yaml")])
    got: dict[str, list[str]] = {}
    for o in report.outcomes:
        got.setdefault(str(Path(o.file).relative_to(CORPUS)), []).append(o.verdict)
    for path in report.skipped:
        got[str(Path(path).relative_to(CORPUS))] = ["SKIP"]
    misses = {rel: got.get(rel) for rel, e in blind.items() if got.get(rel) != e["verdicts"]}
    assert misses == {}
