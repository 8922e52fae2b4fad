"""SGLang's request-to-token map (ReqToTokenPool), task h61sglreq: rows x (context_len + 4) x 4 B
on every GPU, allocated after the KV pool is sized, out of what mem_fraction_static leaves
(kvplan/engines/sglang_req_map.py names the lines in each wheel read).

Golden figures by hand from sgl-project/sglang#5755 (round 7's file 67: Llama-4-Scout at TP 8
on 80 GB cards, SGLang's default context, the catalog's max_context_tokens 10,485,760):
  pool 1,636,299 tokens (kvplan's, unchanged by the map: it does not enter the pool; 1,640,566
    before task h81sglmm took SGLang 0.5.18's 100 MiB multimodal reservation out of the KV
    memory: (40,318,556,522 - 104,857,600) // 24,576 B a token = 1,636,299);
  max_num_reqs (0.5.23) = min(max(min(int(1,636,299 / 10,485,760 x 512), 4,096), 2,048),
    1,636,299 // 2) = min(max(min(79, 4,096), 2,048), 818,149) = 2,048;
  rows = 2,048 + 1 (the padding row) = 2,049; columns = 10,485,760 + 4 = 10,485,764;
  map = 2,049 x 10,485,764 x 4 = 85,941,321,744 B = 80.04 GiB: the post's "Tried to allocate
  80.04 GiB" (2,049 x 10,485,760 x 4 = 85,941,288,960 B without SGLang's 4 extra columns, also
  80.04 GiB).
"""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.interface import EngineResult
from kvplan.engines.sglang_req_map import max_num_reqs, req_to_token_map
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB

SCOUT_CONTEXT = 10_485_760
SCOUT_POOL = 1_636_299


def scout(context: int = SCOUT_CONTEXT, version: str | None = None,
          slots: int | None = None) -> EngineResult:
    req = SizeRequest(model=load_model("llama-4-scout"), gpu=load_hardware("h100"),
                      context_tokens=context, tp=8)
    s = EngineSettings(engine=Engine.sglang, version=version, max_running_requests=slots)
    return run_engine(req, s)


def test_the_80_04_gib_map_by_hand() -> None:
    """File 67's failed allocation from its inputs, and the profile's steps say the same."""
    assert load_model("llama-4-scout").max_context_tokens == SCOUT_CONTEXT
    rmap = req_to_token_map("0.5.23", SCOUT_CONTEXT, SCOUT_POOL, SCOUT_POOL, None)
    assert (rmap.max_num_reqs, rmap.rows, rmap.columns) == (2048, 2049, 10_485_764)
    assert rmap.bytes == 2049 * 10_485_764 * 4 == 85_941_321_744
    assert f"{rmap.bytes / GIB:.2f}" == "80.04"
    res = scout()
    steps = {s.label: s.value for s in res.steps}
    assert steps["max_total_num_tokens"] == SCOUT_POOL  # the pool does not move
    assert steps["request-to-token map"] == 85_941_321_744
    assert SCOUT_POOL == (40_318_556_522 - 104_857_600) // 24_576
    assert steps["multimodal reservation"] == 104_857_600
    # what the weights and the pool leave (14.14 GiB a GPU) does not hold it: SGLang stops
    #   55,401,411,200 free after weights - 1,636,299 x 24,576 = 15,187,726,976
    assert 55_401_411_200 - SCOUT_POOL * 24_576 == 15_187_726_976
    assert steps["left after the KV pool"] == 15_187_726_976
    assert not res.starts and res.reason is not None
    assert res.reason.startswith(
        "SGLang would not start: its request-to-token map (ReqToTokenPool: 2,049 request slots "
        "x 10,485,764 positions x 4 B = 80.04 GiB a GPU) does not fit in the 14.14 GiB")
    # the ways out fit exactly: 362 rows x 10,485,764 x 4 B = 15,183,386,272 B <= 15,187,726,976
    # (363 rows: 15,225,329,328 B), and a 1,853,061-token context's 2,049 rows
    assert 362 * 10_485_764 * 4 <= 15_187_726_976 < 363 * 10_485_764 * 4
    assert 2049 * 1_853_065 * 4 <= 15_187_726_976 < 2049 * 1_853_066 * 4
    assert res.reason.endswith(
        "the map alone fits with --context-length 1,853,061 or less (now 10,485,760) or with "
        "--max-running-requests 361 or less (SGLang's activations and CUDA graphs use the same "
        "memory, which kvplan does not book: leave them room)")
    # at the 1,000,000 tokens of files 66 and 68 the map is 2,049 x 1,000,004 x 4 B = 7.63 GiB
    assert scout(1_000_000).starts


@pytest.mark.parametrize(("version", "rows"), [
    ("0.3.2", 2049), ("0.4.6.post5", 2049),  # ReqToTokenPool(size=max_num_reqs + 1)
    ("0.4.7", 2048), ("0.5.1", 2048), ("0.5.10", 2048),  # size=max_num_reqs, (size, ...)
    ("0.5.11", 2049), ("0.5.17", 2049), ("0.5.23", 2049),  # (size + 1, ...): a padding row
])
def test_rows_per_release(version: str, rows: int) -> None:
    """The rows each wheel allocates for SGLang's default 2,048 slots (logs 14, 15, 21, 57, 58
    and 136, 0.4.x, print max_running_requests=2049; 0.5 logs 2048)."""
    assert req_to_token_map(version, 131_072, 100_000, 100_000, None).rows == rows


