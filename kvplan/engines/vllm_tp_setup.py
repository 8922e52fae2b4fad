"""What vLLM's TP set-up holds on each GPU before the worker's start-up snapshot (task h42v034).

vLLM 0.34's extensible KV cache caps its budget at the device headroom, the memory free at the
start-up snapshot less what the engine uses after it (kvplan.engines.vllm_extensible), so what
the TP group allocates before that snapshot lowers the cap. Read in the vllm==0.34.0 wheel:
`Worker.init_device` runs `init_worker_distributed_environment` (v1/worker/gpu_worker.py:502-512:
"Initialize the distributed environment BEFORE taking memory snapshot ... This ensures NCCL
buffers are allocated before we measure available memory") and only then takes `self.init_snapshot
= MemorySnapshot(...)` (:549); the TP GroupCoordinator's CudaCommunicator
(distributed/device_communicators/cuda_communicator.py) builds in that window, per GPU:

1. PyNccl (:107-113), whose constructor warms NCCL up with a small all_reduce that connects the
   ring: over P2P or NVLink NCCL's per-channel connection buffers on the GPU, 9.2 MiB a channel
   and peer (vllm_nontorch.NCCL_P2P_CONN_BYTES, NCCL init.cc), on a channel count vLLM's source
   does not fix: from 2 channels (vllm_nontorch.NCCL_PCIE_MIN_CHANNELS) to MAXCHANNELS 64 x 2
   peers (vllm_nontorch.NCCL_MAX_CHANNELS), the interval the in-window TP term of 0.11 on uses;
   over host memory (no P2P, nodes without GPUDirect RDMA) nothing on the GPU.
2. Torch symmetric memory (`VLLM_ALLREDUCE_USE_SYMM_MEM` defaults to 1, envs.py:2066-2068;
   cuda_communicator.py:128-132): SymmMemCommunicator allocates `torch_symm_mem.empty` of
   SYMM_MEM_ALL_REDUCE_MAX_SIZES[capability][TP] (device_communicators/all_reduce_utils.py:58-70:
   compute capability 9.0 -- Hopper -- 64/32/64/64 MiB at TP 2/4/6/8, 10.0 -- Blackwell
   B200/GB200 -- 8/32/128/128) before it checks for multicast, and keeps it in self.buffer
   either way (symm_mem.py:91-109); other capabilities and TP sizes allocate nothing.
3. Custom all-reduce (:158-167; on unless --disable-custom-all-reduce; TP 2, 4, 6, 8 or 16,
   custom_all_reduce.py:118; above 2 only fully connected, i.e. NVLink, :268-274; never without
   P2P, :275-289): meta_size + max_size (8 MiB, custom_all_reduce.py:138; where symmetric
   memory works -- multicast, :238-253 -- min(8 MiB, CUSTOM_ALL_REDUCE_MAX_SIZES), 512/256 KiB
   at TP 6/8 on Hopper and 2/2/1/1 MiB on Blackwell, all_reduce_utils.py:31-43) cudaMalloc'd
   (:296-298), the registered buffer max(max_size, all-gather 2 MiB, reduce-scatter 16 MiB) =
   16 MiB (:120, :128, :304-308) and rank_data 8 MiB, a torch tensor (:317-319): 32 MiB a GPU
   (meta_size, a few KiB of flags, not counted; 0.10.1.1's meta and buffer were 8 + 8 MiB,
   vllm_nontorch.CUSTOM_AR_BYTES). On a multicast-capable NVSwitch (Hopper, Blackwell boards)
   it also keeps a symmetric MNNVL buffer of 6 x max(all-gather stage x TP, 16 MiB)
   (:338-343, :362; stage 8/4/2/2/2 MiB at TP 2/4/6/8/16, :121-127): 96 MiB at every size;
   without multicast it returns without keeping it (:367-368).
FlashInfer's all-reduce (on by default, envs.py:2070-2072) only sizes its workspace here and
allocates it on first use (flashinfer_all_reduce.py:460-470, `_ensure_workspace`), after the
snapshot; vLLM 0.34 also creates the cuBLAS/cuBLASLt handles before the snapshot on every GPU
count (gpu_worker.py:527-538, as 0.33.0 did at :527), a few tens of MiB not booked here.

The sum is an interval, not a fit: best = custom all-reduce + symmetric memory + the MNNVL
buffer where the GPU and transport allow them + NCCL on 2 channels; low = what the stated
transport makes certain; high = everything with NCCL on 64 channels x 2 peers. It applies to
the extensible cache's cap only: releases that size from the requested memory (0.33 and the
cache off) never see memory used before the snapshot.
"""

from __future__ import annotations

from kvplan.engines.interface import Interval
from kvplan.engines.vllm_nontorch import NCCL_MAX_CHANNELS, NCCL_P2P_CONN_BYTES, NCCL_PCIE_MIN_CHANNELS
from kvplan.units import MIB

