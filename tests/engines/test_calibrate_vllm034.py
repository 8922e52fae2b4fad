"""kvplan calibrate reads vLLM 0.34's own sizing lines (task h42v034; kvplan.calibrate.
lines_vllm034). Every line below is built from the format string the vllm==0.34.0 wheel holds,
copied verbatim and filled with `%` as its logger does (format_gib: round(b / 2**30, 2),
utils/mem_utils.py:32), so a change of wording in a later release fails here rather than
silently. No 0.34 log is in tests/assets/logs yet.

The worked numbers: Llama-3.1-8B's 64-token blocks (0.34's DEFAULT_BLOCK_SIZE, config/cache.py:185)
take 64 x 32 layers x 8 KV heads x (128 + 128) x 2 B = 8,388,608 B = 1/128 GiB, so 7,600 blocks
are 7,600 / 128 = 59.375 GiB, printed "59.38" (59.375 is exact in binary; round(x, 2) and
"%.2f" both give 59.38, half to even).
"""

from __future__ import annotations

from pathlib import Path

from kvplan.calibrate.parse import parse_text
from kvplan.calibrate.resolve import _settings, infer_vllm_version
from kvplan.engines import Engine

# v1/worker/extensible_kv_cache.py:693-706 (0.34.0)
WARMUP_FMT = ("Memory after warmup: %s GiB free, %s GiB committed to the KV cache, "
              "%s GiB kept for transient activations (%s GiB allocated at peak, "
              "%s GiB of torch reservation growth); %d KV cache blocks (%s GiB) "
              "fit within the requested %s GiB. Torch may reserve up to %s GiB.")
# :536-540
EXTENDED_FMT = "Extended KV cache to %d blocks (%.2f GiB)."
# :662-672 (the first sentence of the warning_once)
CAPS_FMT = ("gpu_memory_utilization=%s caps this instance at %s GiB, keeping "
            "%s GiB of free device memory out of the KV cache. The "
            "extensible KV cache is sized from the memory measured after "
            "warmup and CUDA graph capture, so vLLM's own use needs no "
            "headroom below 1.0.")
# v1/worker/gpu_worker.py:795-798 (read by lines_vllm since 0.9; the reserve before warm-up)
AVAILABLE_FMT = "Available KV cache memory: %s GiB"
# :696-708 (f-string; the values are format_gib's)
INITIAL_FMT = ("Initial free memory %s GiB, reserved %s GiB memory for KV Cache as specified "
               "by kv_cache_memory_bytes config and skipped memory profiling. This does not "
               "respect the gpu_memory_utilization config.")
# :607-610
FALLBACK_FMT = "Updated engine memory budget after disk fallback: %s GiB"
# :166-173
GREW_FMT = ("Free memory grew by %s GiB during profiling (initial %s GiB, current "
            "%s GiB). Sizing the KV cache from the %s GiB torch reserved instead of "
            "the profiling difference.")
# :1112-1119
POOL_FMT = ("CUDA graph pool memory: %s GiB (actual), %s GiB (estimated), "
            "difference: %s GiB (%.1f%%).")
# v1/worker/utils.py:773-780
EXTERNAL_FMT = ("Weights are held outside this process: of the %s GiB "
                "utilization budget, %s GiB is externally held and "
                "%s GiB remains for the engine's own allocations.")
# :789-796 (f-string)
REFUSAL_FMT = ("Free memory on device %s (%s/%s GiB) on startup is less than desired GPU "
               "memory utilization (%s, %s GiB). Decrease GPU memory utilization or reduce "
               "GPU memory used by other processes.")
# v1/core/kv_cache_planning.py:1466-1472 with the tentative note (:1452-1456), :1458-1463,
# :1494-1499 (the memory "%s GiB GPU", :1441-1443; "left for the KV cache ...", :1488-1492)
FULL_FMT = ("Auto-fit max_model_len: full model context length %d fits in "
            "available KV cache memory (%s)%s")
