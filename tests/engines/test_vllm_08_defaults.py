"""vLLM 0.8's V1 defaults and profiling sampler (issue #13, task h36v083, led by log 282's miss).

Read in the wheels on PyPI (pip download --no-deps vllm==0.8.0 ... 0.8.5, 0.9.0-0.9.2):
- engine/arg_utils.py _set_default_args_v1: 0.8.0-0.8.3 pick max_num_batched_tokens by the
  device's name ("h100" or "h200" in it: serve 8,192, else 2,048; 0.8.3 :1647-1658) and set
  "default_max_num_seqs = 1024" on every GPU (0.8.0 :1715, 0.8.3 :1669); 0.8.4 picks both by the
  name (1,024 or 256, :1669-1682); 0.8.5 by memory, >= 70 GiB (:1596), with no A100 exception
  (0.9.0 :1495 adds 'and "a100" not in device_name').
- v1/worker/gpu_model_runner.py _dummy_run: num_reqs = max_num_reqs if num_tokens >=
  max_num_reqs (0.8.3 :1383), so the sampler runs min(1,024, 2,048) = 1,024 rows; and
  _dummy_sampler_run sets top_p 0.9 and top_k vocab - 1 (:1445-1463), which apply_top_k_top_p
  sorts natively without FlashInfer (v1/sample/ops/topk_topp_sampler.py :186): 38 B a logit at
  the sort (kvplan/engines/vllm_sort_sampler.py, the 0.10-0.16 figure, same code).

Hand figure, log 282 (DeepSeek-R1-Distill-Qwen-1.5B at every default, 131,072 tokens, on an RTX
4090 D: the catalog's rtx-4090, 25,386,352,640 B; vLLM 0.8.3 `vllm serve`, "FlashInfer is not
available"): requested floor(25,386,352,640 x 0.9) = 22,847,717,376 B; weights 1,777,088,000 x
2 B = 3,554,176,000; activation max(forward 2,048 x 31,488 x 2 B = 128,974,848, sampler 1,024 x
151,936 x 38 B = 5,912,133,632) = 5,912,133,632; non-torch 367,001,600 (V1 before 0.9.1, the
CUDA context counted). Pool 22,847,717,376 - 3,554,176,000 - 5,912,133,632 - 367,001,600 =
13,014,406,144 B; / 458,752 B a block (16 x 28 layers x 2 heads x 256 x 2 B) = 28,369 blocks =
453,904 tokens (logged 426,448: +6.44%; with 256 rows x 16 B, 638,400 tokens, +49.70%).
"""

from __future__ import annotations

import pytest

from kvplan.engines.vllm_entrypoint import offline_defaults
from kvplan.engines.vllm_series import batching_defaults, flavour
from tests.conftest import explain_by_label

GIB = 1 << 30


# (version, GPU name, memory GiB) -> (serve's pair, the LLM class's pair)
@pytest.mark.parametrize(("version", "gpu", "mem", "serve", "offline"), [
    # 0.8.0-0.8.3: batched tokens by the name, 1,024 sequences on every GPU
    ("0.8.0", "rtx-4090", 23, (2048, 1024), (8192, 1024)),
    ("0.8.3", "rtx-4090", 23, (2048, 1024), (8192, 1024)),  # log 282's defaults
    ("0.8.3", "h100-sxm-80gb", 79, (8192, 1024), (16384, 1024)),
    ("0.8.3", "a100-80gb", 79, (2048, 1024), (8192, 1024)),  # not named h100/h200
    ("0.8.3", "h200-141gb", 139, (8192, 1024), (16384, 1024)),
    # 0.8.4: both by the name
    ("0.8.4", "rtx-3090", 23, (2048, 256), (8192, 256)),  # logs 274 and 275
    ("0.8.4", "h100-sxm-80gb", 79, (8192, 1024), (16384, 1024)),
    ("0.8.4", "a100-80gb", 79, (2048, 256), (8192, 256)),
    # 0.8.5: by memory, the A100 80GB on the large branch
    ("0.8.5", "a100-80gb", 79, (8192, 1024), (16384, 1024)),
    ("0.8.5", "l40s", 44, (2048, 256), (8192, 256)),
    # 0.9.0 on: the A100 exception
    ("0.9.0", "a100-80gb", 79, (2048, 256), (8192, 256)),
])
def test_08_defaults_by_release_and_gpu(version: str, gpu: str, mem: int,
                                        serve: tuple[int, int],
                                        offline: tuple[int, int]) -> None:
    fl = flavour(version)
    got = batching_defaults(131072, gpu, fl, mem * GIB)
    assert got == serve
    assert offline_defaults(got, fl.v1, "offline") == offline


def _steps(*args: str) -> dict[str, dict]:
    return explain_by_label("deepseek-r1-distill-qwen-1.5b", "--gpu", "rtx-4090", "--engine", "vllm",
                            "--kv-dtype", "bf16", *args)


def test_log_282_by_hand() -> None:
    steps = _steps("--engine-version", "0.8.3")
    assert steps["requested memory"]["value"] == 22_847_717_376
    assert steps["weights"]["value"] == 3_587_730_432
    assert steps["activation peak"]["value"] == 1024 * 151_936 * 38 == 5_912_133_632
    assert steps["non-torch memory"]["value"] == 367_001_600
    assert steps["KV cache memory"]["value"] == 12_980_851_712
    # task h39rope: weights 3,554,176,000 + the rotary cos/sin cache 131,072 x 128 x 2 B =
    # 3,587,730,432; KV 13,014,406,144 - 33,554,432 = 12,980,851,712 over 458,752 B a block:
    # 28,296 blocks (28,369 before)
    assert steps["GPU KV cache size"]["value"] == 28_296 * 16 == 452_736


def test_flashinfer_and_084_bound_it() -> None:
    # FlashInfer's path (below 0.2.3 in 0.8.x): 1,024 x 151,936 x 16 B = 2,489,319,424 B, pool
    # 22,847,717,376 - 3,554,176,000 - 2,489,319,424 - 367,001,600 = 16,437,220,352 B ->
    # 35,830 blocks = 573,280 tokens; less the rotary cos/sin cache's 33,554,432 B (task h39rope):
    # 16,403,665,920 B -> 35,757 blocks = 572,112 tokens
    fi = _steps("--engine-version", "0.8.3", "--topk-topp-sampler", "flashinfer")
    assert fi["activation peak"]["value"] == 2_489_319_424
    assert fi["GPU KV cache size"]["value"] == 572_112
    # 0.8.4 on a GPU not named H100/H200: 256 rows, 256 x 151,936 x 38 B = 1,478,033,408 B,
    # pool 17,448,506,368 B -> 38,034 blocks = 608,544 tokens; less the rotary cache:
    # 17,414,951,936 B -> 37,961 blocks = 607,376 tokens
    v084 = _steps("--engine-version", "0.8.4")
    assert v084["activation peak"]["value"] == 1_478_033_408
    assert v084["GPU KV cache size"]["value"] == 607_376
