"""vLLM's non-torch memory: what the profiler books outside torch's allocations, by series.

(best, low, high) in bytes, fitted on the calibration logs named in tests/assets/logs/FITTED.tsv.
V1 counts only the growth after start-up (one GPU 0.07 GiB; with tensor parallelism off NVLink,
from 0.11, NCCL's in-window buffers, about 0.09 GiB, read in source: TP_SNAPSHOT_AFTER_INIT_FROM;
before 0.11 about 1 GiB more for NCCL and all-reduce buffers, from log 24); V0 0.6.4.x counts the CUDA
context too; from 0.6.5 the V0 worker books growth over the free memory it read at start-up
(0.6.5-0.6.6) or a start-up MemorySnapshot (0.7 on), like V1 (V0_GROWTH_FROM).

V1 with tensor parallelism on NVLink modules (SXM, HGX/DGX boards): vLLM's own TP buffers are
small -- custom all-reduce allocates meta_size + 8 MiB, 8 MiB of IPC buffer and 8 MiB of rank
data per GPU (device_communicators/custom_all_reduce.py, max_size 8192 * 1024), symmetric memory
at most 64 MiB on Hopper (all_reduce_utils.py SYMM_MEM_ALL_REDUCE_MAX_SIZES) -- and the rest is
NCCL's and FlashInfer's NVSwitch workspaces (the FlashInfer all-reduce fusion workspace needs
multicast and fails "on GPUs without NVSwitch", flashinfer_all_reduce.py; NCCL enables NVLS only
above 2 GPUs on H100 and newer, vLLM issue #9699). The sum is not readable from vLLM's source, so
it is fitted: 2.07 and 2.09 GiB at TP 2 on H100 SXM (logs 62, 75). On PCIe cards custom
all-reduce is limited to two GPUs ("not supported on more than two PCIe-only GPUs") and no NVSwitch
workspace exists; GPUs whose label names no NVLink form factor book the PCIe term (from 0.11 the
in-window one, before it the wide fitted term).

The deployment's TP transport (`--tp-transport`, engine.tp_transport, the manifest annotation
kvplan.io/tp-transport; kvplan.engines.interface.TP_TRANSPORTS) replaces that guess where it is
stated: nvlink books the NVLink term, pcie-p2p the PCIe term with its low end from NCCL's P2P
buffers, host the one-GPU growth (NCCL's buffers in host memory, custom all-reduce off). A
calibration log that prints vLLM's "lacks GPU P2P capability" warning, or spans nodes without
GPUDirect RDMA, is host (kvplan.calibrate). Unstated, the GPU label decides as before.
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.engines.interface import Engine, EngineSettings, Interval, parse_version
from kvplan.engines.vllm_series import Flavour, flavour
from kvplan.engines.vllm_tp_workspaces import tp_workspace_extra
from kvplan.engines.vllm_v0_early import (
    PEAK_ALLOCATED,
    PEAK_DEVICE,
    PEAK_GROWTH,
    PROFILER_064,
    early_peak,
)
from kvplan.units import GIB, MIB

# (best, low, high) in bytes
NON_TORCH_V1 = (70 * MIB, 20 * MIB, GIB // 2)
# V1 with TP off NVLink modules: best 1 GiB (log 24) up to 2 GiB; the low end is the one-GPU
# growth's (20 MiB), because NCCL keeps its buffers in host memory when it cannot use P2P: the
# SHM transport without P2P (transport/shm.cc) and the network transport across nodes without
# GPUDirect RDMA (transport/net.cc) allocate cudaHostAlloc'd buffers, and only P2P over PCIe
# puts the receive buffers on the GPU (transport/p2p.cc): per channel and connected peer
# LL 524,288 B + LL128 4,915,200 B + SIMPLE 4,194,304 B (init.cc DEFAULT_*_BUFFSIZE; NCCL
# master 5067397, tag v2.30.7-1), about 9.2 MiB, on the few channels NCCL opens on PCIe. Unless
# the deployment states its transport (P2P allowed or not, one node or several: TP_TRANSPORTS
# below), the term stays an interval and that choice dominates it.
NON_TORCH_V1_TP = (GIB, 20 * MIB, 2 * GIB)
# V1, TP on NVLink modules: best 2.08 GiB (logs 62, 75: 2.07, 2.09), 1.5-2.5 GiB
NON_TORCH_V1_TP_NVLINK = (GIB * 208 // 100, 3 * GIB // 2, 5 * GIB // 2)
# The TP transport a deployment states (kvplan/v1 engine.tp_transport):
# - nvlink: NVLink/NVSwitch between the GPUs (SXM/HGX/DGX boards): NON_TORCH_V1_TP_NVLINK.
# - pcie-p2p: one node, P2P over PCIe allowed: NCCL's P2P transport keeps each channel's receive
#   buffers on the GPU (transport/p2p.cc) and vLLM's custom all-reduce runs at TP 2 (it refuses
#   "more than two PCIe-only GPUs"). The low end is those buffers on the fewest channels NCCL
#   opens (2: one ring peer each) over the one-GPU low end; best and high stay log 24's.
# - host: no P2P between the GPUs (one node; vLLM warns "Custom allreduce is disabled because
#   your platform lacks GPU P2P capability or P2P test failed") or nodes joined by a network
#   without GPUDirect RDMA ("process group spans across nodes"): NCCL's SHM and net transports
#   keep their buffers in host memory (shm.cc shmOpen; net.cc maps device memory only with
#   GDR) and custom all-reduce is off (custom_all_reduce.py returns before allocating), so the
#   GPU sees the one-GPU growth, NON_TORCH_V1.
# NCCL device buffers per channel and receiving peer over P2P: LL 524,288 + LL128 4,915,200 +
# SIMPLE 4,194,304 B (init.cc DEFAULT_LL_BUFFSIZE, DEFAULT_LL128_BUFFSIZE, DEFAULT_BUFFSIZE)
NCCL_P2P_CONN_BYTES = 524_288 + 4_915_200 + 4_194_304
NCCL_PCIE_MIN_CHANNELS = 2
# vLLM's custom all-reduce (device_communicators/custom_all_reduce.py, 0.10.1.1): meta
# (ops.meta_size() + max_size) and the registered IPC buffer (max_size), both
# allocate_shared_buffer_and_handle (cudaMalloc, outside torch), max_size = 8192 * 1024; its
# 8 MiB rank_data is a torch tensor (torch's, not this term). meta_size (a few KiB of flags) is
# not counted.
CUSTOM_AR_BYTES = 2 * 8192 * 1024
NON_TORCH_V1_TP_PCIE_P2P = (
    NON_TORCH_V1_TP[0],
    NON_TORCH_V1[1] + NCCL_PCIE_MIN_CHANNELS * NCCL_P2P_CONN_BYTES,
    NON_TORCH_V1_TP[2])
# From the 0.11 series the V1 worker sets up tensor parallelism BEFORE its start-up snapshot:
# Worker.init_device calls init_worker_distributed_environment and only then takes
# `self.init_snapshot = MemorySnapshot()` (vllm/v1/worker/gpu_worker.py, 0.11.0 wheel :169 then
# :182; the same order in 0.12.0 :216/:232, 0.13.0, 0.17.1, 0.18.0, 0.19.0 :263/:282, 0.22.0
# :280/:299, 0.24.0, 0.27.1 :376/:395 -- "Initialize the distributed environment BEFORE taking
# memory snapshot. This ensures NCCL buffers are allocated before we measure available memory"
# -- 0.28.0, 0.31.0, 0.33.0), where 0.10.0 :163/:181, 0.10.1.1 :174/:192 and 0.10.2 :175/:193
# snapshot first. memory_profiling books as non-torch only the growth over that snapshot
# (vllm/utils/mem_utils.py, 0.27.1: non_torch_increase = after_profile - before_create), so
# what the TP group allocates at set-up is no longer in the term: vLLM's PyNcclCommunicator,
# created and warmed up with a small all_reduce in its constructor (device_communicators/
# pynccl.py, "A small all_reduce for warmup"), which connects NCCL's ring; custom
# all-reduce's IPC buffers; the symmetric-memory buffer (cuda_communicator.py __init__ builds
# them all, 0.27.1; FlashInfer's NVSwitch-only all-reduce workspace is made on demand,
# flashinfer_all_reduce.py get_fi_ar_workspace, one reason the NVLink term stays fitted).
# What still grows inside the window off NVLink is NCCL's: torch's ProcessGroupNCCL for the
# group's device_group, created by its first collective (up to 0.24 CudaCommunicator has no
# all_gather of its own (read in 0.11.0, 0.13.0, 0.17.0, 0.19.0, 0.22.0, 0.24.0), so the logits
# gather in the profiling pass runs torch's all_gather_into_tensor on device_group,
# base_device_communicator.py all_gather; from 0.25.0 CudaCommunicator.all_gather routes it
# through the warmed-up PyNccl, read in 0.25.0, 0.26.0, 0.27.1, 0.28.0, 0.29.0), and connections
# NCCL makes at run time for an algorithm the warm-up did not use. Over P2P each is NCCL's
# per-channel connection (NCCL_P2P_CONN_BYTES); over host memory nothing lands on the GPU.
# The channel count NCCL opens on PCIe is not read here: the best takes the fewest (2 channels,
# one communicator), the high end MAXCHANNELS 64 (NCCL device.h) x 2 connections.
# So from 0.11 the PCIe TP term is the one-GPU growth plus that, and log 24's fitted 1 GiB is no
# longer used there (log 24 is a 0.27.1 start-up at TP 4, the same lines as log 256; logs 250,
# 259 and 46 print 0.1-0.2 GiB). The NVLink term stays fitted (logs 62, 75 are 0.19 runs, so
# it already is the in-window growth; the source leaves its size open).
TP_SNAPSHOT_AFTER_INIT_FROM = (0, 11)
NCCL_MAX_CHANNELS = 64
NON_TORCH_V1_TP_AFTER_INIT = (
    NON_TORCH_V1[0] + NCCL_PCIE_MIN_CHANNELS * NCCL_P2P_CONN_BYTES,
    NON_TORCH_V1[1],
    NON_TORCH_V1[2] + NCCL_MAX_CHANNELS * 2 * NCCL_P2P_CONN_BYTES)
NON_TORCH_V1_TP_AFTER_INIT_P2P = (
    NON_TORCH_V1_TP_AFTER_INIT[0],
    NON_TORCH_V1[1] + NCCL_PCIE_MIN_CHANNELS * NCCL_P2P_CONN_BYTES,
    NON_TORCH_V1_TP_AFTER_INIT[2])
NON_TORCH_V0 = (350 * MIB, 200 * MIB, 600 * MIB)
NON_TORCH_V0_TP = (GIB // 2, GIB // 4, 4 * GIB)
# CUDA-graph memory: until task h43graphs a flat 0.5 GiB (0.2-1.1 GiB) here (CUDA_GRAPH); since
# then from the capture sizes, kvplan.engines.vllm_capture: graphs x layers x a per-graph-layer
# cost until task h44graphbase, a first capture + later graphs x layers x that cost since.
# V1 on a unified-memory GPU (GB10 / DGX Spark, Jetson Thor), one GPU. vLLM books as non-torch
# memory the growth of (total - free) from cudaMemGetInfo over start-up, less torch's own
# allocations (vllm/utils/mem_utils.py memory_profiling: non_torch_increase); on an integrated
# GPU that "free" is the memory the whole system has left, so the host memory the serving process
# and the OS draw during loading and torch.compile lands in the term. Fitted on log 28 (vLLM 0.13,
# Qwen2.5-14B FP8, GB10: 0.4 x 121.63 - 15.22 weights - 30.46 KV - the 0.58 GiB activation
# modelled = 2.39 GiB); the range runs from the discrete-GPU growth to twice that.
NON_TORCH_V1_UNIFIED = (GIB * 239 // 100, 20 * MIB, 5 * GIB)
# vLLM 0.6.4.x profiled non-torch memory as device use minus torch's *allocated* bytes, so the
# allocator's cached copies left by repacking quantized weights at load (GPTQ/AWQ to Marlin)
# counted as non-torch; 0.6.5's profiler (PR #10511) measures growth instead. Share of the
# weights: (best, low, high); fitted on log 11 (Qwen2.5-72B GPTQ: 4.09 - 0.35 GiB over 38.53).
REPACK_CACHED_SHARE = (Fraction(97, 1000), Fraction(0), Fraction(15, 100))
REPACK_CACHED_VERSIONS = ((0, 6, 4), (0, 6, 5))
# FP8 weights quantized at load from a 16-bit checkpoint (--quantization fp8) are replaced the
# same way: vLLM 0.6.4 model_executor/layers/quantization/fp8.py Fp8LinearMethod
# .process_weights_after_loading quantizes each layer's 16-bit weight into a new tensor
# (`qweight, weight_scale = ops.scaled_fp8_quant(layer.weight, scale=None)`, `layer.weight =
# Parameter(qweight.t())`), so the freed 16-bit copies leave the same allocator cache, which the
# 0.6.4 profiler books as non-torch (worker.py determine_num_available_blocks: device use less
# torch's allocated bytes). The share is log 11's (not refitted); checked on log 122 (a ROCm
# build of 0.6.4's profiler, Llama-3.1-70B quantized at load on an MI300X: 6.07 GiB printed,
# 0.35 + 0.097 x 67.70 = 6.92 modelled), issue #13 task h27v1miss.


def fp8_at_load(weight_bits: int, published_bits: int, weight_quant: bool) -> bool:
    """FP8 weights quantized at load (vLLM's --quantization fp8 on a 16-bit checkpoint), whose
    16-bit copies vLLM 0.6.4 books with the repack cache (see REPACK_CACHED_SHARE)."""
    return weight_bits == 8 and published_bits >= 16 and not weight_quant
# From 0.6.5 the V0 worker profiles like V1. In 0.6.5 and 0.6.6 Worker.init_device reads
# `self.init_gpu_memory = torch.cuda.mem_get_info()[0]` right after set_device, gc.collect and
# empty_cache (mem_get_info creates the CUDA context first) and before
# init_worker_distributed_environment (vllm/worker/worker.py :143 then :148 in the 0.6.5, 0.6.6
# and 0.6.6.post1 wheels); determine_num_available_blocks passes `baseline_memory_in_bytes =
# total_gpu_memory - self.init_gpu_memory` to memory_profiling (:198-199), which books
# `non_torch_increase_in_bytes = current_cuda_memory_bytes - baseline_memory_in_bytes -
# weights_memory_in_bytes - diff.torch_memory_in_bytes` (vllm/utils.py, 0.6.5 :1736, 0.6.6 and
# 0.6.6.post1 :1819; weights are the torch bytes DeviceMemoryProfiler saw at load), and the pool
# is total x gpu_memory_utilization - (that + torch's peak increase + weights)
# (non_kv_cache_memory_in_bytes, 0.6.5 :1738, 0.6.6 :1821; worker.py :207-210). So the CUDA context, in
# the baseline, is not in the term. The 0.7 series keeps the order and the arithmetic with a
# MemorySnapshot: `self.baseline_snapshot = MemorySnapshot()` after set_device / empty_cache and
# before init_worker_distributed_environment (0.7.0 worker.py :158-165), non_torch_increase =
# diff_from_create.non_torch_memory (0.7.0 utils.py :2052-2054). One GPU then books V1's growth
# (NON_TORCH_V1); logs 91-93 (0.7.1-0.7.3: 0.01-0.05 GiB), 110 (0.8.2: 0.05 GiB), and of 0.6.5-0.6.6
# 29 (0.26), 32 (0.16), 94 (0.10), 109 (0.10), 111 (0.28) and 300 (0.11 GiB) print it. 0.6.4
# and 0.6.4.post1 book the whole device (worker.py :209-213 of 0.6.4.post1: total - free after
# the profile run less torch's allocated bytes, PR #9352): NON_TORCH_V0, fitted on log 01.
# V0 0.3.1-0.6.3 measured the same growth (peak = init free - free, kvplan.engines.vllm_v0_early),
# 0.2.5-0.3.0 the whole device (the context term) and 0.2.4 and earlier torch's allocated peak
# alone (none). Issue #13 task h39v066, read in the wheels (0.5.5, 0.6.0, 0.6.3, 0.6.4.post1,
# 0.6.5, 0.6.6, 0.6.6.post1, 0.7.0); before it the growth rule started at 0.7.
V0_GROWTH_FROM = (0, 6, 5)
# With tensor parallelism too: vLLM 0.7.2's V0 Worker.init_device takes that baseline snapshot
# *before* init_worker_distributed_environment (vllm/worker/worker.py, the 0.7.2 wheel; 0.6.5
# and 0.6.6 read init_gpu_memory in the same place, above, and create the same communicators:
# 0.6.5 custom_all_reduce.py :153-157 create_shared_buffer, cudaMalloc'd), so the
# TP group's NCCL communicators (pynccl and the torch process group) and custom all-reduce's
# IPC buffers (the GroupCoordinator of vllm/distributed/parallel_state.py, which V0 and V1
# share) land in the printed non_torch_memory as they do in V1's: V0 from 0.6.5 books V1's TP
# term by transport (_tp_table), where 0.6.4 and earlier keep NON_TORCH_V0_TP (context + NCCL). Read in
# the source for issue #13 task h30v0, not fitted: log 254 (0.7.2, TP 2, 40 GB cards) prints
# 1.54 GiB, inside the 20 MiB-2 GiB of the unlabelled TP term (best 1 GiB, log 24).
V0_TP_GROWTH_FROM = V0_GROWTH_FROM
# V1 before 0.9.1 books the whole device: Worker.determine_available_memory (vllm/v1/worker/
# gpu_worker.py; read in the 0.7.3 :176, 0.8.4 :174-181, 0.8.5 :203-207 and 0.9.0 :205-209
# wheels) takes `total_allocated_bytes = mem_get_info()[1] - mem_get_info()[0]` after the profile
# run and empty_cache, books `non_torch_allocations = total_allocated_bytes -
# torch_allocated_bytes` on top of torch's allocated peak, and requests total x
# gpu_memory_utilization; init_gpu_memory (taken in init_device) only feeds an assert. So the
# worker's CUDA context, NCCL's device memory and any other process on the GPU count, as in V0
# 0.6.4 (PR #9352, NON_TORCH_V0). From 0.9.1 init_device takes `self.init_snapshot =
# MemorySnapshot()` (0.9.1 :135, 0.9.2 :140) and determine_available_memory books the growth
# over it (`with memory_profiling(...)`, 0.9.1 :201, 0.9.2 :206): NON_TORCH_V1. Before 0.9.1
# the V1 term is therefore the growth term (one GPU, or the TP table by transport, the TP set-up
# counted: the snapshot-free formula sees it) plus the rest of V0's whole-device term, its CUDA
# context: NON_TORCH_V0 less NON_TORCH_V1, so one GPU books NON_TORCH_V0 itself (fitted on logs
# 01 and 29, not refitted). Issue #13 task h33v08 (from the misses of logs 274 and 275).
V1_GROWTH_FROM = (0, 9, 1)
V1_CONTEXT = (NON_TORCH_V0[0] - NON_TORCH_V1[0], NON_TORCH_V0[1] - NON_TORCH_V1[1],
              NON_TORCH_V0[2] - NON_TORCH_V1[2])


def counts_other_processes(fl: Flavour) -> str | None:
    """Where a release books the whole device's use, as above (V0 0.2.5-0.3.0 and 0.6.4, V1
    before 0.9.1), the source that makes memory any other process holds on the GPU come off the
    pool; None where it books growth over a start-up baseline (other processes then only need to
    leave the budget free) or torch's peak alone (0.2.4 and earlier)."""
    ver = parse_version(fl.version)
    if ver is None:
        return None
    if fl.v1:
        return ("V1 before 0.9.1 books mem_get_info's total - free after the profile run, "
                "gpu_worker.py determine_available_memory, 0.8.5 :203-207"
                if ver < V1_GROWTH_FROM else None)
    if early_peak(fl.version, False) == PEAK_DEVICE:
        return "V0 0.2.5-0.3.0 books total - free after the profile run, PR #2031, worker.py:90-98"
    if PROFILER_064 <= ver < V0_GROWTH_FROM:
        return ("V0 0.6.4 books total - free after the profile run less torch's allocated bytes, "
                "PR #9352, worker.py:209-213 of 0.6.4.post1")
    return None


