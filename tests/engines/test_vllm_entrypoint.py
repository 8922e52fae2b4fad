"""vLLM's entrypoint as a setting: engine.entrypoint (serve | offline), --entrypoint, the
kvplan.io/vllm-entrypoint annotation and the calibrate directive entrypoint=offline.

The defaults are read in the released wheels (vllm/engine/arg_utils.py; kvplan.engines.
vllm_entrypoint lists file:line per release): the offline LLM class (UsageContext.LLM_CLASS)
takes 8,192 batched tokens where `vllm serve` takes 2,048, 16,384 where 8,192, the same 16,384 on
the >= 160 GiB tier (from 0.28.0), and the same max_num_seqs everywhere; V0 reads no usage context.

Hand figure: Llama-3.1-70B at TP 4 on an L40S, vLLM 0.22.0: serve profiles max(2,048 x 46,080 x
2 B, 256 x 128,256 x 16 B) = 525,336,576 B (the sampler), offline max(8,192 x 46,080 x 2 B, ...) =
754,974,720 B (the forward): 229,638,144 B less pool. At 0.22's default utilization, 0.92
(config/cache.py:66 from 0.20.0): requested floor(47,803,596,800 x 0.92) = 43,979,309,056;
serve's pool 43,979,309,056 - 35,310,407,680 (weights / 4 + the rotary cache) - 525,336,576 -
92,667,904 (the in-window PCIe TP term) - 536,870,912 (graphs) = 7,514,025,984 B, floor(/
1,310,720 B a block (80 layers x 16 tokens x 2 heads x 256 x 2 B)) = 5,732 blocks = 91,712
tokens; offline 7,284,387,840 B, 5,557 blocks = 88,912 tokens. (80,048 -> 77,248 while kvplan
took 0.9 for 0.22; 80,448 -> 77,648 before task h39rope's rotary cache; 68,480 -> 65,680
before task h31tpterm booked 0.22's in-window PCIe TP term, 92,667,904 B, for the fitted 1 GiB.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.engines.vllm_entrypoint import offline_defaults
from kvplan.engines.vllm_series import batching_defaults, flavour
from kvplan.errors import InputError
from tests.conftest import explain_record, invoke, step_value

GIB = 1 << 30
LOGS = Path(__file__).resolve().parents[1] / "assets" / "logs"
RUN = ("llama-3.1-70b", "--gpu", "l40s", "--tp", "4", "--engine", "vllm", "--engine-version",
       "0.22.0")
HEAD = ("apiVersion: kvplan/v1\nname: q\nmodel: llama-3.1-70b\nhardware: {gpu: l40s}\n"
        "parallel: {tensor: 4}\ntraffic: {peak_concurrent_users: 10, context_tokens: "
        "{mean: 2000}}\n")


# (version, GPU name, memory GiB) -> (serve's pair, the LLM class's pair), from the wheels
@pytest.mark.parametrize(("version", "gpu", "mem", "serve", "offline"), [
    # 0.9.0-0.27: >= 70 GiB and not A100 -> LLM 16,384 / serve 8,192, 1,024 sequences both
    ("0.9.0", "h100-sxm-80gb", 79, (8192, 1024), (16384, 1024)),
    ("0.15.1", "a100-40gb", 39, (2048, 256), (8192, 256)),  # log 202's GPU
    ("0.22.0", "t4", 14, (2048, 256), (8192, 256)),  # log 250's GPU
    ("0.22.0", "a100-80gb", 79, (2048, 256), (8192, 256)),  # the A100 exception (PR #17885)
    ("0.27.0", "b200", 178, (8192, 1024), (16384, 1024)),  # no >= 160 GiB tier yet
    # 0.28.0 on: >= 160 GiB -> 16,384 / 1,024 for both contexts
    ("0.28.0", "b200", 178, (16384, 1024), (16384, 1024)),
    ("0.28.0", "h200-141gb", 139, (8192, 1024), (16384, 1024)),
    ("0.33.0", "mi300x", 191, (16384, 1024), (16384, 1024)),
    ("0.33.0", "gb10", 119, (2048, 256), (8192, 256)),  # 0.33: GB10 on the small tier
    # before 0.33 too: NVML raises on GB10, device_memory 0 (0.28.0-0.30.0 get_batch_defaults'
    # except; task h36v030)
    ("0.28.0", "gb10", 119, (2048, 256), (8192, 256)),
    # V0 reads no usage context: the same pair (max(max_model_len, 2,048), 256)
    ("0.6.5", "h100-sxm-80gb", 79, (4096, 256), (4096, 256)),
    ("0.10.0-v0", "l4", 22, (4096, 256), (4096, 256)),
])
def test_defaults_by_release_and_gpu_class(version: str, gpu: str, mem: int,
                                           serve: tuple[int, int],
                                           offline: tuple[int, int]) -> None:
    fl = flavour(version)
    got = batching_defaults(4096, gpu, fl, mem * GIB)
    assert got == serve
    assert offline_defaults(got, fl.v1, "offline") == offline
    assert offline_defaults(got, fl.v1, "serve") == offline_defaults(got, fl.v1, None) == serve


def _notes(*args: str) -> list[str]:
    res = invoke(CliRunner(), "size", *args, "--allow-no-fit", "-f", "json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["results"][0]["assumptions"]


def _field(result: dict) -> tuple[str, str] | None:
    row = next((r for r in result["record"] if r["field"] == "engine.entrypoint"), None)
    return None if row is None else (row["value"], row["from"])


def test_the_flag_moves_the_pool_by_the_hand_figure() -> None:
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 80,448 -> 80,048, 77,648 -> 77,248; then 0.22's default
    # utilization 0.92 (module docstring): 80,048 -> 91,712, 77,248 -> 88,912; then the graph
    # term by the capture sizes (task h43graphs): 256 sequences under either entrypoint -> 86
    # graphs x 80 layers x 235,929 B = 1,623,191,520 B for 536,870,912, 1,086,320,608 B more,
    # 829 blocks of 1,310,720 B (16 x 2 KV heads a rank x 256 x 2 B x 80): 91,712 -> 78,448,
    # 88,912 -> 75,648; then (task h44graphbase) a first capture + later graphs: 358,612,992 +
    # 84 later x 80 layers x 89,653 B = 961,081,152 B, 662,110,368 B less than 1,623,191,520,
    # 505.1 blocks: 78,448 -> 86,544 (4,903 -> 5,409 blocks, the old pool's remainder making the
    # 506th), 75,648 -> 83,728 (4,728 -> 5,233, 505); then (task h51blocks) torch's whole blocks
    # in the weights from 0.21: Llama-3.1-70B's embeddings and LM head at TP 4, 32,064 rows x
    # 8,192 x 2 B = 501 MiB each, round up to 502: 2,097,152 B, 1.6 blocks: 86,544 -> 86,512
    # (5,409 -> 5,407), 83,728 -> 83,712 (5,233 -> 5,232)
    unset, serve, offline = explain_record(*RUN), explain_record(*RUN, "--entrypoint", "serve"), \
        explain_record(*RUN, "--entrypoint", "offline")
    assert step_value(serve, "activation peak") == 256 * 128_256 * 16 == 525_336_576
    assert step_value(offline, "activation peak") == 8192 * 46_080 * 2 == 754_974_720
    assert step_value(serve, "KV cache memory") - step_value(offline, "KV cache memory") == 229_638_144
    assert (step_value(serve, "GPU KV cache size"), step_value(offline, "GPU KV cache size")) == (
        86_512, 83_712)
    assert step_value(unset, "GPU KV cache size") == 86_512  # serve is the default
    assert _field(offline) == ("offline", "--entrypoint")
    assert _field(unset) == ("serve", "default: `vllm serve`, 2,048 batched tokens (the offline "
                             "LLM class 8,192: state offline)")
    assert any(a.startswith("entrypoint offline: the LLM class's defaults") and
               "8,192 batched tokens and 256 sequences" in a and "would profile 2,048 and 256"
               in a for a in _notes(*RUN, "--entrypoint", "offline"))
    assert not any(a.startswith("entrypoint") for a in _notes(*RUN))


@pytest.mark.parametrize(("extra", "why"), [
    (("--engine-version", "0.6.5"), "vLLM 0.6.5 runs the V0 engine, which reads no usage "
     "context: the LLM class profiles the same batch as `vllm serve`; drop the option"),
    (("--max-num-batched-tokens", "4096"), "max_num_batched_tokens is stated, and both "
     "entrypoints default to the same max_num_seqs; drop the option"),
    (("--gpu", "b200", "--engine-version", "0.28.0"), "on this GPU vLLM 0.28.0 gives the LLM "
     "class and `vllm serve` the same 16,384 batched tokens and 1,024 sequences"),
])
def test_a_flag_that_moves_nothing_is_refused(extra: tuple[str, ...], why: str) -> None:
    res = invoke(CliRunner(), "size", "llama-3.1-8b", "--engine", "vllm", "--context", "8192",
                 *extra, "--entrypoint", "offline")
    assert res.exit_code == 2
    [line] = res.output.strip().splitlines()
    assert "engine.entrypoint (--entrypoint)" in line and why in " ".join(line.split())
    # where it moves the batch it is taken: B200 under 0.27.0 (no >= 160 GiB tier yet)
    assert invoke(CliRunner(), "size", "llama-3.1-8b", "--engine", "vllm", "--gpu", "b200",
                  "--engine-version", "0.27.0", "--entrypoint", "offline").exit_code == 0


def test_a_file_where_it_moves_nothing_is_noted(tmp_path: Path) -> None:
    def notes(engine: str) -> list[str]:
        path = tmp_path / "v.yaml"
        path.write_text(HEAD + f"engine: {{name: vllm, {engine}}}\n")
        res = invoke(CliRunner(), "size", str(path), "--allow-no-fit", "-f", "json")
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)["results"][0]["assumptions"]

    assert any(a.startswith("entrypoint offline: the V0 engine picks the same defaults")
               for a in notes("version: 0.6.5, entrypoint: offline"))
    assert not any(a.startswith("entrypoint") for a in notes("version: 0.6.5, entrypoint: serve"))
    assert any("max_num_batched_tokens is stated" in a for a in notes(
        "version: 0.22.0, entrypoint: offline, max_num_batched_tokens: 4096"))
    assert ("entrypoint serve: `vllm serve`'s defaults (arg_utils.py, UsageContext."
            "OPENAI_API_SERVER): 2,048 batched tokens; the offline LLM class would profile 8,192"
            ) in _notes(*RUN, "--entrypoint", "serve")
    # explain's default row: none on V0, with a stated batch, or where both pick 16,384
    assert _field(explain_record(*RUN[:-1], "0.6.5")) is None
    assert _field(explain_record(*RUN, "--max-num-batched-tokens", "4096")) is None
    assert _field(explain_record("llama-3.1-8b", "--gpu", "b200", "--engine", "vllm",
                                 "--engine-version", "0.28.0")) is None


def test_a_kvplan_file_states_it(tmp_path: Path) -> None:
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 77,648 -> 77,248, 80,448 -> 80,048; 0.22's default 0.92
    # (module docstring): 77,248 -> 88,912, 80,048 -> 91,712; the graph term by the capture
    # sizes (task h43graphs, the test above): 88,912 -> 75,648, 91,712 -> 78,448; a first capture
    # + later graphs (task h44graphbase, the test above): 75,648 -> 83,728, 78,448 -> 86,544;
    # torch's whole blocks (task h51blocks, the test above): 83,728 -> 83,712, 86,544 -> 86,512
    path = tmp_path / "q.yaml"
    path.write_text(HEAD + "engine: {name: vllm, version: 0.22.0, entrypoint: offline}\n")
    got = explain_record(str(path))
    assert _field(got) == ("offline", "file")
    assert step_value(got, "GPU KV cache size") == 83_712
    # the flag overrides the file's value
    assert step_value(explain_record(str(path), "--entrypoint", "serve"), "GPU KV cache size") == 86_512


def test_a_bad_value_is_one_line_and_exit_2(tmp_path: Path) -> None:
    res = invoke(CliRunner(), "size", *RUN, "--entrypoint", "batch")
    assert res.exit_code == 2
    [line] = res.output.strip().splitlines()
    assert "--entrypoint" in line and "'serve' or 'offline'" in line
    path = tmp_path / "bad.yaml"
    path.write_text(HEAD + "engine: {name: vllm, version: 0.22.0, entrypoint: batch}\n")
    res = invoke(CliRunner(), "size", str(path))
    assert res.exit_code == 2 and "engine.entrypoint" in res.output


def test_settings_refuse_a_bad_value_and_other_engines() -> None:
    from kvplan.engines.interface import Engine, EngineSettings

    with pytest.raises(InputError, match="entrypoint must be one of serve, offline"):
        EngineSettings(engine=Engine.vllm, entrypoint="llm").check()
    with pytest.raises(InputError, match="entrypoint applies only to vllm, not sglang"):
        EngineSettings(engine=Engine.sglang, entrypoint="offline").check()


@pytest.mark.parametrize(("engine", "why"), [
    ("sglang", "only vllm reads it, not sglang; drop the option"),
    ("trtllm", "only vllm reads it, not trtllm; drop the option"),
    ("ideal", "only vllm reads it, not ideal; add --engine vllm"),
])
def test_another_engine_refuses_the_flag(engine: str, why: str) -> None:
    res = invoke(CliRunner(), "size", "llama-3.1-8b", "--gpu", "h100", "--engine", engine,
                 "--entrypoint", "offline")
    assert res.exit_code == 2
    [line] = res.output.strip().splitlines()
    assert "(--entrypoint)" in line and why in line
    for command in ("fleet", "explain"):
        assert invoke(CliRunner(), command, "llama-3.1-8b", "--gpu", "h100", "--engine", engine,
                      "--entrypoint", "offline").exit_code == 2


def test_another_engine_notes_the_key(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + "engine: {name: sglang, entrypoint: offline}\n")
    res = invoke(CliRunner(), "size", str(path))
    assert res.exit_code == 0
    assert "engine.entrypoint: only vllm reads it, not sglang, so it is not used" in res.output


def test_a_manifest_states_it_only_by_annotation(tmp_path: Path) -> None:
    from tests.check.check_api import one_target
    from tests.check.test_check_engine_flags import manifest, vllm

    path = vllm(tmp_path)
    path.write_text(path.read_text().replace(
        "  annotations:\n", "  annotations:\n    kvplan.io/vllm-entrypoint: offline\n"))
    t = one_target(path)
    assert t.deployment.engine.entrypoint == "offline"
    assert t.field_name("engine.entrypoint") == "kvplan.io/vllm-entrypoint"
    assert one_target(vllm(tmp_path)).deployment.engine.entrypoint is None  # vllm serve: serve
    # a container that runs a Python script is not evidence of the LLM class: left at serve
    script = manifest(tmp_path, "job", "vllm/vllm-openai:v0.28.0", ["python3", "batch.py"], [])
    from kvplan.check import read_targets

    for target in read_targets(script, {}):
        assert target.deployment is None or target.deployment.engine.entrypoint is None


def test_the_calibrate_directive(tmp_path: Path) -> None:
    from kvplan.calibrate.parse import parse_file

    bad = tmp_path / "x.log"
    bad.write_text("# kvplan: entrypoint=llm\n")
    with pytest.raises(InputError, match="must be serve or offline"):
        parse_file(bad)
    # log 202 (0.15.1, A100 40GB, offline LLM class): the logged 8,192-token batch is the LLM
    # class's below-70-GiB default, so its 256 sequences are resolved, not serve's 1,024
    from kvplan.calibrate.resolve import _default_seqs_for_logged_batch

    [log] = sorted(LOGS.glob("202-*.log"))
    run = parse_file(log).runs[0]
    assert run.settings["entrypoint"] == "offline" and run.settings["batched_default"] == "8192"
    assert _default_seqs_for_logged_batch(run, "0.15.1") == 256
    run.settings["entrypoint"] = "serve"
    assert _default_seqs_for_logged_batch(run, "0.15.1") == 1024


def test_check_plans_the_annotated_manifest_with_the_llm_class(tmp_path: Path) -> None:
    # the hand figure's deployment as a manifest at 0.22's default 0.92 and the graph term by
    # the capture sizes as a first capture + later graphs (task h44graphbase): 86,544 / 2,000 =
    # 43 users served, 83,728 / 2,000 = 41 offline (39 and 37 with task h43graphs' graphs x
    # layers, 45 and 44 with the flat 0.5 GiB; 40 and 38 while kvplan took 0.9)
    from tests.check.test_check_engine_flags import manifest

    def holds(annotated: bool) -> str:
        path = manifest(tmp_path, "m", "vllm/vllm-openai:v0.22.0",
                        ["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct"],
                        ["--tensor-parallel-size", "4", "--max-model-len", "8192"], gpus=4)
        text = path.read_text().replace("NVIDIA-H100-80GB-HBM3", "NVIDIA-L40S")
        if annotated:
            text = text.replace("  annotations:\n",
                                "  annotations:\n    kvplan.io/vllm-entrypoint: offline\n")
        path.write_text(text)
        res = invoke(CliRunner(), "check", str(path))
        assert res.exit_code == 0, res.output
        return res.output

    assert "holds 43 users" in holds(False)
    assert "holds 41 users" in holds(True)
