"""kvplan.calibrate.compile_cache: a vLLM run's torch.compile cache read from the log's own lines
(task h43cold). The synthetic lines are vLLM's format strings filled as its logger does
(vllm/compilation/backends.py: 0.11.0 :165-169, :198, :218; 0.27.1 :293, :379, :394;
decorators.py 0.27.1 :312; monitor.py "torch.compile took %.2f s in total"); the real logs' states
were read by hand from the lines quoted in each test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.calibrate.compile_cache import COLD, EAGER, UNKNOWN, WARM, compile_cache_state
from kvplan.calibrate.parse import parse_file, parse_text

LOGS = Path(__file__).resolve().parents[1] / "assets" / "logs"
PREFIX = "(EngineCore pid=1) INFO 10-09 06:00:09 "
COMPILE_RANGE = "[backends.py:394] Compiling a graph for compile range (1, 2048) takes 7.83 s"
CACHE_GRAPH = "[backends.py:379] Cache the graph of compile range (1, 2048) for later use"
LOAD_RANGE = ("[backends.py:293] Directly load the compiled graph(s) for compile range (1, 2048) "
              "from the cache, took 4.645 s")
LOAD_DYNAMIC = ("[backends.py:164] Directly load the compiled graph(s) for dynamic shape from the "
                "cache, took 4.849 s")
LOAD_AOT = "[decorators.py:312] Directly load AOT compilation from path /root/.cache/vllm/x/model"
TOOK = "[monitor.py:53] torch.compile took 18.86 s in total"
TAKES = "[monitor.py:34] torch.compile takes 4.99 s in total"
KV = "[kv_cache_utils.py:2235] GPU KV cache size: 35,792 tokens"


def _state(*lines: str, directive: str = "") -> str:
    text = "\n".join([directive, *(PREFIX + line for line in lines), PREFIX + KV])
    (run,) = parse_text(text, Path("synthetic.log")).runs
    return compile_cache_state(run)


@pytest.mark.parametrize(("lines", "expected"), [
    ((COMPILE_RANGE, TOOK), COLD),          # a graph compiled from scratch
    ((CACHE_GRAPH,), COLD),                 # printed only after a fresh compile is stored
    ((LOAD_RANGE, TOOK), WARM),             # the graphs came from the cache
    ((LOAD_DYNAMIC, TAKES), WARM),
    ((LOAD_AOT, TOOK), WARM),
    ((LOAD_RANGE, COMPILE_RANGE, TOOK), COLD),  # one graph loaded, another compiled: cold
    ((TOOK,), COLD),                        # the timer with no load line: cold (the brief's rule)
    ((TAKES,), COLD),
    ((), UNKNOWN),                          # an excerpt that quotes neither
])
def test_synthetic_lines(lines: tuple[str, ...], expected: str) -> None:
    assert _state(*lines) == expected


def test_eager_wins_over_any_compile_line() -> None:
    """enforce_eager=True (printed in the engine arguments or stated by directive) means no
    torch.compile at all, whatever else the excerpt holds."""
    assert _state(COMPILE_RANGE, directive="# kvplan: enforce_eager=true") == EAGER
    config = ("[core.py:129] Initializing a V1 LLM engine (v0.31.0) with config: model='Qwen/Qwen3-8B', "
              "enforce_eager=True, kv_cache_dtype=auto")
    assert _state(config, TOOK) == EAGER


@pytest.mark.parametrize(("name", "expected"), [
    # "torch.compile took 38.96 s in total", no load line (the cold run of the three the notes give)
    ("440-vllm-qwen3-8b-rtx4090-runpod-8k-default-v0.27.1.log", COLD),
    # "Compiling a graph for compile range (1, 2048) takes 7.83 s"
    ("253-vllm-qwen2.5-coder-1.5b-fp16-a100-40gb-16k-v0.31.0.log", COLD),
    # "Cache the graph for dynamic shape for later use", "Compiling a graph for dynamic shape takes"
    ("270-vllm-qwen3-30b-a3b-2507-bf16-h100-6k-v0.10.2.log", COLD),
    # "Directly load the compiled graph(s) for compile range (1, 2048) from the cache" and AOT
    ("268-vllm-phi-3-mini-4k-fp16-rtx3090-wsl-util085-v0.19.1.log", WARM),
    # "Directly load the compiled graph(s) for compile range (1, 2048) from the cache, took ..."
    ("381-vllm-llama-3.1-8b-ft-rtx-6000-ada-8k-v0.15.1.log", WARM),
    # --enforce-eager
    ("446-vllm-qwen2.5-0.5b-instruct-l4-8k-util085-seqs32-eager-v0.30.0.log", EAGER),
    # the four sizing lines only: the excerpt says nothing about compilation
    ("48-vllm-qwen2.5-7b-awq-rtx4080-wsl-v0.26.log", UNKNOWN),
])
def test_real_logs(name: str, expected: str) -> None:
    states = {compile_cache_state(run) for run in parse_file(LOGS / name).runs}
    assert states == {expected}


def test_log_45s_runs_are_unknown() -> None:
    """Log 45's three runs (a held-out dense miss, +11.99% on run A) quote no compile line: the
    hypothesis cannot be checked on them from the log."""
    runs = parse_file(LOGS / "45-vllm-qwen3-14b-bf16-awq-l40s-v0.28.log").runs
    assert [compile_cache_state(run) for run in runs] == [UNKNOWN] * 3
