"""vLLM's CUDA-graph estimate as a function of the capture sizes (issue #13, task h43graphs).

Where vLLM subtracts a CUDA-graph estimate before sizing the pool (0.21 on; which releases and
runners: kvplan.engines.vllm_graphs), or measures the graphs with the other non-KV memory (0.34's
extensible KV cache), kvplan books this estimate. Read in the 0.30.0 wheel, the capture sizes
checked in 0.21.0 and 0.34.0:

- Capture sizes (`config/vllm.py` `VllmConfig._set_cudagraph_sizes`, 0.30.0 :2151-2397; 0.21.0
  :1476-1638; 0.34.0 :2322-2547): the ceiling is min(max_num_seqs x decode query length x 2,
  512) (0.30.0 :2214-2224; 1,024 on data-centre Blackwell, compute capability 10.x, from 0.30, and
  0.34.0 :2401-2408; 0.21.0 :1536-1538 has 512 alone), then min(that, max_num_batched_tokens)
  (:2304); the sizes are 1, 2, 4, every multiple of 8 below 256 and every multiple of 16 from 256, up to the
  ceiling (:2330-2343), plus max_num_batched_tokens where it is under the ceiling (:2345-2349).
  The decode query length is 1 + num_speculative_tokens (`uniform_decode_query_len`, :654-662);
  from 0.30 its request-count multiples are added too (:2225-2302, :2353-2355).
- Modes: every optimization level that captures (-O2, -O3, the serve default) sets
  cudagraph_mode FULL_AND_PIECEWISE (0.30.0 :318, :341; 0.21.0 :230, :252; 0.34.0 :339, :360):
  a PIECEWISE graph for every capture size, and a FULL decode graph for each size rounded up to
  the decode query length that stays within max_num_seqs requests and the ceiling
  (`v1/worker/gpu/cudagraph_utils.py` `CudaGraphManager._init_candidates`, 0.30.0 :248-369; the
  old runner's dispatcher gives the same counts: fit log 211, 0.23, prints "PIECEWISE=51
  (largest=512), FULL=35 (largest=256)" at 256 sequences, as this rule gives).
- What is measured (task h44graphbase, read in the 0.21.0, 0.22.1, 0.27.1, 0.30.0 and 0.34.0
  wheels). The old V1 runner (`v1/worker/gpu_model_runner.py` `profile_cudagraph_memory`, 0.21.0
  :6049-6147, 0.22.1 :6265-6370, 0.27.1 :6645-6811, 0.30.0 :6661-6827; 0.34.0 no longer ships
  it) empties the allocator's cache (0.22.1 :6303), then for each mode captures only its two
  largest graphs (`descs[:2]`, :6306) into a throwaway pool, each sample the device's free memory
  before and after `_warmup_and_capture` (a warm-up forward, then the capture, :6308-6326), the
  first FULL one with the attention's context at min(max_model_len, max_num_batched_tokens /
  size) a request (:6314-6322); a mode's first sample is its shared cost, its second the cost of
  each later graph, at least 1 MiB (:6327-6332), and the estimate is max over the modes of the
  first + sum over the modes of (count - 1) x second (:6359-6364; 0.27.1 :6800, 0.30.0 :6816 add
  a multimodal encoder's graphs on top). Model Runner V2 (0.30.0 `v1/worker/gpu/cudagraph_utils.py`
  `profile_cudagraph_memory` :847-949, `_extrapolate_full_graph_memory` :952-962; 0.34.0
  :989-1096, :1098-1106) runs the real capture once (`capture_model(profile_only=True)`, whose
  free-memory difference spans every warm-up and capture: 0.30.0 `gpu/model_runner.py`
  :1017-1064, 0.34.0 :1160-1214), every PIECEWISE graph measured and the FULL ones extrapolated
  from the two largest as first + (n - 1) x max(second, 1 MiB) (samples around the capture alone,
  0.30.0 `cudagraph_utils.py` :469-484): the same first-plus-later form, the FULL first added
  rather than overlaid (one later graph's cost more, not modelled). So the first sample holds
  more than its graph: the warm-up's activations at the largest size, allocated afresh after the
  cache was emptied (on the capture's own stream: torch's caching allocator keeps free blocks per
  stream), the private pool's intermediates at that size (the largest size x hidden /
  intermediate widths, torch.compile's piecewise outputs), the first FULL capture's longer
  context, any kernels loaded lazily on first use, and the driver's memory for the graph itself;
  a later graph, in a pool that already holds those blocks, adds mostly its own graph (a
  PIECEWISE graph is num_layers + 1 pieces split at the attention ops, a FULL graph every layer's
  kernels: it grows with the layers). None of these sizes is fixed in vLLM's source (the GitHub
  issues vllm-project/vllm#50780 and #45178 describe the same two parts: a first-capture
  transient that follows max_num_batched_tokens on hybrid models, and the linear (count - 1) x
  second extrapolation).

So kvplan books the first capture (the baseline) + (graphs - modes) x layers x a per-graph-layer
cost, both FITTED on the fit logs that print the engine's estimate and its graph counts
(tests/assets/logs/FITTED.tsv). Only two fit logs of one model family separate the terms: 480
(0.22.1, Qwen2.5-7B-AWQ, 28 layers, RTX 3090, 8 sequences: 5 + 4 graphs, 0.35 GiB; moved to fit
by task h44graphbase) and 211 (0.23.0, Qwen2.5-VL-7B, 28 layers, A100 80GB, 256 sequences: 51 +
35 graphs, 0.53 GiB): (0.53 - 0.35) GiB / ((84 - 7) x 28) = 0.0855 MiB a later graph and layer,
0.35 GiB - 7 x 28 x 0.0855 MiB = 342 MiB of baseline (the best; the prints' rounding, 0.005 GiB
each, moves the cost by 6% and the baseline by 2%). The other 86-graph fit logs set the range
at the best of the other term: 253 (0.31.0, Qwen2.5-Coder-1.5B, 28 layers, A100 40GB,
(0.9200 - 0.9110) x 39.49 = 0.355 GiB) a baseline of 364 - 84 x 28 x 0.0855 = 163 MiB, the low
end; 285 (0.30.0, Qwen3-30B-A3B-FP8, 48 layers, GB10, 0.0090 x 121.63 = 1.095 GiB) 1,121 - 84 x
48 x 0.0855 = 776 MiB, the high end; 272 (0.19.0, which prints the estimate without subtracting
it; Qwen2.5-72B at TP 4 on L40S, 80 layers, 2.73 GiB) (2,796 - 342) / (84 x 80) = 0.365 MiB a
later graph and layer, the high end (the TP all-reduces in every layer's graphs). The low
per-graph-layer cost is the best (no fit log separates a lower one). Which term dominates the
interval: at few graphs the baseline's 163-776 MiB (9 graphs x 28 layers: 0.18-0.83 GiB, best
0.35), at the 86 default graphs of a large model the per-graph-layer cost's 0.0855-0.365 MiB
(80 layers: 0.72-3.15 GiB, best 0.89). Until task h44graphbase: graphs x layers x 0.225 MiB
(0.15-0.41), which put 480 at 0.06 GiB. Task h48graphfit added fit log 560 (0.24.0,
Qwen2.5-7B-Instruct, 86 graphs, 28 layers, 0.53 GiB: on 211's point) and refitted by least
squares over every fit log that prints the estimate: only 480, 211 and 560 give a line with a
positive first capture (341.6 MiB + 0.08549 MiB); with 272, or over Model Runner V2's 253 and
285, it crosses below zero (-114.0 and -695.9 MiB), so the constants stay (docs/engines-calibration.md).
Not modelled: the baseline's dependence on the model (mostly non-torch memory: the largest
size's activations are tens of MiB, and the MoE workspace is grown by the profile run before the
samples, 0.21.0 gpu_worker.py :392, :407), the GPU, max_num_batched_tokens and the largest
size (held-out 218 and 267, Qwen3-30B-A3B, print 0.15 and 0.14 GiB at 12 and 30 graphs: a
baseline of at most 0.14 GiB there).

Stated settings (task h43capsz; kvplan/v1 engine.cudagraph_capture_sizes,
max_cudagraph_capture_size, cudagraph_mode; vLLM's --cudagraph-capture-sizes,
--max-cudagraph-capture-size, -cc.cudagraph_mode / --compilation-config), read in 0.30.0:
- Stated sizes (`_set_cudagraph_sizes` :2312-2323): de-duplicated, those above
  max_num_batched_tokens dropped, sorted; no ceiling, grid or decode sizes are added. An empty
  list stops the engine (the assert at :2313-2316).
- A stated max_cudagraph_capture_size without sizes replaces the ceiling (:2207-2214, so no
  decode-size multiples: they are computed only for the default ceiling), still capped by
  max_num_batched_tokens (:2303-2304); the grid and max_num_batched_tokens follow as above.
- Both stated: vLLM raises "customized max_cudagraph_capture_size ... should be consistent with
  the max value of cudagraph_capture_sizes" unless the stated maximum is the largest size kept
  (:2369-2386): refused (kvplan.engines.vllm_flag_versions.missing_flags).
- cudagraph_mode (`config/compilation.py` `CUDAGraphMode` :59-97; `cudagraph_utils.py`
  `_init_candidates` :248-369): NONE captures nothing (:251, and `_set_cudagraph_sizes` :2201-2205
  leaves no sizes); PIECEWISE one PIECEWISE graph per size (mixed mode PIECEWISE, no separate
  decode routine); FULL one FULL graph per size (mixed mode FULL, :343-359); FULL_DECODE_ONLY
  only the FULL decode graphs (decode mode FULL, mixed NONE); FULL_AND_PIECEWISE both (the
  default, above). A FULL graph is booked at the same per-graph-layer cost as a PIECEWISE one.

Not modelled: sequence
parallelism's TP-divisible sizes (`enable_sp`, dense models at TP > 1, :2359-2366), models or
attention backends that fall back to PIECEWISE only, LoRA capture cases, the drafter's graphs,
and the encoder graphs of multimodal models.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.engines.interface import Interval, parse_version
from kvplan.units import MIB

# (best, low, high) bytes of the first capture, the baseline: 480 and 211; 253; 285 (see above)
BASE_BYTES = (MIB * 342, MIB * 163, MIB * 776)
# (best, low, high) bytes per later graph and decoder layer: 480 and 211; the best; 272
GRAPH_LAYER_BYTES = (MIB * 855 // 10000, MIB * 855 // 10000, MIB * 365 // 1000)
DEFAULT_CEILING = 512  # config/vllm.py 0.30.0 :2216-2218, 0.21.0 :1537
BLACKWELL_CEILING = 1024  # compute capability 10.x, from 0.30 (0.30.0 :2216-2218)
BLACKWELL_CEILING_FROM = (0, 30)  # 0.21.0 :1536-1538 has 512 on every GPU
UNIFORM_DECODE_SIZES_FROM = (0, 30)  # 0.30.0 :2225-2302; 0.21.0 adds none
SM100 = ("b200", "b100", "gb200", "b300", "gb300")
MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


@dataclass(frozen=True)
class Stated:
    """What a deployment states of vLLM's capture: sizes, their maximum, the mode (None: the
    release's default)."""

    sizes: tuple[int, ...] | None = None
    max_size: int | None = None
    mode: str | None = None

    @property
    def said(self) -> str:
        parts = []
        if self.sizes is not None:
            parts.append("stated cudagraph_capture_sizes " + ", ".join(map(str, self.sizes)))
        if self.max_size is not None:
            parts.append(f"stated max_cudagraph_capture_size {self.max_size:,}")
        if self.mode is not None:
            parts.append(f"stated cudagraph_mode {self.mode}")
        return "; ".join(parts)


