"""vLLM 0.10's top-k/top-p sampler path (engine.topk_topp_sampler) from a manifest: the image
and the environment variable VLLM_USE_FLASHINFER_SAMPLER.

In the 0.10 series the profiling sampler sorts the logits natively (38 B a logit) unless
FlashInfer is installed (16 B): kvplan.engines.vllm_sort_sampler. vLLM 0.10.0's wheel (PyPI,
pip download --no-deps vllm==0.10.0):
- vllm/envs.py: "VLLM_USE_FLASHINFER_SAMPLER": bool(int(os.environ[...])) if it is set, else
  None;
- vllm/v1/sample/ops/topk_topp_sampler.py TopKTopPSampler.__init__ (CUDA): with FlashInfer
  importable (>= 0.2.3) and the variable not False, "Using FlashInfer for top-p & top-k
  sampling." (forward_cuda); with it False, "FlashInfer is available, but it is not enabled"
  (forward_native, the sort); without FlashInfer, "FlashInfer is not available" (the sort),
  whatever the variable says (it is read only when FlashInfer imports).
So 0 (any integer that is 0) means native; a non-zero integer, or unset, means flashinfer only
where FlashInfer is installed. A value int() refuses ("true") stops the server before start-up
with or without FlashInfer: vllm/model_executor/layers/sampler.py (the V0 sampler, imported by
vllm/engine/protocol.py, which entrypoints/openai/api_server.py imports) evaluates
`envs.VLLM_USE_FLASHINFER_SAMPLER` at module level.

The official image: vLLM's docker/Dockerfile installs FlashInfer in the vllm-base stage that
vllm-openai is built from (`uv pip install --system --no-build-isolation "${FLASHINFER_WHEEL}"`
where TARGETPLATFORM is not linux/arm64; read at vllm-project/vllm commit
0000977eaf873be6a295cf73017976d49ca2fb9d, the stored version of the 2025 series, through the
code index: the tag-exact 0.10.x file could not be fetched). The vllm/vllm-openai images
print FlashInfer's line (flashinfer-ai/flashinfer issue #1180, 2025-06-26: "Using FlashInfer for
top-p & top-k sampling." in the official image, "FlashInfer is available, but it is not
enabled" with VLLM_USE_FLASHINFER_SAMPLER=0, 2.49 vs 4.00 GiB of KV cache; LMCache issue #1384,
2025-08-21: vLLM's Dockerfile installs FlashInfer, its wheel does not). Any other image (a pip
install, a launcher's image, a fork) is left unstated: the pip default, native, applies.

0.11 takes FlashInfer's sampler as 0.10 does (read in the 0.11.0 wheel), and so do 0.9.0-0.9.2
(read in their wheels, task h36v083); 0.8.0-0.8.5 take it only below FlashInfer 0.2.3 ('if
flashinfer_version >= "0.2.3"' falls back to the sort), and the Dockerfile of that series installs
0.2.1.post2 in vllm-base (flashinfer_python-0.2.1.post2+cu124torch2.6, the torch of 0.8.x; code
index id 8837157071, not tag-exact), so their official image is read as flashinfer too.
0.12-0.16 sort too, but there FlashInfer's sampler is opt-in (`if
envs.VLLM_USE_FLASHINFER_SAMPLER:`, read in the 0.12.0-0.16.0 wheels, which require
flashinfer-python): the image says nothing, unset means native, and a non-zero integer means
flashinfer in any install (kvplan.engines.vllm_sort_sampler).
The refusal of a value int() refuses is kept to the 0.10 series, where it was read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kvplan.engines.interface import parse_version
from kvplan.engines.vllm_sort_sampler import flashinfer_opt_in, sorts_in_profile

if TYPE_CHECKING:
    from kvplan.check.manifests.engine import Found, Refusal

ENV = "VLLM_USE_FLASHINFER_SAMPLER"
OFFICIAL_IMAGE = "vllm/vllm-openai"
FIELD = "engine.topk_topp_sampler"
_REGISTRIES = ("docker.io/", "index.docker.io/", "registry-1.docker.io/")


def official_010(image: str, version: Any) -> bool:
    """Whether `image` is vLLM's own vllm/vllm-openai image of a 0.8-0.11 release (by its tag)."""
    name = image.split("@", 1)[0].rsplit(":", 1)[0] if ":" in image.rsplit("/", 1)[-1] \
        else image.split("@", 1)[0]
    for prefix in _REGISTRIES:
        name = name.removeprefix(prefix)
    return (name == OFFICIAL_IMAGE and version is not None and sorts_in_profile(str(version))
            and not flashinfer_opt_in(str(version)))