def settings_count_other_processes(s: EngineSettings) -> tuple[str, str] | None:
    """(release, source) where the settings name a vLLM release that counts other processes'
    memory (counts_other_processes); None for any other engine or release. For `kvplan check`,
    which keeps no engine-name branch of its own."""
    if s.engine != Engine.vllm:
        return None
    fl = flavour(s.version)
    rule = counts_other_processes(fl)
    return None if rule is None else (fl.version, rule)


NVLINK_FORM_FACTORS = ("SXM", "HGX", "DGX", "NVL72")


def nvlink_module(label: str, device_names: list[str] | tuple[str, ...] = ()) -> bool:
    """Whether a GPU's sourced label or runtime device names name an NVLink form factor: an SXM
    module or an HGX/DGX/NVL72 board ("NVIDIA A100-SXM4-40GB", "NVIDIA B200 (HGX/DGX B200...)").
    A PCIe card, or a name that says neither, is not taken for one."""
    names = [label, *device_names]
    return any(f in n.upper() for n in names for f in NVLINK_FORM_FACTORS)


_TRANSPORT_WHY = {
    "nvlink": "NVLink TP workspaces (NCCL, FlashInfer all-reduce, custom all-reduce; fitted on "
              "logs 62, 75)",
    "pcie-p2p": "NCCL's P2P buffers on the GPU (9.2 MiB per channel and peer, at least 2 "
                "channels) over the one-GPU growth; best and high from log 24",
    "host": "NCCL's buffers in host memory (SHM without P2P, the network across nodes without "
            "GPUDirect RDMA) and custom all-reduce off: the one-GPU growth",
}


