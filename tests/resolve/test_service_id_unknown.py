"""A hosted service's model id that reads as no catalog checkpoint is refused as what it is
(task h58review). Before, `bedrock/amazon.nova-lite-v1:0` was told "':0' after a hub id is not
a GGUF type ... for a revision write bedrock/amazon.nova-lite-v1@0", a Bedrock id with a region
(`us.meta.llama3-2-11b-instruct-v1:0`) "looks like an Ollama name:tag" beside unrelated
neighbours (mistral-7b-instruct-v0.3 ...), and a Vertex AI `-maas` id "no such file or folder"."""

from __future__ import annotations

import pytest

from kvplan.errors import InputError
from kvplan.specs.resolve import resolve_model
from kvplan.specs.service_ids import service_unknown


@pytest.mark.parametrize(("typed", "whose", "read"), [
    ("bedrock/amazon.nova-lite-v1:0",
     "Amazon Bedrock's model id (`amazon.` the vendor, `-v1:0` the API version)",
     "nova-lite or nova-lite-v1.0"),
    ("us.meta.llama3-2-11b-instruct-v1:0",
     "Amazon Bedrock's model id (`meta.` the vendor, `-v1:0` the API version)",
     "llama3.2-11b-instruct or llama3.2-11b-instruct-v1.0"),
    ("vertex_ai/meta/llama-3.2-90b-vision-instruct-maas",
     "Vertex AI's model-as-a-service name (`-maas`)", "llama-3.2-90b-vision-instruct"),
    ("accounts/fireworks/models/llama-v3p2-11b-vision-instruct",
     "Fireworks' model name (`p` for a version's point)", "llama-3.2-11b-vision-instruct"),
])
def test_a_service_id_of_no_catalog_checkpoint_is_named_as_one(typed: str, whose: str,
                                                              read: str) -> None:
    said = (f"it is {whose}, a hosted service's name for its own build, not a checkpoint: read "
            f"as {read}, it names no one catalog checkpoint; plan the checkpoint you serve by "
            "its Hugging Face id or catalog name")
    assert service_unknown(typed) == said
    with pytest.raises(InputError) as err:
        resolve_model(typed, allow_hub=False)
    assert str(err.value) == f"unknown model {typed!r}; {said}; `kvplan models` lists the catalog"


def test_a_service_id_of_a_catalog_checkpoint_or_no_service_id_is_not_this() -> None:
    assert service_unknown("meta.llama3-1-8b-instruct-v1:0") == ""  # service_hint names it
    assert service_unknown("meta-llama/Llama-3.1-8B-Instruct") == ""
    assert service_unknown("qwen2.5:7b") == ""
    # a bare name ending in Groq's tier is not claimed as Groq's (Anthropic's claude-instant);
    # with LiteLLM's groq/ it is
    assert service_unknown("claude-instant") == ""
    assert service_unknown("groq/foo-instant").startswith(
        "it is Groq's model name (`-instant`, Groq's speed tier), a hosted service's name")