TENTATIVE = "; the final length is set after CUDA graph capture and warmup"
USING_FMT = ("Auto-fit max_model_len: using max_model_len=%d, which fits in "
             "the KV cache memory left after CUDA graph capture and warmup (%s).")
REDUCED_FMT = "--max-model-len auto reduced max_model_len from %d to %d (%s)."
# v1/core/kv_cache_utils.py:1168-1175 (one line in 0.34)
SIZE_FMT = "%s KV cache size: %s tokens, Maximum concurrency for %s tokens per request: %.2fx"

PREFIX = "(EngineCore pid=812) INFO 12-06 05:00:00 [extensible_kv_cache.py:694] "


def _run(text: str):
    return parse_text(text, Path("x.log")).runs[0]


def _warmup(free: str, blocks: int, gib: str) -> str:
    return PREFIX + WARMUP_FMT % (free, "2.0", "1.84", "1.84", "0.25", blocks, gib, "79.19",
                                  "6.1")


def test_the_post_warm_up_line_is_the_pool_not_the_reserve_before_it() -> None:
    """Before warm-up 0.34 prints "Available KV cache memory" = requested - non-KV use with no
    margin and no graphs, 61.4 GiB here; the pool is the 7,600 blocks after warm-up, 7,600 / 128
    = 59.375 -> "59.38" GiB. Every field of the line is read; the run is dated 0.34.0 (the line
    is the extensible cache's) and the cache stated on."""
    text = "\n".join([AVAILABLE_FMT % "61.4", _warmup("3.1", 7600, "59.38"),
                      SIZE_FMT % ("GPU", "486,400", "8,192", 59.38)])
    r = _run(text)
    assert str(round(7600 / 128, 2)) == "59.38"
    assert r.values["kv_gib"] == 59.38
    assert r.values["warmup_blocks"] == 7600
    assert (r.values["warmup_free_gib"], r.values["warmup_committed_gib"],
            r.values["warmup_kept_gib"], r.values["warmup_peak_gib"],
            r.values["warmup_growth_gib"]) == (3.1, 2.0, 1.84, 1.84, 0.25)
    assert (r.values["requested_gib"], r.values["torch_limit_gib"]) == (79.19, 6.1)
    # 7,600 blocks x 64 tokens = 486,400 tokens; concurrency 486,400 / 8,192 = 59.375 -> 59.38x
    assert r.values["tokens"] == 486_400 == 7600 * 64
    assert r.values["concurrency"] == 59.38 and r.values["max_model_len"] == 8192
    assert r.unparsed == []
    assert infer_vllm_version(r)[0] == "0.34.0"
    assert _settings(r, Engine.vllm, "0.34.0").enable_extensible_kv_cache is True


def test_a_later_available_line_does_not_replace_the_post_warm_up_pool() -> None:
    """With TP every rank prints both lines; a rank's "Available" line after another rank's
    warm-up line (interleaved output) must not bring the reserve back: 61.4 stays out."""
    text = "\n".join([_warmup("3.1", 7600, "59.38"), AVAILABLE_FMT % "61.4"])
    assert _run(text).values["kv_gib"] == 59.38


def test_per_rank_warm_up_lines_keep_the_smallest_and_replace_the_ranks() -> None:
    """Two TP ranks: 7,600 blocks (59.38 GiB) and 7,552 (7,552 / 128 = 59.0 GiB). vLLM takes the
    minimum over the ranks (gpu_worker.py:1229-1237), so does the reader; the per-rank figures
    of the "Available" lines before warm-up (61.4, 61.2) are dropped for the warm-up ones."""
    rank = "(Worker_TP%d pid=9) INFO [gpu_worker.py:796] "
    text = "\n".join([rank % 0 + AVAILABLE_FMT % "61.4", rank % 1 + AVAILABLE_FMT % "61.2",
                      (rank % 0) + WARMUP_FMT % ("3.1", "2.0", "1.84", "1.84", "0.25", 7600,
                                                 "59.38", "79.19", "6.1"),
                      (rank % 1) + WARMUP_FMT % ("3.5", "2.0", "1.84", "1.84", "0.25", 7552,
                                                 "59.0", "79.19", "6.1")])
    r = _run(text)
    assert 7552 / 128 == 59.0
    assert r.values["kv_gib"] == 59.0 and r.values["warmup_blocks"] == 7552
    assert r.ranks == {0: 59.38, 1: 59.0}


