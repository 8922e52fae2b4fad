"""Models the files of tests/assets/check name that the catalog lacked (task h91catalog).

`kvplan check tests/assets/check` refused 77 of the 412 files naming a model because the model
was not in the catalog (docs/catalog.md, "Models the check corpus names"). The most-named ones
whose config.json was found were added, each from the copy catalog_sources.py names:

- microsoft/phi-2 -> phi-2 (a copy of the hub file): 32 layers x 32 KV heads (multi-head) x
  head_dim 80 (2,560 / 32) x 2 (K, V) x 2 B = 327,680 B a token, 2,048 positions;
- Qwen/Qwen2.5-Math-1.5B -> qwen2.5-math-1.5b (partial: MLX's conversion, unsloth's re-save):
  28 x 2 x 128 x 2 x 2 B = 28,672 B, 4,096 positions;
- Qwen/Qwen1.5-7B-Chat -> qwen1.5-7b-chat (the repository's own file): 32 x 32 x 128 x 2 x 2 B =
  524,288 B, 32,768 positions;
- NousResearch/Hermes-2-Pro-Llama-3-8B -> hermes-2-pro-llama-3-8b (partial): 32 x 8 x 128 x 2 x 2
  B = 131,072 B, 8,192 positions (Llama-3-8B's attention, 32 more vocabulary rows);
- lmsys/vicuna-7b-v1.3 -> vicuna-7b-v1.3 (partial): 32 x 32 x 128 x 2 x 2 B = 524,288 B, 2,048
  positions (LLaMA-1 7B);
and two aliases of qwen2.5-3b whose own configs give its shapes and 32,768 positions:
Qwen/Qwen2.5-3B-Instruct and Qwen/Qwen2.5-Coder-3B.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvplan.check import check_paths
from kvplan.errors import InputError
from kvplan.specs.resolve import resolve_model
from kvplan.units import DType
from tests.conftest import ASSETS, invoke

CHECK = ASSETS / "check"

# id, entry, KV bytes a token at fp16 (hand arithmetic above), positions
ADDED = [
    ("microsoft/phi-2", "phi-2", 327_680, 2_048),
    ("Qwen/Qwen2.5-Math-1.5B", "qwen2.5-math-1.5b", 28_672, 4_096),
    ("Qwen/Qwen1.5-7B-Chat", "qwen1.5-7b-chat", 524_288, 32_768),
    ("NousResearch/Hermes-2-Pro-Llama-3-8B", "hermes-2-pro-llama-3-8b", 131_072, 8_192),
    ("lmsys/vicuna-7b-v1.3", "vicuna-7b-v1.3", 524_288, 2_048),
]


@pytest.mark.parametrize(("ref", "entry", "per_token", "limit"), ADDED, ids=[a[0] for a in ADDED])
def test_added_model_resolves_by_hf_id_with_its_hand_bytes(runner, monkeypatch, ref: str,
                                                           entry: str, per_token: int,
                                                           limit: int) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the catalog alone answers
    got = invoke(runner, "size", ref, "--gpu", "h100", "--kv-dtype", "fp16", "--context",
                 str(limit), "--format", "json")
    assert got.exit_code == 0, got.output
    assert f"{ref} \u2192 {entry} (hf_id)" in got.stderr
    row = json.loads(got.stdout)["results"][0]
    assert (row["model"], row["kv_bytes_per_token"]) == (entry, per_token)
    over = invoke(runner, "size", ref, "--gpu", "h100", "--context", str(limit + 1))
    assert over.exit_code == 2, over.output  # one token past the config's positions
    assert f"{limit:,}" in over.output


@pytest.mark.parametrize("ref", ["Qwen/Qwen2.5-3B-Instruct", "Qwen/Qwen2.5-Coder-3B"])
def test_sourced_aliases_of_qwen25_3b_plan_its_bf16_weights(ref: str) -> None:
    """Both configs give qwen2.5-3b's shapes; the Coder copy's float16 is a fine-tune's, not
    the release's, so no weight dtype is carried: 3,085,938,688 x 2 B, bf16 as the base."""
    got = resolve_model(ref, allow_hub=False)
    assert (got.spec.name, got.rule, got.spec.weight_dtype) == ("qwen2.5-3b", "alias", DType.bf16)
    assert got.spec.params_total == 3_085_938_688


