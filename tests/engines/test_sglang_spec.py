"""SGLang speculative decoding's memory per release (task h90sglspec; kvplan/engines/sglang_spec.py).

Read in the sglang wheels (file:line in the module docstring): the draft worker's pool holds the
target's tokens; 0.4.3.post4-0.5.6 add max_num_reqs x (steps x topk + draft tokens) + 100 to both
pools; before 0.5.14 the draft's weights and pool are allocated after the target's pool, out of
what mem_fraction_static holds back; from 0.5.14 (sglang PR #23862) the draft's weights load
before the pool is sized and the cell grows by the draft's layers at the target's per-layer size.
The default mem_fraction_static reserves 2 GiB more (0.4.8-0.5.9; STANDALONE 6 GiB from 0.5.2,
NGRAM none from 0.5.3), 4 GiB for the EAGLE family in 0.5.10-0.5.13, nothing from 0.5.14; an
unstated --max-running-requests becomes 48 (EAGLE family from 0.4.6, NGRAM from 0.5.3).

Every figure below is integer arithmetic on the catalog's shapes. Target Llama-3.1-8B
(model_specs/llama-3.1-8b.yaml: 8,030,261,248 params, 32 layers, 8 KV heads x 128), draft
Llama-3.2-1B (1,235,814,400 params, 16 layers, 8 KV heads x 64: a STANDALONE draft; for the
EAGLE-only releases it stands in as the draft spec, the arithmetic being the same), one H100 SXM
(85,045,477,376 B, nvidia-smi 81,559 MiB), start-up use 400 MiB, bf16, context 8,192.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check import check_paths
from kvplan.cli import app
from kvplan.engines.sglang_defaults import default_fraction
from kvplan.engines.sglang_spec import Speculation, default_running, reserve_mib
from tests.conftest import explain_record, size_record, step_values

MIB = 1 << 20
G_MIB = 81_559
FREE_BEFORE = 85_045_477_376 - 400 * MIB  # 84,626,046,976
TARGET_W = 8_030_261_248 * 2 + 64 * MIB  # 16,127,631,360 (+ load-time buffers, one GPU)
DRAFT_W = 1_235_814_400 * 2  # 2,471,628,800
CELL = 32 * 8 * 128 * 2 * 2  # 131,072
DRAFT_CELL = 16 * 8 * 64 * 2 * 2  # 32,768
BASE = ("llama-3.1-8b", "--gpu", "h100", "--engine", "sglang", "--context", "8192")
DRAFT = ("--speculative-model", "llama-3.2-1b")


def _held(frac: Fraction) -> int:
    return FREE_BEFORE * (1 - frac).numerator // (1 - frac).denominator


def test_reserve_and_running_by_release() -> None:
    # server_args.py: none before 0.4.8; +2 GiB 0.4.8-0.5.9 (STANDALONE +6 from 0.5.2, NGRAM
    # none from 0.5.3); +4 GiB 0.5.10-0.5.13; none from 0.5.14 (PR #23862)
    assert reserve_mib("0.4.7", "EAGLE") == 0
    assert reserve_mib("0.4.8", "EAGLE") == reserve_mib("0.5.1", "EAGLE3") == 2048
    assert reserve_mib("0.5.2", "STANDALONE") == 6144 and reserve_mib("0.5.2", "EAGLE") == 2048
    assert reserve_mib("0.5.5", "NGRAM") == 0 and reserve_mib("0.5.9", "NEXTN") == 2048
    assert reserve_mib("0.5.10", "EAGLE") == reserve_mib("0.5.13", "EAGLE3") == 4096
    assert reserve_mib("0.5.13", "STANDALONE") == 6144
    assert reserve_mib("0.5.14", "EAGLE") == reserve_mib("0.5.23", "STANDALONE") == 0
    assert reserve_mib("0.5.5", None) == 0
    # 48 running requests: EAGLE family from 0.4.6, NGRAM from 0.5.3
    assert default_running("0.4.3", "EAGLE") is None and default_running("0.4.6", "EAGLE3") == 48
    assert default_running("0.5.23", "NGRAM") == 48 and default_running("0.5.23", None) is None


def test_default_fraction_with_the_reserve() -> None:
    # 0.4.8-0.5.2 table, H100 (< 90 GiB): (9.5 + 1/2) GiB = 10,240 MiB, + 2,048 -> 12,288;
    # round((81,559 - 12,288) / 81,559, 3) = 0.849 (0.874 without)
    assert default_fraction(1, "0.4.8", G_MIB, spec_reserve_mib=2048) == Fraction(849, 1000)
    assert default_fraction(1, "0.4.8", G_MIB) == Fraction(874, 1000)
    # 0.5.5: max(512 + 1.5 x 8,192 + 2 x 256 + 1/8 x 1,024, 10,240) = 13,440, + 2,048 after the
    # floor = 15,488 -> 0.810 (0.835 without); STANDALONE in 0.5.10: + 6,144 -> 0.760
    assert default_fraction(1, "0.5.5", G_MIB, spec_reserve_mib=2048) == Fraction(81, 100)
    assert default_fraction(1, "0.5.10", G_MIB, spec_reserve_mib=6144) == Fraction(76, 100)
    # 0.5.13 EAGLE: 13,440 + 4,096 = 17,536 -> round(0.78499..., 3) = 0.785
    assert default_fraction(1, "0.5.13", G_MIB, spec_reserve_mib=4096) == Fraction(785, 1000)


def test_grown_cell_forms() -> None:
    spec = Speculation("EAGLE", "0.5.21", 1, 0, 0, 48, None)
    # int(131,072 x (1 + 1 / 36)) = 134,712; 0.5.22 on: 131,072 + int(131,072 / 36) = 134,712
    assert spec.grown_cell(CELL, 36) == 134_712
    assert Speculation("EAGLE", "0.5.22", 1, 0, 0, 48, None).grown_cell(CELL, 36) == 134_712
    # a 16-layer draft beside 32 layers: 131,072 + 65,536
    assert Speculation("STANDALONE", "0.5.23", 16, 0, 0, 48, None).grown_cell(CELL, 32) == 196_608


def test_in_budget_0_5_23_standalone() -> None:
    # fraction 0.83 (0.5.20-0.5.23 H100 tier with the prefill graphs; no speculative reserve);
    # held = floor(84,626,046,976 x 0.17) = 14,386,427,985; weights target + draft
    # = 18,599,260,160; rest = 84,626,046,976 - 18,599,260,160 - 14,386,427,985
    # = 51,640,358,831; cell 131,072 + int(131,072 x 16 / 32) = 196,608 -> 262,656 tokens
    held = _held(Fraction(83, 100))
    assert held == 14_386_427_985
    rest = FREE_BEFORE - TARGET_W - DRAFT_W - held
    assert rest == 51_640_358_831 and rest // 196_608 == 262_656
    row = explain_record(*BASE, "--engine-version", "0.5.23", "--speculative-algorithm",
                         "STANDALONE", *DRAFT)
    steps = step_values(row)
    assert steps["weights"] == TARGET_W + DRAFT_W
    assert steps["cell size (with draft)"] == 196_608
    assert steps["max_total_num_tokens"] == 262_656
    assert steps["KV pool"] == 262_656 * CELL
    # the budget counts the draft's 16 layers at the target's 4,096 B (65,536 a token), but the
    # draft worker allocates them at its own 8 x 64 heads: 262,656 x 32,768
    assert steps["draft cell share"] == 65_536 and steps["draft own cell size"] == DRAFT_CELL
    assert steps["draft KV pool"] == 262_656 * DRAFT_CELL == 8_606_711_808
    # without speculative decoding: (84,626,046,976 - 16,127,631,360 - held) // 131,072
    plain = size_record(*BASE, "--engine-version", "0.5.23")
    assert plain["kv_cache_tokens"] == (FREE_BEFORE - TARGET_W - held) // CELL == 412_841


def test_in_budget_draft_of_the_target_shape_keeps_the_budget_share() -> None:
    # draft Llama-3-8B (model_specs/llama-3-8b.yaml: 8,030,261,248 params, 32 layers, 8 x 128):
    # its layers are the target's size, so the pool SGLang allocates is the budget's share.
    # cell 131,072 + int(131,072 x 32 / 32) = 262,144; rest = 84,626,046,976 - 16,127,631,360
    # - 16,060,522,496 - 14,386,427,985 = 38,051,465,135 -> 145,154 tokens
    row = explain_record(*BASE, "--engine-version", "0.5.23", "--speculative-algorithm",
                         "STANDALONE", "--speculative-model", "llama-3-8b")
    steps = step_values(row)
    assert steps["max_total_num_tokens"] == 38_051_465_135 // 262_144 == 145_154
    assert "draft own cell size" not in steps
    assert steps["draft KV pool"] == 145_154 * CELL == 19_025_625_088


def test_in_budget_draft_larger_per_layer_than_the_target_is_refused() -> None:
    # target Llama-3.2-1B (16 layers, 8 x 64: 2,048 B a layer), draft Llama-3.1-8B (32 x 4,096 B):
    # the budget counts the draft at 32 x 2,048 = 65,536 B a token, its worker allocates 131,072
    res = CliRunner().invoke(app, ["size", "llama-3.2-1b", "--gpu", "h100", "--engine", "sglang",
                                   "--context", "8192", "--engine-version", "0.5.23",
                                   "--speculative-algorithm", "STANDALONE",
                                   "--speculative-model", "llama-3.1-8b"])
    line = " ".join(res.output.split())
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert "the speculative draft's own KV pool" in line
    steps = step_values(explain_record(
        "llama-3.2-1b", "--gpu", "h100", "--engine", "sglang", "--context", "8192",
        "--engine-version", "0.5.23", "--speculative-algorithm", "STANDALONE",
        "--speculative-model", "llama-3.1-8b"))
    assert (steps["draft cell share"], steps["draft own cell size"]) == (65_536, CELL)
    assert steps["draft KV pool"] == steps["max_total_num_tokens"] * CELL


def test_headroom_0_5_5_eagle() -> None:
    # 0.81 (above); held = floor(84,626,046,976 x 0.19) = 16,078,948,925; rest =
    # 84,626,046,976 - 16,127,631,360 - held = 52,419,466,691 -> 399,928 profiled tokens;
    # max_num_reqs 48 (SGLang's default) x (5 x 4 + 8) + 100 = 1,444 more: 401,372; unstated,
    # the low end (3, 1, 4) is 48 x 7 + 100 = 436: 400,364
    held = _held(Fraction(81, 100))
    profiled = (FREE_BEFORE - TARGET_W - held) // CELL
    assert held == 16_078_948_925 and profiled == 399_928
    row = explain_record(*BASE, "--engine-version", "0.5.5", "--speculative-algorithm", "EAGLE",
                         *DRAFT)
    steps = step_values(row)
    assert steps["draft headroom"] == 1_444
    assert steps["max_total_num_tokens"] == profiled + 1_444 == 401_372
    sized = size_record(*BASE, "--engine-version", "0.5.5", "--speculative-algorithm", "EAGLE",
                        *DRAFT)
    assert (sized["kv_cache_tokens_low"], sized["kv_cache_tokens_high"]) == (profiled + 436,
                                                                             401_372)
    assert sized["users_per_replica"] == 48  # SGLang's 48 running requests
    assert steps["draft KV tokens"] == 401_372
    assert steps["draft KV pool"] == 401_372 * DRAFT_CELL == 13_152_157_696
    assert steps["draft"] == DRAFT_W + 13_152_157_696
    # left = free after weights - target pool - draft = 68,498,415,616 - 52,608,630,784
    # - 15,623,786,496 = 265,998,336
    assert steps["left after the KV pool"] == FREE_BEFORE - TARGET_W - 401_372 * CELL \
        - DRAFT_W - 13_152_157_696 == 265_998_336
    # stated steps 3, topk 1 -> draft tokens 3 + 1 (topk 1 rule): 48 x (3 + 4) + 100 = 436
    stated = size_record(*BASE, "--engine-version", "0.5.5", "--speculative-algorithm", "EAGLE",
                         *DRAFT, "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
                         "--speculative-num-draft-tokens", "8")
    assert stated["kv_cache_tokens"] == stated["kv_cache_tokens_low"] == profiled + 436


def test_shared_tokens_0_5_10_standalone() -> None:
    # 0.76 (above): held = floor(84,626,046,976 x 0.24) = 20,310,251,274; tokens =
    # 48,188,164,342 // 131,072 = 367,646, no headroom (0.5.7 on);
    # the draft's pool holds as many at 32,768 B
    held = _held(Fraction(76, 100))
    tokens = (FREE_BEFORE - TARGET_W - held) // CELL
    assert held == 20_310_251_274 and tokens == 367_646
    row = explain_record(*BASE, "--engine-version", "0.5.10", "--speculative-algorithm",
                         "STANDALONE", *DRAFT)
    steps = step_values(row)
    assert steps["mem_fraction_static"] == 0.76
    sized = size_record(*BASE, "--engine-version", "0.5.10", "--speculative-algorithm",
                        "STANDALONE", *DRAFT)
    assert any("6,144 MiB more reserved for speculative decoding STANDALONE" in a
               for a in sized["assumptions"])
    assert steps["max_total_num_tokens"] == tokens and "draft headroom" not in steps
    assert steps["draft KV pool"] == tokens * DRAFT_CELL


def test_draft_that_does_not_fit_0_4_2() -> None:
    # 0.4.2: fraction 0.88 (TP table), no 48: max_num_reqs = min(max(int(445,123 / 8,192 x 512),
    # 2,048), 4,096) = 4,096; profiled = (free after - floor(free before x 0.12)) // 131,072
    # = 445,123; the draft's pool = 445,123 + 4,096 x 5 + 100 = 465,703 tokens x 32,768 B
    # = 15,260,155,904, + 2,471,628,800 of weights: more than the 10.16 GB the target leaves
    held = _held(Fraction(88, 100))
    profiled = (FREE_BEFORE - TARGET_W - held) // CELL
    assert profiled == 445_123
    steps = step_values(explain_record(*BASE, "--engine-version", "0.4.2",
                                       "--speculative-algorithm", "EAGLE", *DRAFT))
    assert steps["max_total_num_tokens"] == profiled  # the target keeps its tokens
    assert steps["draft KV tokens"] == profiled + 4_096 * 5 + 100 == 465_703
    res = CliRunner().invoke(app, ["size", *BASE, "--engine-version", "0.4.2",
                                   "--speculative-algorithm", "EAGLE", *DRAFT])
    assert res.exit_code == 1
    assert "speculative draft's weights and KV pool" in " ".join(res.output.split())


def test_ngram_caps_the_users_only() -> None:
    plain = size_record(*BASE, "--engine-version", "0.5.23")
    ngram = size_record(*BASE, "--engine-version", "0.5.23", "--speculative-algorithm", "NGRAM")
    assert ngram["kv_cache_tokens"] == plain["kv_cache_tokens"] == 412_841
    assert plain["users_per_replica"] == 50 and ngram["users_per_replica"] == 48
    stated = size_record(*BASE, "--engine-version", "0.5.23", "--speculative-algorithm", "NGRAM",
                         "--max-running-requests", "64")
    assert stated["users_per_replica"] == 50


@pytest.mark.parametrize(("args", "words"), [
    (("--engine-version", "0.5.2", "--speculative-algorithm", "NGRAM"), "from 0.5.3"),
    (("--engine-version", "0.4.8", "--speculative-algorithm", "STANDALONE", *DRAFT),
     "from 0.5.2"),
    (("--speculative-algorithm", "EAGLE3"), "needs the draft model's spec"),
    (("--speculative-algorithm", "NEXTN"), "MTP layers"),
    (("--speculative-algorithm", "NGRAM", *DRAFT), "NGRAM loads no draft model"),
    (("--speculative-algorithm", "EAGLE", *DRAFT, "--speculative-num-steps", "3"),
     "together or none"),
    (("--speculative-num-steps", "3"), "needs --speculative-algorithm"),
    (DRAFT, "only with --speculative-algorithm"),
    (("--speculative-algorithm", "DFLASH"), "'NGRAM'"),
    (("--speculative-algorithm", "NGRAM", "--pp", "2"), "pipeline parallelism is not modelled"),
])
def test_refusals(args: tuple[str, ...], words: str) -> None:
    res = CliRunner().invoke(app, ["size", *BASE, *args])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert words in " ".join(res.output.split())


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: spec
  annotations:
    kvplan.io/peak-concurrent-users: "10"
    kvplan.io/context-tokens-mean: "4000"
spec:
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
  containers:
    - name: server
      image: lmsysorg/sglang:v0.5.23
      command: ["python3", "-m", "sglang.launch_server"]
      args: {args}
      resources:
        limits:
          nvidia.com/gpu: 1
"""


