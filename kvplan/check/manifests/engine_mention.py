"""Which engine a document or a container plainly runs, judged by its image and command strings
(split out of kvplan/check/manifests/workload.py, which had passed 400 lines)."""

from __future__ import annotations

import re
from typing import Any

from kvplan.check.manifests.pods import image_engine

# TensorRT-LLM run, not named: its image (nvcr.io/nvidia/tensorrt-llm/release:1.0.0,
# `aibrix/tensorrt-llm:1.1.0`, `dstackai/tensorrt_llm:<tag>`), its Python package imported or
# run as a module (`tensorrt_llm.commands.serve`, `import tensorrt_llm`, `python -m
# tensorrt_llm`). The product's name alone is prose, as vLLM's and SGLang's names alone are (task
# h61pyleft: a `why:` string saying "TensorRT-LLM's test: ..." made a notes YAML an ERROR "this
# document runs TensorRT-LLM")
_TRTLLM_RUN = re.compile(r"(?<![\w.-])tensorrt[-_]llm(?:/|:[\w.])|(?<![\w.])tensorrt_llm\.[a-z_]"
                         r"|\b(?:import|from|-m)\s+tensorrt_llm\b")


def _helm_image(item: dict[Any, Any]) -> list[str]:
    """A chart's image written as Helm charts spell it, `image: {repository: R, tag: T}`, joined
    into the reference the chart renders (`R:T`), so a mirror's repository names its engine as
    the same reference in a pod would (round blind-2026-12-07-r10: Sttari/SteakLLM's values,
    repository `<account>.dkr.ecr.us-east-1.amazonaws.com/steakllm/vllm`, tag v0.28.0, was skipped
    by a folder walk as running no engine). A repository with no tag renders `R:latest`."""
    repo, tag = item.get("repository"), item.get("tag")
    if not isinstance(repo, str) or not repo or ":" in repo.rsplit("/", 1)[-1]:
        return []
    return [f"{repo}:{tag if isinstance(tag, (str, int, float)) and str(tag) else 'latest'}"]


def mentions_engine(data: Any) -> str | None:
    """The engine a document runs, judged by any image or command string in it."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(_helm_image(item))
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            low = item.lower()
            if "vllm" in low and ("vllm/" in low or "vllm serve" in low or "vllm.entrypoints" in low
                                  or "vllm-openai" in low):
                return "vLLM"
            if "sglang" in low and ("lmsysorg/sglang" in low or "sglang.launch_server" in low
                                    or "sglang serve" in low):
                return "SGLang"
            if "trtllm-serve" in low or _TRTLLM_RUN.search(low):
                return "TensorRT-LLM"
            if (engine := image_engine(low)) is not None:
                return engine
            if "tritonserver" in low and "vllm" in low:  # NGC's tritonserver:YY.MM-vllm-python-py3
                # triton-inference-server/vllm_backend src/model.py: _VLLM_ENGINE_ARGS_FILENAME
                return ("vLLM through Triton's vLLM backend (its engine arguments are in the "
                        "model repository's model.json, not in this file)")
            if "tensorrtllm_backend" in low or ("tritonserver" in low and "-trtllm-" in low):
                # Triton's TensorRT-LLM backend: its model repository, or NGC's
                # tritonserver:YY.MM-trtllm-python-py3 (kvplan.check.manifests.ngc_table)
                return ("TensorRT-LLM through Triton's tensorrtllm_backend (its KV settings are in "
                        "the model repository's config.pbtxt, not in this file)")
            if "dynamo.trtllm" in low:
                return ("TensorRT-LLM through python -m dynamo.trtllm (Dynamo's worker, whose "
                        "options are not trtllm-serve's)")
            if "ray.serve.llm" in low:
                return "vLLM (Ray Serve LLM)"
    return None


# A container's `image:` that is the engine's repository alone, no registry or namespace
# (`vllm:latest`, `sglang`, a locally built or retagged image): in a document's other strings
# `vllm:8000` is a host and port, so only the image field is read so (round
# blind-2026-12-08-r11: jolyonbrown/inference-platform's "Placeholder vLLM deployment", image
# `vllm:latest` and no command, was skipped as running no engine). A bare `vllm-ascend` stays
# unread, as round r9's test of that image asks (tests/check/test_check_blind_round9.py)
_BARE_ENGINE_IMAGE = re.compile(r"(vllm|sglang)(?::\w[\w.-]*|@sha256:[0-9a-f]+)?")


def container_engine(c: dict[str, Any]) -> str | None:
    """The engine a container plainly runs (its image or command), found or not by the reader."""
    words: list[str] = []
    for part in ("command", "args"):
        value = c.get(part)
        words.extend(str(w) for w in (value if isinstance(value, list) else [value or ""]))
    found = mentions_engine([str(c.get("image", "")), " ".join(words)])
    bare = _BARE_ENGINE_IMAGE.fullmatch(str(c.get("image", "")).strip().lower())
    if found is None and bare is not None:
        from kvplan.engine_traits import serving_title

        return serving_title(bare.group(1))
    return found
