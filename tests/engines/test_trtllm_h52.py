"""Log 640 against TensorRT-LLM's PyTorch-backend source (task h52trt; docs/engines-findings.md, "Log 640
read against the source"): kvplan's terms for the run, and the gap the source cannot place.

nvidia/Qwen3-8B-FP8 on the stand-in RTX 5060 Ti total (15.516 GiB = 16,660,178,141 B), 1.2.0rc2,
FP8 weights and cache, max_batch_size 1, max_seq_len 9,192, max_num_tokens 8,192, fraction 0.9:
  weights 6,946,075,648 B fp8 linear (1 B a parameter, FP8QDQLinearMethod) + the 16-bit embedding
    and LM head 2 x 151,936 x 4,096 x 2 B = 2,489,319,424 -> 9,435,395,072
  activation 8,192 tokens x 49,152 values x 2 B = 805,306,368
  outside torch NON_TORCH_PYTORCH 1,617 MiB = 1,695,547,392
  free 16,660,178,141 - 9,435,395,072 - 805,306,368 - 1,695,547,392 = 4,723,929,309
  floor(0.9 x free) = 4,251,536,378; // 73,728 (36 x 8 x 128 x 2 x 1 B) = 57,665
    -> ceil(57,665 / 32) = 1,803 blocks = 57,696 tokens
The engine allocated 1,444 blocks (46,208 tokens): its floored max_tokens lies in 46,177-46,208,
so (total - peak + profiling pool) x 0.9 was 46,177 x 73,728 = 3,404,537,856 B at least and under
46,209 x 73,728 = 3,406,897,152 B: kvplan's free is 0.874-0.876 GiB more, unplaced (the source puts
it in the profiled peak above the weights: the activation or the memory outside torch).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.units import GIB

STAND_IN = """\
name: rtx-5060-ti-h52
vendor: nvidia
label: "NVIDIA GeForce RTX 5060 Ti 16GB (log 640's stand-in total)"
memory_bytes: 16660178141
memory_source: "total_gib 15.516 as log 640's header states it (log 288's CUDA total)"
memory_bandwidth_bytes_per_s: 448000000000
fp8_supported: true
source: "a test-local stand-in for log 640's card; only memory_bytes is read"
"""


def _size(gpu: Path) -> Any:
    res = CliRunner().invoke(app, [
        "size", "qwen3-8b", "--gpu", str(gpu), "--engine", "trtllm", "--engine-version",
        "1.2.0rc2", "--weight-dtype", "fp8", "--kv-dtype", "fp8", "--max-batch-size", "1",
        "--max-num-tokens", "8192", "--context", "9192", "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    return row


def test_kvplan_terms_for_log_640_by_hand(tmp_path: Path) -> None:
    gpu = tmp_path / "rtx-5060-ti-h52.yaml"
    gpu.write_text(STAND_IN, encoding="utf-8")
    row = _size(gpu)
    assert 6_946_075_648 + 2 * 151_936 * 4_096 * 2 == 9_435_395_072
    assert row["weights_bytes"] == 9_435_395_072
    assert row["activation_bytes"] == 8_192 * 49_152 * 2 == 805_306_368
    assert row["non_torch_bytes"] == 1_617 * 2**20 == 1_695_547_392
    free = 16_660_178_141 - 9_435_395_072 - 805_306_368 - 1_695_547_392
    assert free == 4_723_929_309
    assert row["kv_bytes_per_token"] == 36 * 8 * 128 * 2 * 1 == 73_728
    assert free * 9 // 10 // 73_728 == 57_665
    assert row["requested_bytes"] == free * 9 // 10 == 4_251_536_378
    assert row["kv_cache_tokens"] == 1_803 * 32 == 57_696
    # the engine's 1,444 blocks: floor(max_tokens) in 46,177-46,208 (46,209 would need 1,445)
    assert -(-46_177 // 32) == -(-46_208 // 32) == 1_444 and -(-46_209 // 32) == 1_445
    engine_low, engine_high = 46_177 * 73_728, 46_209 * 73_728
    assert (engine_low, engine_high) == (3_404_537_856, 3_406_897_152)
    # kvplan's free memory above the engine's, before the fraction: 0.874-0.876 GiB
    gap_low = (row["requested_bytes"] - engine_high) / 0.9 / GIB
    gap_high = (row["requested_bytes"] - engine_low) / 0.9 / GIB
    assert (round(gap_low, 3), round(gap_high, 3)) == (0.874, 0.876)
