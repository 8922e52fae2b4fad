"""Issue #13: calibrate reads what a log and its directives state, and nothing more."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.calibrate.compare import calibrate_files
from kvplan.calibrate.parse import parse_text
from kvplan.calibrate.resolve import _settings, resolve_gpu
from kvplan.engines import Engine
from kvplan.errors import InputError
from kvplan.units import GIB


def test_model_hint_drops_prose_punctuation() -> None:
    lf = parse_text("# model: Qwen/Qwen3-14B, bf16 (not in the catalog)\nGPU KV cache size: 1 tokens\n",
                    Path("x.log"))
    assert lf.runs[0].model_hint == "Qwen/Qwen3-14B"


def test_total_gib_directive_gives_the_gpu() -> None:
    lf = parse_text("# kvplan: total_gib=15.99\nAvailable KV cache memory: 8.0 GiB\n", Path("x.log"))
    gpu, how = resolve_gpu(lf.runs[0], Path("."))
    assert gpu is not None and gpu.memory_bytes == int(15.99 * GIB)
    assert how == "total 15.99 GiB from the log"


@pytest.mark.parametrize("value", ["0", "-3", "lots"])
def test_a_bad_total_gib_directive_is_refused(value: str) -> None:
    with pytest.raises(InputError, match="total_gib"):
        parse_text(f"# kvplan: total_gib={value}\n", Path("x.log"))


def test_the_logged_default_batch_names_the_defaults_branch() -> None:
    # vLLM >= 0.9 picks 2,048 tokens with 256 sequences (GPUs under 70 GiB or A100) and 8,192
    # with 1,024 in one branch: a logged default of 2,048 means 256 sequences
    log = "Chunked prefill is enabled with max_num_batched_tokens=2048.\n"
    run = parse_text(log, Path("x.log")).runs[0]
    s = _settings(run, Engine.vllm, "0.13.0")
    assert (s.max_num_batched_tokens, s.max_num_seqs) == (2048, 256)
    big = parse_text(log.replace("2048", "8192"), Path("x.log")).runs[0]
    assert _settings(big, Engine.vllm, "0.13.0").max_num_seqs == 1024
    # a batch the user set (non-default args) says nothing about the branch
    flag = parse_text("non-default args: {'max_num_batched_tokens': 2048}\n" + log,
                      Path("x.log")).runs[0]
    assert _settings(flag, Engine.vllm, "0.13.0").max_num_seqs is None
    # before 0.9 the sequence default did not follow the GPU
    assert _settings(run, Engine.vllm, "0.8.5").max_num_seqs is None


def test_a_later_logged_default_batch_replaces_an_earlier_one() -> None:
    # log 262 (vLLM 0.11.2, `vllm serve --model ...`): a default 2,048 printed before the banner,
    # then the engine's resolved 8,192; the later line is the engine's, a flag still wins
    two = ("Chunked prefill is enabled with max_num_batched_tokens=2048.\n"
           "Chunked prefill is enabled with max_num_batched_tokens=8192.\n")
    run = parse_text(two, Path("x.log")).runs[0]
    s = _settings(run, Engine.vllm, "0.11.2")
    assert (s.max_num_batched_tokens, s.max_num_seqs) == (8192, 1024)
    flag = parse_text("non-default args: {'max_num_batched_tokens': 2048}\n" + two,
                      Path("x.log")).runs[0]
    assert _settings(flag, Engine.vllm, "0.11.2").max_num_batched_tokens == 2048


def test_a_cuda_graph_estimate_line_dates_an_unversioned_v1_log() -> None:
    from kvplan.calibrate.resolve import infer_vllm_version

    line = ("INFO [gpu_worker.py:575] CUDA graph memory profiling is enabled (default since v0.21.0). "
            "The current --gpu-memory-utilization=0.9500 is equivalent to "
            "--gpu-memory-utilization=0.9139 without CUDA graph memory profiling.\n"
            "Available KV cache memory: 13.33 GiB\n")
    run = parse_text(line, Path("x.log")).runs[0]
    assert infer_vllm_version(run) == ("0.21.0",
                                       "CUDA-graph memory estimate in the log (0.21 or newer)")
    # an estimate printed without the "enabled" line was not applied (logs 34 and 35)
    pool = ("CUDA graph pool memory: 0.09 GiB (actual), 0.13 GiB (estimated), difference: 0.04 GiB\n"
            "Available KV cache memory: 12.26 GiB\n")
    assert infer_vllm_version(parse_text(pool, Path("x.log")).runs[0])[0] == "0.11.0"


def test_v0_model_loading_in_gb_and_aligned_kv_size_lines_are_read() -> None:
    # heldout-4 logs 110 (vLLM 0.8.2 V0: "Model loading took 6.0160 GB and ...") and 113 (a write-up
    # that aligns "GPU KV cache size:         1,037,152 tokens" in columns)
    run = parse_text("INFO [model_runner.py:1146] Model loading took 6.0160 GB and 533.85 seconds\n"
                     "GPU KV cache size:         1,037,152 tokens\n", Path("x.log")).runs[0]
    assert run.values["weights_gib"] == 6.016
    assert run.values["tokens"] == 1037152
    assert run.unparsed == []


def test_a_trt_activation_bytes_directive_reaches_the_trtllm_settings() -> None:
    # a build log's "[TRT] Total Activation Memory: 1811942912 bytes", stated as a directive
    lf = parse_text("# kvplan: version=0.8.0 trt_activation_bytes=1811942912\n"
                    "[TensorRT-LLM][INFO] Using 60672 total tokens in paged KV cache\n", Path("x.log"))
    s = _settings(lf.runs[0], Engine.trtllm, "0.8.0")
    assert s.trt_activation_bytes == 1_811_942_912
    with pytest.raises(InputError, match="trt_activation_bytes=0.*positive whole number"):
        parse_text("# kvplan: trt_activation_bytes=0\n", Path("x.log"))


def test_a_trtllm_backend_directive_reaches_the_trtllm_settings_only() -> None:
    # log 142's header: the 0.21 PyTorch workflow; the directive states it (trtllm-serve --backend)
    lf = parse_text("# kvplan: version=0.21.0 trtllm_backend=pytorch\n"
                    "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 16.10 GiB for max tokens in "
                    "paged KV cache (301472).\n", Path("x.log"))
    assert _settings(lf.runs[0], Engine.trtllm, "0.21.0").trtllm_backend == "pytorch"
    assert _settings(lf.runs[0], Engine.sglang, "0.5.21").trtllm_backend is None
    with pytest.raises(InputError, match="trtllm_backend=_autodeploy.*pytorch or tensorrt"):
        parse_text("# kvplan: trtllm_backend=_autodeploy\n", Path("x.log"))


def test_no_memory_for_the_cache_blocks_is_a_refusal() -> None:
    # vLLM V1 raises this when the KV budget is negative (log 201, vLLM 0.17.1); the run did not
    # start, so the log says "no" where a pool was never sized
    text = ("(EngineCore_DP0 pid=7954) INFO 07-27 16:21:40 [gpu_worker.py:424] Available KV cache "
            "memory: -0.7 GiB\n(EngineCore_DP0 pid=7954) ValueError: No available memory for the "
            "cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.\n")
    run = parse_text(text, Path("x.log")).runs[0]
    assert run.values["kv_gib"] == -0.7 and len(run.errors) == 1


def test_a_nodes_directive_lets_tp_span_nodes(tmp_path: Path) -> None:
    # log 172: DeepSeek-R1 at TP 16 over two nodes of 8 H20 (--nnodes 2); without the node count
    # the request is refused (TP 16 spans more than one node of 8)
    log = tmp_path / "x.log"
    line = ("[2025-02-17 05:27:24 TP0] max_total_num_tokens=712400, chunked_prefill_size=8192, "
            "max_prefill_tokens=16384, max_running_requests=50, context_len=163840\n")
    log.write_text("# kvplan: spec=deepseek-r1 gpu=h20 tp=16 nodes=2 mem_fraction_static=0.93 "
                   "version=0.4.3\n" + line)
    rep = calibrate_files([log])[0]
    assert any(c.basis == "shapes" and c.quantity == "KV tokens" for c in rep.checks)
    log.write_text("# kvplan: spec=deepseek-r1 gpu=h20 tp=16 mem_fraction_static=0.93\n" + line)
    assert any("spans more than one node" in n for n in calibrate_files([log])[0].notes)
    log.write_text("# kvplan: nodes=0\n" + line)
    with pytest.raises(InputError, match="positive whole number"):
        calibrate_files([log])


def test_per_worker_kv_size_lines_read_the_smallest() -> None:
    # vLLM 0.10 at TP 8 prints one size per worker, then unifies them to the smallest
    # (kv_cache_utils.unify_kv_cache_configs); lines from log 213, rank 7's last and largest.
    text = ("(VllmWorker rank=1 pid=1) INFO [gpu_worker.py:255] Available KV cache memory: 55.62 GiB\n"
            "(VllmWorker rank=0 pid=2) INFO [gpu_worker.py:255] Available KV cache memory: 55.71 GiB\n"
            "INFO [kv_cache_utils.py:833] GPU KV cache size: 3,650,960 tokens\n"
            "INFO [kv_cache_utils.py:837] Maximum concurrency for 32,768 tokens per request: 111.42x\n"
            "INFO [kv_cache_utils.py:833] GPU KV cache size: 3,644,816 tokens\n"
            "INFO [kv_cache_utils.py:837] Maximum concurrency for 32,768 tokens per request: 111.23x\n"
            "INFO [kv_cache_utils.py:833] GPU KV cache size: 3,675,536 tokens\n"
            "INFO [kv_cache_utils.py:837] Maximum concurrency for 32,768 tokens per request: 112.17x\n")
    run = parse_text(text, Path("x.log")).runs[0]
    assert run.values["kv_gib"] == 55.62
    assert run.values["tokens"] == 3_644_816
    assert run.values["concurrency"] == 111.23
    assert run.values["max_model_len"] == 32_768


@pytest.mark.parametrize(("value", "eager"), [("true", True), ("True", True), ("1", True),
                                              ("false", False), ("0", False)])
def test_a_boolean_directive_is_read_in_any_accepted_spelling(value: str, eager: bool) -> None:
    # logs 342-345 and 420 write `enforce_eager=true`: the directive was accepted, but the
    # settings compared with the engines' "True" and read it as false (found by task h43cold)
    lf = parse_text(f"# kvplan: version=0.19.0 enforce_eager={value}\n"
                    "[kv_cache_utils.py:1] GPU KV cache size: 1,000 tokens\n", Path("x.log"))
    assert _settings(lf.runs[0], Engine.vllm, "0.19.0").enforce_eager is eager
