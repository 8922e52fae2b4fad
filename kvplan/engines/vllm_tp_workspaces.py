"""What NCCL allocates per GPU for vLLM's tensor parallelism above two GPUs on NVSwitch systems.

vLLM's NVLink TP term (vllm_nontorch.NON_TORCH_V1_TP_NVLINK) was fitted at TP 2, where NCCL turns
NVLink SHARP off ("gpuCount <= 2", NCCL v2.26.2-1 src/transport/nvls.cc:157). From three GPUs on
a multicast-capable NVSwitch system (Hopper, Blackwell) each NCCL communicator of the TP group
allocates, on top of what TP 2 already books:

1. NVLS buffers (ncclNvlsBufferSetup, nvls.cc:290-292): nvlsChannels x 2 x (NVLS_CHUNKSIZE 131,072
   B x NCCL_STEPS 8) x nHeads, where nvlsChannels is 16 on SM90 and 32 on SM100 (nvls.cc:144-145,
   176; from v2.27.3-1 a single Blackwell node takes 24, NVLS_NCHANNELS_SM100_NVL, nvls.cc:149 and
   193 there: the low end) and nHeads is the number of GPUs in the node (one head a GPU: the log
   line quoted in vLLM issue #9699 reads "nHeads 8" at TP 8); plus the credits, nChannels x 2 x 64
   x nHeads B (nvls.cc:380-382), which the allocation granularity rounds up to 2 MiB (nvls.cc:240;
   NVLS_MEM_ALIGN_SIZE 1 << 21, nvls.cc:143). The layout is the same at v2.23.4-1, v2.26.2-1,
   v2.27.3-1 and v2.29.7-1 (read at those tags); v2.20.5-1 sized it as ring-channels x 2 x (4 MiB
   + 2 MiB) x nHeads (nvls.cc:309-312), which is the 2.25 GiB of the #9699 log line (24 channels x
   12 MiB x 8 heads = 2,415,919,104 B) and the high end for releases whose NCCL is not read here.
2. More P2P connection buffers: a ring channel connects each GPU to its ring neighbours, which at
   TP 2 are the same GPU in both directions, so the tree (a chain inside one node) adds no
   connection; above two GPUs the chain's second direction is a new connection on every channel:
   LL 524,288 + LL128 4,915,200 + SIMPLE 4,194,304 = 9,633,792 B (init.cc:606-608, device.h:68-86).
   These are connected at communicator creation only when NCCL's runtime connection is off
   (init.cc:1135: runtimeConn = cuMemSupport && NCCL_RUNTIME_CONNECT; init.cc:1146-1158 connects
   ring, tree and the NVLS buffers eagerly otherwise), which is the case while vLLM sets
   NCCL_CUMEM_ENABLE=0 (vllm/env_override.py:32 in the 0.10.0 wheel; removed by vLLM PR #24141,
   merged 2025-09-03, in the 0.11 series). With runtime connection a buffer exists once its
   algorithm ran: the NVLS buffers after the profiling pass's large all-reduce, the tree maybe.
   Channels: at least nvlsChannels (src/graph/connect.cc:493-494), 24 on 8x H200 (the #9699 line:
   301,989,888 / (2 x 6 MiB) under v2.20's ring-channel sizing), at most MAXCHANNELS 64
   (device.h:62).

vLLM 0.10.0 (torch==2.7.1 in its wheel METADATA:74, and torch 2.7.1's wheel requires
nvidia-nccl-cu12==2.26.2) has two NCCL communicators a TP group: its own PyNcclCommunicator
(device_communicators/cuda_communicator.py:49-53, created in init_device after the start-up
snapshot, gpu_worker.py:163 and 181) and torch's ProcessGroupNCCL of the group's device_group,
created by the first collective on it: V1 gathers the logits with all_gather
(platforms/interface.py:467-477, model_executor/layers/logits_processor.py:91-97,
base_device_communicator.py:129), which the profiling sampler pass runs
(v1/worker/gpu_model_runner.py:2202-2211). Expert parallelism at data parallel 1 adds no
communicator: the EP group has no PyNccl ("ep does not use pynccl", cuda_communicator.py:34-35)
and no all-to-all manager (only with data_parallel_size > 1, base_device_communicator.py:99-108);
with data parallelism the all-to-all backends (pplx, DeepEP: NVSHMEM buffers) are not modelled.

vLLM's own buffers do not grow with TP beyond a few MiB: custom all-reduce allocates
meta_size + 8 MiB and 8 MiB per GPU whatever the group size (custom_all_reduce.py:57, 157, 162).
"""

from __future__ import annotations

from kvplan.engines.interface import Interval, parse_version
from kvplan.units import MIB

