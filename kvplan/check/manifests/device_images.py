"""Engine images built for a device that is not an NVIDIA or AMD GPU, named by their repository:
a server in one asks for no GPU because it runs on none, so the ERROR says what it runs on rather
than asking for an nvidia.com/gpu limit or a compose GPU reservation (round
blind-2026-12-07-r10, task corpus10)."""

from __future__ import annotations

import re

# vLLM's CPU builds: Docker Hub's vllm/vllm-openai-cpu (pvardanis/slipstream k8s/vllm.yaml runs
# `vllm/vllm-openai-cpu:v0.29.0-x86_64`, "Pinned CPU build matching the x86_64 node group") and
# the release repositories vLLM's docs name (docs/deployment/docker.md, "CPU images":
# public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo, vllm-arm64-cpu-release-repo). Their KV cache is
# host memory sized by VLLM_CPU_KVCACHE_SPACE (docs/getting_started/installation/cpu.md).
_CPU = re.compile(r"(?:^|/)vllm(?:-openai)?-(?:arm64-)?cpu(?:-release-repo)?(?::|@|$)")
# Intel GPU (XPU) builds of vLLM: Intel's intel/llm-scaler-vllm (intel/llm-scaler Releases.md:
# "Docker Image Releases for Intel Arc B60 Pro GPU") and intel/vllm (epsilonagentx/intel_arc_gpu_llm
# docker-compose.vllm.yml: `intel/vllm:0.21.0-ubuntu24.04` on an Arc Pro B60, /dev/dri handed in),
# and any vLLM image whose repository or tag says xpu (vLLM's docker/Dockerfile.xpu builds
# `vllm-xpu-env`; that file's comment names the older tag 0.17.0-xpu).
_INTEL = re.compile(r"(?:^|/)intel/(?:llm-scaler-)?vllm(?::|@|$)")
_XPU = re.compile(r"vllm[\w.-]*[:/-][\w.-]*xpu|xpu[\w.-]*vllm")


def device_of_image(image: str) -> str | None:
    """What an engine image runs on when that is not a GPU kvplan sizes, as the ERROR's words
    ('vLLM's CPU build ...'); None for every other image."""
    low = image.strip().lower()
    if _CPU.search(low):
        return (f"image {image!r} is vLLM's CPU build: the server runs on the CPU, not a GPU, "
                "and kvplan plans GPU memory (a CPU's KV cache is host memory sized by "
                "VLLM_CPU_KVCACHE_SPACE)")
    if _INTEL.search(low) or _XPU.search(low):
        return (f"image {image!r} is an Intel GPU (XPU) build of vLLM: Intel GPUs are not "
                "modelled: kvplan sizes NVIDIA and AMD GPUs")
    return None