# Re-releases of shipped specs stay refused: none is planned as its base (their weights differ
# or no config says the copy is unchanged), each names the base and what to plan
REFUSED = [
    # a bf16 re-export of the MXFP4 release: other weights, so not openai/gpt-oss-120b
    ("lmsys/gpt-oss-120b-bf16", "(did you mean: gpt-oss-120b, gpt-oss-20b?)"),
    ("Qwen/Qwen2.5-3B-Instruct-AWQ", "plan `qwen2.5-3b --weight-dtype int4`"),
    ("unsloth/Qwen2.5-3B-Instruct", "if it is an unchanged copy, plan `qwen2.5-3b`"),
    ("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "plan `llama-4-maverick --weight-dtype fp8`"),
    ("meta-llama/Meta-Llama-3.1-70B-Instruct", "if it is an unchanged copy, plan `llama-3.1-70b`"),
    # other checkpoints of the same families, whose own configs were not read: not aliased
    ("Qwen/Qwen2.5-Math-1.5B-Instruct", "qwen2.5-math-1.5b"),
    ("google/gemma-2-2b-it", "(did you mean: gemma-2-2b"),
]


@pytest.mark.parametrize(("ref", "said"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_re_release_is_refused_naming_its_base(ref: str, said: str) -> None:
    with pytest.raises(InputError) as err:
        resolve_model(ref, allow_hub=False)
    assert said in str(err.value)


def test_a_misspelt_repository_name_is_offered_its_entry_first() -> None:
    """`Qwen2.5-7B-Instrcut` (typed-r2.tsv) misspells Qwen/Qwen2.5-7B-Instruct, qwen2.5-7b's id.
    The names alone offered qwen2.5-14b-instruct, qwen2.5-7b-base and, once qwen1.5-7b-chat
    was added, that name before qwen2.5-7b: an id misspelt at difflib ratio 0.9 or more leads."""
    with pytest.raises(InputError) as err:
        resolve_model("Qwen2.5-7B-Instrcut", allow_hub=False)
    assert "(did you mean: qwen2.5-7b, qwen2.5-32b-instruct, qwen2.5-14b-instruct?)" in str(err.value)


# The corpus files whose verdict moved (each an ERROR "not in the catalog" before): file, the
# verdict, the entry; held-out rows are the ones their folders mark as such
MOVED = [
    ("outcomes/12-llmd-phi2-8192-over-limit-h100.yaml", "FAIL", "phi-2"),
    ("corpus/user-repos/gpu-k8s-inference-vllm-deployment.yaml", "WARN", "phi-2"),  # held out
    ("python/vllm-gsm8k-qwen25-math.py", "WARN", "qwen2.5-math-1.5b"),
    ("python/round2/vllm-qwen25-math-eval.py", "WARN", "qwen2.5-math-1.5b"),  # held out
    ("corpus/lws/imokuri-vllm-lws.yaml", "PASS", "qwen2.5-3b"),  # held out
    ("python/vllm-coder-3b.py", "WARN", "qwen2.5-3b"),  # held out
    ("corpus/skypilot/qwen-serve-7b.yaml", "WARN", "qwen1.5-7b-chat"),  # held out
    ("corpus/skypilot/vllm-serve.yaml", "PASS", "vicuna-7b-v1.3"),
    ("base-image/idx67567102783-thor-hermes.sh", "WARN", "hermes-2-pro-llama-3-8b"),
]


def test_the_corpus_files_that_named_them_are_planned() -> None:
    report = check_paths([str(CHECK / rel) for rel, _, _ in MOVED])
    got = {str(Path(o.file).relative_to(CHECK)): (o.verdict, o.model) for o in report.outcomes}
    assert got == {rel: (verdict, model) for rel, verdict, model in MOVED}
    # outcomes/12: vLLM refused max_model_len 8,192 above phi-2's derived 2,048; so does kvplan
    [phi] = [o for o in report.outcomes if o.file.endswith("12-llmd-phi2-8192-over-limit-h100.yaml")]
    assert "max_model_len 8,192 is above phi-2's limit of 2,048 tokens" in " ".join(phi.reasons)
