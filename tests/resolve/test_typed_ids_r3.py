"""A third blind round of model references as people type them (task h58ids): 40 references in
tests/assets/model_ids/typed-r3.tsv from files in the code index (its file id in each row's
source): Red Hat and cortecs FP8-dynamic copies, unsloth bnb-4bit, MLX 4-bit, AWQ and int4-awq,
OpenVINO and MLC exports, GGUF `repo:quant` tags, Ollama tags, LiteLLM's groq/, bedrock/,
together_ai/, vertex_ai/ and openrouter/ ids, a Fireworks path, ModelScope's LLM-Research,
revisions and local paths. Columns as typed-r2.tsv (form `ollama` runs as `vllm serve REF`).

Expectations were committed (a076de2) before kvplan ran on any row; first measured (d69b48d),
before any change: tuned 26 of 26 outcomes through both commands, held out 14 of 14, none
resolved to another model (0 of 80 runs); refusals naming their entry: tuned 15 of 21 through
`size` and 16 of 21 through `check`, held out 7 of 12 and 8 of 12. The tuned misses led to the
readings tested below; after them: tuned 21 of 21 through both, held out 8 of 12 and 9 of 12
(out of sample: `vertex_ai/meta/llama-3.3-70b-instruct-maas`, by the `-maas` reading of the
tuned Llama 4 Scout row).

Task h58ids2 then fixed the held-out misses left (Groq's `-instant`, Together's `-Turbo` after
LiteLLM's `together_ai/`, OpenVINO's `-cw` through `size`; tests at the end), and words an Ollama
`namespace/model:tag` as Ollama's: these rows now count as tuned. The `held_out` column keeps
the original split; HELD_NAMED is the count after that task (12 of 12 through both), and the
rows' `after` column was recomputed through the helpers here (/tmp script in its report).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.errors import InputError
from kvplan.specs.resolve import resolve_model
from tests.resolve import typed_rounds as tr
from tests.resolve.typed_rounds import _offline_hub  # noqa: F401 - autouse: the hub offline

ROWS, TUNED, HELD = tr.rows("typed-r3.tsv")


def test_corpus_shape() -> None:
    tr.assert_corpus_shape(ROWS, HELD, ("typed.tsv", "ids.tsv", "typed-r2.tsv"))
    for row in ROWS:
        if not row["expected"].startswith("refused"):
            assert row["did_you_mean"] == "-", row["typed"]


@pytest.mark.parametrize("row", TUNED, ids=[r["typed"] for r in TUNED])
def test_tuned_reference_through_size_and_check(row: dict[str, str], tmp_path: Path) -> None:
    tr.assert_tuned(row, tmp_path)


def test_held_out_references_never_resolve_to_another_model(tmp_path: Path) -> None:
    """14 held-out references, 12 of them refusals that should name an entry. First measured:
    14 of 14 outcomes through both commands, none to another model, the entry named in 7 of 12
    through `size` and 8 of 12 through `check`; after the tuned rows' fixes 8 and 9 (left: Groq's
    `-instant` and Together's `-Turbo` names, three rows, and through `size` OpenVINO's
    `-int4-cw-ov`). Task h58ids2 fixed those four (tests below), so these rows now count as
    tuned (the held_out column keeps the original split): HELD_NAMED."""
    agree, named = tr.held_out_counts(HELD, tmp_path)
    assert agree == {"size": 14, "check": 14}
    assert named == HELD_NAMED


HELD_NAMED = {"size": 12, "check": 12}


# ------------------------------------------------------- the defects found on the tuned part


@pytest.mark.parametrize(("typed", "whose", "stem", "repo"), [
    # code index file 58566279771: Fireworks writes 3.1 as v3p1
    ("accounts/fireworks/models/llama-v3p1-8b-instruct",
     "Fireworks' model name (`p` for a version's point)", "llama-3.1-8b", "Llama-3.1-8B-Instruct"),
    # code index file 57940690729: LiteLLM's bedrock/, Bedrock's vendor and API version, and
    # Llama's 3.1 written 3-1; was read as a hub id with a ':0' tag
    ("bedrock/meta.llama3-1-8b-instruct-v1:0",
     "Amazon Bedrock's model id (`meta.` the vendor, `-v1:0` the API version)", "llama-3.1-8b",
     "Llama-3.1-8B-Instruct"),
    # code index file 19488704289: Vertex AI's model-as-a-service id
    ("vertex_ai/meta/llama-4-scout-17b-16e-instruct-maas",
     "Vertex AI's model-as-a-service name (`-maas`)", "llama-4-scout",
     "Llama-4-Scout-17B-16E-Instruct"),
    # constructed: Bedrock's Llama 3 70B (no point in its version), Fireworks' qwen2p5
    ("meta.llama3-70b-instruct-v1:0",
     "Amazon Bedrock's model id (`meta.` the vendor, `-v1:0` the API version)", "llama-3-70b",
     "Meta-Llama-3-70B-Instruct"),
    ("accounts/fireworks/models/qwen2p5-7b-instruct",
     "Fireworks' model name (`p` for a version's point)", "qwen2.5-7b", "Qwen2.5-7B-Instruct"),
])
def test_a_hosted_service_id_names_the_checkpoint(tmp_path: Path, typed: str, whose: str,
                                                  stem: str, repo: str) -> None:
    from kvplan.specs.service_ids import service_hint

    said = f"it is {whose} for {repo}, the repository name of "
    hint = service_hint(typed)
    assert hint.startswith(said) and hint.endswith(
        f"(the catalog's {stem}); a service runs its own build: to plan serving that "
        f"checkpoint, plan `{stem}`"), hint
    with pytest.raises(InputError) as err:
        resolve_model(typed)
    assert str(err.value) == f"unknown model {typed!r}; {hint}; `kvplan models` lists the catalog"
    row = {"typed": typed, "form": "served"}
    got, msg = tr.check(tmp_path, row)
    assert got == "refused" and f"(its served name {hint.removeprefix('it ')})" in msg, msg


def test_a_service_id_that_names_nothing_or_two_entries_gets_no_hint() -> None:
    from kvplan.specs.service_ids import service_hint

    assert service_hint("bedrock/amazon.nova-lite-v1:0") == ""  # no catalog checkpoint
    assert service_hint("vertex_ai/meta/llama-4-maverick-17b-128e-instruct-maas").startswith(
        "it is Vertex AI's")  # a catalog id under another spelling
    assert service_hint("meta-llama/Llama-3.1-8B-Instruct") == ""  # a hub id is none
    assert service_hint("qwen2.5-7b") == "" and service_hint("mistral-7b-v0.1") == ""
    # Bedrock's Mistral writes its own version after the name: v0:2 read both ways, and no
    # catalog spelling of `mistral-7b-instruct` without a version, so v0.2's entry only
    assert "(the catalog's mistral-7b-v0.2)" in service_hint(
        "bedrock/mistral.mistral-7b-instruct-v0:2")


@pytest.mark.parametrize(("typed", "stem", "width", "base"), [
    # code index file 61431671227: the width before the method; read as `-awq` only, leaving
    # gemma-3-12b-it-int4, so `size` named no entry
    ("gaunernst/gemma-3-12b-it-int4-awq", "gemma-3-12b", "int4", "gemma-3-12b-it"),
    # code index file 5028930382: optimum-intel's OpenVINO export after the width
    ("/mnt/Ironwolf-4TB/Models/OpenVINO/DeepSeek-R1-Distill-Qwen-14B-int4-awq-ov", "qwen2.5-14b",
     "int4", "DeepSeek-R1-Distill-Qwen-14B"),
])
def test_stacked_quantization_suffixes_name_the_base(typed: str, stem: str, width: str,
                                                     base: str) -> None:
    with pytest.raises(InputError) as err:
        resolve_model(typed)
    assert (f"it names a quantized copy of {base}, whose catalog entry {stem} has the same "
            f"attention shape (the KV cache is the base's): plan `{stem} --weight-dtype {width}`"
            ) in str(err.value)
    from kvplan.specs.name_hints import base_hint

    assert base_hint("OpenVINO/Qwen2.5-7B-Instruct-fp16-ov") == ""  # -ov alone is no width


def test_an_abliterated_copy_names_its_base() -> None:
    """code index file 405099543: huihui's abliterated Qwen3-4B-Instruct-2507, as mradermacher's
    GGUF repository; its publisher's name first was not read, nor `-abliterated`."""
    from kvplan.specs.name_hints import base_hint

    typed = "mradermacher/Huihui-Qwen3-4B-Instruct-2507-abliterated-GGUF:Q8_0"
    with pytest.raises(InputError) as err:
        resolve_model(typed)
    assert str(err.value).endswith(
        "it names a GGUF build of an abliterated copy of Qwen3-4B-Instruct-2507 (abliteration "
        "edits the weights, not the config.json), whose catalog entry qwen3-4b-2507 has the same "
        "attention shape: plan `qwen3-4b-2507 --weight-dtype (the GGUF file's type)`, or pass "
        "the copy's config.json")
    assert base_hint("huihui-ai/Qwen2.5-7B-Instruct-abliterated") == (
        "it names an abliterated copy of Qwen2.5-7B-Instruct (abliteration edits the weights, "
        "not the config.json), whose catalog entry qwen2.5-7b has the same attention shape: plan "
        "`qwen2.5-7b`, or pass the copy's config.json")
    # the publisher's part is dropped only for an abliterated copy
    assert base_hint("someone/Huihui-Qwen3-4B-Instruct-2507") == ""