def read_sampler(image: str, env: dict[str, str], env_line: int | None, found: Found,
                 notes: list[str], refusals: list[Refusal]) -> None:
    """engine.topk_topp_sampler from the image and VLLM_USE_FLASHINFER_SAMPLER (see above);
    left unset where neither says it (the pip default, which explain names)."""
    from kvplan.check.manifests.engine import Refusal

    official = official_010(image, found.values.get("engine.version"))
    why = (f"image {image} (vLLM's Dockerfile installs FlashInfer in vllm/vllm-openai)"
           if official else "")
    raw = env.get(ENV)
    if raw is None:
        if official:
            found.put(FIELD, "flashinfer", env_line or 0, why)
        return
    try:
        on = bool(int(raw))
    except ValueError:
        version = found.values.get("engine.version")
        if version is not None and sorts_in_profile(str(version)) and \
                (parse_version(str(version)) or ()) < (0, 11):
            refusals.append(Refusal(ENV, f"the engine refuses it: {ENV}={raw!r} is not an "
                                    "integer; vLLM 0.10.0 reads it as bool(int(value)) "
                                    "(vllm/envs.py) when the API server imports "
                                    "vllm/model_executor/layers/sampler.py, so it stops with "
                                    "ValueError before start-up; give 0 or 1", env_line))
        else:
            notes.append(f"{ENV}={raw!r} is not an integer (vLLM reads bool(int(value)); "
                         "vLLM 0.10.0 stops on it at import); this release was not read for it: "
                         "the sampler path is left unstated")
        return
    if not on:
        found.put(FIELD, "native", env_line or 0, f"{ENV}={raw} (FlashInfer's sampler off)")
    elif official:
        found.put(FIELD, "flashinfer", env_line or 0, f"{ENV}={raw} and {why}")
    elif flashinfer_opt_in(str(found.values.get("engine.version"))):
        found.put(FIELD, "flashinfer", env_line or 0, f"{ENV}={raw} (vLLM 0.12-0.16 require "
                  "FlashInfer and run its sampler when this is set)")
    else:
        notes.append(f"{ENV}={raw} takes FlashInfer's sampler only where FlashInfer is "
                     f"installed; image {image or '(none named)'} is not vLLM's own 0.10 image, "
                     "which installs it: the pip default (native) is planned; if the image has "
                     "FlashInfer, set the annotation kvplan.io/topk-topp-sampler: flashinfer")


def assumed_note(planned: Any, gpu_named: bool, origin: str) -> str | None:
    """The note naming the top-k/top-p sampler kvplan's plan assumed, only where that choice
    moves the pool (task h53checkgaps: the KubeAI Tulu file, vllm/vllm-openai:v0.8.3, checked
    at 76,656 tokens with FlashInfer's sampler taken from the image, 71,440 with the sort, and
    said neither). Assumed: FlashInfer's, from vLLM's own 0.8-0.11 image (`origin`, the field's
    source, names the image); or the sort, where the engine layer says the path was left
    unstated and the pip default taken (PIP_DEFAULT: 0.8-0.11 in another image). The engine
    layer sizes both paths (run_engine); None where they hold the same tokens, or a path the
    user stated (VLLM_USE_FLASHINFER_SAMPLER, the annotation)."""
    from dataclasses import replace

    from kvplan.engines import run_engine
    from kvplan.engines.deployment import deployment_engine_settings
    from kvplan.engines.vllm_sort_sampler import PIP_DEFAULT, UNSTATED_NOTE
    from kvplan.errors import InputError

    settings = deployment_engine_settings(planned.deployment.engine)
    if settings is None:
        return None
    req = planned.request
    path, version = settings.topk_topp_sampler, settings.version
    assumed = path == "flashinfer" and origin.startswith("image ")
    if not assumed and (path is not None or not sorts_in_profile(version)
                        or flashinfer_opt_in(version)):
        return None  # stated, or a release whose sampler no install choice moves
    try:
        result = run_engine(req, settings)
        if assumed:
            taken, other = "flashinfer", "native"
        elif any(a.startswith(UNSTATED_NOTE) and PIP_DEFAULT in a
                 for a in result.size.assumptions):
            taken, other = "native", "flashinfer"
        else:
            return None
        alt = run_engine(req, replace(settings, topk_topp_sampler=other))
    except InputError:
        return None
    if alt.kv_cache_tokens == result.kv_cache_tokens:
        return None
    names = {"flashinfer": "FlashInfer's top-k/top-p sampler (16 B a logit in the profile run)",
             "native": "PyTorch's sort (38 B a logit in the profile run)"}
    why = (f"{origin.split(' (')[0]}: vLLM's Dockerfile installs FlashInfer in vllm/vllm-openai"
           if taken == "flashinfer" else "the image is not vLLM's own vllm/vllm-openai, which "
           "installs FlashInfer: taken as pip installs the release, without it")
    said = (f": {result.kv_cache_tokens:,} tokens in the pool, {alt.kv_cache_tokens:,} with "
            f"{'the sort' if other == 'native' else 'FlashInfer'}" if gpu_named else
            ", which moves the pool")
    how = ("VLLM_USE_FLASHINFER_SAMPLER=0 or an image without FlashInfer takes the sort"
           if taken == "flashinfer" else "if the image has FlashInfer, set the annotation "
           "kvplan.io/topk-topp-sampler: flashinfer")
    return f"sampler: {names[taken]} assumed ({why}){said}; {how}"
