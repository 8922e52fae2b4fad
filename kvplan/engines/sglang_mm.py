"""SGLang's multimodal runtime reservation: memory a multimodal model's KV budget leaves out.

From SGLang 0.5.18 `KVCacheConfigurator._profile_available_bytes` takes
`rest_memory = available - slack - mm_runtime_reservation_gb(...)` (mem_cache/
kv_cache_configurator.py: 0.5.18 :1789, 0.5.19 :2021, 0.5.20 :2179, 0.5.21 :2208, 0.5.22 :2719,
0.5.23 :3038; the function at :130 / :132 / :142 / :154 / :197 / :202). Read in the released
wheels (`pip download --no-deps sglang==X`, task h81sglmm): 0.5.16 and 0.5.17 have no such term
(their embedding cache and feature pool come out of the runtime slack), 0.5.18-0.5.23 the same
function:

- 0 for a model that is not multimodal (`model_config.is_multimodal`; kvplan: a spec with an
  encoder, `params_encoder`);
- else SGLANG_VLM_CACHE_SIZE_MB (environ.py `EnvInt(100)`: 100 MiB, the multimodal embedding
  cache), plus SGLANG_MM_FEATURE_CACHE_MB (`EnvInt(1 * 1024)`: 1,024 MiB, the GPU feature
  transport pool) when `--mm-feature-transport` resolves to cuda_ipc or cuda_vmm, in MiB / 1024
  GB; kvplan subtracts the MiB as bytes (SGLang's `int(rest_memory * (1 << 30))` is exact there).
- `--mm-feature-transport` (choices cpu, cuda_ipc, cuda_vmm; the flag exists from 0.5.16) left
  unset resolves to cpu on one node (server_args.py `_handle_multimodal_feature_transport`,
  0.5.18 :7861; arg_groups/serving_hook.py `handle_multimodal_feature_transport` :800 in 0.5.23);
  cuda_vmm is picked by itself only on multi-node GB200/GB300 with an IMEX channel mounted, which
  kvplan cannot see (taken as cpu, and said).
- From 0.5.20 (arg_groups/model_overrides/qwen3_vl.py `_qwen3vl_hopper_serving_overrides`, :88 in
  0.5.20, :85 in 0.5.21-0.5.23): a Qwen3-VL model (model_type qwen3_vl or qwen3_vl_moe) on a
  Hopper GPU (`is_sm90_supported`: compute capability 9.x) of at least 60 GiB (61,440 MiB, the
  nvidia-smi total) sets the embedding cache to 0 and, with the transport unset on one node,
  picks cuda_ipc; the feature pool is then 3,072 MiB when --max-running-requests is 400 or more.
  So such a model reserves 1 GiB (or 3 GiB), and 0 with `--mm-feature-transport cpu`.
- SGLang refuses cuda_ipc and cuda_vmm off NVIDIA CUDA, cuda_ipc across nodes and cuda_vmm with
  pipeline parallelism (serving_hook.py :893-916 in 0.5.23; server_args.py :7966-7998 in 0.5.18).
Not modelled: the two environment variables (kvplan takes their defaults and says so),
--mm-preprocess-cache-size-mb (above 0 it keeps the Qwen3-VL override from picking cuda_ipc), and
deterministic inference's zero embedding cache.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.interface import parse_version
from kvplan.engines.sglang_defaults import DEFAULT_VERSION
from kvplan.engines.vllm_series import HOPPER
from kvplan.engines.vllm_tp_workspaces import nvswitch_generation
from kvplan.errors import InputError
from kvplan.units import MIB

MM_RESERVATION_FROM = (0, 5, 18)
QWEN3_VL_HOPPER_FROM = (0, 5, 20)
TRANSPORTS = ("cpu", "cuda_ipc", "cuda_vmm")
VLM_CACHE_MIB = 100  # SGLANG_VLM_CACHE_SIZE_MB's default
FEATURE_CACHE_MIB = 1024  # SGLANG_MM_FEATURE_CACHE_MB's default
FEATURE_CACHE_HIGH_MIB = 3 * 1024  # the Qwen3-VL Hopper override at >= 400 running requests
FEATURE_CACHE_HIGH_RUNNING = 400
QWEN3_VL_TYPES = ("qwen3_vl", "qwen3_vl_moe")
HOPPER_MIN_MIB = 60 * 1024
DECODE_EXPAND_MAX = 512  # expand_multimodal_decode_graph_to_running_limit's bound
_SRC = "kv_cache_configurator.py mm_runtime_reservation_gb"


@dataclass(frozen=True)
class MmReservation:
    """What the KV budget leaves out (bytes) and why; why is "" when no note is due."""

    bytes: int
    why: str


def transport_refusal(req: SizeRequest, transport: str | None) -> str | None:
    """Why SGLang would refuse this --mm-feature-transport on this request (None: it starts)."""
    return mm_transport_refusal(transport, req.gpu.vendor, req.gpu.label, req.nodes, req.pp)


def mm_transport_refusal(transport: str | None, vendor: str, label: str, nodes: int | None,
                         pp: int) -> str | None:
    """transport_refusal on a deployment's parts (kvplan check: a FAIL naming the flag)."""
    if transport not in ("cuda_ipc", "cuda_vmm"):
        return None
    if vendor.lower() != "nvidia":
        return (f"--mm-feature-transport={transport} requires NVIDIA CUDA (SGLang refuses it on "
                f"{label}); use cpu")
    if transport == "cuda_ipc" and (nodes or 1) > 1:
        return "--mm-feature-transport=cuda_ipc only supports a single node (SGLang refuses it)"
    if transport == "cuda_vmm" and pp > 1:
        return ("--mm-feature-transport=cuda_vmm does not support pipeline parallelism (SGLang "
                "refuses it)")
    return None


