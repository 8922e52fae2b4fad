"""SGLang speculative decoding's memory (task h90sglspec): the draft model's weights, its KV pool,
the default mem_fraction_static's extra reserve and the default --max-running-requests, per release.

Read in the PyPI wheels of 0.4.2, 0.4.3.post4, 0.4.6-0.4.8, 0.4.10, 0.5.1-0.5.23 (sglang/srt/...):

- Algorithms (`--speculative-algorithm` choices, server_args.py): EAGLE from 0.4.2 (:687), NEXTN
  from 0.4.3.post4 (:749; SGLang runs it as EAGLE), EAGLE3 from 0.4.6 (:864), STANDALONE (a
  small draft LLM) from 0.5.2 (:1538), NGRAM (prompt lookup, no draft model) from 0.5.3 (:2044).
  0.5.16 on adds DFLASH, DSPARK, UNO, FROZEN_KV_MTP: not modelled (refused).
- The pool (the draft shares the target's token indices, so both pools hold the same tokens):
  0.4.2 (model_runner.py:596-604): the target keeps the profiled tokens; the draft's pool holds
  them + max_num_reqs x speculative_num_steps + 100.
  0.4.3.post4-0.5.6 (model_runner.py:679-692 in 0.4.3.post4, :898-911 in 0.4.8, :1575-1595 in
  0.5.5, :1704 in 0.5.6; EAGLE/EAGLE3/STANDALONE, not NGRAM): both pools hold the profiled tokens
  + max_num_reqs x (steps x topk + num_draft_tokens) + 100, past the budget the profile measured.
  0.5.7-0.5.13 (model_runner_kv_cache_mixin.py:311 in 0.5.7, :412 in 0.5.9, MemoryPoolConfig
  :871-903 in 0.5.10; 0.5.11-0.5.13 pool_configurator.py scales DFLASH only): both hold the
  profiled tokens.
  In all of these the target profiles before the draft worker exists: the draft's weights and
  its pool (its own layers x its own per-layer K + V, model_runner.py:946-960 in 0.4.8) come out
  of the memory mem_fraction_static holds back.
  0.5.14 on (sglang PR #23862, "Fix --mem-fraction-static not accounting for EAGLE draft model
  KV cache", merged 2026-04-27): the draft loads before the target's pool is sized
  (scheduler.py init_target_memory_pool :826 in 0.5.14, :1054 in 0.5.22), so its weights are in
  the budget (kv_cache_configurator.py:3042-3057 in 0.5.23: "draft weights are now counted"), and
  for EAGLE / STANDALONE the cell grows by the draft's layers at the target's per-layer size:
  int(cell x (1 + draft layers / target layers)) (pool_configurator.py:129-145 in 0.5.14, the
  same form to 0.5.21), cell + int(cell x draft layers / target layers) from 0.5.22
  (pool_configurator.py:267-308 in 0.5.22, :273-314 in 0.5.23). Draft layers: the draft config's
  num_nextn_predict_layers, else max(num_hidden_layers, num_attention_layers)
  (model_runner.py:435-455 in 0.5.14; spec_aux_hidden_state.py:156-176 in 0.5.23).
  That budget "assumes the draft shares the target's per-layer KV size" (pool_configurator.py
  :259-260 in 0.5.23), but the draft worker then allocates its own pool, the target's
  max_total_num_tokens (the shared MemoryPoolConfig, model_runner_kv_cache_mixin.py:1079-1082 in
  0.5.14) at the draft config's own KV heads and head size (MHATokenToKVPool, :788-797 in 0.5.14;
  kv_cache_configurator.py _build_mha_kv_pool :2776-2784 in 0.5.23). So the tokens come from the
  grown cell and the draft's pool from its own shape (task vllmleft: it was booked at the
  target's per-layer size, 2x the real pool for Llama-3.2-1B's 8 x 64 heads beside
  Llama-3.1-8B's 8 x 128); a draft larger per layer than the target takes the difference out of
  what the budget left, and SGLang stops where that is not there.
- The default mem_fraction_static's reserve (server_args.py): none before 0.4.8 (0.4.6, 0.4.7
  read); +2 GiB for any algorithm 0.4.8-0.5.1 (:307-309 in 0.4.8); 0.5.2 STANDALONE +6 GiB, else
  +2 (:487-492); 0.5.3-0.5.9 after the 10 GiB floor, STANDALONE +6, NGRAM none, else +2 (:664-669
  in 0.5.3, :811-817 in 0.5.5); 0.5.10-0.5.13 +4 for the EAGLE family (:1317-1322 in 0.5.10,
  :1627-1633 in 0.5.13); none from 0.5.14 (PR #23862 removed it).
- --max-running-requests, unstated, becomes 48 for the EAGLE family from 0.4.6 (server_args.py
  :321-323; :1532-1536 in 0.5.5; arg_groups/speculative_hook.py:1086-1093 in 0.5.23) and for
  NGRAM from 0.5.3 (:1620-1624 in 0.5.5; speculative_hook.py:1294-1299 in 0.5.23); 0.4.2 and
  0.4.3.post4 have no such default. It caps the running requests and sizes the request map; the
  0.5.22 tier cap of the decode graphs reads only a stated value (the memory hook runs before
  the speculative one, arg_groups/pipeline.py:218 / :306 in 0.5.23).
- speculative_num_steps / eagle_topk / num_draft_tokens: 5, 4, 8 in 0.4.2-0.4.3.post4 (dataclass
  defaults); from 0.4.6 unstated by architecture (auto_choose_speculative_params: 5, 4, 8 for
  Llama and most; 3, 1, 4 for DeepSeek, gpt-oss and STANDALONE; server_args.py:4176-4204 in
  0.5.5), and topk 1 sets num_draft_tokens to steps + 1 (:344-356 in 0.4.6). kvplan's specs
  carry no architecture, so unstated the headroom per request is the interval 7 (3 x 1 + 4) to
  28 (5 x 4 + 8), 28 the point; STANDALONE 7.
Not modelled: the draft's CUDA graphs and activations (in the held-back share, as the target's),
the request map's extra speculative columns (4 + num_draft_tokens from 0.5.9), the draft's
embedding / LM head SGLang swaps for the target's after loading (set_embed_and_head; sglang issue
#36452: counted before they are freed from 0.5.14) and NGRAM's host-side trie. Refused: DP
attention and pipeline parallelism with speculative decoding (server_args.py:1631-1635 in 0.4.8
asserts no PP; 0.5.23 allows it only behind SGLANG_ENABLE_PP_SPEC, scheduler.py:1042).
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.capacity.kv import Precision
from kvplan.capacity.plan import SizeRequest
from kvplan.engines.common import gib, stage_shape
from kvplan.engines.interface import EngineSettings, Steps, parse_version
from kvplan.engines.sglang_defaults import DEFAULT_VERSION
from kvplan.errors import InputError

ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM")
# the oldest release whose --speculative-algorithm choices hold each (module docstring)
ALGORITHM_FROM = {"EAGLE": (0, 4, 2), "NEXTN": (0, 4, 3), "EAGLE3": (0, 4, 6),
                  "STANDALONE": (0, 5, 2), "NGRAM": (0, 5, 3)}
HEADROOM_STEPS_ONLY_UNTIL = (0, 4, 2)  # 0.4.2: the draft alone gets reqs x steps + 100
HEADROOM_UNTIL = (0, 5, 6)  # 0.4.3.post4-0.5.6: both pools get the headroom
HEADROOM_BUFFER = 100
IN_BUDGET_FROM = (0, 5, 14)  # sglang PR #23862: draft weights and KV in the budget
CELL_ADD_FROM = (0, 5, 22)  # cell + int(cell x d / n), before int(cell x (1 + d / n))
RUNNING_48_FROM = {"EAGLE": (0, 4, 6), "NGRAM": (0, 5, 3)}
SPEC_RUNNING = 48
AUTO_PARAMS_FROM = (0, 4, 6)  # auto_choose_speculative_params; topk 1 -> steps + 1
DEFAULT_PARAMS = (5, 4, 8)  # 0.4.2-0.4.3.post4, and Llama / most architectures after
SMALL_PARAMS = (3, 1, 4)  # DeepSeek, gpt-oss (by architecture), STANDALONE
NO_PARAMS = None


def _v(version: str | None) -> tuple[int, ...]:
    return (parse_version(version or DEFAULT_VERSION) or ())[:3]


def family(algorithm: str) -> str:
    """EAGLE for EAGLE, EAGLE3 and NEXTN (one worker), else the algorithm."""
    return "EAGLE" if algorithm in ("EAGLE", "EAGLE3", "NEXTN") else algorithm


def reserve_mib(version: str | None, algorithm: str | None) -> int:
    """What the default mem_fraction_static reserves for speculative decoding, in MiB."""
    if algorithm is None:
        return 0
    ver = _v(version)
    if ver < (0, 4, 8) or ver >= IN_BUDGET_FROM:
        return 0
    if algorithm == "STANDALONE":
        return 6 * 1024
    if algorithm == "NGRAM":
        return 0
    return 4 * 1024 if ver >= (0, 5, 10) else 2 * 1024


def default_running(version: str | None, algorithm: str | None) -> int | None:
    """SGLang's --max-running-requests when speculative decoding is on and none is stated."""
    if algorithm is None:
        return None
    start = RUNNING_48_FROM["NGRAM" if algorithm == "NGRAM" else "EAGLE"]
    return SPEC_RUNNING if _v(version) >= start else None


