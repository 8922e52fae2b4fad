"""Task h56review: a catalog name with a ':tag' that is no GGUF type (`llama-3.1-8b:free`, as
OpenRouter's `:free` is typed after a name) was said to name 'a free GGUF build of
llama-3.1-8b'; the hub-id spelling (meta-llama/llama-3.1-8b-instruct:free) already said the
tag is no GGUF type."""

from __future__ import annotations

import pytest

from kvplan.errors import InputError
from kvplan.specs.resolve import resolve_model


@pytest.mark.parametrize("tag", ["free", "latest"])
def test_a_tag_that_is_no_gguf_type_names_the_entry(tag: str) -> None:
    with pytest.raises(InputError) as err:
        resolve_model(f"llama-3.1-8b:{tag}")
    assert (f"':{tag}' after it is not a GGUF type (Q4_K_M, Q8_0, F16 ...) and names nothing "
            "kvplan reads; llama-3.1-8b is the catalog's llama-3.1-8b: plan `llama-3.1-8b`"
            ) in str(err.value)
    assert "GGUF build" not in str(err.value)


def test_a_gguf_type_still_names_the_gguf_build() -> None:
    with pytest.raises(InputError) as err:
        resolve_model("llama-3.1-8b:q4_k_m")
    assert "it names a q4_k_m GGUF build of llama-3.1-8b" in str(err.value)