def qwen3_vl_hopper(req: SizeRequest, ver: tuple[int, ...], gpu_mem_mib: int) -> bool:
    """Whether SGLang's Qwen3-VL large-Hopper serving override applies (module docstring)."""
    gpu = req.gpu
    hopper = gpu.name.lower().startswith(HOPPER) or \
        nvswitch_generation(gpu.label, gpu.device_names) == "hopper"
    return (ver >= QWEN3_VL_HOPPER_FROM and gpu.vendor.lower() == "nvidia" and hopper
            and gpu_mem_mib >= HOPPER_MIN_MIB and req.model.model_type in QWEN3_VL_TYPES)


def mm_reservation(req: SizeRequest, version: str | None, transport: str | None,
                   max_running: int | None, gpu_mem_mib: int) -> MmReservation:
    """The multimodal runtime reservation SGLang takes out of the KV budget for this request."""
    ver = (parse_version(version or DEFAULT_VERSION) or ())[:3]
    refused = transport_refusal(req, transport)
    if refused:
        raise InputError(refused)
    said = f"--mm-feature-transport {transport}: " if transport else ""
    if ver < MM_RESERVATION_FROM:
        return MmReservation(0, f"{said}no multimodal reservation before SGLang 0.5.18 (moves no "
                             "pool)" if transport else "")
    if not req.model.params_encoder:
        return MmReservation(0, f"{said}a text-only model reserves nothing ({_SRC}: not "
                             "multimodal)" if transport else "")
    if qwen3_vl_hopper(req, ver, gpu_mem_mib):
        resolved = transport or ("cuda_ipc" if (req.nodes or 1) == 1 else "cpu")
        cache, how = 0, (f"Qwen3-VL on a {gpu_mem_mib:,} MiB Hopper GPU: embedding cache 0"
                         + ("" if transport else f", transport {resolved}")
                         + " (qwen3_vl.py _qwen3vl_hopper_serving_overrides, SGLang 0.5.20 on)")
        if max_running is not None and max_running <= DECODE_EXPAND_MAX:
            how += ("; not modelled: the decode CUDA-graph batch raised to --max-running-requests "
                    "where above the tier's (qwen3_vl.py expand_multimodal_decode_graph_to_"
                    "running_limit), 2 MiB a slot in the default mem_fraction_static")
        high = resolved == "cuda_ipc" and (max_running or 0) >= FEATURE_CACHE_HIGH_RUNNING
        pool = FEATURE_CACHE_HIGH_MIB if high else FEATURE_CACHE_MIB
    else:
        resolved = transport or "cpu"
        cache, how, pool = VLM_CACHE_MIB, "SGLANG_VLM_CACHE_SIZE_MB 100 (default)", FEATURE_CACHE_MIB
        if not transport and (req.nodes or 1) > 1:
            how += ("; transport taken as cpu (cuda_vmm only on GB200/GB300 MNNVL with an IMEX "
                    "channel: not modelled)")
    feature = pool if resolved in ("cuda_ipc", "cuda_vmm") else 0
    if feature:
        how += (f" + SGLANG_MM_FEATURE_CACHE_MB {pool:,} ({resolved} feature transport"
                + (", --max-running-requests >= 400" if pool == FEATURE_CACHE_HIGH_MIB else "")
                + ")")
    total = cache + feature
    return MmReservation(total * MIB, f"{said}multimodal reservation {total:,} MiB: {how}; "
                         f"{_SRC}, SGLang 0.5.18 on (environment variables at their defaults)")
