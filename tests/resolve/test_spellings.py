"""Model spellings people copy from other tools (task h30qa): `Org/Name@revision`, Ollama
`name:tag` (and `ollama://`), huggingface_hub's cache folder, Ollama's `hf.co/...:quant`. Each
spelling below is copied from a public file or an official page, named beside it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from kvplan.errors import InputError
from kvplan.specs.resolve import resolve_model
from tests.check.no_ci import flat
from tests.conftest import invoke


def size(runner: CliRunner, ref: str) -> str:
    result = flat(invoke(runner, "size", ref, "--gpu", "l4", "--context", "4096"))
    return result.output


@pytest.mark.parametrize(
    ("ref", "name", "read"),
    [
        # huggingface_hub's file-system spelling hf://<repo_id>[@<revision>]/<path>
        # (https://huggingface.co/docs/huggingface_hub/guides/hf_file_system)
        ("hf://Qwen/Qwen2.5-7B-Instruct@main", "qwen2.5-7b",
         "revision @main not read: the catalog entry of Qwen/Qwen2.5-7B-Instruct is planned"),
        ("meta-llama/Llama-3.1-8B-Instruct@0e9e39f249a16976918f6564b8830bc894c89659",
         "llama-3.1-8b", "revision @0e9e39f249a16976918f6564b8830bc894c89659 not read"),
        # taras-kolodchyn/gaia-mnemosyne docs/infra/ollama-local-llm.md: `ollama pull qwen2.5:7b`,
        # MNEMO_LLM_MODEL=qwen2.5:7b; Qwen's docs: Ollama's qwen2.5 tags are all instruct models
        ("qwen2.5:7b", "qwen2.5-7b", "Ollama tag qwen2.5:7b read as Qwen/Qwen2.5-7B-Instruct"),
        ("qwen2.5:7b-instruct", "qwen2.5-7b",
         "Ollama tag qwen2.5:7b-instruct read as Qwen/Qwen2.5-7B-Instruct"),
        # NVIDIA-AI-IOT/jetson-generative-ai-playground src/content/models/llama3-1-8b.md:
        # run_command "ollama run llama3.1:8b", huggingface_url meta-llama/Llama-3.1-8B-Instruct
        ("llama3.1:8b", "llama-3.1-8b",
         "Ollama tag llama3.1:8b read as meta-llama/Llama-3.1-8B-Instruct"),
        ("ollama://qwen2.5:7b", "qwen2.5-7b", "Ollama tag qwen2.5:7b read as"),
        ("llama3.1:8b-instruct-fp16", "llama-3.1-8b", "(Ollama's fp16 build)"),
        # opencompass-style hub-cache snapshot paths (.../models--Qwen--Qwen2.5-7B/snapshots/..)
        ("/root/.cache/huggingface/hub/models--Qwen--Qwen2.5-7B-Instruct/snapshots/a09a354",
         "qwen2.5-7b", "huggingface_hub's cache folder of Qwen/Qwen2.5-7B-Instruct"),
    ],
)
def test_spellings_resolve_with_what_was_read(ref: str, name: str, read: str) -> None:
    got = resolve_model(ref, allow_hub=False)
    assert got.spec.name == name
    assert read in got.note


def test_the_cli_plans_the_catalog_entry_and_says_what_it_read(runner: CliRunner) -> None:
    out = size(runner, "qwen2.5:7b-instruct")
    assert "KV per token     56 KiB (57,344 B)" in out  # 28 layers x 4 KV heads x 128 x 2 x 2 B
    assert ("model qwen2.5:7b-instruct → qwen2.5-7b (hf_id); Ollama tag qwen2.5:7b-instruct read "
            "as Qwen/Qwen2.5-7B-Instruct (Ollama serves its own quantized GGUF build of this "
            "tag; planned with the checkpoint's own weights)") in out
    rev = size(runner, "meta-llama/Llama-3.1-8B-Instruct@main")
    assert "KV per token     128 KiB (131,072 B)" in rev  # 32 x 8 x 128 x 2 x 2 B


def test_a_quantization_tag_is_refused_with_what_to_write(runner: CliRunner) -> None:
    out = size(runner, "qwen2.5:7b-instruct-q4_K_M")
    assert ("qwen2.5:7b-instruct-q4_K_M: Ollama's q4_K_M GGUF build of Qwen/Qwen2.5-7B-Instruct: "
            "kvplan does not price GGUF weights from a name; plan the checkpoint, `qwen2.5-7b` "
            "(the same KV cache), with --weight-dtype for its weights' width") in out
    # Ollama's hf.co spelling (https://huggingface.co/docs/hub/ollama): the GGUF file's quant
    gguf = size(runner, "hf.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M")
    assert ("the Q4_K_M GGUF file of bartowski/Meta-Llama-3.1-8B-Instruct-GGUF (Ollama's "
            "hf.co/...:quant spelling): kvplan does not price GGUF weights from a name") in gguf
    assert "plan `llama-3.1-8b --weight-dtype (the GGUF file's type)`" in gguf


def test_a_tag_without_a_size_or_an_unknown_library_name_says_what_to_write() -> None:
    # MuhammetAliVarlik/RealEstateAI ollama/pull-model.sh: `ollama run qwen2.5:latest`
    with pytest.raises(InputError, match=r"qwen2.5:latest: Ollama tag whose size kvplan cannot "
                       r"read .*write the size \(`qwen2.5:0.5b`\) or the hub id"):
        resolve_model("qwen2.5:latest", allow_hub=False)
    with pytest.raises(InputError, match="'mistral:7b' looks like an Ollama name:tag; kvplan "
                       "reads the tags of qwen2.5, llama3.1"):
        resolve_model("mistral:7b", allow_hub=False)


def test_a_hub_tag_that_is_no_gguf_type_is_not_called_a_gguf_file() -> None:
    """`org/repo:TAG` is Ollama's and vLLM's GGUF spelling only where TAG is a llama.cpp weight
    type or the repository is a GGUF one (task h54review found `Qwen/Qwen2.5-7B-Instruct:main`
    called "the main GGUF file" and "a quantized copy" of its own catalog id)."""
    from kvplan.errors import InputError
    from kvplan.specs.spellings import rewrite

    with pytest.raises(InputError) as err:
        rewrite("Qwen/Qwen2.5-7B-Instruct:main")
    assert str(err.value) == (
        "Qwen/Qwen2.5-7B-Instruct:main: ':main' after a hub id is not a GGUF type (Q4_K_M, Q8_0, "
        "F16 ...) and names nothing kvplan or vLLM reads; for a revision write "
        "Qwen/Qwen2.5-7B-Instruct@main (vLLM takes it as --revision), else "
        "Qwen/Qwen2.5-7B-Instruct (the catalog's qwen2.5-7b)")  # the entry: task h55small
    for ref, tag in (("unsloth/Qwen3-14B-GGUF:UD-Q4_K_XL", "UD-Q4_K_XL"),
                     ("bartowski/Llama-3.2-1B-Instruct-GGUF:latest", "latest"),
                     ("x/y:IQ2_XXS", "IQ2_XXS"), ("x/y:bf16", "bf16")):
        with pytest.raises(InputError) as err:
            rewrite(ref)
        assert f"the {tag} GGUF file of " in str(err.value)
