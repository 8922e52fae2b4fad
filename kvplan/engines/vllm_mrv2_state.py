"""vLLM Model Runner V2's persistent GPU state: the sampler's per-request tables (sized by
max_num_seqs x vocabulary) and the input buffers, made in `GPUModelRunner.__init__` /
`load_model` after the weights are measured and before the profile run, and booked by
`determine_available_memory` from vLLM 0.27 on.

Read in the released wheels (`pip download --no-deps vllm==X`), 0.28.0, 0.29.0, 0.30.0, 0.31.0,
0.32.0 and 0.33.0, the same tensors and sizes in each (line numbers are 0.33.0's; 0.34.0, read
in task h41v034, makes the same tensors: penalties.py:43-50, structured_outputs.py:26-28 (built
at gpu/model_runner.py:549-553 with max_num_reqs x decode_query_len rows), logit_bias.py:32-52,
bad_words.py:30-38, logprob.py:246-247, input_batch.py:29-37, and books them in the non-KV use its
extensible KV cache measures after warm-up, kvplan.engines.vllm_extensible):

- `v1/worker/gpu/sample/penalties.py:43-50` `PenaltiesState`: `prompt_bin_mask` (max_num_reqs x
  cdiv(vocab_size, 32) int32) and `output_bin_counts` (max_num_reqs x vocab_size int32);
- `v1/worker/gpu/structured_outputs.py:63-65` `StructuredOutputsWorker.grammar_bitmask`
  (max_num_reqs x decode_query_len rows of cdiv(vocab_size, 32) int32; decode_query_len =
  num_speculative_steps + 1 new token a step, `gpu/model_runner.py` `load_model`; a speculator's
  own buffers, `init_speculator`, are not counted);
- `v1/worker/gpu/sample/logit_bias.py:20-22,33-52` `LogitBiasState`: allowed token ids (1,024),
  logit-bias ids (1,024, int32) and values (1,024, fp32) and stop-token ids (128), a row each;
- `v1/worker/gpu/sample/bad_words.py:30-36` `BadWordsState`: VLLM_MAX_BAD_WORDS_TOTAL_TOKENS
  (1,024) token ids and VLLM_MAX_NUM_BAD_WORDS + 1 (129) offsets a row (`envs.py` defaults);
- `v1/worker/gpu/sample/logprob.py:247` `LogprobTokenIdsState`: MAX_LOGPROB_TOKEN_IDS (128,
  `sampling_params.py:35`) int32 a row;
- `v1/worker/gpu/input_batch.py:29-31` `InputBuffers`: int32 ids, int64 positions and bool padding
  flags, 13 B a batched token.

`StagedWriteTensor` puts each table on the GPU (`buffer_utils.py:159-161`: `torch.zeros(size,
device=device)` unless `uva_instead_of_gpu`, which none of these passes). Per-request scalars
(`UvaBackedTensor`: host memory) and the few GPU vectors of max_num_reqs entries (KiBs) are not
counted; `all_token_ids` is host memory (UVA) unless ngram speculation asks for it dense
(`gpu/states.py:41`).

Per GPU: `vocab_size` is the full vocabulary (`model_config.get_vocab_size()`,
`gpu/model_runner.py:229`), not a tensor-parallel shard, and the sampler is built on every rank of
the last pipeline stage (`if self.is_last_pp_rank and not self.is_pooling_model`, `load_model`),
so every tensor-parallel GPU holds the whole state; the other pipeline stages hold only the input
buffers.

Which releases book it: 0.17-0.26 measure the non-KV memory from the torch peak reset after these
exist (0.26.0 `utils/mem_utils.py` `memory_profiling`: weights + `torch_peak_increase` +
`non_torch_increase`), so they are booked nowhere; from 0.27 `memory_profiling` books
`total_consumed` = free memory at start-up - free memory after profiling, + the transient peak
(`utils/mem_utils.py:317-326` in 0.27.0 and 0.27.1, the same file as 0.28.0's; `:313-321` in
0.33.0), which counts them (task h30v1miss: kvplan booked them from 0.28 until the 0.27.0 and
0.27.1 wheels were read). Only models Model Runner V2 runs have them (the old
runner keeps no vocabulary-sized state): kvplan.engines.vllm_series.Flavour.lean_sampler.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.engines.interface import parse_version

BOOKED_FROM = (0, 27)  # total_consumed booking (0.27.0/0.27.1 utils/mem_utils.py:317-326)
INT32 = 4
BITMASK_BITS = 32  # cdiv(vocab_size, 32) int32 words a row
LOGIT_BIAS_COLUMNS = 1024 + 1024 + 1024 + 128  # allowed ids, bias ids, bias values, stop ids
BAD_WORDS_COLUMNS = 1024 + 128 + 1  # VLLM_MAX_BAD_WORDS_TOTAL_TOKENS, VLLM_MAX_NUM_BAD_WORDS + 1
LOGPROB_TOKEN_COLUMNS = 128  # MAX_LOGPROB_TOKEN_IDS
INPUT_BYTES_PER_TOKEN = 4 + 8 + 1  # input_ids int32, positions int64, is_padding bool


@dataclass(frozen=True)
class Mrv2State:
    """The state's bytes on one GPU of the last pipeline stage, on one of another stage, and the
    formula `kvplan explain` shows."""

    last_stage: int
    other_stage: int
    formula: str


def booked(version: str, v1: bool, model_runner_v2: bool) -> bool:
    """Whether this release's budget counts Model Runner V2's persistent state (0.27 on, on the
    models Model Runner V2 runs)."""
    return v1 and model_runner_v2 and (parse_version(version) or ()) >= BOOKED_FROM


def state_bytes(seqs: int, vocab: int, batched: int, speculative_tokens: int = 0) -> Mrv2State:
    """Model Runner V2's persistent state for max_num_seqs `seqs`, a `vocab`-token vocabulary,
    max_num_batched_tokens `batched` and `speculative_tokens` draft tokens a step."""
    words = -(-vocab // BITMASK_BITS)
    counts = seqs * vocab * INT32
    rows = 1 + speculative_tokens  # decode_query_len: the grammar bitmask's rows a sequence
    masks = (seqs + seqs * rows) * words * INT32  # prompt_bin_mask, grammar bitmask
    tables = seqs * (LOGIT_BIAS_COLUMNS + BAD_WORDS_COLUMNS + LOGPROB_TOKEN_COLUMNS) * INT32
    inputs = batched * INPUT_BYTES_PER_TOKEN
    formula = (
        f"{seqs:,} seqs x ({vocab:,} vocab + {1 + rows} x {words:,} + "
        f"{LOGIT_BIAS_COLUMNS + BAD_WORDS_COLUMNS + LOGPROB_TOKEN_COLUMNS:,}) x 4 B + "
        f"{batched:,} tok x {INPUT_BYTES_PER_TOKEN} B (output_bin_counts, prompt_bin_mask and "
        "grammar bitmask, sampling tables, input buffers; booked from vLLM 0.27, on every TP GPU)")
    return Mrv2State(last_stage=counts + masks + tables + inputs, other_stage=inputs,
                     formula=formula)