def test_slots_per_release() -> None:
    """max_num_reqs: the clamp to 2,048-4,096, a stated count as given before 0.5.10, capped at
    the estimate in 0.5.10-0.5.13 and at half the pool from 0.5.14; the default capped at half the
    pool from 0.5.10 (T = the pool's tokens, C = the context)."""
    # T = 2,094,537, C = 131,072 (log 400): int(T / C x 512) = 8,181 -> 4,096
    assert max_num_reqs("0.5.1", 131_072, 2_094_537, 2_094_537, None)[0] == 4096
    assert max_num_reqs("0.5.23", 32_768, 133_052, 133_052, None)[0] == 2078  # log 263
    assert max_num_reqs("0.5.23", 32_768, 1_000, 1_000, None)[0] == 500  # T // 2
    assert max_num_reqs("0.5.9", 32_768, 1_000, 1_000, None)[0] == 2048  # no T // 2 before
    assert max_num_reqs("0.4.6", 32_768, 1_000, 1_000, 5000)[0] == 5000
    assert max_num_reqs("0.5.12", 32_768, 100_000, 100_000, 5000)[0] == 2048
    assert max_num_reqs("0.5.14", 32_768, 100_000, 100_000, 5000)[0] == 5000
    assert max_num_reqs("0.5.14", 32_768, 6_000, 6_000, 5000)[0] == 3000


@pytest.mark.parametrize("version", ["0.4.6.post5", "0.5.5", "0.5.23"])
def test_the_map_grows_linearly_in_context_and_slots(version: str) -> None:
    """With the slots stated (and well under half the pool), each extra position of context adds
    rows x 4 B, and each extra slot (context + 4) x 4 B."""
    pool = 10**9
    for slots in (1, 7, 256, 4095):
        one = req_to_token_map(version, 32_768, pool, pool, slots)
        for context in (1, 4096, 32_768, 1_000_000):
            at = req_to_token_map(version, context, pool, pool, slots)
            assert at.bytes - one.bytes == one.rows * 4 * (context - 32_768)
            more = req_to_token_map(version, context, pool, pool, slots + 1)
            assert more.bytes - at.bytes == (context + 4) * 4
            assert at.bytes == at.rows * (context + 4) * 4


def test_a_stated_count_is_per_attention_dp_worker_from_0_5_10() -> None:
    """With --enable-dp-attention SGLang sizes each worker's map for the stated count divided by
    the DP size: `min(max_num_reqs // self.dp_size, estimated)` (0.5.10,
    model_executor/model_runner_kv_cache_mixin.py:849, self.dp_size = dp_size with
    --enable-dp-attention, model_runner.py:319), `max(1, max_num_reqs // self.attn_dp_size)` then
    min(., T // 2) (0.5.23, mem_cache/kv_cache_configurator.py:3128-3129); 0.5.9 passes it as
    given (model_runner_kv_cache_mixin.py:340). kvplan booked the whole count on every worker.
    Qwen3-30B-A3B (context 40,960), --max-running-requests 64 over DP 2 on 0.5.23: 64 // 2 =
    32 slots, 33 rows, 33 x 40,964 x 4 = 5,407,248 B (the whole count: 65 rows, 10,650,640 B)."""
    rmap = req_to_token_map("0.5.23", 40_960, 400_000, 400_000, 64, attention_dp=2)
    assert (rmap.max_num_reqs, rmap.rows, rmap.bytes) == (32, 33, 33 * 40_964 * 4)
    assert rmap.bytes == 5_407_248
    # 0.5.10: min(64 // 2, estimate max(min(int(400,000 / 40,960 x 512), 4,096), 2,048) =
    # 4,096) = 32 slots, 32 rows (no padding row before 0.5.11)
    assert req_to_token_map("0.5.10", 40_960, 400_000, 400_000, 64, attention_dp=2).rows == 32
    # 0.5.9 and before: the count as stated (+1 row)
    assert req_to_token_map("0.5.9", 40_960, 400_000, 400_000, 64, attention_dp=2).rows == 64
    # the profile books it so: the steps of a Qwen3-30B-A3B deployment at TP 2, DP 2
    req = SizeRequest(model=load_model("qwen3-30b-a3b"), gpu=load_hardware("h100"),
                      context_tokens=40_960, tp=2, attention_dp=2)
    res = run_engine(req, EngineSettings(engine=Engine.sglang, version="0.5.23",
                                         max_running_requests=64))
    steps = {s.label: s.value for s in res.steps}
    assert (steps["request slots (max_num_reqs)"], steps["request-to-token rows"]) == (32, 33)
    assert steps["request-to-token map"] == 5_407_248


def test_explain_of_a_manifest_plans_its_attention_dp_as_check_does(tmp_path) -> None:  # noqa: ANN001
    """`kvplan explain FILE` plans a manifest 'as `kvplan check` reads it', but dropped the
    target's data-parallel attention size: the same script's map read 64 slots in explain and 32
    in check."""
    from typer.testing import CliRunner

    from kvplan.cli import app

    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/sh\npip install \"sglang[all]==0.5.23\"\npython3 -m sglang.launch_server "
                    "--model-path Qwen/Qwen3-30B-A3B --tp 2 --dp 2 --enable-dp-attention "
                    "--max-running-requests 64\n")
    res = CliRunner().invoke(app, ["explain", str(path), "--gpu", "h100"])
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if "request-to-token map " in x)
    assert "5,407,248 B" in line, line