def headroom_params(version: str | None, algorithm: str, stated: tuple[int, int, int] | None,
                    ) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(steps, topk, draft tokens) as SGLang uses them: (the point, the low end)."""
    if stated is not None:
        steps, topk, draft = stated
        if topk == 1 and _v(version) >= AUTO_PARAMS_FROM:
            draft = steps + 1
        return (steps, topk, draft), (steps, topk, draft)
    if _v(version) < AUTO_PARAMS_FROM:
        return DEFAULT_PARAMS, DEFAULT_PARAMS
    if algorithm == "STANDALONE":
        return SMALL_PARAMS, SMALL_PARAMS
    return DEFAULT_PARAMS, SMALL_PARAMS


@dataclass(frozen=True)
class Speculation:
    """What one SGLang release does with a speculative-decoding setup (module docstring)."""

    algorithm: str  # as stated
    version: str
    draft_layers: int  # 0 for NGRAM
    draft_weights: int  # bytes on each GPU
    draft_cell: int  # the draft's own K + V bytes per token on each GPU
    running: int | None  # SGLang's --max-running-requests when unstated (48), else None
    stated: tuple[int, int, int] | None  # --speculative-num-steps / -eagle-topk / -num-draft-tokens
    target_layer: int = 0  # the target's K + V bytes per token and layer on each GPU (0: unknown)

    @property
    def ver(self) -> tuple[int, ...]:
        return _v(self.version)

    @property
    def has_draft(self) -> bool:
        return self.algorithm != "NGRAM"

    @property
    def in_budget(self) -> bool:
        """Draft weights and KV inside mem_fraction_static's budget (0.5.14 on)."""
        return self.has_draft and self.ver >= IN_BUDGET_FROM

    def headroom(self, reqs: int) -> tuple[int, int, str]:
        """Tokens both pools hold past the profiled ones (0.4.3.post4-0.5.6): point, low, how."""
        if not self.has_draft or self.ver <= HEADROOM_STEPS_ONLY_UNTIL or self.ver > HEADROOM_UNTIL:
            return 0, 0, ""
        (s, k, d), (s0, k0, d0) = headroom_params(self.version, self.algorithm, self.stated)
        point = reqs * (s * k + d) + HEADROOM_BUFFER
        low = reqs * (s0 * k0 + d0) + HEADROOM_BUFFER
        how = (f"max_num_reqs {reqs:,} x (steps {s} x topk {k} + draft tokens {d}) + 100"
               + ("" if low == point else f" (unstated: by architecture, low end steps {s0} x "
                  f"topk {k0} + {d0} = {low:,}; kvplan's specs name no architecture)"))
        return point, low, how

    def draft_tokens(self, profiled: int, tokens: int, reqs: int) -> int:
        """The draft pool's tokens: the target's, except 0.4.2's own headroom."""
        if self.ver <= HEADROOM_STEPS_ONLY_UNTIL:
            steps = (self.stated or DEFAULT_PARAMS)[0]
            return max(profiled, 0) + reqs * steps + HEADROOM_BUFFER
        return tokens

    @property
    def own_shape(self) -> bool:
        """Whether the draft's K + V per token and layer differs from the target's, the size
        SGLang 0.5.14 on budgets the draft's layers at (its own pool is then booked)."""
        return bool(self.target_layer) and self.draft_cell != self.draft_layers * self.target_layer

    def grown_cell(self, cell: int, target_layers: int) -> int:
        """The target's cell with the draft's layers at its per-layer size (0.5.14 on)."""
        d, n = self.draft_layers, target_layers
        if self.ver >= CELL_ADD_FROM:
            return cell + int(cell * d / n)  # SGLang's float expression
        return int(cell * (1 + d / n))