# ------------------------------ round 3's held-out misses, fixed by task h58ids2 (now tuned)

_SERVICE_TAIL = "; a service runs its own build: to plan serving that checkpoint, plan `{}`"


@pytest.mark.parametrize(("typed", "whose", "repo", "full", "stem"), [
    # held-out row (code index file 24141621955): LiteLLM's groq/ before Groq's own name
    ("groq/llama-3.1-8b-instant", "Groq's model name (`-instant`, Groq's speed tier)",
     "Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"),
    # constructed: Groq's other tier, without LiteLLM's prefix
    ("llama-3.3-70b-versatile", "Groq's model name (`-versatile`, Groq's speed tier)",
     "Llama-3.3-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"),
    # held-out rows (code index files 21185634527, 34710039242): Together's Turbo serving
    ("together_ai/meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo",
     "Together AI's model id (`-Turbo`: Together's own FP8-quantized serving of the checkpoint, "
     "not a checkpoint of its own)", "Meta-Llama-3.1-8B-Instruct",
     "meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b"),
    ("together_ai/Qwen/Qwen2.5-7B-Instruct-Turbo",
     "Together AI's model id (`-Turbo`: Together's own FP8-quantized serving of the checkpoint, "
     "not a checkpoint of its own)", "Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct",
     "qwen2.5-7b"),
])
def test_groq_and_together_ids_name_the_base_checkpoint(tmp_path: Path, typed: str, whose: str,
                                                        repo: str, full: str, stem: str) -> None:
    from kvplan.specs.service_ids import service_hint

    hint = service_hint(typed)
    assert hint == (f"it is {whose} for {repo}, the repository name of {full} (the catalog's "
                    f"{stem})" + _SERVICE_TAIL.format(stem))
    got, msg = tr.size(typed)
    assert (got, msg) == ("refused", f"unknown model {typed!r}; {hint}; `kvplan models` lists "
                                     "the catalog")
    got, msg = tr.check(tmp_path, {"typed": typed, "form": "served"})
    assert got == "refused" and f"(its served name {hint.removeprefix('it ')})" in msg, msg


