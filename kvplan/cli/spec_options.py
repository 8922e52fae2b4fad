"""SGLang's speculative-decoding options of size, fleet and explain (kvplan.engines.sglang_spec);
the draft is vLLM's --speculative-model (kvplan.cli.engine_options). Each sets one field of the
record (kvplan.plan.fields)."""

from __future__ import annotations

from typing import Annotated

from kvplan.cli import sections as s
from kvplan.cli.options import _opt

SpeculativeAlgorithm = Annotated[str | None, _opt(
    "--speculative-algorithm", metavar="NAME", rich_help_panel=s.SGLANG,
    help="SGLang: EAGLE, EAGLE3, NEXTN or STANDALONE (with --speculative-model, the draft), "
    "NGRAM (no draft): the draft's weights and KV pool, the default fraction's reserve and "
    "48 running requests, per release")]
SpeculativeNumSteps = Annotated[int | None, _opt(
    "--speculative-num-steps", metavar="N", rich_help_panel=s.SGLANG, min=1,
    help="SGLang: draft steps (with --speculative-eagle-topk and --speculative-num-draft-tokens) "
    "[default: SGLang's, by architecture]")]
SpeculativeEagleTopk = Annotated[int | None, _opt(
    "--speculative-eagle-topk", metavar="N", rich_help_panel=s.SGLANG, min=1,
    help="SGLang: draft branches per step (with the other two)")]
SpeculativeNumDraftTokens = Annotated[int | None, _opt(
    "--speculative-num-draft-tokens", metavar="N", rich_help_panel=s.SGLANG, min=1,
    help="SGLang: tokens verified per step (with the other two)")]
# data-parallel attention and its shards (kvplan.engines.sglang_dp, task h100sgldp)
AttentionDp = Annotated[int | None, _opt(
    "--attention-dp", metavar="RANKS", rich_help_panel=s.SGLANG, min=1,
    help="SGLang: data-parallel attention ranks inside the TP group (its --enable-dp-attention "
    "--dp-size, 0.5.23's --attn-dp-size): attention over tp / RANKS GPUs, one KV pool per rank")]
MoeDenseTpSize = Annotated[int | None, _opt(
    "--moe-dense-tp-size", metavar="N", rich_help_panel=s.SGLANG, min=1,
    help="SGLang: 1 keeps a DeepSeek-V2-family model's dense MLP layers whole on every GPU")]
EnableDpLmHead = Annotated[bool | None, _opt(
    "--enable-dp-lm-head", metavar="", rich_help_panel=s.SGLANG,
    help="SGLang: the LM head over the attention's tp / dp GPUs (with --attention-dp)")]
MoeA2aBackend = Annotated[str | None, _opt(
    "--moe-a2a-backend", metavar="NAME", rich_help_panel=s.SGLANG,
    help="SGLang: none, deepep or mooncake; deepep sets expert parallelism to tp and keeps the "
    "shared experts whole [default: none]")]
