"""A release older than any an engine profile models is planned by its oldest rules with a note,
as a newer one is by its newest (task h45cli): vLLM below 0.1 (its first release, the 0.1-0.2.4
series), SGLang below 0.3 (the oldest SGLang run checked, tests/assets/logs/50), TensorRT-LLM
below 0.5 (its first release, October 2023)."""

from __future__ import annotations

import pytest

from tests.conftest import invoke

OLDER = [
    ("vllm", "0.0.9", "note: vLLM 0.0.9 is older than the oldest modelled release (0.1, vLLM's "
     "first): modelled as the 0.1-0.2.4 (V0) series"),
    ("sglang", "0.2.0", "note: SGLang 0.2.0 is older than the oldest modelled release (0.3, the "
     "oldest SGLang run checked: tests/assets/logs/50): modelled by the rules of releases "
     "before 0.4.6"),
    ("trtllm", "0.4", "note: TensorRT-LLM 0.4 is older than the oldest modelled release (0.5, "
     "TensorRT-LLM's first): modelled as a 0.5 TensorRT engine"),
]


def _card(runner, engine: str, version: str) -> str:  # noqa: ANN001 - typer's CliRunner
    result = invoke(runner, "size", "llama-3.1-8b", "-c", "8192",
                    "--engine", engine, "--engine-version", version)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # notes wrap at 80 columns


@pytest.mark.parametrize(("engine", "version", "note"), OLDER, ids=[e for e, _, _ in OLDER])
def test_an_older_release_carries_a_note(runner, engine: str, version: str, note: str) -> None:
    assert note in _card(runner, engine, version)


@pytest.mark.parametrize(("engine", "version"), [("vllm", "0.1"), ("sglang", "0.3.0"),
                                                 ("trtllm", "0.5.0")])
def test_the_oldest_modelled_release_itself_has_none(runner, engine: str, version: str) -> None:
    """The boundary: 0.1, 0.3.0 and 0.5.0 are modelled releases, not older than one."""
    assert "older than the oldest modelled release" not in _card(runner, engine, version)
