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
- What is measured (0.30.0 `gpu/cudagraph_utils.py` `profile_cudagraph_memory` :847-949 and
  `_extrapolate_full_graph_memory` :952-962; the old runner's `gpu_model_runner.py:6661-6825`):
  the graphs are captured into a throwaway pool, largest size first; the first capture
  allocates the pool's baseline (the largest size's intermediates), each later graph adds its
  own cost, at least 1 MiB ("driver overhead per graph", `_MIN_PER_GRAPH_BYTES`, :843); PIECEWISE
  graphs are measured in full, FULL graphs as the first capture + (n - 1) x the second's. A
  PIECEWISE size is num_layers + 1 pieces split at the attention ops and a FULL graph holds every
  layer's kernels, so a graph's cost grows with the layers.

So the estimate is graphs x layers x a per-graph-layer cost (the pool's baseline folded in: at
the small sizes that dominate the count it is a few MiB). The cost is not in the source: FITTED
on the fit logs that print the engine's own estimate (tests/assets/logs/FITTED.tsv), each at 86
graphs (51 PIECEWISE up to 512, 35 FULL up to 256: 256 sequences, as 211 and 272 print):
211 (0.23.0, Qwen2.5-VL-7B, 28 layers, one A100 80GB) 0.53 GiB -> 0.225 MiB, the best (the
median of the one-GPU fits); 253 (0.31.0, Qwen2.5-Coder-1.5B, 28 layers, A100 40GB)
(0.9200 - 0.9110) x 39.49 = 0.355 GiB -> 0.151 MiB, the low end; 285 (0.30.0, Qwen3-30B-A3B-FP8,
48 layers, GB10) 0.0090 x 121.63 = 1.095 GiB -> 0.272 MiB; 272 (0.19.0, which prints the
estimate without subtracting it; Qwen2.5-72B, 80 layers, TP 4 on L40S) 2.73 GiB -> 0.406 MiB,
the high end 0.41 MiB (the TP all-reduce kernels in every layer's graphs). The spread between
models and TP degrees (a 1.5B at 0.15 against a TP-4 72B at 0.41: the kernels a layer launches)
dominates the term's interval; the printed rounding (2 decimals of GiB, 4 of a fraction) moves
each fit by under 1%. Checked on 447 (0.30.0, Mistral-7B, 8 sequences: 9 graphs x 32 layers x
0.225 MiB = 0.063 GiB, where the flat 0.5 GiB left 0.44 GiB too much outside the pool; moved to
fit, task h43graphs).

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

# (best, low, high) bytes per captured graph and decoder layer: 211, 253, 272 (see above)
GRAPH_LAYER_BYTES = (MIB * 225 // 1000, MIB * 15 // 100, MIB * 41 // 100)
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
    cap = capture(version, seqs, batched, spec_tokens, gpu_name, stated)
    best, low, high = (cap.graphs * layers * b for b in GRAPH_LAYER_BYTES)
    full = "FULL" if stated.mode == "FULL" else "FULL decode"
    source = (f"{stated.said}, max_num_batched_tokens {batched:,}" if stated.said else
              f"capture sizes from max_num_seqs {seqs:,}"
              f"{f' x {1 + spec_tokens} tokens' if spec_tokens else ''} and "
              f"max_num_batched_tokens {batched:,}")
    how = (f"{cap.graphs} graphs (PIECEWISE {len(cap.piecewise)}: {_sizes(cap.piecewise)}; "
           f"{full} {len(cap.full)}: {_sizes(cap.full)}) x {layers} layers x "
           f"{GRAPH_LAYER_BYTES[0] / MIB:.3f} MiB ({source}: kvplan.engines.vllm_capture)")
    return Interval(best, low, high), how