def test_groq_and_together_readings_that_must_name_nothing() -> None:
    from kvplan.specs.service_ids import service_hint

    # a model the catalog lacks beside a catalog one (Qwen3.5-4B, the embedding model)
    assert service_hint("groq/qwen3.5-4b-instant") == ""
    assert service_hint("together_ai/Qwen/Qwen3.5-4B-Instruct-Turbo") == ""
    assert service_hint("together_ai/Qwen/Qwen3-Embedding-0.6B-Turbo") == ""
    # Groq ids without a tier (Mixtral's context length, Gemma's -it) name nothing here
    assert service_hint("groq/mixtral-8x7b-32768") == service_hint("groq/gemma2-9b-it") == ""
    # -Turbo is read only after together_ai/: a hub repository may end in -turbo itself
    assert service_hint("meta-llama/Llama-3.3-70B-Instruct-Turbo") == ""
    assert service_hint("openai/whisper-large-v3-turbo") == ""
    assert service_hint("gpt-3.5-turbo") == ""


def test_openvino_channel_wise_int4_names_the_base(tmp_path: Path) -> None:
    """held-out row (code index file 3016153707): `-cw` (channel-wise, optimum-cli --group-size
    -1) between the width and `-ov` was not read, so `size` named no entry."""
    from kvplan.specs.name_hints import base_hint

    typed = "OpenVINO/DeepSeek-R1-Distill-Qwen-1.5B-int4-cw-ov"
    said = ("it names a quantized copy of DeepSeek-R1-Distill-Qwen-1.5B, whose catalog entry "
            "deepseek-r1-distill-qwen-1.5b has the same attention shape (the KV cache is the "
            "base's): plan `deepseek-r1-distill-qwen-1.5b --weight-dtype int4`")
    for got, msg in (tr.size(typed), tr.check(tmp_path, {"typed": typed, "form": "hub-id"})):
        assert got == "refused" and said in msg, msg
    assert "--weight-dtype int8`" in base_hint("OpenVINO/Qwen2.5-7B-Instruct-int8-cw-ov")
    # `-cw` without a width before it is no quantized copy's suffix
    assert base_hint("OpenVINO/Qwen2.5-7B-Instruct-cw-ov") == ""
    assert base_hint("someone/Qwen2.5-7B-Instruct-cw") == ""