def test_check_reads_the_manifest_flags(tmp_path: Path) -> None:
    args = ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--context-length", "8192",
            "--speculative-algorithm", "STANDALONE", "--speculative-draft-model",
            "meta-llama/Llama-3.2-1B-Instruct", "--speculative-num-steps", "3",
            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]
    path = tmp_path / "spec.yaml"
    path.write_text(POD.format(args=json.dumps(args)))
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "PASS" and o.numbers is not None
    assert o.numbers.kv_pool_bytes == 262_656 * CELL  # as `size` above (0.5.23)
    assert not any("--speculative" in n for n in o.notes)
    # a draft outside the catalog: ERROR naming `kvplan import`, as vLLM's
    args[7] = "jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B"
    path.write_text(POD.format(args=json.dumps(args)))
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "ERROR" and "kvplan import" in " ".join(str(p) for p in o.problems)


LOG15 = Path(__file__).resolve().parents[1] / "assets" / "logs" / \
    "15-sglang-llama3.1-8b-80gb-docs.log"


def _log_with(tmp_path: Path, algorithm: str, draft: str, version: str) -> Path:
    """Log 15 (SGLang docs, Llama-3.1-8B) as if started with speculative decoding: its server_args
    line already prints SGLang 0.4.1's speculative_num_steps=5, topk 8, draft tokens 64."""
    text = LOG15.read_text().replace("speculative_algorithm=None",
                                     f"speculative_algorithm='{algorithm}'")
    text = text.replace("speculative_draft_model_path=None",
                        f"speculative_draft_model_path='{draft}'")
    path = tmp_path / "15-spec.log"
    path.write_text(text.replace("version=0.4.1", f"version={version}"))
    return path


