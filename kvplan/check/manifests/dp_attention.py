"""SGLang's data-parallel attention, as the release spells it: `--enable-dp-attention --dp-size D`
(0.5.5 and on; deprecated in 0.5.23) or `--attn-dp-size D` / `--attention-data-parallel-size D`
(0.5.23: srt/arg_groups/fields/parallel.py:81-90, `attn_dp_size`, alias
`--attention-data-parallel-size`). Either way attention runs over tp / D GPUs inside the tensor
parallel group and the D ranks take no GPUs of their own (kvplan.check.startup.heads_refusals
checks the heads at tp / D).

Read in the sglang 0.5.23 wheel, srt/arg_groups/parallel_hook.py:
- handle_deprecated_dp_attention (:39-61): with --enable-dp-attention and attn_dp_size 1 (unset),
  attn_dp_size = dp_size and dp_size = 1; with --attn-dp-size above 1 as well, the flag adds
  nothing (dp_size is left as given);
- handle_data_parallelism (:285-292): `--attn-dp-size must be positive` (a ValueError below 1),
  and attn_dp_size above 1 with dp_size above 1 is a ValueError ("data-parallel replicas combined
  with attention data parallelism are not supported");
- :326 `assert cfg.tp_size % cfg.attn_dp_size == 0` (kvplan.check.startup.heads_refusals).
The 0.5.22 wheel has the same field (fields/parallel.py:81-87) and checks (parallel_hook.py:280,
:285, :314); the 0.5.21 wheel has no `attn_dp_size` field and no option of either name
(srt/arg_groups/fields/, server_args.py), so argparse stops on it there: refused on an image that
names a release below ATTN_DP_SIZE_FROM (task h43sglopts read the 0.5.21, 0.5.22, 0.5.23 wheels).
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.check.manifests.engine import Found, Refusal, older_release

SOURCE = "sglang 0.5.23 srt/arg_groups/parallel_hook.py"
ATTN_DP_SIZE_FROM = "0.5.22"


@dataclass
class DpAttention:
    dp: int  # data-parallel engines (replicas), after the attention ranks are taken out
    attention_dp: int  # attention data-parallel ranks inside the TP group (1: none)
    flag: str  # how it was spelt: "--dp-size" (with --enable-dp-attention) or the 0.5.23 name


def read_dp_attention(found: Found, dp: int, enabled: bool, notes: list[str],
                      refusals: list[Refusal]) -> DpAttention | None:
    """Data-parallel attention from the options read into `found` (`attn_dp`, popped here) and
    `dp` (--dp-size); `enabled`: --enable-dp-attention is given. None when there is none."""
    attn = found.values.pop("attn_dp", None)
    line = found.lines.pop("attn_dp", None)
    flag = found.names.pop("attn_dp", "--attn-dp-size")
    if attn is None and not (enabled and dp > 1):
        return None
    if attn is not None and older_release(found.values.get("engine.version"), ATTN_DP_SIZE_FROM):
        refusals.append(Refusal(flag, f"the engine refuses it: SGLang "
                                f"{found.values['engine.version']} has no option {flag} (it "
                                f"came in {ATTN_DP_SIZE_FROM}; older releases spell it "
                                "--enable-dp-attention --dp-size)", line))
        return DpAttention(1, 1, flag)
    if attn is not None and attn < 1:
        refusals.append(Refusal(flag, f"the engine refuses it: {flag} {attn} (SGLang: "
                                "\"--attn-dp-size must be positive\", handle_data_parallelism, "
                                f"{SOURCE}:285-286)", line))
        return DpAttention(dp, 1, flag)
    if enabled and (attn is None or attn == 1):  # handle_deprecated_dp_attention :52-58
        attn, dp, flag = dp, 1, "--dp-size"
    if attn > 1 and dp > 1:
        refusals.append(Refusal(flag, f"the engine refuses it: --dp-size {dp} with {flag} "
                                f"{attn} (SGLang: \"data-parallel replicas combined with "
                                "attention data parallelism are not supported\", "
                                f"handle_data_parallelism, {SOURCE}:287-292)", line))
        return DpAttention(1, attn, flag)  # refused: its GPUs are not counted
    if attn > 1:
        said = (f"--dp-size {attn} with --enable-dp-attention" if flag == "--dp-size"
                else f"{flag} {attn}")
        notes.append(f"{said}: SGLang's data-parallel attention ranks run inside the "
                     "tensor-parallel group (attention over tp / dp GPUs each), no extra GPUs; "
                     "each rank has its own KV pool on each of its GPUs, with the KV heads of "
                     "attention over tp / dp, and the weights are sharded as SGLang shards them "
                     "(kvplan.engines.sglang_dp)")
    return DpAttention(dp, attn, flag)
