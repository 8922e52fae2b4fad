"""vLLM V0 0.6.5-0.6.6 books non-torch memory as growth over a start-up baseline (issue #13 task
h39v066), read in the PyPI wheels, not fitted:

- 0.6.4.post1 vllm/worker/worker.py :209-213: total - free after the profile run less torch's
  allocated bytes, the CUDA context counted (NON_TORCH_V0: 350, 200-600 MiB).
- 0.6.5, 0.6.6 and 0.6.6.post1 worker.py :143 `self.init_gpu_memory = torch.cuda.mem_get_info()[0]`
  after set_device / empty_cache, before init_worker_distributed_environment (:148);
  determine_num_available_blocks :198-199 passes baseline_memory_in_bytes = total -
  init_gpu_memory to memory_profiling, which books non_torch_increase_in_bytes = device use -
  baseline - weights - torch's allocated increase (vllm/utils.py 0.6.5 :1736, 0.6.6 :1819): the
  context is in the baseline, so one GPU books the 0.7+ growth term (NON_TORCH_V1: 70, 20-512
  MiB) and tensor parallelism V1's TP table (unlabelled: 1 GiB, 20 MiB-2 GiB), as 0.7 does.
"""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.interface import Interval
from kvplan.engines.vllm_nontorch import non_torch
from kvplan.engines.vllm_series import flavour
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

MIB = 1 << 20
# 70 MiB = 73,400,320 B; 20 MiB = 20,971,520 B; 512 MiB = 536,870,912 B
GROWTH = Interval(73_400_320, 20_971_520, 536_870_912)
# 350 MiB = 367,001,600 B; 200 MiB = 209,715,200 B; 600 MiB = 629,145,600 B
WHOLE_DEVICE = Interval(367_001_600, 209_715_200, 629_145_600)


@pytest.mark.parametrize("version", ["0.6.5", "0.6.6", "0.6.6.post1", "0.7.0"])
def test_one_gpu_from_065_books_the_growth(version: str) -> None:
    nt, how = non_torch(flavour(version), 1, 0, False)
    assert nt == GROWTH
    assert how == "growth after start-up (V0 from 0.6.5: start-up baseline)"


@pytest.mark.parametrize("version", ["0.6.4", "0.6.4.post1"])
def test_064_still_books_the_whole_device(version: str) -> None:
    nt, how = non_torch(flavour(version), 1, 0, False)
    assert nt == WHOLE_DEVICE
    assert how == "CUDA context + NCCL"


def test_063_keeps_its_init_free_growth() -> None:
    # 0.3.1-0.6.3: peak = init free - free (kvplan.engines.vllm_v0_early), the same 70 MiB
    nt, how = non_torch(flavour("0.6.3"), 1, 0, False)
    assert nt == GROWTH and "init free - free" in how


def test_tp_from_065_books_v1s_tp_table() -> None:
    # 0.6.5 reads its baseline before init_worker_distributed_environment (worker.py :143/:148),
    # as 0.7.2 does: unlabelled, 1 GiB (1,073,741,824 B), 20 MiB-2 GiB (2,147,483,648 B)
    nt, how = non_torch(flavour("0.6.5"), 2, 0, False)
    assert nt == Interval(1_073_741_824, 20_971_520, 2_147_483_648)
    assert "start-up baseline before the TP groups" in how
    # 0.6.4.post1 keeps V0's context + NCCL term: 512 MiB, 256 MiB-4 GiB
    assert non_torch(flavour("0.6.4.post1"), 2, 0, False)[0] == Interval(
        536_870_912, 268_435_456, 4_294_967_296)


def test_log_300_settings_pool_grows_by_the_context() -> None:
    """Qwen2.5-0.5B in fp16 on a T4 at the defaults (log 300's settings), 0.6.6.post1 against
    0.6.4.post1. Requested: 15,642,329,088 B x 0.9 = 14,078,096,179 B (floor); weights
    494,032,768 parameters x 2 B = 988,065,536 B + the rotary cos/sin cache (task h39rope:
    32,768 positions x 64 x 2 B = 4,194,304 B) = 992,259,840 B; the activation term is the same
    in both. The 0.6.6.post1 pool is 350 - 70 = 280 MiB = 293,601,280 B larger. A block is 16
    tokens x 24 layers x 2 KV heads x 64 x K,V x 2 B = 196,608 B: with the 1,555,824,640 B
    activation, 0.6.4.post1 keeps 14,078,096,179 - 992,259,840 - 1,555,824,640 - 367,001,600 =
    11,163,010,099 B = 56,778 blocks (remainder 1,075 B) = 908,448 tokens, and 0.6.6.post1
    11,456,611,379 B = 58,271 blocks (293,601,280 = 1,493 blocks + 65,536 B; 1,075 + 65,536 <
    196,608) = 932,336 tokens (the log: 58,059 blocks)."""
    model, gpu = load_model("qwen2.5-0.5b"), load_hardware("t4")
    out = {v: run_engine(SizeRequest(model=model, gpu=gpu, context_tokens=32768,
                                     kv_dtype=DType.fp16, weight_dtype=DType.fp16),
                         EngineSettings(engine=Engine.vllm, version=v))
           for v in ("0.6.4.post1", "0.6.6.post1")}
    old, new = out["0.6.4.post1"], out["0.6.6.post1"]
    assert new.requested_bytes == old.requested_bytes == 14_078_096_179
    assert new.weights_bytes == 992_259_840
    assert new.activation_bytes == old.activation_bytes == 1_555_824_640
    assert (old.non_torch_bytes, new.non_torch_bytes) == (367_001_600, 73_400_320)
    assert (old.kv_cache_bytes, new.kv_cache_bytes) == (11_163_010_099, 11_456_611_379)
    assert new.kv_cache_bytes - old.kv_cache_bytes == 293_601_280
    assert (old.kv_cache_tokens, new.kv_cache_tokens) == (908_448, 932_336)
