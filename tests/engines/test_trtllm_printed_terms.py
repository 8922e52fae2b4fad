"""The C++ executor's lines before the pool (runtime buffers, decoder, execution context, engine)
are read by `kvplan calibrate` and reported; MemoryCounters prints binary units
(cpp/tensorrt_llm/runtime/memoryCounters.cpp: "1.00 KB" is 1,024 bytes, "1.00 MB" 1 << 20)."""

from __future__ import annotations

from pathlib import Path

from kvplan.calibrate.breakdown import printed_terms_note
from kvplan.calibrate.compare import calibrate_files
from kvplan.calibrate.parse import parse_text

LOGS = Path(__file__).resolve().parents[1] / "assets" / "logs"

# log 17's lines (the docs' memory example), verbatim
DOCS = """[TensorRT-LLM][INFO] Loaded engine size: 6695 MiB
[TensorRT-LLM][INFO] [MemUsageChange] Allocated 1134.01 MiB for execution context memory.
[TensorRT-LLM][INFO] [MemUsageChange] Allocated 43.29 MB GPU memory for runtime buffers.
[TensorRT-LLM][INFO] [MemUsageChange] Allocated 180.30 MB GPU memory for decoder.
[TensorRT-LLM][INFO] Memory usage when calculating max tokens in paged kv cache: total: \
79.10 GiB, available: 70.48 GiB
"""


def test_the_lines_before_the_pool_are_read_in_binary_units() -> None:
    run = parse_text("# engine: trtllm\n" + DOCS, Path("x.log")).runs[0]
    assert run.unparsed == []
    v = run.values
    assert v["engine_mib"] == 6695 and v["exec_context_mib"] == 1134.01
    assert v["runtime_buffers_gib"] * 2**30 == 43.29 * 2**20
    assert v["decoder_gib"] * 2**30 == 180.30 * 2**20
    kb = parse_text("# engine: trtllm\n[TensorRT-LLM][INFO] [MemUsageChange] Allocated 648.06 KB "
                    "GPU memory for runtime buffers.\n[TensorRT-LLM][INFO] [MemUsageChange] "
                    "Allocated 4.35 GB GPU memory for decoder.\n", Path("x.log")).runs[0]
    assert kb.values["runtime_buffers_gib"] * 2**30 == 648.06 * 1024
    assert kb.values["decoder_gib"] == 4.35


def test_what_total_minus_available_leaves_outside_the_printed_terms() -> None:
    # 79.10 - 70.48 - (6695 + 1134.01 + 43.29 + 180.30) / 1024 = 0.756 GiB
    run = parse_text("# engine: trtllm\n" + DOCS, Path("x.log")).runs[0]
    note = printed_terms_note(run)
    assert note is not None and "decoder 0.176 GiB" in note
    assert "= 0.76 GiB outside them" in note
    # without all four terms no remainder is claimed (log 152 prints two of them)
    part = parse_text("# engine: trtllm\n" + DOCS.split("\n", 2)[2], Path("x.log")).runs[0]
    assert "outside" not in (printed_terms_note(part) or "")


def test_calibrate_reports_them_instead_of_unparsed_lines() -> None:
    rep = calibrate_files([LOGS / "96-trtllm-llama2-7b-fp8-h100-bench-0.12.log"])[0]
    assert not any("GPU memory for" in text for _, text in rep.unparsed)
    assert any("runtime buffers 1.140 GiB, decoder 4.350 GiB" in n for n in rep.notes)


# log 145's runtime lines (0.8.0, GptSession through ModelRunnerCpp), verbatim
LINES_145 = """[TensorRT-LLM][INFO] Loaded engine size: 15320 MiB
[TensorRT-LLM][INFO] [MemUsageChange] Init cuBLAS/cuBLASLt: CPU +0, GPU +8, now: CPU 15519, GPU \
15607 (MiB)
[TensorRT-LLM][INFO] [MemUsageChange] Init cuDNN: CPU +1, GPU +10, now: CPU 15520, GPU 15617 (MiB)
[TensorRT-LLM][INFO] [MemUsageChange] TensorRT-managed allocation in engine deserialization: CPU \
+0, GPU +15316, now: CPU 0, GPU 15316 (MiB)
[TensorRT-LLM][INFO] [MemUsageChange] Init cuBLAS/cuBLASLt: CPU +0, GPU +8, now: CPU 15543, GPU \
15835 (MiB)
[TensorRT-LLM][INFO] [MemUsageChange] Init cuDNN: CPU +0, GPU +8, now: CPU 15543, GPU 15843 (MiB)
[TensorRT-LLM][INFO] [MemUsageChange] TensorRT-managed allocation in IExecutionContext creation: \
CPU +0, GPU +0, now: CPU 0, GPU 15316 (MiB)
"""


def test_the_0_8_device_use_lines_give_the_execution_context_rise() -> None:
    """TensorRT's "now: ... GPU Y (MiB)" after Init cuBLAS/cuDNN is the device memory in use.
    After deserialization 15,617 MiB; the execution context's first cuBLAS line says 15,835 with
    its own +8, so 15,835 - 8 - 15,617 = 210 MiB came between (TllmRuntime's getDeviceMemorySize()
    allocation); the last reading before the pool is 15,843. The "TensorRT-managed" lines' 15,316
    is TensorRT's own total and is not read as device use."""
    run = parse_text("# engine: trtllm\n" + LINES_145, Path("x.log")).runs[0]
    v = run.values
    assert v["deserialized_used_mib"] == 15_617
    assert v["context_rise_mib"] == 210
    assert v["gpu_used_mib"] == 15_843
    note = printed_terms_note(run)
    assert note is not None and "GPU in use at the execution context 15,843 MiB" in note
    assert "210 MiB of it added between engine deserialization" in note
    # no deserialization line read yet: no rise is claimed
    first = parse_text("# engine: trtllm\n" + LINES_145.split("\n", 3)[1], Path("x.log")).runs[0]
    assert first.values == {"gpu_used_mib": 15_607}


def test_calibrate_reports_the_rise_for_the_two_0_8_logs() -> None:
    # 145: 210 MiB (GptSession); 143: 19,711 - 8 - 15,681 = 4,022 MiB (the in-flight batcher, an
    # engine planned for 40 x 1,024 tokens)
    for name, rise in (("145-trtllm-llama3-8b-rtx3090-cpp-runner-0.8.0.log", "210"),
                       ("143-trtllm-llama3-8b-rtx3090-triton-0.8.log", "4,022")):
        rep = calibrate_files([LOGS / name])[0]
        assert any(f"{rise} MiB of it added between engine deserialization" in n
                   for n in rep.notes), name
