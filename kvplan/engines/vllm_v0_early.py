"""vLLM V0 before 0.6.4: what the profiler measured, release by release (issue #13).

Read in vLLM's released source (the PyPI wheels of each tag), not fitted to a log:

- up to 0.2.4, `Worker.profile_num_available_blocks` took `peak_memory =
  torch.cuda.max_memory_allocated()` after `torch.cuda.reset_peak_memory_stats()` and a profile
  run (v0.2.4 vllm/worker/worker.py:84-98; total from `get_gpu_memory()`): only torch's allocated
  peak, so the CUDA context, NCCL and every other non-torch byte were not booked at all
  (PEAK_ALLOCATED).
- 0.2.5 to 0.3.0 took `free, total = torch.cuda.mem_get_info(); peak_memory = total - free`
  after the profile run (vLLM PR #2031; v0.2.5 worker.py:90-98, v0.3.0 worker.py:120-128):
  everything on the device, the CUDA context, NCCL buffers and any other process included
  (PEAK_DEVICE). kvplan books the V0 context + NCCL term (vllm_nontorch.NON_TORCH_V0 / _TP);
  another process on the GPU is not modelled.
- 0.2.5 alone: tensor-parallel all-reduces ran with torch's record_stream semantics. 0.2.6 set
  TORCH_NCCL_AVOID_RECORD_STREAMS=1 "because torch.distributed.all_reduce does not free the
  input tensor until the synchronization point. This causes the memory usage to grow as the
  number of all_reduce calls increases" (v0.2.6 worker.py:50-56). The allocator books such a
  tensor as freed (max_memory_allocated in 0.2.4 did not see it) but cannot hand its block out
  again, so `total - free` at the end of the profile run counts every all-reduce input of the
  forward: VocabParallelEmbedding's (v0.2.5 vocab_parallel_embedding.py:101) and each layer's two
  RowParallelLinear outputs, o_proj and down_proj (linear.py:530-531), each max_num_batched_tokens
  x hidden in the activation dtype, reduced in place (communication_op.py:18). The best estimate
  holds all of them, as vLLM's comment says; the low end none (a GPU that keeps up with the CPU
  would retire them).
- 0.3.1 to 0.6.3 took `init_gpu_memory = torch.cuda.mem_get_info()[0]` in init_device right
  after set_device and empty_cache, before the distributed set-up, and `peak_memory =
  self.init_gpu_memory - free_gpu_memory` (v0.3.1 worker.py:85-89 and 134, v0.4.1 worker.py:104-
  105 and 146, v0.6.3 worker.py:171 and 231): the CUDA context and other processes are no longer
  counted, only the growth over start-up (PEAK_GROWTH; one GPU books V1's growth term, as V0
  from 0.7 does; tensor parallelism keeps the V0 TP term, NCCL being set up after the baseline).
- 0.6.4 (PR #9352) books torch's allocated peak plus the non-torch remainder of `total - free`
  again, which the 0.6-0.7 series models; 0.6.5 on book growth again (vllm_nontorch.V0_GROWTH_FROM,
  task h39v066).

The profile batch is max_num_batched_tokens tokens over max_num_seqs sequences, sampled on each
sequence's last token (`_prune_hidden_states`, `selected_token_indices`), in every release here.
Defaults: max_num_seqs 256 and max_num_batched_tokens max(max_model_len, 2048)
(v0.2.4 config.py:368, v0.4.1 config.py:582); from 0.5.3 chunked prefill is switched on by
default above 32,768 tokens (v0.5.3 arg_utils.py:747, "use_long_context = max_model_len >
32768"), and with it the scheduler's default is 512 batched tokens (v0.6.3 config.py:983, still
so in v0.6.4 config.py:1114; 2,048 from v0.6.5 config.py:1344, which vllm_series models). Not
checked: the exceptions to the automatic switch (sliding-window models, LoRA, speculative
decoding, prompt adapters, and in 0.5.3 prefix caching keep chunked prefill off).
"""

from __future__ import annotations

from kvplan.engines.activation import ACT_BYTES
from kvplan.engines.interface import Interval, parse_version
from kvplan.specs.schema import ModelSpec

PEAK_DEVICE_FROM = (0, 2, 5)  # peak = total - free (mem_get_info), PR #2031
AVOID_RECORD_STREAMS_FROM = (0, 2, 6)  # TORCH_NCCL_AVOID_RECORD_STREAMS=1
PEAK_GROWTH_FROM = (0, 3, 1)  # peak = init free - free
PROFILER_064 = (0, 6, 4)  # torch.cuda.memory_stats peak + non-torch (PR #9352)
AUTO_CHUNKED_FROM = (0, 5, 3)  # chunked prefill on by default above 32,768 tokens
LONG_CONTEXT = 32768
CHUNKED_BATCHED_TOKENS = 512  # the scheduler default with chunked prefill (v0.6.3, v0.6.4)
CHUNKED_2048_FROM = (0, 6, 5)  # ... 2,048 from 0.6.5 (v0.6.5 config.py:1344)

PEAK_ALLOCATED = "allocated"  # torch.cuda.max_memory_allocated (<= 0.2.4)
PEAK_DEVICE = "device"  # total - free (0.2.5-0.3.0)
PEAK_GROWTH = "growth"  # init free - free (0.3.1-0.6.3)


def early_peak(version: str | None, v1: bool) -> str | None:
    """Which peak a V0 release before 0.6.4 measured; None for 0.6.4 on (and V1)."""
    ver = parse_version(version) or ()
    if v1 or not ver or ver >= PROFILER_064:
        return None
    if ver < PEAK_DEVICE_FROM:
        return PEAK_ALLOCATED
    return PEAK_DEVICE if ver < PEAK_GROWTH_FROM else PEAK_GROWTH


def early_batched_tokens(version: str | None, context_tokens: int) -> int | None:
    """max_num_batched_tokens a V0 release before 0.6.5 picks when not given (None: later)."""
    ver = parse_version(version) or ()
    if not ver or ver >= CHUNKED_2048_FROM:
        return None
    if context_tokens > LONG_CONTEXT and ver >= AUTO_CHUNKED_FROM:
        return CHUNKED_BATCHED_TOKENS
    return max(context_tokens, 2048)


def record_stream_hold(version: str | None, v1: bool, model: ModelSpec, tp: int,
                       batched_tokens: int) -> Interval | None:
    """vLLM 0.2.5 with tensor parallelism: the all-reduce inputs the profile run leaves held.

    One input for the embedding and two a layer, each batched tokens x hidden x 2 bytes.
    """
    ver = parse_version(version) or ()
    if v1 or tp <= 1 or not (PEAK_DEVICE_FROM <= ver < AVOID_RECORD_STREAMS_FROM):
        return None
    held = (2 * model.num_layers + 1) * batched_tokens * model.hidden_size * ACT_BYTES
    return Interval(held, 0, held)
