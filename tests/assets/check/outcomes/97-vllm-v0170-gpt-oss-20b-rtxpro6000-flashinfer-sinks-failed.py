# Source: https://github.com/vllm-project/vllm/issues/40153 ("[Bug]: GPT-OSS-20B on RTX PRO 6000 (SM120) falls back to
#   TRITON_ATTN + Marlin; forcing FLASHINFER fails with sink setting not supported"), description by dhayanesh
#   (collect_env: "vLLM Version : 0.17.0"). The post's script carries `# attention_backend="FLASHINFER",  # forcing this
#   fails`; the post: "I also see the backend selector explicitly reject FlashAttention-family backends due to sinks:
#   ... Reasons: {FLASH_ATTN: [sink setting not supported], FLASHINFER: [sink setting not supported] ...". This engine
#   did not start (an attention backend that cannot serve attention sinks; not memory), the outcome recorded here.
# RECONSTRUCTED: file 96's script (the post's, verbatim) with that one commented line set, the change the post names.
# GPU: as file 96 -> 97-...kvplan.yaml names rtx-pro-6000 and the model behind ./gpt-oss-20b.
# Release: vLLM 0.17.0 (collect_env); the script pins none.
from vllm import LLM

llm = LLM(
    model="./gpt-oss-20b",
    tensor_parallel_size=1,
    max_num_seqs=1,
    max_model_len=8192,
    enable_chunked_prefill=True,
    enable_prefix_caching=False,
    attention_backend="FLASHINFER",  # forcing this fails
)