def _tp_table(tp: int, nvlink: bool, transport: str | None, custom_ar: bool,
              after_init: bool = False) -> tuple[tuple[int, int, int], str]:
    """V1 with tensor parallelism: the term by transport (stated, else the GPU label's form
    factor) and the words explain prints. `after_init`: the release snapshots after the TP
    set-up (TP_SNAPSHOT_AFTER_INIT_FROM), so off NVLink only NCCL's in-window buffers count."""
    on_nvlink = transport == "nvlink" or transport is None and nvlink
    if after_init and not on_nvlink and transport != "host":
        table = NON_TORCH_V1_TP_AFTER_INIT if transport is None else NON_TORCH_V1_TP_AFTER_INIT_P2P
        how = (" with NCCL's in-window TP buffers (vLLM >= 0.11 snapshots after the TP set-up: "
               "PyNccl, custom all-reduce and the ring are outside the term; torch's device-group "
               "communicator and run-time connections over P2P, 2-64 channels x 9.2 MiB, are in"
               + (f"; stated {transport})" if transport else
                  "; transport not stated: host memory books the low end)"))
        if not custom_ar:
            how += "; --disable-custom-all-reduce: its buffers are outside the term anyway"
        return table, how
    if transport is None:
        table, how = (NON_TORCH_V1_TP_NVLINK, " with NVLink TP workspaces (NCCL, FlashInfer "
                      "all-reduce, custom all-reduce; transport not stated: an NVLink module "
                      "by the GPU label)") if nvlink else (
            NON_TORCH_V1_TP, " with TP buffers (range: the transport NCCL picks, P2P over PCIe "
            "with buffers on the GPU, or host memory without P2P or across nodes, is not stated:"
            " give --tp-transport)")
    else:
        table = {"nvlink": NON_TORCH_V1_TP_NVLINK, "pcie-p2p": NON_TORCH_V1_TP_PCIE_P2P,
                 "host": NON_TORCH_V1}[transport]
        how = f" with TP buffers over {transport} (stated: {_TRANSPORT_WHY[transport]})"
    if transport == "pcie-p2p" and tp == 2 and custom_ar and not after_init:
        table = tuple(x + CUSTOM_AR_BYTES for x in table)  # type: ignore[assignment]
        how += " + custom all-reduce's 16 MiB (TP 2)"
    elif not custom_ar and on_nvlink and after_init:
        how += "; --disable-custom-all-reduce: its buffers are outside the term from 0.11"
    elif not custom_ar and on_nvlink:
        table = tuple(x - CUSTOM_AR_BYTES for x in table)  # type: ignore[assignment]
        how += "; --disable-custom-all-reduce: less its 16 MiB of IPC buffers"
    elif not custom_ar:
        how += "; --disable-custom-all-reduce: custom all-reduce books nothing here anyway"
    return table, how