def test_the_extended_line_is_read_and_stands_in_without_the_warm_up_line() -> None:
    """"Extended KV cache to 7,600 blocks (59.38 GiB)." (%.2f of physical_bytes / 2**30): read
    on its own it is the pool; after the warm-up line it is kept beside it (the warm-up line's
    blocks x bytes per block stay the pool: the physical bytes round up to VMM granules)."""
    ext = EXTENDED_FMT % (7600, 7600 / 128)
    alone = _run("\n".join([AVAILABLE_FMT % "61.4", ext]))
    assert alone.values["kv_gib"] == 59.38 and alone.values["extended_blocks"] == 7600
    assert infer_vllm_version(alone)[0] == "0.34.0"
    both = _run("\n".join([_warmup("3.1", 7600, "59.38"), EXTENDED_FMT % (7600, 59.41)]))
    assert both.values["kv_gib"] == 59.38 and both.values["extended_gib"] == 59.41


def test_the_utilization_cap_warning() -> None:
    """At an explicit 0.9 on an 80 GiB H100 (79.19 GiB total): requested ceil(79.19 x 0.9) =
    71.27 GiB printed, and the memory withheld, 6.5 GiB here, is read."""
    r = _run(CAPS_FMT % ("0.9", "71.27", "6.5"))
    assert str(round(79.19 * 0.9, 2)) == "71.27"
    assert (r.values["util"], r.values["requested_gib"], r.values["withheld_gib"]) == (
        0.9, 71.27, 6.5)


def test_the_stated_pool_disk_fallback_external_weights_rocm_and_graph_pool_lines() -> None:
    """kv_cache_memory_bytes=32 GiB: "reserved 32.0 GiB"; the budget after a disk fallback
    (79.19 - 16.0 = 63.19); weights held outside: budget 79.19 = 15.0 external + 64.19 left;
    ROCm: free grew by 0.5 (190.0 at start, 190.5 after), 20.25 GiB torch reserved; the graph
    pool 0.62 actual against 0.58 estimated (difference 0.04, 0.04 / 0.62 = 6.5%)."""
    r = _run("\n".join([INITIAL_FMT % ("78.5", "32.0")]))
    assert (r.values["free_gib"], r.values["kv_gib"]) == (78.5, 32.0)
    assert _run(FALLBACK_FMT % "63.19").values["requested_gib"] == 63.19 == round(79.19 - 16, 2)
    ext = _run(EXTERNAL_FMT % ("79.19", "15.0", "64.19")).values
    assert (ext["budget_gib"], ext["external_weights_gib"], ext["requested_gib"]) == (
        79.19, 15.0, 64.19)
    grew = _run(GREW_FMT % ("0.5", "190.0", "190.5", "20.25")).values
    assert (grew["free_growth_gib"], grew["free_gib"], grew["free_after_gib"],
            grew["torch_reserved_gib"]) == (0.5, 190.0, 190.5, 20.25)
    pool = _run(POOL_FMT % ("0.62", "0.58", "0.04", 6.5)).values
    assert (pool["graph_pool_gib"], pool["graph_pool_estimate_gib"]) == (0.62, 0.58)


def test_the_refusal_with_the_device_name_is_an_error() -> None:
    """0.34 names the device inside the line ("on device cuda:0 (..."): free 70.0 of 79.19 GiB
    against 0.92 x 79.19 = 72.85 GiB requested (ceil, printed rounded) is a refusal."""
    r = _run(REFUSAL_FMT % ("cuda:0", "70.0", "79.19", "0.92", "72.85"))
    assert (r.values["free_gib"], r.values["total_gib"], r.values["util"],
            r.values["requested_gib"]) == (70.0, 79.19, 0.92, 72.85)
    assert round(79.19 * 0.92, 2) == 72.85
    assert len(r.errors) == 1 and "is less than desired GPU memory utilization" in r.errors[0]