def test_an_ollama_namespace_tag_is_worded_as_ollamas(tmp_path: Path) -> None:
    """held-out row (code index file 54552561438): `huihui_ai/gemma-4-abliterated:26b-q4_K` was
    "a hub id with a tag that is no GGUF type"; Ollama's own naming is namespace/model:tag
    (docs/api.md), its tag a parameter count first. The catalog lacks Gemma 4: no entry named."""
    typed = "huihui_ai/gemma-4-abliterated:26b-q4_K"
    said = (f"{typed}: an Ollama model name (Ollama's own naming: namespace/model:tag, "
            "':26b-q4_K' its tag), not a hub id with a GGUF type (Q4_K_M, Q8_0, F16 ...); kvplan "
            "reads no model from Ollama's registry: pass the Hugging Face id or the config.json "
            "of the checkpoint it packages")
    for got, msg in (tr.size(typed), tr.check(tmp_path, {"typed": typed, "form": "ollama"})):
        assert (got, msg) == ("refused", said)
    # an Ollama tag before a catalog id names the entry; `:latest` is Ollama's default tag
    got, msg = tr.size("meta-llama/Llama-3.1-8B-Instruct:latest")
    assert msg.endswith("packages; meta-llama/Llama-3.1-8B-Instruct is the catalog's "
                        "llama-3.1-8b"), msg
    # not Ollama's form: a tag with no parameter count first, or the hub's hf.co/ spelling
    for typed in ("meta-llama/Llama-3.1-8B-Instruct:free", "hf.co/someone/gemma-x:26b-q4_K"):
        got, msg = tr.size(typed)
        assert got == "refused" and "after a hub id is not a GGUF type" in msg, msg
        assert "Ollama model name" not in msg, msg