def non_torch(fl: Flavour, tp: int, weights: int, quantized: bool,
              nvlink: bool = False, unified: bool = False, transport: str | None = None,
              custom_ar: bool = True, generation: str | None = None,
              fp8_load: bool = False) -> tuple[Interval, str]:
    """The non-torch term a vLLM version books, and how it was chosen. `fp8_load`: FP8 weights
    quantized at load (fp8_at_load), booked with the repack cache by 0.6.4. `transport` is the
    stated TP transport (TP_TRANSPORTS; None: by the GPU label), `custom_ar` False for
    --disable-custom-all-reduce, `generation` the NVSwitch generation (vllm_tp_workspaces:
    'hopper', 'blackwell' or None), whose NCCL NVLS and tree buffers above TP 2 are added."""
    # V0 from 0.6.5 books TP buffers as V1 does (V0_TP_GROWTH_FROM): V1's TP table
    v0_tp_growth = not fl.v1 and tp > 1 and (parse_version(fl.version) or ()) >= V0_TP_GROWTH_FROM
    after_init = fl.v1 and (parse_version(fl.version) or ()) >= TP_SNAPSHOT_AFTER_INIT_FROM
    v1_tp, tp_how = _tp_table(tp, nvlink, transport, custom_ar, after_init) if (
        fl.v1 or v0_tp_growth) and tp > 1 else (NON_TORCH_V1_TP, "")
    v1_one = NON_TORCH_V1_UNIFIED if unified else NON_TORCH_V1
    early = early_peak(fl.version, fl.v1)
    if early == PEAK_ALLOCATED:
        return Interval.exact(0), "none booked (vLLM < 0.2.5 profiles torch.cuda.max_memory_allocated)"
    v0_growth = not fl.v1 and tp == 1 and (
        (parse_version(fl.version) or ()) >= V0_GROWTH_FROM or early == PEAK_GROWTH)
    table = (v1_tp if tp > 1 else v1_one) if fl.v1 or v0_tp_growth else (
        NON_TORCH_V0_TP if tp > 1 else NON_TORCH_V1 if v0_growth else NON_TORCH_V0)
    nt = Interval(*table)
    how = "growth after start-up" if fl.v1 else (
        "growth after start-up (V0 from 0.6.5: start-up baseline before the TP groups)"
        if v0_tp_growth else
        "growth after start-up (V0 0.3.1-0.6.3: init free - free)" if v0_growth and early
        else "growth after start-up (V0 from 0.6.5: start-up baseline)" if v0_growth
        else "CUDA context + NCCL")
    if fl.v1 and unified and tp == 1:
        how += " (unified memory: the host memory drawn during start-up counts)"
    elif fl.v1 and not unified and (parse_version(fl.version) or V1_GROWTH_FROM) < V1_GROWTH_FROM:
        nt = Interval(*(a + b for a, b in zip(table, V1_CONTEXT)))
        how = ("device use less torch's allocated bytes (V1 before 0.9.1: the CUDA context "
               "counts)")
    lo_v, hi_v = REPACK_CACHED_VERSIONS
    if not fl.v1 and (quantized or fp8_load) and lo_v <= (parse_version(fl.version) or ()) < hi_v:
        extra = [int(weights * f) for f in REPACK_CACHED_SHARE]
        nt = Interval(nt.best + extra[0], nt.low + extra[1], nt.high + extra[2])
        how += (" + quantized-weight repack cache (vLLM 0.6.4)" if quantized else
                " + the cache of 16-bit weights quantized to FP8 at load (vLLM 0.6.4)")
    if tp > 1 and (fl.v1 or v0_tp_growth):
        how += tp_how
        if tp > 2 and (transport == "nvlink" or transport is None and nvlink):
            ws, ws_how = tp_workspace_extra(tp, generation, fl.version)
            nt = Interval(nt.best + ws.best, nt.low + ws.low, nt.high + ws.high)
            how += f"; + {ws_how}"
    elif tp > 1:
        how += " with TP buffers" + (
            f" (tp_transport {transport} not modelled for V0: one TP term)" if transport else ""
        ) + ("" if custom_ar else " (--disable-custom-all-reduce not modelled for V0)")
    elif transport is not None:
        how += f" (tp_transport {transport}: no tensor parallelism, so no TP buffers)"
    return nt, how