def parse_sizes(text: str) -> tuple[int, ...]:
    """kvplan/v1's engine.cudagraph_capture_sizes: whole numbers, comma- or space-separated
    (ValueError for anything else, or a size under 1)."""
    sizes = tuple(int(part) for part in text.replace(",", " ").split())
    if any(size < 1 for size in sizes):
        raise ValueError("a capture size under 1")
    return sizes


def inconsistency(stated: Stated, batched: int | None) -> str | None:
    """Why vLLM refuses the stated sizes (None: it starts): an empty list, or a stated maximum
    other than the largest size kept under max_num_batched_tokens (`batched`; None: unknown,
    the sizes unfiltered)."""
    if stated.sizes is None:
        return None
    if not stated.sizes:
        return ("vLLM stops on an empty cudagraph_capture_sizes (\"cudagraph_capture_sizes "
                "should contain at least one element when using cuda graph\", config/vllm.py "
                ":2313-2316 in 0.30.0)")
    kept = [s for s in stated.sizes if batched is None or s <= batched]
    largest = max(kept, default=0)
    if stated.max_size is not None and stated.max_size != largest:
        return (f"vLLM stops when max_cudagraph_capture_size ({stated.max_size:,}) is not the "
                f"largest capture size kept ({largest:,}): \"customized "
                "max_cudagraph_capture_size ... should be consistent with the max value of "
                "cudagraph_capture_sizes\" (config/vllm.py :2369-2386 in 0.30.0); drop one")
    return None