def speculation(req: SizeRequest, s: EngineSettings, version: str) -> Speculation | None:
    """The speculative setup of `s` in SGLang `version`, or None without --speculative-algorithm;
    an algorithm the release does not offer, or one kvplan does not model, is refused."""
    algo = s.speculative_algorithm
    if algo is None:
        return None
    if algo not in ALGORITHMS:
        raise InputError(f"--speculative-algorithm {algo}: kvplan models "
                         f"{', '.join(ALGORITHMS)} (DFLASH, DSPARK, UNO and plugins are not "
                         "modelled); plan without it")
    if _v(version) < ALGORITHM_FROM[algo]:
        since = ".".join(map(str, ALGORITHM_FROM[algo]))
        raise InputError(f"--speculative-algorithm {algo}: SGLang {version} does not offer it "
                         f"(from {since}; server_args.py's choices); pick a later --engine-version")
    if req.attention_dp > 1 or req.pp > 1:
        raise InputError("speculative decoding with " + (
            "DP attention is not modelled (its per-worker request slots)" if req.attention_dp > 1
            else "pipeline parallelism is not modelled (SGLang refuses it up to 0.5.x: "
            "server_args.py:1631-1635 in 0.4.8; 0.5.23 only behind SGLANG_ENABLE_PP_SPEC)")
            + "; plan without one of them")
    draft = s.draft_model
    if algo == "NGRAM":
        if draft is not None:
            raise InputError("--speculative-algorithm NGRAM loads no draft model; drop "
                             "--speculative-model")
        return Speculation(algo, version, 0, 0, 0, default_running(version, algo),
                           s.speculative_params)
    if draft is None:
        raise InputError(f"--speculative-algorithm {algo} needs the draft model's spec "
                         "(--speculative-model, SGLang's --speculative-draft-model-path: catalog "
                         "name, hf_id or spec file" + (
                             "; NEXTN's draft is the target's own MTP layers, which kvplan's "
                             "model specs do not carry: give a spec of that module"
                             if algo == "NEXTN" else "") + ")")
    from kvplan.capacity.parallel import tp_problem

    if (problem := tp_problem(draft, req.tp)) is not None:
        raise InputError(f"the draft model: {problem}; SGLang shards the draft with the target's "
                         "tensor parallelism")
    precision = Precision(req.kv_dtype, req.kv_group_size)
    shape = stage_shape(draft, precision, req.tp, 1)
    weights = -(-draft.params_total * req.effective_weight_dtype.bits // 8 // req.tp)
    return Speculation(algo, version, draft.num_layers, weights,
                       shape.bytes_per_token_per_layer * shape.cached_layers,
                       default_running(version, algo), s.speculative_params,
                       stage_shape(req.model, precision, req.tp, 1).bytes_per_token_per_layer)


def params_refusal(s: EngineSettings) -> str | None:
    """Why the stated speculative parameters cannot be planned, or None."""
    given = [n for n in ("speculative_num_steps", "speculative_eagle_topk",
                         "speculative_num_draft_tokens") if getattr(s, n) is not None]
    if given and s.speculative_algorithm is None:
        return f"{given[0]} needs --speculative-algorithm; give it, or drop {given[0]}"
    if given and len(given) < 3:
        return ("state --speculative-num-steps, --speculative-eagle-topk and "
                "--speculative-num-draft-tokens together or none of them (SGLang picks all three "
                "when none is given, and asserts the other two are unstated without "
                "--speculative-num-steps: server_args.py:476-485 in 0.4.8)")
    if s.speculative_algorithm is not None and s.speculative_algorithm not in ALGORITHMS:
        return (f"speculative_algorithm must be one of {', '.join(ALGORITHMS)} (the ones kvplan "
                f"models), got {s.speculative_algorithm!r}")
    return None


def weights_note(spec: Speculation, params: int) -> str:
    """The weights step's words for a draft loaded into the budget (0.5.14 on)."""
    return (f" + draft model {params:,} params at the target's width ({gib(spec.draft_weights)}"
            ", loaded before the pool is sized: SGLang 0.5.14 on, PR #23862)")


def cell_steps(st: Steps, spec: Speculation | None, target_layers: int) -> str:
    """The cell the pool is sized by: the target's, or with the draft's layers (0.5.14 on)."""
    if spec is None or not spec.in_budget or not spec.draft_layers:
        return "cell size"
    grown = spec.grown_cell(st.int("cell size"), target_layers)
    st.given("cell size (with draft)", grown, "bytes", (
        "cell size + int(cell size x draft layers / layers)" if spec.ver >= CELL_ADD_FROM else
        "int(cell size x (1 + draft layers / layers))")
        + f", draft layers {spec.draft_layers}, layers {target_layers} (the draft's KV at the "
        "target's per-layer size: pool_configurator.py)")
    return "cell size (with draft)"


def headroom_steps(st: Steps, spec: Speculation | None, reqs: int) -> tuple[str, int, int]:
    """(the tokens label to round to pages, the headroom's low end when it is an interval else 0,
    the request slots the headroom was counted for)."""
    if spec is None:
        return "tokens (>= 0)", 0, reqs
    point, low, how = spec.headroom(reqs)
    if not point:
        return "tokens (>= 0)", 0, reqs
    st.given("draft headroom", point, "tokens", how + " (SGLang 0.4.3.post4-0.5.6: both pools "
             "hold it past the profiled tokens)")
    st.op("tokens (with headroom)", "sum", ["tokens (>= 0)", "draft headroom"], "tokens",
          "profiled tokens + draft headroom")
    return "tokens (with headroom)", (low if low != point else 0), reqs


def span_headroom(spec: Speculation | None, reqs: int) -> int:
    """The headroom's tokens (the point) for `reqs` request slots, 0 without speculative
    decoding: what each end of a start-up range adds to its profiled tokens."""
    return spec.headroom(reqs)[0] if spec is not None else 0


def draft_steps(st: Steps, spec: Speculation | None, profiled: int, tokens: int, pool: str,
                cell: str, reqs: int) -> tuple[str | None, int]:
    """The draft's memory beside the target's pool as steps: (the label "left after the KV pool"
    also subtracts, the draft's weights outside the budget)."""
    if spec is None or not spec.has_draft:
        return None, 0
    if spec.in_budget:
        st.op("draft cell share", "sum", [cell, "-cell size"], "bytes",
              "the draft's layers in each token's cell, at the target's per-layer size")
        if not spec.own_shape:
            st.op("draft KV pool", "mul", [pool, "draft cell share"], "bytes",
                  "tokens x the draft's share of the cell (its own pool, sized in the budget)")
        else:
            st.given("draft own cell size", spec.draft_cell, "bytes",
                     "the draft's own K + V per token, its layers x its KV heads x head size "
                     "(the draft worker's pool: model_runner_kv_cache_mixin.py:788-797 in 0.5.14)")
            st.op("draft KV pool", "mul", [pool, "draft own cell size"], "bytes",
                  "tokens x the draft's own cell (allocated at its own shape; the budget "
                  "counted its layers at the target's per-layer size)")
        return "draft KV pool", 0
    outside_steps(st, spec, spec.draft_tokens(profiled, tokens, reqs))
    return "draft", spec.draft_weights


def draft_refusal(st: Steps, label: str | None) -> str | None:
    """Why SGLang stops when the draft does not fit beside the target's pool, or None."""
    if label is None:
        return None
    need, room = st.int(label), st.int("free after weights") - st.int("KV pool")
    what = "weights and KV pool" if label == "draft" else "KV pool"
    if "draft own cell size" in st.values:  # 0.5.14 on: a draft larger per layer than the target
        return (f"SGLang would not start: the speculative draft's own KV pool ({gib(need)}) "
                f"does not fit in the {gib(max(room, 0))} the weights and the target's KV pool "
                "leave: SGLang budgets the draft's layers at the target's per-layer KV size "
                "(pool_configurator.py:259-260 in 0.5.23) and the draft worker allocates them "
                "at its own, larger one; lower --mem-fraction-static or pick a draft whose KV "
                "heads x head size do not exceed the target's")
    return (f"SGLang would not start: the speculative draft's {what} ({gib(need)}) does not fit "
            f"in the {gib(max(room, 0))} the weights and the target's KV pool leave (CUDA out of "
            "memory when the draft worker allocates it); lower --mem-fraction-static, or use "
            "SGLang 0.5.14 or later, which sizes the pool with the draft in it")


def outside_steps(st: Steps, spec: Speculation, draft_tokens: int) -> int:
    """The draft's weights and KV pool outside the budget (before 0.5.14), as steps: their sum."""
    st.given("draft weights", spec.draft_weights, "bytes",
             "draft params x weight bytes / TP (loaded after the target's pool is sized, "
             "out of what mem_fraction_static holds back)")
    st.given("draft KV tokens", draft_tokens, "tokens",
             "the target's tokens (shared indices)" if spec.ver > HEADROOM_STEPS_ONLY_UNTIL else
             "profiled tokens + max_num_reqs x steps + 100 (SGLang 0.4.2)")
    st.given("draft cell size", spec.draft_cell, "bytes", "the draft's K + V per token, its layers")
    st.op("draft KV pool", "mul", ["draft KV tokens", "draft cell size"], "bytes",
          "draft tokens x draft cell size")
    return int(st.op("draft", "sum", ["draft weights", "draft KV pool"], "bytes",
                     "draft weights + draft KV pool (beside the target's pool)"))


def assumptions(spec: Speculation, default_tier: object = None) -> list[str]:
    """What kvplan modelled for the draft, and what it left out (module docstring);
    `default_tier` (the default fraction's GPU tier, None when the fraction is stated or the
    GPU's size unknown) names the reserve the default fraction holds for it."""
    ver = spec.ver
    if not spec.has_draft:
        out = [f"speculative decoding NGRAM (SGLang {spec.version}): no draft model, no draft KV; "
               "its n-gram trie is host memory"]
    elif spec.in_budget:
        out = [f"speculative decoding {spec.algorithm}: the draft's weights are in the budget and "
               f"each token's cell holds its {spec.draft_layers} layer(s) at the target's per-layer "
               "size (SGLang 0.5.14 on, pool_configurator.py)"]
        if spec.own_shape:
            out.append(f"the draft's own pool is booked at its own KV shape, {spec.draft_cell:,} "
                       "B per token over its layers, not the target's per-layer size the budget "
                       "counts: the draft worker allocates the target's tokens at its own KV "
                       "heads and head size (model_runner_kv_cache_mixin.py:788-797 in 0.5.14)")
    else:
        out = [f"speculative decoding {spec.algorithm}: the draft's weights and its KV pool "
               f"({spec.draft_layers} layer(s), the target's tokens) are allocated after the "
               "target's pool, out of the memory mem_fraction_static holds back (SGLang before "
               "0.5.14)"]
    if default_tier is not None and (mib := reserve_mib(spec.version, spec.algorithm)):
        out.append(f"default mem_fraction_static: {mib:,} MiB more reserved for speculative "
                   f"decoding {spec.algorithm} (SGLang 0.4.8-0.5.13 server_args.py; none from "
                   "0.5.14, PR #23862)")
    if spec.running is not None:
        out.append(f"--max-running-requests {spec.running} (SGLang's default with speculative "
                   "decoding)")
    if spec.has_draft and (0, 4, 2) < ver <= HEADROOM_UNTIL:
        out.append("both pools hold max_num_reqs x (steps x topk + draft tokens) + 100 tokens "
                   "past the profiled ones (SGLang 0.4.3.post4-0.5.6)")
    if spec.has_draft:
        out.append("not modelled: the draft's CUDA graphs and activations (held back, as the "
                   "target's) and its embedding / LM head SGLang swaps for the target's")
    return out