def test_calibrate_reads_speculative_runs(tmp_path: Path) -> None:
    from kvplan.calibrate.compare import calibrate_files
    from kvplan.errors import InputError

    # log 15 itself prints steps 5 / topk 8 / 64 draft tokens with no algorithm: not read as
    # speculative (the calibration figures did not move)
    plain = calibrate_files([LOG15])
    # a draft kvplan knows: modelled (0.4.2 keeps the target's tokens), no error
    errors: list[InputError] = []
    spec = calibrate_files([_log_with(tmp_path, "EAGLE", "meta-llama/Llama-3.2-1B-Instruct",
                                      "0.4.2")], errors)
    assert not errors
    tokens = [[c.predicted for r in reps for c in r.checks if c.quantity == "KV tokens"]
              for reps in (plain, spec)]
    assert tokens[0] and tokens[0] == tokens[1]
    # an unknown draft is the run's error, named (never calibrated without it)
    calibrate_files([_log_with(tmp_path, "EAGLE", "org/unknown-eagle-head", "0.4.2")], errors)
    assert errors and "speculative draft org/unknown-eagle-head" in str(errors[0])


def test_pcie_start_up_range_keeps_the_headroom() -> None:
    # SGLang 0.4.3 at TP 4 over PCIe (L40S) plans a start-up range (sglang.py STARTUP_TP_PCIE_OLD):
    # Llama-3.1-70B profiles 51,879 to 58,091 tokens (55,872 the point) without speculative
    # decoding. 0.4.3.post4 adds max_num_reqs x (5 x 4 + 8) + 100 to both pools whatever the
    # start-up use (model_runner.py:679-692), its slots min(max(int(profiled / 8,192 x 512),
    # 2,048), 4,096): 3,242 -> 51,879 + 90,876 = 142,755; 3,630 -> 58,091 + 101,740 = 159,831;
    # the point 3,492 -> 55,872 + 97,876 = 153,748. The range left the headroom out
    # (51,879-58,091 around a point of 153,748) until task h100mut.
    args = ("llama-3.1-70b", "--gpu", "l40s", "--tp", "4", "--engine", "sglang",
            "--engine-version", "0.4.3", "--context", "8192")
    plain = json.loads(CliRunner().invoke(app, ["size", *args, "-f", "json"]).stdout)
    [plain] = plain["results"]
    assert (plain["kv_cache_tokens_low"], plain["kv_cache_tokens"],
            plain["kv_cache_tokens_high"]) == (51_879, 55_872, 58_091)
    res = CliRunner().invoke(app, ["size", *args, "--speculative-algorithm", "EAGLE", *DRAFT,
                                   "-f", "json"])
    [spec] = json.loads(res.stdout)["results"]
    assert (spec["kv_cache_tokens_low"], spec["kv_cache_tokens"],
            spec["kv_cache_tokens_high"]) == (142_755, 153_748, 159_831)
