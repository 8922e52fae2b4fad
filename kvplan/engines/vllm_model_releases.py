"""Model types a vLLM release does not have yet: vLLM refuses to start them, so kvplan refuses
the plan in one line rather than plan a server that never starts.

- kimi_k25 (Kimi-K2.5, architectures ["KimiK25ForConditionalGeneration"]): the first wheel with
  vllm/model_executor/models/kimi_k25.py and kimi_k25_vit.py is 0.15.0; 0.14.1 (and every older
  wheel read: 0.10.0-0.14.0) ships kimi_vl.py and kimi_linear.py only (task kimivllm). Without the
  file vLLM's registry does not know the architecture and the server stops at start-up
  ("Model architectures [...] are not supported for now").
"""

from __future__ import annotations

from kvplan.engines.interface import parse_version

# model_type -> (the first vLLM release with its model file, the file, the architecture)
FIRST_RELEASE: dict[str, tuple[tuple[int, ...], str, str]] = {
    "kimi_k25": ((0, 15, 0), "model_executor/models/kimi_k25.py",
                 "KimiK25ForConditionalGeneration"),
}


def first_release(model_type: str) -> tuple[int, ...] | None:
    """The first vLLM release that has `model_type`'s model file (None: not tracked here)."""
    entry = FIRST_RELEASE.get(model_type)
    return entry[0] if entry else None


def release_refusal(model_type: str, version: str | None) -> str | None:
    """Why vLLM `version` cannot serve `model_type` (None: it can, or it is not tracked)."""
    from kvplan.engines.vllm_series import DEFAULT_VERSION

    entry = FIRST_RELEASE.get(model_type)
    if entry is None:
        return None
    first, path, arch = entry
    said = version or DEFAULT_VERSION
    if (parse_version(said) or ())[:3] >= first:
        return None
    dotted = ".".join(map(str, first))
    return (f"vLLM {said} has no {model_type} model: {path} (architecture {arch}) first ships in "
            f"{dotted}, and vLLM stops at start-up on an architecture its registry lacks; serve "
            f"vLLM {dotted} or newer (--engine-version)")
