"""Model Runner V2 in vLLM 0.22-0.24: only the architectures config/vllm.py lists (task h30v1miss).

Read in the 0.20.0-0.24.0 wheels: DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES is {Qwen3ForCausalLM} in
0.22.0, adds LlamaForCausalLM and MistralForCausalLM in 0.23.0 (both for models neither MoE nor
quantized), and in 0.24.0 also lists DeepseekV2, Qwen2Moe and GraniteMoe for any model; 0.20.0 and
0.21.0 have none. Model Runner V2's profiling sampler keeps the bf16 logits and one fp32 copy
(gpu/sample/sampler.py: `torch.empty_like(logits, dtype=torch.float32).copy_(logits)`), 6 B a
logit, and its profile_cudagraph_memory returns 0 (gpu/model_runner.py:620 in 0.22.0, :660 in
0.23.0, :684 in 0.24.0), so nothing is subtracted for graphs.
"""

from __future__ import annotations

from tests.conftest import explain_by_label

GRAPHS = "CUDA graph memory"


def _log_250(version: str) -> dict[str, dict[str, object]]:
    # log 250's settings: Qwen3-8B fp16 at TP 2 on two T4s through the offline LLM class
    return explain_by_label("qwen3-8b", "--gpu", "t4", "--tp", "2", "--engine", "vllm",
                            "--engine-version", version, "--weight-dtype", "fp16", "--kv-dtype", "fp16",
                            "--memory-utilization", "0.85", "-c", "8192", "--entrypoint", "offline")


def test_qwen3_in_022_profiles_the_lean_sampler_and_subtracts_no_graphs() -> None:
    steps = _log_250("0.22.0")
    # forward: 8,192 tokens x (3 x 4,096 + 3 x 12,288 / 2) = 30,720 el x 2 B = 503,316,480; the
    # sampler 256 rows x 151,936 x 6 B = 233,373,696 is below it
    assert steps["activation peak"]["value"] == 8_192 * 30_720 * 2 == 503_316_480
    assert "151,936 x 6 B)" in str(steps["activation peak"]["formula"])
    assert steps[GRAPHS]["value"] == 0
    assert "gpu/model_runner.py:620 in 0.22.0" in str(steps[GRAPHS]["formula"])


def test_qwen3_in_021_stays_on_the_old_runner() -> None:
    steps = _log_250("0.21.0")
    # the old runner's 16 B sampler: 256 x 151,936 x 16 = 622,329,856, above the forward
    assert steps["activation peak"]["value"] == 256 * 151_936 * 16 == 622_329_856
    assert "x 6 B)" not in str(steps["activation peak"]["formula"])


def test_llama_joins_in_023() -> None:
    args = ("llama-3.1-8b", "--gpu", "h100", "--engine", "vllm", "--engine-version")
    old = explain_by_label(*args, "0.22.0")
    new = explain_by_label(*args, "0.23.0")
    assert "x 6 B)" not in str(old["activation peak"]["formula"])
    # the old runner's estimate, by the capture sizes (task h43graphs; kvplan's 0.5 GiB before):
    # 1,024 sequences on an H100 -> 102 graphs in 2 modes; since task h44graphbase a first
    # capture + 100 later graphs x 32 layers x 89,653 B (102 x 32 x 235,929 = 770,072,256 before)
    assert old[GRAPHS]["value"] == 358_612_992 + 100 * 32 * 89_653 == 645_502_592
    assert "128,256 x 6 B)" in str(new["activation peak"]["formula"])
    assert new[GRAPHS]["value"] == 0
    assert "gpu/model_runner.py:660 in 0.23.0" in str(new[GRAPHS]["formula"])
