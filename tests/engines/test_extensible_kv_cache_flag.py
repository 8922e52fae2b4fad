"""engine.enable_extensible_kv_cache: vLLM 0.34's --enable-extensible-kv-cache /
--no-enable-extensible-kv-cache, applied (task h41flags034).

Read in the vllm==0.34.0 wheel: the option is a BooleanOptionalAction on
CacheConfig.enable_extensible_kv_cache (engine/arg_utils.py:1413, config/cache.py:395);
config/vllm.py:3252-3254 turns it on where supported only when it is unset, so an explicit false
keeps it off; then gpu_memory_utilization defaults to DEFAULT_GPU_MEMORY_UTILIZATION 0.92
(config/cache.py:186, resolved_gpu_memory_utilization :494-501) and the CUDA-graph estimate is
subtracted before sizing (v1/worker/gpu/model_runner.py:1121-1128 -> gpu/cudagraph_utils.py:989,
called at gpu_worker.py:746-747 and subtracted at :776-780 in 0.34.0; task h42v034 re-read them,
where :821-826 had been cited, the disabled-estimate warning's branch), as in 0.33. Explicitly
on with kv_cache_memory_bytes, vLLM stops (config/vllm.py:3203-3207, :3262-3263).

Llama-3.1-8B on an H100 SXM 80GB at 8,192 tokens, vLLM 0.34.0's serve defaults (8,192 batched
tokens, 1,024 sequences), the non-KV terms every 0.33/0.34 plan books alike:
  weights 16,094,076,928 + activation peak 1,838,678,016 + non-torch 73,400,320
  + Model Runner V2 state 576,630,784 + CUDA graphs 536,870,912 = 19,352,858,304 B.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.vllm_extensible import EXTENSIBLE_NOTE, KV_BYTES_NOTE, OFF_NOTE
from kvplan.engines.vllm_flag_versions import missing_flags

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import extract_vllm_flags as gen  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# the graph term by the capture sizes (task h43graphs): 1,024 sequences on an H100 -> 102 graphs
# in 2 modes; since task h44graphbase a first capture + 100 later x 32 layers x 89,653 B =
# 358,612,992 + 286,889,600 = 645,502,592 (770,072,256 = 102 x 32 x 235,929 until then; the
# flat 0.5 GiB, 536,870,912, before task h43graphs)
NON_KV = 16_094_076_928 + 1_838_678_016 + 73_400_320 + 576_630_784 + 645_502_592
BYTES_PER_BLOCK = 2_097_152  # 16 tokens x 32 layers x 8 KV heads x (128 + 128) x 2 B
ARGS = ["llama-3.1-8b", "--engine", "vllm", "-g", "h100", "-c", "8192", "-f", "json"]


def _run(*argv: str) -> dict:
    res = CliRunner().invoke(app, list(argv))
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["results"][0]


def test_non_kv_sum() -> None:
    assert NON_KV == 19_228_288_640


def test_size_off_sizes_as_0_33_at_0_92() -> None:
    """Off: requested = floor(85,045,477,376 x 0.92) = 78,241,839,185; KV = 78,241,839,185 -
    19,228,288,640 = 59,013,550,545 B; blocks = floor(59,013,550,545 / 2,097,152) = 28,139;
    users = floor(28,139 / 512 blocks a sequence) = 54.
    On (the default): budget = min(85,045,477,376 x 1.0, 85,045,477,376 - CUDA context
    293,601,280 - margin max(1 GiB, 0.75 x 1,838,678,016 = 1,379,008,512)) = 83,372,867,584;
    KV = 83,372,867,584 - 19,228,288,640 = 64,144,578,944 B; blocks 30,586; users 59."""
    off = _run("size", *ARGS, "--no-enable-extensible-kv-cache")
    on = _run("size", *ARGS, "--enable-extensible-kv-cache")
    default = _run("size", *ARGS)
    assert 85_045_477_376 * 92 // 100 - NON_KV == 59_013_550_545
    assert off["kv_cache_bytes"] == 59_013_550_545 and off["users_per_gpu"] == 54
    assert 59_013_550_545 // BYTES_PER_BLOCK == 28_139 and 28_139 // 512 == 54
    assert 85_045_477_376 - 293_601_280 - 1_379_008_512 - NON_KV == 64_144_578_944
    assert on["kv_cache_bytes"] == 64_144_578_944 and on["users_per_gpu"] == 59
    assert 64_144_578_944 // BYTES_PER_BLOCK == 30_586 and 30_586 // 512 == 59
    assert default == on


def test_explain_off_shows_the_0_92_default_and_no_warm_up_budget() -> None:
    """Off: the utilization step is 0.92 (its origin cited), no device headroom or warm-up
    margin step (those are the extensible cache's), the note says how the pool is sized, and
    the record states the field as false and the utilization as the engine took it."""
    r = _run("explain", *ARGS, "--no-enable-extensible-kv-cache")
    steps = {s["label"]: s for s in r["steps"]}
    assert steps["gpu_memory_utilization"]["value"] == 0.92
    assert "config/cache.py:186" in steps["gpu_memory_utilization"]["formula"]
    assert steps["requested memory"]["value"] == 78_241_839_185
    assert steps["KV cache memory"]["value"] == 59_013_550_545
    assert "warm-up margin" not in steps and "KV sizing budget" not in steps
    assert "estimate subtracted before sizing" in steps["CUDA graph memory"]["formula"]
    record = {f["field"]: f for f in r["record"]}
    assert record["engine.enable_extensible_kv_cache"]["value"] is False
    assert record["engine.enable_extensible_kv_cache"]["from"] == "--enable-extensible-kv-cache"
    assert record["engine.gpu_memory_utilization"]["value"] == 0.92
    on = _run("explain", *ARGS)
    assert {s["label"]: s for s in on["steps"]}["gpu_memory_utilization"]["value"] == 1
    off = _run("size", *ARGS, "--no-enable-extensible-kv-cache")
    assert OFF_NOTE in off["assumptions"]
    assert not any("extensible KV cache (on by default" in a for a in off["assumptions"])


def test_off_cites_0_34_0s_graph_estimate_lines() -> None:
    """Off, the graph step cites the 0.34.0 wheel's own lines (task h42v034), not 0.33.0's:
    gpu/model_runner.py:1121 `profile_cudagraph_memory` -> gpu/cudagraph_utils.py:989, and
    gpu_worker.py:779 `- cudagraph_memory_estimate` in `available_kv_cache_memory_bytes`
    (0.33.0's were :1069, :922 and :756). The arithmetic is 0.33's: the same 645,502,592 B graph
    term comes out of the same requested memory, so the pool is requested - NON_KV =
    78,241,839,185 - 19,228,288,640 = 59,013,550,545 B."""
    r = _run("explain", *ARGS, "--no-enable-extensible-kv-cache")
    steps = {s["label"]: s for s in r["steps"]}
    formula = steps["CUDA graph memory"]["formula"]
    assert "gpu/model_runner.py:1121 -> gpu/cudagraph_utils.py:989" in formula
    assert "gpu_worker.py:779 subtracts it; read in 0.34.0" in formula
    assert "0.33.0" not in formula
    assert steps["KV cache memory"]["value"] == 78_241_839_185 - NON_KV == 59_013_550_545
    assert "gpu_worker.py:746-747" in OFF_NOTE and "821" not in OFF_NOTE


def test_a_stated_utilization_is_kept_off() -> None:
    """Off at a stated 0.9: requested = floor(85,045,477,376 x 0.9) = 76,540,929,638;
    KV = 76,540,929,638 - 19,228,288,640 = 57,312,640,998 B (0.33's sizing, nothing capped)."""
    r = _run("size", *ARGS, "--no-enable-extensible-kv-cache", "--memory-utilization", "0.9")
    assert 85_045_477_376 * 9 // 10 - NON_KV == 57_312_640_998
    assert r["kv_cache_bytes"] == 57_312_640_998


def test_before_0_34_either_spelling_is_refused() -> None:
    """0.33.0's argparse has neither option (its wheel's arg_utils.py): it would not start."""
    for spelling in ("--enable-extensible-kv-cache", "--no-enable-extensible-kv-cache"):
        res = CliRunner().invoke(app, ["size", *ARGS[:-2], spelling, "--engine-version",
                                       "0.33.0"])
        assert res.exit_code == 2, res.output
        text = " ".join(res.output.split())
        assert f"vLLM 0.33.0 has no {spelling} (first in 0.34" in text
    block = SimpleNamespace(name="vllm", version="0.34.0", enable_extensible_kv_cache=False,
                            kv_cache_memory_bytes=None)
    assert missing_flags(block) == []  # type: ignore[arg-type]


def test_on_with_kv_cache_memory_bytes_is_refused() -> None:
    """vLLM 0.34 raises "enable_extensible_kv_cache: it sizes the KV cache from measured
    memory, which kv_cache_memory_bytes overrides" when both are given (config/vllm.py:3262)."""
    res = CliRunner().invoke(app, ["size", *ARGS[:-2], "--enable-extensible-kv-cache",
                                   "--kv-cache-memory-bytes", "10737418240"])
    assert res.exit_code == 2, res.output
    assert "which kv_cache_memory_bytes overrides" in " ".join(res.output.split())
    off = _run("size", *ARGS, "--no-enable-extensible-kv-cache", "--kv-cache-memory-bytes",
               "10737418240")
    assert off["kv_cache_bytes"] == 10_737_418_240  # off with the stated pool: vLLM starts


def test_kv_cache_memory_bytes_turns_the_unset_cache_off() -> None:
    """Unset, vLLM 0.34 resolves the extensible cache to 'supported', and kv_cache_memory_bytes
    makes it unsupported (config/vllm.py:3203-3207, :3252-3254), so the cache is off and
    gpu_memory_utilization resolves to 0.92 (config/cache.py:494-501): requested =
    floor(85,045,477,376 x 0.92) = 78,241,839,185 B. The pool is the 10 GiB given
    (gpu_worker.py:696-708), 5,120 blocks of 2,097,152 B, 10 users of 512 blocks, the same as
    with the cache turned off by the flag. Until task h101left the assumptions said the
    extensible cache sized the pool, and the plan booked 1.0 (85,045,477,376 B requested)."""
    stated = _run("size", *ARGS, "--kv-cache-memory-bytes", "10737418240")
    off = _run("size", *ARGS, "--no-enable-extensible-kv-cache", "--kv-cache-memory-bytes",
               "10737418240")
    assert stated["kv_cache_bytes"] == 10_737_418_240 and stated["users_per_gpu"] == 10
    assert 10_737_418_240 // BYTES_PER_BLOCK == 5_120 and 5_120 // 512 == 10
    assert stated["requested_bytes"] == 78_241_839_185
    assert "vLLM 0.34.0 (V1 engine), gpu_memory_utilization 0.92 of total memory" \
        in stated["assumptions"]
    assert KV_BYTES_NOTE in stated["assumptions"]
    assert EXTENSIBLE_NOTE not in stated["assumptions"]
    assert OFF_NOTE not in stated["assumptions"]
    assert KV_BYTES_NOTE in off["assumptions"]
    table = CliRunner().invoke(app, ["size", *ARGS[:-2], "--kv-cache-memory-bytes",
                                     "10737418240"])
    assert table.exit_code == 0, table.output
    # the table's "not modelled" list no longer names the extensible cache
    assert "extensible KV cache (on by default" not in " ".join(table.output.split())
    explain = CliRunner().invoke(app, ["explain", *ARGS[:-2], "--kv-cache-memory-bytes",
                                       "10737418240"])
    text = " ".join(explain.output.split())
    assert "vLLM 0.34 with kv_cache_memory_bytes: the extensible KV cache is off" in text
    assert "extensible KV cache (on by default" not in text


def _manifest(tmp_path: Path, image: str, flag: str) -> Path:
    path = tmp_path / f"{image.replace(':', '-')}{flag}.yaml"
    path.write_text(f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: x}}
spec:
  template:
    spec:
      nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-h100-80gb}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:{image}
        command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
        args: [--max-model-len, "8192", {flag}]
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
""")
    return path


def test_check_a_0_34_image_with_the_cache_off_passes_with_the_off_figure(
        tmp_path: Path) -> None:
    """v0.34.0 with --no-enable-extensible-kv-cache (or 0.34's --disable- spelling,
    EnableDisableAction): a real option, so PASS, with the off figure worked above: 28,139 blocks
    x 16 = 450,224 tokens, 54 sequences of 8,192. Before this task's table it was a FAIL ("vLLM
    0.33.0 has no option --no-enable-extensible-kv-cache")."""
    for flag in ("--no-enable-extensible-kv-cache", "--disable-extensible-kv-cache"):
        res = CliRunner().invoke(app, ["check", str(_manifest(tmp_path, "v0.34.0", flag))])
        text = " ".join(res.output.split())
        assert res.exit_code == 0, res.output
        assert ("PASS line 1 x: starts; holds 54 sequences of 8,192 tokens per replica "
                "(450,224 tokens in the pool)") in text
        assert "has no option" not in text
    assert 28_139 * 16 == 450_224
    # on: 30,586 blocks (test_size_off_sizes_as_0_33_at_0_92) x 16 = 489,376 tokens
    on = CliRunner().invoke(app, ["check", str(_manifest(tmp_path, "v0.34.0",
                                                         "--enable-extensible-kv-cache"))])
    assert "holds 59 sequences of 8,192 tokens per replica (489,376 tokens" in " ".join(
        on.output.split())  # 30,527 blocks x 16 (30,638 before task h43graphs)


def test_check_a_0_33_image_with_the_option_fails(tmp_path: Path) -> None:
    """v0.33.0: its argparse has no such option and exits, so FAIL (not a note: the option is
    one kvplan reads, and its first release is known)."""
    res = CliRunner().invoke(app, ["check", str(_manifest(
        tmp_path, "v0.33.0", "--no-enable-extensible-kv-cache"))])
    text = " ".join(res.output.split())
    assert res.exit_code == 1, res.output
    assert ("FAIL line 12 x: vLLM 0.33.0 has no --no-enable-extensible-kv-cache (first in 0.34.0, "
            "vllm/engine/arg_utils.py), so it would not start with it") in text


def test_generator_rules_on_a_small_source() -> None:
    """benchmarks/extract_vllm_flags.py on a hand-written pair of modules: add_argument's option
    strings; --no-X for a bool field of EngineArgs (not for bool | str | None); --disable-X for
    an --enable-X bool and --enable-X for a --disable-X bool; a FrontendArgs field is an option."""
    engine = '''
from dataclasses import dataclass
@dataclass
class EngineArgs:
    enable_foo: bool | None = None
    disable_bar: bool = False
    hf_token: bool | str | None = None
    size: int = 1
def add_cli_args(g, kw):
    g.add_argument("--enable-foo", **kw["enable_foo"])
    g.add_argument("--disable-bar", **kw["disable_bar"])
    g.add_argument("--hf-token", **kw["hf_token"])
    g.add_argument("--size", "-s", **kw["size"])
'''
    frontend = '''
class FrontendArgs(BaseFrontendArgs):
    port: int = 8000
    allow_x: bool = False
'''
    got = gen.extract({gen.ARG_UTILS: engine, gen.CLI_ARGS: frontend})
    assert got == {"--enable-foo", "--no-enable-foo", "--disable-foo", "--disable-bar",
                   "--no-disable-bar", "--enable-bar", "--hf-token", "--size", "-s", "--port",
                   "--allow-x", "--no-allow-x"}


def test_generator_lays_out_the_committed_table() -> None:
    """The committed table's option lines are what table() packs from its own FLAGS (8 spaces,
    sorted, as many as fit in 104 columns), so a regenerated file differs only where vLLM did."""
    from kvplan.check.engine_flags.vllm import FLAGS

    text = (ROOT / "kvplan/check/engine_flags/vllm.py").read_text()
    body = text.split("    [\n", 1)[1].split("\n    ]", 1)[0]
    assert body.split("\n") == gen.table(set(FLAGS))
    assert max(len(line) for line in gen.table(set(FLAGS))) <= gen.WIDTH


def test_generator_reads_which_enable_disable_options_take_a_value() -> None:
    """An `--enable-*` / `--disable-*` / `--no-*` option is read as taking no value
    (kvplan.check.argv.takes_no_value) unless the table's VALUED names it: a field of EngineArgs or
    a *FrontendArgs class so named whose annotation is not bool (task h82shell: vLLM 0.33.0's
    `disable_access_log_for_endpoints: str | None`, entrypoints/common/cli_args.py:321; 0.34.0
    :322; 0.32.0 entrypoints/launchers/cli_args.py:311; a comma-separated string, its nargs
    deleted, 0.34.0 :414-417)."""
    engine = '''
class EngineArgs:
    enable_foo: bool | None = None
    disable_bar: bool = False
    enable_mode: str | None = None
    no_baz: int = 0
'''
    frontend = '''
class FrontendArgs(BaseFrontendArgs):
    disable_access_log_for_endpoints: str | None = None
    disable_uvicorn_access_log: bool = False
'''
    got = gen.valued({gen.ARG_UTILS: engine, gen.CLI_ARGS: frontend})
    assert got == {"--enable-mode", "--no-baz", "--disable-access-log-for-endpoints"}


def test_committed_table_is_the_generators_output() -> None:
    """The committed vllm.py starts with what the generator prints (FLAGS, then VALUED), byte for
    byte, from the release SOURCE names: the module text is rebuilt from the committed sets."""
    from kvplan.check.engine_flags.vllm import FLAGS, SOURCE, VALUED

    text = (ROOT / "kvplan/check/engine_flags/vllm.py").read_text()
    wheel = SOURCE["from"].split("(")[1].rstrip(")")
    assert text.startswith(gen.module(SOURCE["version"], wheel, set(FLAGS), set(VALUED)))
    assert set(VALUED) == {"--disable-access-log-for-endpoints"}


def test_an_enable_disable_option_that_takes_a_value_keeps_its_word() -> None:
    """`--disable-access-log-for-endpoints /health` (task h80shell's held-out idx60740656321, a
    command that ran: READY, exit 0) was read as a flag and `/health` refused as left over."""
    from kvplan.check.argv import Invocation, Word, parse, takes_no_value

    assert not takes_no_value("--disable-access-log-for-endpoints")
    assert takes_no_value("--disable-log-stats") and takes_no_value("--enable-prefix-caching")
    words = "Qwen/Qwen3-8B --disable-access-log-for-endpoints /health --max-model-len 4096"
    parsed = parse(Invocation("vllm", "vllm serve", [Word(w, 1) for w in words.split()]))
    assert parsed.options["--disable-access-log-for-endpoints"][0] == "/health"
    assert [w.text for w in parsed.positional] == ["Qwen/Qwen3-8B"]