CUSTOM_AR_SIZES = (2, 4, 6, 8, 16)  # CustomAllreduce._SUPPORTED_WORLD_SIZES (:118)
# meta max_size 8 MiB (:138) + registered buffer max(8, 2, 16) MiB (:304) + rank_data 8 MiB (:317)
CUSTOM_AR_SETUP = 8 * MIB + 16 * MIB + 8 * MIB
# all_reduce_utils.py:31-43 CUSTOM_ALL_REDUCE_MAX_SIZES: max_size with symmetric memory on
CUSTOM_AR_MAX = {"hopper": {2: 64 * MIB, 4: 32 * MIB, 6: MIB // 2, 8: MIB // 4},
                 "blackwell": {2: 2 * MIB, 4: 2 * MIB, 6: MIB, 8: MIB}}
MNNVL_ALL_GATHER = {2: 8 * MIB, 4: 4 * MIB, 6: 2 * MIB, 8: 2 * MIB, 16: 2 * MIB}  # :121-127
MNNVL_REDUCE_SCATTER = 16 * MIB  # _DEFAULT_MNNVL_REDUCE_SCATTER_MAX_SIZE (:129)
MNNVL_STAGES = 6  # buffer_size = stage_size * 6 (:362)
# all_reduce_utils.py:58-70 SYMM_MEM_ALL_REDUCE_MAX_SIZES, by NVSwitch generation (9.0, 10.0)
SYMM_MEM = {"hopper": {2: 64 * MIB, 4: 32 * MIB, 6: 64 * MIB, 8: 64 * MIB},
            "blackwell": {2: 8 * MIB, 4: 32 * MIB, 6: 128 * MIB, 8: 128 * MIB}}


def mnnvl_bytes(tp: int) -> int:
    """Custom all-reduce's symmetric MNNVL buffer: 6 x max(all-gather stage x TP, 16 MiB)."""
    return MNNVL_STAGES * max(MNNVL_ALL_GATHER[tp] * tp, MNNVL_REDUCE_SCATTER)


def custom_ar_bytes(tp: int, multicast: str | None) -> int:
    """Custom all-reduce's buffers: meta max_size + the 16 MiB registered buffer + 8 MiB
    rank_data; `multicast` the NVSwitch generation where symmetric memory works."""
    meta = min(8 * MIB, CUSTOM_AR_MAX.get(multicast or "", {}).get(tp, 8 * MIB))
    return CUSTOM_AR_SETUP - 8 * MIB + meta


def tp_setup(tp: int, nvlink: bool, transport: str | None, custom_ar: bool,
             generation: str | None) -> tuple[Interval, str]:
    """The bytes a GPU's TP set-up holds before vLLM 0.34's start-up snapshot, and the words
    explain prints. `transport` as stated (None: the GPU label decides, as for the non-torch
    term), `generation` vllm_tp_workspaces.nvswitch_generation's ('hopper', 'blackwell')."""
    if tp <= 1:
        return Interval.exact(0), "no tensor parallelism"
    on_nvlink = transport == "nvlink" or transport is None and nvlink
    if transport == "host":
        return Interval.exact(0), ("TP over host memory (stated): NCCL's buffers in host "
                                   "memory, custom all-reduce off, no symmetric memory")
    certain = transport is not None or on_nvlink  # P2P is known to work
    conn = NCCL_P2P_CONN_BYTES
    parts: list[tuple[str, int, bool]] = []  # (what, bytes, in the low end)
    if custom_ar and tp in CUSTOM_AR_SIZES and (tp == 2 or on_nvlink):
        ar = custom_ar_bytes(tp, generation if on_nvlink else None)
        parts.append((f"custom all-reduce {ar / MIB:g} MiB", ar, certain))
        if on_nvlink and generation is not None:
            parts.append((f"its MNNVL buffer {mnnvl_bytes(tp) // MIB} MiB (multicast NVSwitch)",
                          mnnvl_bytes(tp), False))
    symm = SYMM_MEM.get(generation or "", {}).get(tp)
    if symm:
        parts.append((f"symmetric memory {symm // MIB} MiB", symm, on_nvlink))
    best = sum(b for _, b, _ in parts) + NCCL_PCIE_MIN_CHANNELS * conn
    low = sum(b for _, b, keep in parts if keep) + (NCCL_PCIE_MIN_CHANNELS * conn if certain
                                                     else 0)
    high = sum(b for _, b, _ in parts) + NCCL_MAX_CHANNELS * 2 * conn
    how = ("vLLM 0.34 sets up TP before its start-up snapshot (gpu_worker.py:502-512, :549): "
           + ", ".join(w for w, _, _ in parts) + (", " if parts else "")
           + f"NCCL's ring {NCCL_PCIE_MIN_CHANNELS} channels x 9.2 MiB (up to "
           f"{NCCL_MAX_CHANNELS} x 2; kvplan.engines.vllm_tp_setup)")
    return Interval(best, low, high), how
