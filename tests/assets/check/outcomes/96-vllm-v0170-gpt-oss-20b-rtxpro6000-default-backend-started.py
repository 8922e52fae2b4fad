# Source: https://github.com/vllm-project/vllm/issues/40153 ("[Bug]: GPT-OSS-20B on RTX PRO 6000 (SM120) falls back to
#   TRITON_ATTN + Marlin; forcing FLASHINFER fails with sink setting not supported"), description by dhayanesh
#   (collect_env: "vLLM Version : 0.17.0", torch 2.10.0, flashinfer-python 0.6.4). The post's script is the LLM(...)
#   below, with the comment lines as posted; the post: "With the default backend selection, vLLM initializes
#   successfully but selects fallback backends: ... Using TRITON_ATTN attention backend out of potential backends:
#   ['TRITON_ATTN'] ... Using Marlin backend". This engine started (the default path), the outcome recorded here;
#   file 97 is the same script with the commented attention_backend line set, which failed.
# The code below is the post's, copied verbatim (its import and LLM(...) call).
# GPU: "RTX PRO 6000 (SM120)" (the title; the same user's TensorRT-LLM#13156: "RTX Pro 6000 Blackwell Max-Q / sm_120")
#   -> 96-...kvplan.yaml names rtx-pro-6000 (the catalog's 96 GB RTX PRO 6000 Blackwell), and the model behind the
#   folder ./gpt-oss-20b.
# Release: vLLM 0.17.0 (collect_env); the script pins none, so kvplan plans its default vLLM release.
from vllm import LLM

llm = LLM(
    model="./gpt-oss-20b",
    tensor_parallel_size=1,
    max_num_seqs=1,
    max_model_len=8192,
    enable_chunked_prefill=True,
    enable_prefix_caching=False,
    # default path works, but uses TRITON_ATTN + Marlin
    # attention_backend="FLASHINFER",  # forcing this fails
)
