"""Mutation tests of kvplan/engines/sglang_spec.py (task h100mut): SGLang speculative decoding's
steps, notes and refusals word for word, and its rules at each release boundary the module reads
(SGLang wheels, file:line in the module docstring: model_runner.py:596-604 in 0.4.2, :679-692 in
0.4.3.post4, pool_configurator.py:129-145 in 0.5.14 and :267-308 in 0.5.22, server_args.py
:476-485 and :1631-1635 in 0.4.8, the --speculative-algorithm choices per release).

The figures are tests/engines/test_sglang_spec.py's, worked by hand there from the catalog's
shapes: target Llama-3.1-8B (8,030,261,248 params, 32 layers, 8 KV heads x 128: 131,072 B a
token), draft Llama-3.2-1B (1,235,814,400 params, 16 layers, 8 KV heads x 64: 32,768 B), one
H100 SXM, context 8,192; SGLang's default 48 running requests with speculative decoding.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from kvplan.capacity import SizeRequest
from kvplan.engines.interface import EngineSettings
from kvplan.engines.sglang_spec import (
    Speculation,
    assumptions,
    draft_refusal,
    params_refusal,
    speculation,
)
from kvplan.engines.steps import Steps
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType
from tests.conftest import explain_record, invoke

BASE = ("llama-3.1-8b", "--gpu", "h100", "--engine", "sglang", "--context", "8192")
DRAFT = ("--speculative-model", "llama-3.2-1b")
DRAFT_W = 1_235_814_400 * 2  # 2,471,628,800 B at the target's 16 bits, TP 1
NOT_MODELLED = ("not modelled: the draft's CUDA graphs and activations (held back, as the "
                "target's) and its embedding / LM head SGLang swaps for the target's")
RUNNING = "--max-running-requests 48 (SGLang's default with speculative decoding)"
BEFORE = ("speculative decoding {}: the draft's weights and its KV pool (16 layer(s), the target's "
          "tokens) are allocated after the target's pool, out of the memory mem_fraction_static "
          "holds back (SGLang before 0.5.14)")
IN_BUDGET = ("speculative decoding {}: the draft's weights are in the budget and each token's cell "
             "holds its 16 layer(s) at the target's per-layer size (SGLang 0.5.14 on, "
             "pool_configurator.py)")
OWN_SHAPE = ("the draft's own pool is booked at its own KV shape, 32,768 B per token over its "
             "layers, not the target's per-layer size the budget counts: the draft worker "
             "allocates the target's tokens at its own KV heads and head size "
             "(model_runner_kv_cache_mixin.py:788-797 in 0.5.14)")
HEADROOM = ("both pools hold max_num_reqs x (steps x topk + draft tokens) + 100 tokens past the "
            "profiled ones (SGLang 0.4.3.post4-0.5.6)")


def _steps(*args: str) -> dict[str, tuple[Any, str, str, list[Any]]]:
    row = explain_record(*BASE, *args)
    return {s["label"]: (s["value"], s["unit"], s["formula"], s["args"]) for s in row["steps"]}


def _spec_notes(*args: str) -> list[str]:
    res = invoke(CliRunner(), "size", *BASE, *args, "-f", "json")  # exit 1 where it does not fit
    [row] = json.loads(res.stdout)["results"]
    notes = row["assumptions"]
    return [a for a in notes if "speculative" in a or a.startswith(("not modelled: the draft",
                                                                   "both pools",
                                                                   "the draft's own pool"))]


def test_0_5_5_eagle_steps_outside_the_budget() -> None:
    # 48 x (5 x 4 + 8) + 100 = 1,444 tokens past the 399,928 profiled: 401,372 in both pools
    st = _steps("--engine-version", "0.5.5", "--speculative-algorithm", "EAGLE", *DRAFT)
    assert st["draft headroom"] == (1_444, "tokens", (
        "max_num_reqs 48 x (steps 5 x topk 4 + draft tokens 8) + 100 (unstated: by "
        "architecture, low end steps 3 x topk 1 + 4 = 436; kvplan's specs name no architecture)"
        " (SGLang 0.4.3.post4-0.5.6: both pools hold it past the profiled tokens)"), [])
    assert st["tokens (with headroom)"] == (401_372, "tokens", "profiled tokens + draft headroom",
                                            ["tokens (>= 0)", "draft headroom"])
    assert st["pages"][3] == ["tokens (with headroom)", "page size"]
    assert st["draft weights"] == (DRAFT_W, "bytes", (
        "draft params x weight bytes / TP (loaded after the target's pool is sized, out of what "
        "mem_fraction_static holds back)"), [])
    assert st["draft KV tokens"] == (401_372, "tokens", "the target's tokens (shared indices)", [])
    assert st["draft cell size"] == (32_768, "bytes", "the draft's K + V per token, its layers",
                                     [])
    assert st["draft KV pool"] == (401_372 * 32_768, "bytes", "draft tokens x draft cell size",
                                   ["draft KV tokens", "draft cell size"])
    assert st["draft"] == (DRAFT_W + 401_372 * 32_768, "bytes",
                           "draft weights + draft KV pool (beside the target's pool)",
                           ["draft weights", "draft KV pool"])
    assert st["left after the KV pool"][3] == ["free after weights", "-KV pool", "-draft"]
    assert "cell size (with draft)" not in st and "draft cell share" not in st
    assert _spec_notes("--engine-version", "0.5.5", "--speculative-algorithm", "EAGLE",
                       *DRAFT) == [
        BEFORE.format("EAGLE"),
        "default mem_fraction_static: 2,048 MiB more reserved for speculative decoding EAGLE "
        "(SGLang 0.4.8-0.5.13 server_args.py; none from 0.5.14, PR #23862)",
        RUNNING, HEADROOM, NOT_MODELLED]


def test_stated_parameters_give_one_headroom() -> None:
    # stated 3 / 4 / 8: 48 x (3 x 4 + 8) + 100 = 1,060, no interval
    st = _steps("--engine-version", "0.5.5", "--speculative-algorithm", "EAGLE", *DRAFT,
                "--speculative-num-steps", "3", "--speculative-eagle-topk", "4",
                "--speculative-num-draft-tokens", "8")
    assert st["draft headroom"][:3] == (1_060, "tokens", (
        "max_num_reqs 48 x (steps 3 x topk 4 + draft tokens 8) + 100 (SGLang 0.4.3.post4-0.5.6: "
        "both pools hold it past the profiled tokens)"))


def test_0_5_23_standalone_steps_in_the_budget() -> None:
    # weights 16,127,631,360 + 2,471,628,800; cell 131,072 + int(131,072 x 16 / 32) = 196,608;
    # 262,656 tokens; the draft's share 65,536 a token
    st = _steps("--engine-version", "0.5.23", "--speculative-algorithm", "STANDALONE", *DRAFT)
    assert st["weights"][0] == 16_127_631_360 + DRAFT_W
    assert st["weights"][2].endswith(
        " + draft model 1,235,814,400 params at the target's width (2.30 GiB, loaded before the "
        "pool is sized: SGLang 0.5.14 on, PR #23862)")
    assert st["cell size (with draft)"] == (196_608, "bytes", (
        "cell size + int(cell size x draft layers / layers), draft layers 16, layers 32 (the "
        "draft's KV at the target's per-layer size: pool_configurator.py)"), [])
    assert st["draft cell share"] == (65_536, "bytes", "the draft's layers in each token's cell, "
                                      "at the target's per-layer size",
                                      ["cell size (with draft)", "-cell size"])
    # task vllmleft: the draft worker allocates its pool at its own 8 x 64 heads, 32,768 B a token
    assert st["draft own cell size"] == (32_768, "bytes", (
        "the draft's own K + V per token, its layers x its KV heads x head size (the draft "
        "worker's pool: model_runner_kv_cache_mixin.py:788-797 in 0.5.14)"), [])
    assert st["draft KV pool"] == (262_656 * 32_768, "bytes", (
        "tokens x the draft's own cell (allocated at its own shape; the budget counted its "
        "layers at the target's per-layer size)"), ["max_total_num_tokens", "draft own cell size"])
    assert st["left after the KV pool"][3] == ["free after weights", "-KV pool", "-draft KV pool"]
    assert "draft weights" not in st and "draft headroom" not in st
    assert _spec_notes("--engine-version", "0.5.23", "--speculative-algorithm", "STANDALONE",
                       *DRAFT) == [IN_BUDGET.format("STANDALONE"), OWN_SHAPE, RUNNING,
                                   NOT_MODELLED]


def test_0_5_21_grows_the_cell_in_one_expression() -> None:
    st = _steps("--engine-version", "0.5.21", "--speculative-algorithm", "EAGLE", *DRAFT)
    assert st["cell size (with draft)"][:3] == (196_608, "bytes", (
        "int(cell size x (1 + draft layers / layers)), draft layers 16, layers 32 (the draft's "
        "KV at the target's per-layer size: pool_configurator.py)"))


def test_0_4_2_draft_pool_and_refusal_word_for_word() -> None:
    # profiled 445,123; the draft's pool 445,123 + 4,096 x 5 + 100 = 465,703 tokens x 32,768 B
    # = 15,260,155,904; + weights = 17,731,784,704 B = 16.51 GiB; the target leaves
    # 68,498,415,616 - 445,123 x 131,072 = 10,155,253,760 B = 9.46 GiB
    st = _steps("--engine-version", "0.4.2", "--speculative-algorithm", "EAGLE", *DRAFT)
    assert st["draft KV tokens"] == (465_703, "tokens",
                                     "profiled tokens + max_num_reqs x steps + 100 (SGLang 0.4.2)",
                                     [])
    assert st["draft"][0] == 17_731_784_704
    assert 68_498_415_616 - 445_123 * 131_072 == 10_155_253_760
    assert "draft headroom" not in st  # 0.4.2: the draft's own headroom only
    row = explain_record(*BASE, "--engine-version", "0.4.2", "--speculative-algorithm", "EAGLE",
                         *DRAFT)
    assert row["reason"] == (
        "SGLang would not start: the speculative draft's weights and KV pool (16.51 GiB) does not "
        "fit in the 9.46 GiB the weights and the target's KV pool leave (CUDA out of memory when "
        "the draft worker allocates it); lower --mem-fraction-static, or use SGLang 0.5.14 or "
        "later, which sizes the pool with the draft in it")
    assert _spec_notes("--engine-version", "0.4.2", "--speculative-algorithm", "EAGLE",
                       *DRAFT) == [BEFORE.format("EAGLE"), NOT_MODELLED]


def test_ngram_notes_word_for_word() -> None:
    notes = _spec_notes("--engine-version", "0.5.23", "--speculative-algorithm", "NGRAM")
    assert notes[:2] == ["speculative decoding NGRAM (SGLang 0.5.23): no draft model, no draft "
                         "KV; its n-gram trie is host memory", RUNNING]
    st = _steps("--engine-version", "0.5.23", "--speculative-algorithm", "NGRAM")
    assert not [k for k in st if "draft" in k]


def _spec(algorithm: str, version: str, stated: tuple[int, int, int] | None = None,
          layers: int = 16) -> Speculation:
    return Speculation(algorithm, version, 0 if algorithm == "NGRAM" else layers, DRAFT_W, 32_768,
                       48, stated)


@pytest.mark.parametrize(("version", "headroom"), [
    # 0.4.2: the draft's own headroom only; 0.4.3.post4 (read as 0.4.3) to 0.5.6 both pools;
    # none from 0.5.7
    ("0.4.2", 0), ("0.4.3", 48 * 28 + 100), ("0.5.6", 48 * 28 + 100), ("0.5.7", 0)])
def test_headroom_by_release(version: str, headroom: int) -> None:
    assert _spec("EAGLE", version).headroom(48)[0] == headroom
    assert _spec("NGRAM", version).headroom(48) == (0, 0, "")


def test_headroom_low_end_and_words() -> None:
    # unstated from 0.4.6: the point 5 x 4 + 8 = 28, the low end 3 x 1 + 4 = 7 a request
    assert _spec("EAGLE", "0.5.0").headroom(10) == (
        10 * 28 + 100, 10 * 7 + 100, "max_num_reqs 10 x (steps 5 x topk 4 + draft tokens 8) + 100 "
        "(unstated: by architecture, low end steps 3 x topk 1 + 4 = 170; kvplan's specs name no "
        "architecture)")
    # STANDALONE and stated parameters: one figure; topk 1 from 0.4.6: draft tokens steps + 1
    assert _spec("STANDALONE", "0.5.2").headroom(10) == (
        170, 170, "max_num_reqs 10 x (steps 3 x topk 1 + draft tokens 4) + 100")
    assert _spec("EAGLE", "0.4.6", (2, 1, 9)).headroom(1_000)[:2] == (1_000 * 5 + 100,) * 2


def test_draft_tokens_0_4_2() -> None:
    # 0.4.2: profiled + max_num_reqs x steps + 100 (steps 5 unstated, else as stated); a
    # negative profile counts as 0; later releases share the target's tokens
    assert _spec("EAGLE", "0.4.2").draft_tokens(1_000, 2_000, 4_096) == 1_000 + 4_096 * 5 + 100
    assert _spec("EAGLE", "0.4.2", (3, 4, 8)).draft_tokens(1_000, 2_000, 10) == 1_130
    assert _spec("EAGLE", "0.4.2").draft_tokens(-50, 0, 10) == 150
    assert _spec("EAGLE", "0.4.3").draft_tokens(1_000, 2_000, 10) == 2_000


def test_grown_cell_rounds_as_sglang() -> None:
    # 0.5.21: int(100,001 x (1 + 1 / 3)) = int(133,334.666...) = 133,334; 0.5.22:
    # 100,001 + int(33,333.666...) = 133,334; 7 layers over 36 at 131,072: int(156,558.2) vs
    # 131,072 + int(25,486.2): both 156,558
    assert _spec("EAGLE", "0.5.21", layers=1).grown_cell(100_001, 3) == 133_334
    assert _spec("EAGLE", "0.5.22", layers=1).grown_cell(100_001, 3) == 133_334
    assert _spec("EAGLE", "0.5.22", layers=7).grown_cell(131_072, 36) == 156_558


def test_in_budget_only_with_a_draft_from_0_5_14() -> None:
    assert (_spec("EAGLE", "0.5.13").in_budget, _spec("EAGLE", "0.5.14").in_budget,
            _spec("NGRAM", "0.5.23").in_budget) == (False, True, False)
    assert _spec("NGRAM", "0.5.23").has_draft is False


def test_assumptions_name_the_reserve_only_with_the_default_fraction() -> None:
    spec = _spec("STANDALONE", "0.5.10")
    assert assumptions(spec)[0] == BEFORE.format("STANDALONE")
    assert not any("reserved" in a for a in assumptions(spec))
    assert assumptions(spec, default_tier="H100")[1] == (
        "default mem_fraction_static: 6,144 MiB more reserved for speculative decoding STANDALONE "
        "(SGLang 0.4.8-0.5.13 server_args.py; none from 0.5.14, PR #23862)")
    # the headroom line from 0.4.3 to 0.5.6 only, not in 0.4.2 nor 0.5.7
    assert HEADROOM in assumptions(_spec("EAGLE", "0.4.3"))
    assert HEADROOM in assumptions(_spec("EAGLE", "0.5.6"))
    assert HEADROOM not in assumptions(_spec("EAGLE", "0.4.2"))
    assert HEADROOM not in assumptions(_spec("EAGLE", "0.5.7"))
    unstated = Speculation("EAGLE", "0.4.3", 16, 0, 0, None, None)
    assert RUNNING not in assumptions(unstated)


def _req(model: str = "llama-3.1-8b", **kw: Any) -> SizeRequest:
    return SizeRequest(model=load_model(model), gpu=load_hardware("h100"), context_tokens=8192,
                       **kw)


def _refused(req: SizeRequest, version: str = "0.5.23", **kw: Any) -> str:
    with pytest.raises(InputError) as e:
        speculation(req, EngineSettings(**kw), version)
    return str(e.value)


def test_speculation_refusals_word_for_word() -> None:
    assert _refused(_req(), speculative_algorithm="DFLASH") == (
        "--speculative-algorithm DFLASH: kvplan models EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM "
        "(DFLASH, DSPARK, UNO and plugins are not modelled); plan without it")
    assert _refused(_req(), "0.5.2", speculative_algorithm="NGRAM") == (
        "--speculative-algorithm NGRAM: SGLang 0.5.2 does not offer it (from 0.5.3; "
        "server_args.py's choices); pick a later --engine-version")
    assert _refused(_req(), "0.4.5", speculative_algorithm="EAGLE3") == (
        "--speculative-algorithm EAGLE3: SGLang 0.4.5 does not offer it (from 0.4.6; "
        "server_args.py's choices); pick a later --engine-version")
    assert _refused(_req(pp=2), speculative_algorithm="NGRAM") == (
        "speculative decoding with pipeline parallelism is not modelled (SGLang refuses it up to "
        "0.5.x: server_args.py:1631-1635 in 0.4.8; 0.5.23 only behind SGLANG_ENABLE_PP_SPEC); "
        "plan without one of them")
    assert _refused(_req("llama-3.1-70b", tp=2, attention_dp=2),
                    speculative_algorithm="NGRAM") == (
        "speculative decoding with DP attention is not modelled (its per-worker request slots); "
        "plan without one of them")
    assert _refused(_req(), speculative_algorithm="NGRAM", draft_model=load_model(
        "llama-3.2-1b")) == ("--speculative-algorithm NGRAM loads no draft model; drop "
                             "--speculative-model")
    assert _refused(_req(), speculative_algorithm="EAGLE") == (
        "--speculative-algorithm EAGLE needs the draft model's spec (--speculative-model, "
        "SGLang's --speculative-draft-model-path: catalog name, hf_id or spec file)")
    assert _refused(_req(), speculative_algorithm="NEXTN") == (
        "--speculative-algorithm NEXTN needs the draft model's spec (--speculative-model, "
        "SGLang's --speculative-draft-model-path: catalog name, hf_id or spec file; NEXTN's draft "
        "is the target's own MTP layers, which kvplan's model specs do not carry: give a spec of "
        "that module)")
    # Qwen2.5-0.5B (14 heads) drafting Qwen2.5-7B (28 heads) at TP 4
    assert _refused(_req("qwen2.5-7b", tp=4), speculative_algorithm="STANDALONE",
                    draft_model=load_model("qwen2.5-0.5b")) == (
        "the draft model: tensor parallelism 4 does not divide qwen2.5-0.5b's 14 attention heads; "
        "SGLang shards the draft with the target's tensor parallelism")


def test_speculation_at_the_first_release_of_each_algorithm() -> None:
    draft = load_model("llama-3.2-1b")
    for algo, first in (("EAGLE", "0.4.2"), ("NEXTN", "0.4.3"), ("EAGLE3", "0.4.6"),
                        ("STANDALONE", "0.5.2")):
        got = speculation(_req(), EngineSettings(speculative_algorithm=algo, draft_model=draft),
                          first)
        assert got is not None
        assert (got.algorithm, got.version, got.draft_layers, got.draft_weights,
                got.draft_cell) == (algo, first, 16, DRAFT_W, 32_768)
    ngram = speculation(_req(), EngineSettings(speculative_algorithm="NGRAM"), "0.5.3")
    assert ngram == Speculation("NGRAM", "0.5.3", 0, 0, 0, 48, None)
    assert speculation(_req(), EngineSettings(), "0.5.23") is None
    # TP 2: half the draft's weights and K + V a GPU (8 KV heads / 2)
    tp2 = speculation(_req(tp=2), EngineSettings(speculative_algorithm="EAGLE", draft_model=draft,
                                                 speculative_num_steps=3,
                                                 speculative_eagle_topk=1,
                                                 speculative_num_draft_tokens=4), "0.4.5")
    # the target's K + V a layer on each GPU: 4 KV heads x 128 x 2 x 2 B = 2,048
    assert tp2 == Speculation("EAGLE", "0.4.5", 16, DRAFT_W // 2, 16_384, None, (3, 1, 4), 2_048)


def test_params_refusal_word_for_word() -> None:
    assert params_refusal(EngineSettings(speculative_num_steps=3)) == (
        "speculative_num_steps needs --speculative-algorithm; give it, or drop "
        "speculative_num_steps")
    assert params_refusal(EngineSettings(speculative_num_draft_tokens=4)) == (
        "speculative_num_draft_tokens needs --speculative-algorithm; give it, or drop "
        "speculative_num_draft_tokens")
    assert params_refusal(EngineSettings(speculative_algorithm="EAGLE",
                                         speculative_eagle_topk=1,
                                         speculative_num_draft_tokens=4)) == (
        "state --speculative-num-steps, --speculative-eagle-topk and "
        "--speculative-num-draft-tokens together or none of them (SGLang picks all three when "
        "none is given, and asserts the other two are unstated without --speculative-num-steps: "
        "server_args.py:476-485 in 0.4.8)")
    assert params_refusal(EngineSettings(speculative_algorithm="DFLASH")) == (
        "speculative_algorithm must be one of EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM (the ones "
        "kvplan models), got 'DFLASH'")
    for fine in (EngineSettings(), EngineSettings(speculative_algorithm="NGRAM"),
                 EngineSettings(speculative_algorithm="EAGLE", speculative_num_steps=3,
                                speculative_eagle_topk=1, speculative_num_draft_tokens=4)):
        assert params_refusal(fine) is None


def test_a_release_reads_as_its_first_three_numbers() -> None:
    # no SGLang release has a fourth number; one written counts as its first three: 0.5.6.1 is
    # 0.5.6 (the headroom's last release), 0.4.2.1 is 0.4.2 (the draft's own headroom only)
    assert _spec("EAGLE", "0.5.6.1").headroom(48)[0] == 48 * 28 + 100
    assert _spec("EAGLE", "0.4.2.1").headroom(48)[0] == 0
    assert _spec("EAGLE", "0.4.2.1").draft_tokens(1_000, 2_000, 10) == 1_150


def test_the_record_books_the_draft_weights_once() -> None:
    # 0.5.23: the draft's weights are in the budget's weights (16,127,631,360 + 2,471,628,800);
    # 0.5.5: outside it, booked beside the target's
    for version in ("0.5.23", "0.5.5"):
        row = json.loads(invoke(CliRunner(), "size", *BASE, "--engine-version", version,
                                "--speculative-algorithm", "STANDALONE" if version == "0.5.23"
                                else "EAGLE", *DRAFT, "-f", "json").stdout)["results"][0]
        assert row["weights_bytes"] == 16_127_631_360 + DRAFT_W


def test_no_headroom_interval_without_a_draft() -> None:
    # NGRAM and no speculative decoding at all: one figure, 412,841 tokens (test_sglang_spec.py),
    # and the target's weights alone
    for spec in (("--speculative-algorithm", "NGRAM"), ()):
        row = json.loads(invoke(CliRunner(), "size", *BASE, "--engine-version", "0.5.23", *spec,
                                "-f", "json").stdout)["results"][0]
        assert row["kv_cache_tokens_low"] == row["kv_cache_tokens_high"] == 412_841
        assert row["weights_bytes"] == 16_127_631_360


def test_0_5_22_is_the_first_release_of_the_added_form() -> None:
    st = _steps("--engine-version", "0.5.22", "--speculative-algorithm", "EAGLE", *DRAFT)
    assert st["cell size (with draft)"][2].startswith(
        "cell size + int(cell size x draft layers / layers), draft layers 16, layers 32")
    # the two forms part where the float product rounds below the whole number: 36,864 B a
    # token, 16 draft layers over 24: int(36,864 x 1.666...) = 61,439; 36,864 + 24,576 = 61,440
    assert _spec("EAGLE", "0.5.21").grown_cell(36_864, 24) == 61_439
    assert _spec("EAGLE", "0.5.22").grown_cell(36_864, 24) == 61_440


def test_headroom_before_auto_params_reads_the_release() -> None:
    # 0.4.5 has no auto_choose_speculative_params: unstated 5 / 4 / 8 both ends, and a stated
    # topk 1 keeps its stated draft tokens (3 x 1 + 8)
    assert _spec("EAGLE", "0.4.5").headroom(10) == (
        380, 380, "max_num_reqs 10 x (steps 5 x topk 4 + draft tokens 8) + 100")
    assert _spec("EAGLE", "0.4.5", (3, 1, 8)).headroom(10)[:2] == (210, 210)


def test_the_draft_cell_follows_the_cache_precision() -> None:
    # an int4 cache in groups of 32: Llama-3.2-1B's 16 layers x K + V x 8 heads x (64 x 4 bits
    # + 2 scales x 16 bits) / 8 = 9,216 B a token (groups of 64: 8,704)
    req = _req(kv_dtype=DType.int4, kv_group_size=32)
    got = speculation(req, EngineSettings(speculative_algorithm="EAGLE",
                                          draft_model=load_model("llama-3.2-1b")), "0.5.5")
    assert got is not None and got.draft_cell == 9_216
    assert type(got.draft_weights) is int  # integer bytes
    ngram = speculation(_req(), EngineSettings(
        speculative_algorithm="NGRAM", speculative_num_steps=3, speculative_eagle_topk=1,
        speculative_num_draft_tokens=4), "0.5.3")
    assert ngram is not None and ngram.stated == (3, 1, 4)


def test_draft_refusal_inside_the_budget_names_the_kv_pool() -> None:
    # from 0.5.14 only the draft's KV pool is beside the target's (its weights are in the budget)
    st = Steps()
    st.given("free after weights", 10 * (1 << 30), "bytes", "")
    st.given("KV pool", 9 * (1 << 30), "bytes", "")
    st.given("draft KV pool", 2 * (1 << 30), "bytes", "")
    assert draft_refusal(st, "draft KV pool") == (
        "SGLang would not start: the speculative draft's KV pool (2.00 GiB) does not fit in the "
        "1.00 GiB the weights and the target's KV pool leave (CUDA out of memory when the draft "
        "worker allocates it); lower --mem-fraction-static, or use SGLang 0.5.14 or later, which "
        "sizes the pool with the draft in it")
    assert draft_refusal(st, None) is None
    # task vllmleft: the draft's own cell, larger per layer than the target's
    st.given("draft own cell size", 1, "bytes", "")
    assert draft_refusal(st, "draft KV pool") == (
        "SGLang would not start: the speculative draft's own KV pool (2.00 GiB) does not fit in "
        "the 1.00 GiB the weights and the target's KV pool leave: SGLang budgets the draft's "
        "layers at the target's per-layer KV size (pool_configurator.py:259-260 in 0.5.23) and "
        "the draft worker allocates them at its own, larger one; lower --mem-fraction-static or "
        "pick a draft whose KV heads x head size do not exceed the target's")
