"""vLLM V1 before 0.9.1 books the whole device's non-torch memory, the CUDA context included.

Worker.determine_available_memory (vllm/v1/worker/gpu_worker.py; the 0.7.3, 0.8.4, 0.8.5 and 0.9.0
wheels) books torch's allocated peak + (mem_get_info total - free - torch's allocated bytes)
after the profile run, against total x gpu_memory_utilization; from 0.9.1 it books the growth
over `self.init_snapshot = MemorySnapshot()` (memory_profiling). So before 0.9.1 the term is V1's
growth term plus the rest of V0's whole-device term (NON_TORCH_V0 less NON_TORCH_V1).
"""

from __future__ import annotations

import pytest

from kvplan.engines.vllm_nontorch import V1_CONTEXT, V1_GROWTH_FROM, non_torch
from kvplan.engines.vllm_series import flavour
from kvplan.units import MIB
from tests.conftest import explain_by_label

WHOLE_DEVICE = (367_001_600, 209_715_200, 629_145_600)  # 350, 200, 600 MiB (NON_TORCH_V0)


def test_the_context_is_v0s_whole_device_term_less_v1s_growth() -> None:
    assert V1_GROWTH_FROM == (0, 9, 1)
    # 367,001,600 - 73,400,320; 209,715,200 - 20,971,520; 629,145,600 - 536,870,912
    assert V1_CONTEXT == (293_601_280, 188_743_680, 92_274_688)


@pytest.mark.parametrize(("version", "tp", "transport", "want"), [
    ("0.8.4", 1, None, WHOLE_DEVICE),
    ("0.9.0", 1, None, WHOLE_DEVICE),
    # host transport: NCCL's buffers in host memory, so the one-GPU term
    ("0.8.4", 2, "host", WHOLE_DEVICE),
    # unstated PCIe transport: 1 GiB (20 MiB-2 GiB) + the context
    ("0.8.4", 2, None, (1_367_343_104, 209_715_200, 2_239_758_336)),
    # from 0.9.1: the growth over the start-up snapshot
    ("0.9.1", 1, None, (70 * MIB, 20 * MIB, 512 * MIB)),
    ("0.10.2", 2, "host", (70 * MIB, 20 * MIB, 512 * MIB)),
    # V0 forced on 0.8: its own growth term (V0_GROWTH_FROM), unchanged
    ("0.8.4-v0", 1, None, (70 * MIB, 20 * MIB, 512 * MIB)),
])
def test_the_term_by_release(version: str, tp: int, transport: str | None,
                             want: tuple[int, int, int]) -> None:
    nt, how = non_torch(flavour(version), tp, 0, False, transport=transport)
    assert (nt.best, nt.low, nt.high) == want
    whole = version in ("0.8.4", "0.9.0")  # V1 before 0.9.1
    assert ("the CUDA context counts" in how) == whole


def test_unified_memory_keeps_its_fitted_term() -> None:
    nt, how = non_torch(flavour("0.8.4"), 1, 0, False, unified=True)
    assert nt.best == 2_566_242_959 and "unified memory" in how  # floor(2.39 x 2^30)


def test_explain_json_qwen25_7b_on_a_3090_under_084_offline(runner) -> None:  # noqa: ANN001
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 5,717,414,912 -> 5,683,860,480, 99,696 -> 99,104
    steps = explain_by_label("qwen2.5-7b-base", "--gpu", "rtx-3090", "--engine", "vllm",
                             "--engine-version", "0.8.4", "--context", "4096", "--kv-dtype", "bf16",
                             "--entrypoint", "offline")
    assert steps["non-torch memory"]["value"] == 367_001_600
    assert "the CUDA context counts" in steps["non-torch memory"]["formula"]
    # floor(25,327,697,920 x 0.9) = 22,794,928,128 requested; weights 7,615,616,512 x 2 B =
    # 15,231,233,024; activation max(forward 8,192 x 67,584 x 2 B = 1,107,296,256, the sampler's
    # sort, task h36v083: 256 rows x 152,064 x 38 B = 1,479,278,592) = 1,479,278,592; so the pool
    # is 22,794,928,128 - 15,231,233,024 - 1,479,278,592 - 367,001,600 = 5,717,414,912 B,
    # floor(/ 917,504 B a block) = 6,231 blocks = 99,696 tokens (log 274 prints 97,680; 106,176
    # with the V1 sampler's 16 B before task h36v083)
    assert steps["activation peak"]["value"] == 1_479_278_592
    assert steps["KV cache memory"]["value"] == 5_683_860_480
    assert steps["GPU KV cache size"]["value"] == 99_104


def test_explain_json_at_tp2_over_host_memory_under_084(runner) -> None:  # noqa: ANN001
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 10,800,261,632 -> 10,766,707,200, 376,672 -> 375,504
    steps = explain_by_label("qwen2.5-7b-base", "--gpu", "rtx-3090", "--engine", "vllm",
                             "--engine-version", "0.8.4", "--context", "4096", "--kv-dtype", "bf16",
                             "--entrypoint", "offline", "--tp", "2", "--tp-transport", "host",
                             "--memory-utilization", "0.8")
    # host transport: NCCL's buffers in host memory, so the one-GPU whole-device term
    assert steps["non-torch memory"]["value"] == 367_001_600
    # floor(25,327,697,920 x 0.8) = 20,262,158,336; weights 7,615,616,512 x 2 B / 2 =
    # 7,615,616,512; activation max(8,192 x 39,168 x 2 B = 641,728,512, the sort on every rank:
    # 256 x 152,064 x 38 B = 1,479,278,592) = 1,479,278,592; pool 20,262,158,336 -
    # 7,615,616,512 - 1,479,278,592 - 367,001,600 = 10,800,261,632 B; / 458,752 B a block
    # (16 x 2 heads x 256 x 2 B x 28) = 23,542 blocks = 376,672 tokens (log 275 prints 359,328;
    # 405,888 with the V1 sampler's 16 B before task h36v083)
    assert steps["activation peak"]["value"] == 1_479_278_592
    assert steps["KV cache memory"]["value"] == 10_766_707_200
    assert steps["GPU KV cache size"]["value"] == 375_504