# NCCL v2.26.2-1 (f44ac759fee12ecb3cc6891e9e739a000f66fd70), src/transport/nvls.cc
NVLS_CHUNK_BYTES = 128 * 1024          # NCCL_PARAM(NvlsChunkSize, "NVLS_CHUNKSIZE", 128*1024), :149
NCCL_STEPS = 8                         # src/include/device.h:24
# (low, best): NVLS_NCHANNELS_SM90 / _SM100, :144-145; v2.27.3-1's _SM100_NVL 24 for one node
NVLS_CHANNELS = {"hopper": (16, 16), "blackwell": (24, 32)}
NVLS_CREDIT_BYTES = 64                 # memSize per channel, head and direction, :381
ALLOC_GRANULARITY = 2 * MIB            # NVLS_MEM_ALIGN_SIZE (1 << 21), :143
# v2.20.5-1 (48bb7fec7953112ff37499a272317f6663f8f600) nvls.cc:309-312: SIMPLE buffer + align
# per ring channel, head and direction
NVLS_V2_20_PER_CHANNEL = 4 * MIB + 2 * MIB
# init.cc:606-608 DEFAULT_LL_BUFFSIZE, DEFAULT_LL128_BUFFSIZE, DEFAULT_BUFFSIZE
P2P_CONNECTION_BYTES = 8 * 512 * 8 * 16 + 120 * 640 * 8 * 8 + (1 << 22)  # 9,633,792
# ring channels: (low, best, high) -- floor nvlsChannels (connect.cc:493-494), 24 read on
# 8x H200 (vLLM issue #9699's NVLS line), MAXCHANNELS (device.h:62)
RING_CHANNELS = {"hopper": (16, 24, 64), "blackwell": (32, 32, 64)}
# NCCL communicators a TP group creates in V1 (PyNccl + torch's device_group)
TP_COMMUNICATORS = 2
# vLLM 0.10.0's env_override.py sets NCCL_CUMEM_ENABLE=0; PR #24141 (2025-09-03) removed it
EAGER_CONNECT_BEFORE = (0, 11)
EAGER_CONNECT_UNSURE = ((0, 10, 2), (0, 11))  # 0.10.2 was cut around the merge: either way
# the earliest release whose NCCL is read here (0.10.0 -> torch 2.7.1 -> NCCL 2.26.2)
NCCL_LAYOUT_READ_FROM = (0, 10)

HOPPER_NAMES = ("H100", "H200", "H800", "H20", "GH200")
BLACKWELL_NAMES = ("B200", "B300", "GB200", "GB300")


def nvswitch_generation(label: str, device_names: list[str] | tuple[str, ...] = ()) -> str | None:
    """'hopper' or 'blackwell' for a GPU whose label or runtime names name one of those data-centre
    parts (NVLink SHARP needs multicast: Hopper and newer, vLLM issue #9699); None otherwise."""
    names = [n.upper() for n in (label, *device_names)]
    if any(b in n for n in names for b in BLACKWELL_NAMES):
        return "blackwell"
    if any(h in n for n in names for h in HOPPER_NAMES):
        return "hopper"
    return None


def _align(n: int) -> int:
    return -(-n // ALLOC_GRANULARITY) * ALLOC_GRANULARITY


def nvls_bytes(tp: int, generation: str, low: bool = False) -> int:
    """One communicator's NVLS buffers and credits on one GPU (NCCL 2.23 and later)."""
    ch = NVLS_CHANNELS[generation][0 if low else 1]
    buffers = ch * 2 * NVLS_CHUNK_BYTES * NCCL_STEPS * tp
    credits = RING_CHANNELS[generation][1] * 2 * NVLS_CREDIT_BYTES * tp
    return _align(buffers) + _align(credits)


def tp_workspace_extra(tp: int, generation: str | None, version: str | None,
                       expert_parallel: bool = False, dp: int = 1) -> tuple[Interval, str]:
    """Bytes per GPU NCCL allocates for a vLLM V1 TP group above what TP 2 books, on one NVSwitch
    node: (best, low, high) and how it was chosen. Zero at TP 1-2 or off Hopper/Blackwell."""
    if expert_parallel and dp > 1:
        raise ValueError(f"expert parallel with data parallel {dp}: the all-to-all buffers "
                         "(pplx, DeepEP) are not modelled; use dp 1")
    if tp <= 2 or generation is None:
        return Interval.exact(0), "none (NCCL enables NVLS only above 2 GPUs on Hopper and newer)"
    if generation not in NVLS_CHANNELS:
        raise ValueError(f"GPU generation {generation!r}: expected one of {sorted(NVLS_CHANNELS)}")
    ch_low, ch_best, ch_high = RING_CHANNELS[generation]
    comms = TP_COMMUNICATORS
    nvls = comms * nvls_bytes(tp, generation)
    nvls_low = comms * nvls_bytes(tp, generation, low=True)
    tree_low, tree_best = (comms * c * P2P_CONNECTION_BYTES for c in (ch_low, ch_best))
    tree_high = comms * ch_high * 2 * P2P_CONNECTION_BYTES  # a chain ordered unlike the ring
    v = parse_version(version) or ()
    old_nccl = bool(v) and v < NCCL_LAYOUT_READ_FROM
    nvls_high = (comms * _align(ch_best * 2 * NVLS_V2_20_PER_CHANNEL * tp) if old_nccl or not v
                 else nvls)
    unsure = not v or EAGER_CONNECT_UNSURE[0] <= v < EAGER_CONNECT_UNSURE[1]
    if v and v >= EAGER_CONNECT_UNSURE[1]:
        best, low, how = nvls, 0, "NVLS buffers once used (NCCL connects at run time)"
    elif unsure:
        best, low, how = nvls + tree_best, 0, "NVLS + tree buffers (eager or at run time: unsure)"
    else:
        best, low, how = nvls + tree_best, nvls_low + tree_low, "NVLS + tree buffers (NCCL_CUMEM_ENABLE=0)"
    high = nvls_high + tree_high
    if old_nccl or not v:
        how += "; NCCL release not read (high: the 2.20 NVLS layout)"
    return Interval(best, low, max(high, best)), f"TP {tp} on {generation} NVSwitch: {how}"
