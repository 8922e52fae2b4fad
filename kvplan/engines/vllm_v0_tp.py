"""vLLM V0 from 0.7 with tensor parallelism: the all-reduce output the profiled peak holds.

Read in the vLLM 0.7.2 wheel (issue #13 task h30v0), not fitted to a log. A RowParallelLinear
with reduce_results (each layer's o_proj and down_proj) hands its output to
tensor_model_parallel_all_reduce (vllm/model_executor/layers/linear.py), which
GroupCoordinator.all_reduce always runs out of place ("PyTorch custom ops do not support
mutation or returning a new tensor in the same op. So we always make the all-reduce operation
out-of-place", vllm/distributed/parallel_state.py). The profile run's max_num_batched_tokens x
hidden input is far above custom all-reduce's 8 MiB max_size (custom_all_reduce.py
should_custom_ar), so pynccl's all_reduce takes it and allocates `out_tensor =
torch.empty_like(in_tensor)` (device_communicators/pynccl.py) while the input and the MLP's
tensors are still referenced: at down_proj's all-reduce the forward's one-GPU peak (the
activation model's 3 x hidden + 3 x intermediate / tp a token) holds one more hidden-sized
tensor. Best: that tensor; low: none (the peak could fall elsewhere); high: the same (the
forward's spread covers the rest). Applied from 0.7, the series read in the 0.7.2 source;
earlier V0 releases and V1 (a compiled forward whose buffers inductor plans) are left as they
were. (0.6.5's GroupCoordinator already runs all-reduces out of place, parallel_state.py :110
and :357, pynccl.py :122 `torch.empty_like`; not applied to 0.6.5-0.6.6 for want of a TP log
of those releases, task h39v066.)
"""

from __future__ import annotations

from kvplan.engines.activation import ACT_BYTES
from kvplan.engines.interface import Interval, parse_version
from kvplan.specs.schema import ModelSpec

ALLREDUCE_OUT_FROM = (0, 7)


def allreduce_out(version: str | None, v1: bool, model: ModelSpec, tp: int,
                  batched_tokens: int) -> Interval | None:
    """The out-of-place all-reduce output V0 (0.7 on) holds at the peak with TP, or None."""
    if v1 or tp <= 1 or (parse_version(version) or ()) < ALLREDUCE_OUT_FROM:
        return None
    out = batched_tokens * model.hidden_size * ACT_BYTES
    return Interval(out, 0, out)