def test_auto_fit_lines_the_final_after_warm_up_one_last() -> None:
    """--max-model-len auto: before warm-up the full 131,072 fits in 61.4 GiB (tentative);
    after warm-up 59.38 GiB is left and the line reports the length reduced to 121,600 (a
    figure the test states, not one kvplan derives). The final line wins; the other spelling
    ("using max_model_len=...") is read too."""
    text = "\n".join([FULL_FMT % (131072, "61.4 GiB GPU", TENTATIVE),
                      REDUCED_FMT % (131072, 121600, "59.38 GiB GPU left for the KV cache after "
                                     "CUDA graph capture and warmup")])
    r = _run(text)
    assert (r.values["autofit_max_model_len"], r.values["autofit_kv_gib"]) == (121600, 59.38)
    using = _run(USING_FMT % (131072, "59.38 GiB GPU")).values
    assert (using["autofit_max_model_len"], using["autofit_kv_gib"]) == (131072, 59.38)


def test_the_stated_flag_off_reaches_the_settings() -> None:
    """`--no-enable-extensible-kv-cache` appears in vLLM's non-default args dict as
    'enable_extensible_kv_cache': False; a directive states it too."""
    r = _run("non-default args: {'model': 'x', 'enable_extensible_kv_cache': False}")
    assert _settings(r, Engine.vllm, "0.34.0").enable_extensible_kv_cache is False
    d = _run("# kvplan: enable_extensible_kv_cache=false\nAvailable KV cache memory: 55.06 GiB")
    assert _settings(d, Engine.vllm, "0.34.0").enable_extensible_kv_cache is False
    assert _settings(_run("Available KV cache memory: 55.06 GiB"), Engine.vllm,
                     "0.34.0").enable_extensible_kv_cache is None


def test_calibrate_end_to_end_takes_the_post_warm_up_pool(tmp_path: Path) -> None:
    """`kvplan calibrate` on a synthetic 0.34 start-up (the format strings above; no real 0.34
    log exists yet) for Llama-3.1-8B on an H100 with 64-token blocks: the breakdown basis
    turns the post-warm-up 59.38 GiB into floor(59.38 x 128) = floor(7,600.64) = 7,600 blocks x
    64 = 486,400 tokens, the logged figure (+0.00%). Had the pre-warm-up reserve been taken
    (61.4 GiB, as the reader did before task h42v034), floor(61.4 x 128) = 7,859 blocks x 64 =
    502,976 tokens, +3.41%. The run is dated 0.34.0 by its warm-up line."""
    import json

    from typer.testing import CliRunner

    from kvplan.cli import app

    log = tmp_path / "x.log"
    log.write_text("\n".join([
        "# engine: vllm", "# kvplan: spec=llama-3.1-8b gpu=h100",
        "non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 8192, "
        "'block_size': 64}",
        "(EngineCore pid=1) INFO [gpu_worker.py:796] " + AVAILABLE_FMT % "61.4",
        _warmup("3.1", 7600, "59.38"),
        "(EngineCore pid=1) INFO [kv_cache_utils.py:1169] "
        + SIZE_FMT % ("GPU", "486,400", "8,192", 59.38)]) + "\n")
    res = CliRunner().invoke(app, ["calibrate", str(log), "-f", "json"])
    assert res.exit_code == 0, res.output
    rows = {(r["basis"], r["quantity"]): r for r in json.loads(res.stdout)}
    tokens = rows[("breakdown", "KV tokens")]
    assert int(59.38 * 128) * 64 == tokens["predicted"] == tokens["logged"] == 486_400
    assert int(61.4 * 128) * 64 == 502_976  # the reserve's figure, no longer used
    assert tokens["error_pct"] == 0.0
    assert tokens["engine_version"].startswith("0.34.0")