@dataclass(frozen=True)
class Capture:
    """The graphs vLLM captures: PIECEWISE sizes and FULL decode sizes (tokens)."""

    piecewise: tuple[int, ...]
    full: tuple[int, ...]

    @property
    def graphs(self) -> int:
        return len(self.piecewise) + len(self.full)

    @property
    def modes(self) -> int:
        """The modes with a graph: each mode's first capture is its own baseline sample."""
        return bool(self.piecewise) + bool(self.full)

    @property
    def later(self) -> int:
        """Graphs after each mode's first: vLLM's (count - 1) per mode."""
        return self.graphs - self.modes

    @property
    def printed(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """((PIECEWISE count, largest), (FULL count, largest)) as vLLM's "Profiling CUDA graph
        memory" line prints them (0, 0 for a mode without graphs)."""
        return ((len(self.piecewise), max(self.piecewise, default=0)),
                (len(self.full), max(self.full, default=0)))


def graph_bytes(cap: Capture, layers: int) -> Interval:
    """The estimate for `cap` at `layers` decoder layers a GPU: the baseline + later graphs x
    layers x the per-graph-layer cost (nothing where no graph is captured)."""
    if not cap.graphs:
        return Interval.exact(0)
    best, low, high = (base + cap.later * layers * per
                       for base, per in zip(BASE_BYTES, GRAPH_LAYER_BYTES))
    return Interval(best, low, high)


def _grid(ceiling: int) -> list[int]:
    """1, 2, 4, multiples of 8 below 256, multiples of 16 from 256, up to `ceiling`."""
    sizes = [i for i in (1, 2, 4) if i <= ceiling]
    if ceiling >= 8:
        sizes += list(range(8, min(ceiling + 1, 256), 8))
    if ceiling >= 256:
        sizes += list(range(256, ceiling + 1, 16))
    return sizes


def capture(version: str, seqs: int, batched: int, spec_tokens: int = 0,
            gpu_name: str = "", stated: Stated = Stated()) -> Capture:
    """The capture sizes `_set_cudagraph_sizes` picks and the graphs captured for them."""
    mode = stated.mode or "FULL_AND_PIECEWISE"
    if mode == "NONE":  # config/vllm.py :2201-2205, :2411-2414: no sizes
        return Capture((), ())
    ver = parse_version(version) or ()
    query = 1 + spec_tokens
    if stated.sizes is not None:  # :2312-2323: de-duplicated, filtered, sorted
        sizes = [s for s in stated.sizes if s <= batched]
    else:
        default = (BLACKWELL_CEILING if ver >= BLACKWELL_CEILING_FROM
                   and gpu_name.lower().startswith(SM100) else DEFAULT_CEILING)
        uniform: list[int] = []
        if stated.max_size is not None:  # :2207-2214: the stated ceiling, no decode sizes
            ceiling = stated.max_size
        else:
            ceiling = min(seqs * query * 2, default)
            if query > 1 and ver >= UNIFORM_DECODE_SIZES_FROM:
                reqs = min(seqs, default)
                counts = sorted(set(_grid(reqs)) | {reqs})
                uniform = [n * query for n in counts if n * query <= ceiling]
        ceiling = min(batched, ceiling)
        sizes = _grid(ceiling)
        if batched <= ceiling:
            sizes.append(batched)
        sizes += [s for s in uniform if s <= batched]
    captured = sorted(set(sizes))
    if not captured:
        return Capture((), ())
    full: set[int] = set()
    if mode in ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY"):  # the separate decode routine
        for size in captured:  # cudagraph_utils.py :312-334: rounded to the query length
            rounded = -(-size // query) * query
            if rounded <= seqs * query and rounded <= captured[-1]:
                full.add(rounded)
    elif mode == "FULL":  # one FULL graph per size (mixed mode FULL, :343-359)
        full = set(captured)
    piecewise = captured if mode in ("PIECEWISE", "FULL_AND_PIECEWISE") else []
    return Capture(tuple(piecewise), tuple(sorted(full)))


def _sizes(sizes: tuple[int, ...]) -> str:
    if len(sizes) <= 6:
        return ", ".join(str(s) for s in sizes)
    return f"{sizes[0]}, {sizes[1]}, {sizes[2]} ... {sizes[-1]}"


def estimate(version: str, seqs: int, batched: int, layers: int, spec_tokens: int = 0,
             gpu_name: str = "", stated: Stated = Stated()) -> tuple[Interval, str]:
    """The graph term (best, low, high) and `kvplan explain`'s wording of it."""
    term, how, _ = booked(version, seqs, batched, layers, spec_tokens, gpu_name, stated)
    return term, how


def booked(version: str, seqs: int, batched: int, layers: int, spec_tokens: int = 0,
           gpu_name: str = "", stated: Stated = Stated()) -> tuple[Interval, str, Capture]:
    """`estimate` and the Capture it is computed from (kvplan.engines.vllm's profile carries
    it on its result: EngineResult.graph_capture, which `kvplan calibrate` checks)."""
    cap = capture(version, seqs, batched, spec_tokens, gpu_name, stated)
    term = graph_bytes(cap, layers)
    full = "FULL" if stated.mode == "FULL" else "FULL decode"
    source = (f"{stated.said}, max_num_batched_tokens {batched:,}" if stated.said else
              f"capture sizes from max_num_seqs {seqs:,}"
              f"{f' x {1 + spec_tokens} tokens' if spec_tokens else ''} and "
              f"max_num_batched_tokens {batched:,}")
    how = (f"{BASE_BYTES[0] // MIB} MiB first capture + {cap.later} later graphs (each "
           f"mode's first left out) x {layers} layers x {GRAPH_LAYER_BYTES[0] / MIB:.4f} MiB; "
           f"{cap.graphs} graphs (PIECEWISE {len(cap.piecewise)}: {_sizes(cap.piecewise)}; "
           f"{full} {len(cap.full)}: {_sizes(cap.full)}) ({source}: kvplan.engines.vllm_capture)"
           if cap.graphs else f"no graphs captured ({source}: kvplan.engines.vllm_capture)")
    return term, how, cap
