"""Reader fixes found by the blind round of 2026-12-05 (task h39gate), each on the real public
file that showed it (tests/assets/check/corpus, sources in its SOURCES.md). The expected texts
and numbers are worked out by hand from the file and the source named in each docstring."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.check import Outcome, check_paths
from kvplan.check.manifests.engine import vllm_rejects_mm
from tests.check.check_api import outcome_text

CORPUS = Path(__file__).parents[1] / "assets" / "check" / "corpus"


def _one(rel: str, gpu: str | None = None) -> Outcome:
    report = check_paths([str(CORPUS / rel)], **({"default_gpu": gpu} if gpu else {}))
    assert len(report.outcomes) == 1
    return report.outcomes[0]


def test_a_date_tag_names_no_vllm_release() -> None:
    """GKE's Vertex image `pytorch-vllm-serve:20250312_0916_RC01`: the tag starts with a date,
    not MAJOR.MINOR, so it names no vLLM release (it was read as vLLM 20250312, newer than the
    table, and --swap-space was refused). Gemma-3-27B on 2 A100-40GB at 0.95: weights
    27,432,406,640 x 2 B / 2 = 27.4 GB of 42,298,834,944 x 0.95 = 40.2 GB a GPU -> starts."""
    o = _one("gke/vllm-3-27b-it-a100-40gb.yaml")
    assert o.verdict == "PASS"
    assert o.engine_version is None or "20250312" not in str(o.engine_version)
    text = outcome_text(o)
    assert "image tag '20250312_0916_RC01' names no version" in text
    assert ("vLLM 0.34.0 has no option --swap-space; the image does not name its vLLM release: "
            "not checked") in text


def test_a_launcher_tag_notes_options_the_table_lacks() -> None:
    """production-stack values with image lmcache/vllm-openai:2025-04-18 (LMCache's build of an
    April 2025 vLLM): the tag names no vLLM release. Its --disable-log-requests is no longer a
    note: the table (benchmarks/extract_vllm_flags.py, task h41flags034) now holds it, as
    EnableDisableAction adds it to AsyncEngineArgs's --enable-log-requests (a
    BooleanOptionalAction, arg_utils.py:3296-3299 in 0.34.0; the same in 0.33.0), so vLLM
    0.33/0.34 accept it (the old table missed it). An option the table lacks under a tag that
    names no release stays a note: test_a_date_tag_names_no_vllm_release. Llama-3.1-8B, 16.06 GB
    of weights, no GPU named -> WARN."""
    o = _one("production-stack/values-14-vllm-v1.yaml")
    assert o.verdict == "WARN"
    assert "has no option --disable-log-requests" not in outcome_text(o)
    assert "no GPU named" in outcome_text(o)


def test_latest_is_still_the_newest_release() -> None:
    """`latest` names no number but is the newest release, which the option table is: an
    option the table lacks stays a refusal there (examples/manifests' compose file keeps its
    FAIL for memory; this checks the rule through the tag test alone)."""
    from kvplan.check.manifests.image_tag import read_image_tag
    from kvplan.engines.release import read_release

    # the tag rule (task h43tables: PEP 440 releases, kvplan.check.manifests.image_tag)
    assert read_release("v0.8.5") and read_release("0.10.2-fix")
    assert read_release("v0.4.9.post6-cu126")
    assert not read_release("20250312_0916_RC01")
    assert not read_release("2025-04-18")
    assert not read_release("latest")
    assert not read_image_tag("vllm/vllm-openai:latest", "vllm").unnamed


@pytest.mark.parametrize(("raw", "rejected"), [
    ("'image=5'", True),   # nullable_kvs: int("5'") raises; not JSON either
    ("image=5", False),    # the older MODALITY=N form (0.5-0.9)
    ('{"image": 5}', False),
    ("image=five", True),
    ("{image: 5}", True),  # shaped {...} but not JSON
    ("image=-1", False),   # int("-1") parses: vLLM 0.9 takes it, kvplan's count does not
    ("image", True),       # one part, not KEY=VALUE
])
def test_vllm_rejects_mm_as_its_parsers_do(raw: str, rejected: bool) -> None:
    """vllm/engine/arg_utils.py: nullable_kvs (0.5-0.9; 0.9's parse_type sends values not
    shaped {...} to it) and json.loads (from 0.10): a value both reject stops every release."""
    assert vllm_rejects_mm(raw) is rejected


def test_quoted_limit_mm_in_args_is_a_refusal() -> None:
    """GKE's gemma-3-4b sample passes `--limit_mm_per_prompt='image=5'` in a container's args:
    no shell strips the quotes, vLLM's parser stops -> FAIL, not an ERROR."""
    o = _one("gke/vllm-3-4b-it.yaml")
    assert o.verdict == "FAIL"
    assert "\"'image=5'\" is neither a JSON object nor MODALITY=N pairs" in outcome_text(o)


def test_helm_v0_runs_the_v0_engine() -> None:
    """production-stack chart (deployment-vllm-multi.yaml at 010004ee): vllmConfig v0 "1"
    renders env VLLM_USE_V1=0; on the v0.8.5 image that is the V0 engine (vllm/envs.py), which
    the profile takes as version 0.8.5-v0."""
    o = _one("production-stack/values-25-v100-multi-gpu-tp2.yaml", gpu="v100-sxm2-16gb")
    assert o.verdict == "PASS"
    assert o.engine_version == "0.8.5-v0"
    assert "VLLM_USE_V1=0: the V0 engine of vLLM 0.8.5 (vllm/envs.py)" in outcome_text(o)


def test_kserve_sglang_runtime_runs_sglang() -> None:
    """LLMInferenceService with spec.runtime kserve-llm-sglang: KServe's SGLang preset
    (config-sglang-template.yaml) with the runtime's image lmsysorg/sglang:v0.5.14; opt-125m on
    one GPU starts anywhere -> WARN, engine SGLang 0.5.14 (it was planned as vLLM)."""
    o = _one("kserve/llm-inference-service-sglang-opt-125m-gpu.yaml")
    assert o.verdict == "WARN"
    assert (o.engine, o.engine_version) == ("sglang", "0.5.14")


def test_kserve_speculation_ngram_noted_draft_refused() -> None:
    """spec.speculator with method ngram loads no model (noted); spec.speculativeDecoding with
    a draft model is refused by name, not dropped (its rendering was not read)."""
    ngram = _one("kserve/llm-inference-service-A10-ngram.yaml")
    assert ngram.verdict == "WARN"
    assert "n-gram speculation (prompt lookup) loads no draft model" in outcome_text(ngram)
    draft = _one("kserve/llm-inference-service-L40S-draft-target.yaml")
    assert draft.verdict == "ERROR"
    assert "spec.speculativeDecoding (method draft_model)" in outcome_text(draft)
