"""vLLM's "Model loading took" counts torch's whole blocks (issue #13, task h50awq7b;
docs/engines.md, "task h50awq7b"; kvplan.engines.vllm_load_blocks).

vLLM 0.21+ loads the model under max_split_size_mb 20 (v1/worker/gpu_worker.py:337-342 in
0.22.1) and prints torch's allocated bytes (DeviceMemoryProfiler, utils/mem_utils.py:48-64;
platforms/cuda.py:250-255), which count each block whole: a tensor of 20 MiB or more sits alone
in a segment rounded up to 2 MiB (torch's get_allocation_size / should_split)."""

from __future__ import annotations

from pathlib import Path

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_load_blocks import layer_tensors, round_up, slack_bytes, vocab_tensors
from kvplan.specs import load_hardware, load_model

SPECS = Path(__file__).parents[1] / "assets" / "model_specs"
QWEN7_AWQ = SPECS / "qwen2.5-7b-instruct-awq.yaml"


def test_round_up_by_hand() -> None:
    """Under 20 MiB (20,971,520 B) nothing is counted here; at or above it the segment is the
    size rounded up to 2 MiB (2,097,152 B): 67,895,296 B (64.75 MiB) -> 66 MiB, +1,310,720;
    33,947,648 B (32.375 MiB) -> 34 MiB, +1,703,936; 1,089,994,752 B (1,039.5 MiB) -> 1,040
    MiB, +524,288; 20 MiB exactly -> +0; 20 MiB + 1 B -> 22 MiB, +2,097,151."""
    assert round_up(8_257_536) == 0 and round_up(20_971_519) == 0
    assert round_up(67_895_296) == 1_310_720
    assert round_up(33_947_648) == 1_703_936
    assert round_up(1_089_994_752) == 524_288
    assert round_up(20_971_520) == 0 and round_up(20_971_521) == 2_097_151


def test_qwen25_7b_awq_tensors_and_slack_by_hand() -> None:
    """Qwen2.5-7B-Instruct-AWQ (hidden 3,584, intermediate 18,944, 28 heads, 4 KV heads of 128,
    28 layers, vocab 152,064; AWQ 4-bit, group 128): per layer, TP 1, the qkv_proj qweight 3,584
    x 4,608 x 0.5 B = 8,257,536, scales 28 x 4,608 x 2 = 258,048, qzeros 28 x 576 x 4 = 64,512;
    gate_up 3,584 x 37,888 x 0.5 = 67,895,296, 2,121,728, 530,432; o_proj 3,584 x 3,584 x 0.5 =
    6,422,528, 200,704, 50,176; down 18,944 x 3,584 x 0.5 = 33,947,648, 148 x 3,584 x 2 =
    1,060,864, 148 x 448 x 4 = 265,216. Only gate_up's and down's qweight reach 20 MiB: 28 x
    (1,310,720 + 1,703,936) = 84,410,368. The embeddings and the untied LM head, 152,064 x 3,584
    x 2 B = 1,089,994,752 each: 2 x 524,288. Total 85,458,944 B (81.5 MiB) from 0.21.0; 0 in
    0.20.0, which does not scope max_split_size."""
    m = load_model(str(QWEN7_AWQ))
    assert layer_tensors(m, 1) == [8_257_536, 258_048, 64_512, 67_895_296, 2_121_728, 530_432,
                                   6_422_528, 200_704, 50_176, 33_947_648, 1_060_864, 265_216]
    assert vocab_tensors(m, 1) == [1_089_994_752, 1_089_994_752]
    assert slack_bytes(m, 1, 1, "0.22.1") == 85_458_944
    assert slack_bytes(m, 1, 1, "0.21.0") == 85_458_944
    assert slack_bytes(m, 1, 1, "0.20.0") == 0


def test_tied_3b_and_aligned_8b_by_hand() -> None:
    """Qwen2.5-3B-Instruct-AWQ (tied embeddings: one vocab matrix, 151,936 x 2,048 x 2 B =
    622,329,856 = 593.5 MiB, +524,288): gate_up qweight 2,048 x 22,016 x 0.5 B = 22,544,384 (21.5
    MiB, +524,288) in each of 36 layers, down 11,008 x 2,048 x 0.5 = 11,272,192 (under 20 MiB):
    37 x 524,288 = 19,398,656. Llama-3.1-8B AWQ-INT4: gate_up 4,096 x 28,672 x 0.5 = 56 MiB,
    down 28 MiB, embeddings 128,256 x 4,096 x 2 = 1,002 MiB: all whole 2 MiB, 0."""
    tied = load_model(str(SPECS / "qwen2.5-3b-instruct-awq.yaml"))
    assert vocab_tensors(tied, 1) == [622_329_856]
    assert slack_bytes(tied, 1, 1, "0.30.0") == 37 * 524_288 == 19_398_656
    llama = load_model(str(SPECS / "llama-3.1-8b-instruct-awq-int4.yaml"))
    assert slack_bytes(llama, 1, 1, "0.28.0") == 0


def test_unquantized_spec_books_none() -> None:
    """Only the GPTQ/AWQ layout (kvplan.capacity.linear_quant) is booked: a 16-bit spec, 0."""
    assert slack_bytes(load_model("qwen2.5-7b"), 1, 1, "0.22.1") == 0


def test_weights_line_adds_the_blocks() -> None:
    """vLLM 0.22.1 on an RTX 3090, Qwen2.5-7B-Instruct-AWQ: the checkpoint's tensors
    5,570,747,392 B (qweight 3,262,644,224 + scales 101,957,632 + zeros 25,489,408 + fp16 rest
    2,180,656,128) + the rotary cache 32,768 x 128 x 2 B = 8,388,608 + 85,458,944 of blocks =
    5,664,594,944 B = 5.2756 GiB (fit log 480 prints 5.29; its "Checkpoint size: 5.19 GiB" is
    the files' 5,570,747,392 B and their headers)."""
    req = SizeRequest(model=load_model(str(QWEN7_AWQ)), gpu=load_hardware("rtx-3090"),
                      context_tokens=4096)  # type: ignore[arg-type]
    r = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.22.1"))
    assert r.weights_bytes == 5_664_594_944
    old = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.20.0"))
    assert old.weights_bytes == 5_579_136_000
