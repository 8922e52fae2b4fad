"""The pydantic validators of the kvplan/v1 deployment file: what is deployed, the traffic it
must carry, and the bar.

kvplan computes with the plain records of kvplan.deploy.schema; each class here validates the
record of the same name and holds the field descriptions the docs print. The rules across
fields are kvplan.deploy.schema's, shared with the fast acceptor (kvplan.deploy.fast)."""

# No `from __future__ import annotations`: pydantic would evaluate every string annotation again
# when each class is made, a third of this module's import time (paid when a file needs pydantic).
from typing import Annotated, Literal

from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from kvplan.deploy import schema as plain
from kvplan.inputs import limits as lim
from kvplan.inputs.nobool import NoBoolFloats


def _not_bool(value: object) -> object:
    if isinstance(value, bool):
        raise ValueError("expected a whole number, not true/false")
    return value


NoBool = BeforeValidator(_not_bool)
PosInt = Annotated[int, Field(gt=0), NoBool]
Tokens = Annotated[int, Field(gt=0, le=lim.MAX_CONTEXT_TOKENS), NoBool]
Users = Annotated[int, Field(gt=0, le=lim.MAX_USERS), NoBool]
Ways = Annotated[int, Field(gt=0, le=lim.MAX_PARALLEL), NoBool]
PosFloat = Annotated[float, Field(gt=0)]

API_VERSION = plain.API_VERSION


class _Strict(NoBoolFloats):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, defer_build=True)

    @model_validator(mode="after")
    def _rules(self) -> "_Strict":
        """The rules across fields kvplan.deploy.schema.RULES gives this block, in order: the
        same functions the fast acceptor applies."""
        for rule in plain.RULES.get(type(self).__name__, ()):
            problem = rule(self)
            if problem is not None:
                raise ValueError(problem)
        return self


class Hardware(_Strict):
    gpu: str = Field(description="catalog name or alias, e.g. h100")
    count: Annotated[int, Field(gt=0, le=lim.MAX_GPUS), NoBool] | None = Field(
        default=None,
        description="GPUs the deployment has, all replicas: replicas x tensor x pipeline. "
        "`kvplan check` requires it; `kvplan fleet` computes it",
    )
    price_per_hour_usd: PosFloat | None = Field(
        default=None, description="USD per GPU-hour [default: the GPU spec's price]"
    )
    bandwidth_efficiency: float = Field(
        default=1.0, gt=0, le=1, description="share of peak memory bandwidth decode achieves"
    )
    flops_efficiency: float = Field(
        default=1.0, gt=0, le=1, description="share of peak BF16 FLOP/s prefill achieves"
    )


class Parallel(_Strict):
    tensor: Ways = 1
    pipeline: Ways = 1
    nodes: Ways | None = Field(
        default=None, description="servers one replica spans; needed when tensor parallelism "
        "exceeds the GPUs of one server (hardware spec gpus_per_node)")
    expert: Ways | None = Field(
        default=None, description="expert-parallel ranks a mixture-of-experts layer is split "
        "over (vLLM --enable-expert-parallel: tensor x data parallel; SGLang --ep-size; "
        "TensorRT-LLM --ep_size); must divide the experts")
    attention_dp: Ways | None = Field(
        default=None, description="SGLang's data-parallel attention ranks inside the tensor "
        "parallel group (--enable-dp-attention --dp-size, 0.5.23's --attn-dp-size): attention "
        "over tensor / attention_dp GPUs, one KV pool per rank; must divide tensor")


class Engine(_Strict):
    """Serving settings, named as vLLM names its flags.

    Where SGLang or TensorRT-LLM has the same setting under another name, the vLLM name holds
    it (docs/engines.md): max_num_seqs is SGLang's --max-running-requests and TensorRT-LLM's
    max_batch_size; max_num_batched_tokens is SGLang's --chunked-prefill-size and TensorRT-LLM's
    max_num_tokens; max_model_len is TensorRT-LLM's max_seq_len; block_size is SGLang's
    --page-size and TensorRT-LLM's tokens_per_block (stated: otherwise each engine's default);
    gpu_memory_utilization is SGLang's mem_fraction_static and TensorRT-LLM's
    free_gpu_memory_fraction. Settings only one engine has keep that engine's name.
    """

    name: Literal["ideal", "vllm", "sglang", "trtllm", "transformers"] = "ideal"
    version: str | None = None
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)
    max_model_len: Tokens | None = Field(default=None, description="default: the model's maximum")
    kv_cache_dtype: str = Field(
        default="auto", description="auto = the weight dtype (16 bits for int4 or fp8 weights)")
    weight_dtype: str | None = None
    allocation: Literal["paged", "reserved"] = "paged"
    block_size: Annotated[int, Field(gt=0, le=lim.MAX_BLOCK_TOKENS), NoBool] = 16
    kv_group_size: Annotated[int, Field(gt=0, le=lim.MAX_HEAD_DIM), NoBool] = Field(
        default=64, description="values per fp16 scale, int4 caches")
    max_num_seqs: Annotated[int, Field(gt=0, le=lim.MAX_SEQS), NoBool] | None = None
    max_num_batched_tokens: Tokens | None = None
    enable_prefix_caching: bool = False
    reserve_gib: float | None = Field(default=None, ge=0, le=lim.MAX_MEMORY_BYTES / 2**30)
    kv_budget_gib: float | None = Field(default=None, gt=0, le=lim.MAX_MEMORY_BYTES / 2**30)
    # engine flags that move the pool (each read by the engines kvplan.deploy.ENGINE_KEYS names)
    enforce_eager: bool | None = Field(default=None,
                                       description="vLLM --enforce-eager: no CUDA graphs "
                                       "[default: false]")
    enable_extensible_kv_cache: bool | None = Field(
        default=None, description="vLLM 0.34 --enable-extensible-kv-cache (true) or "
        "--no-enable-extensible-kv-cache (false): the pool sized after warm-up, or from the "
        "profiling estimate with gpu_memory_utilization 0.92 [default: on from 0.34]")
    kv_cache_memory_bytes: Annotated[int, Field(gt=0, le=lim.MAX_MEMORY_BYTES), NoBool] | None = (
        Field(default=None, description="vLLM --kv-cache-memory-bytes: the pool per GPU"))
    cpu_offload_gb: float | None = Field(
        default=None, ge=0, le=lim.MAX_MEMORY_BYTES / 2**30,
        description="vLLM --cpu-offload-gb: weight GiB kept in host memory, per GPU")
    limit_mm_per_prompt: Annotated[int, Field(ge=0, le=lim.MAX_SEQS), NoBool] | None = Field(
        default=None, description="vLLM --limit-mm-per-prompt: items per prompt (multimodal)")
    speculative_model: str | None = Field(
        default=None, description="vLLM --speculative-config model, SGLang "
        "--speculative-draft-model-path: the draft model (catalog name, hf_id or spec file)")
    num_speculative_tokens: Annotated[int, Field(gt=0, le=lim.MAX_SEQS), NoBool] | None = Field(
        default=None, description="vLLM --speculative-config num_speculative_tokens")
    cuda_graph_max_bs: Annotated[int, Field(gt=0, le=lim.MAX_SEQS), NoBool] | None = Field(
        default=None, description="SGLang --cuda-graph-max-bs")
    max_total_tokens: Tokens | None = Field(default=None,
                                            description="SGLang --max-total-tokens")
    max_tokens_in_paged_kv_cache: Tokens | None = Field(
        default=None, description="TensorRT-LLM kv_cache_config.max_tokens")
    trtllm_config: str | None = Field(
        default=None, description="TensorRT-LLM: an --extra_llm_api_options / --config YAML or "
        "an engine's config.json, relative to this file; its limits, cache dtype, parallel layout "
        "and backend are read")
    trt_activation_bytes: Annotated[int, Field(gt=0, le=lim.MAX_MEMORY_BYTES), NoBool] | None = (
        Field(default=None, description="TensorRT-LLM: the TensorRT engine's execution-context "
              "memory in bytes (trtllm-build's \"Total Activation Memory\")"))
    attention_backend: plain.AttentionBackend | None = Field(
        default=None, description="SGLang --attention-backend (one of SGLang 0.5.23's choices); "
        "aiter on a ROCm GPU scales mem_fraction_static by 0.85 above 8,192 tokens of context")
    mm_feature_transport: plain.MmFeatureTransport | None = Field(
        default=None, description="SGLang --mm-feature-transport (cpu, cuda_ipc, cuda_vmm): from "
        "0.5.18 a multimodal model's KV budget leaves out 100 MiB of embedding cache, and 1,024 "
        "MiB more for a GPU transport [default: cpu, Qwen3-VL on a large Hopper GPU cuda_ipc "
        "from 0.5.20]")
    trtllm_backend: Literal["pytorch", "tensorrt"] | None = Field(
        default=None, description="TensorRT-LLM trtllm-serve --backend: pytorch (the default "
        "from 1.0) or tensorrt (a TensorRT engine, the default before 1.0)")
    tp_transport: plain.TpTransport | None = Field(
        default=None, description="vLLM: how the tensor-parallel GPUs talk (nvlink; pcie-p2p: "
        "one node, P2P over PCIe; host: no P2P, or nodes without GPUDirect RDMA), which sets "
        "the TP non-torch term [default: by the GPU label's form factor]")
    disable_custom_all_reduce: bool | None = Field(
        default=None, description="vLLM --disable-custom-all-reduce: no custom all-reduce "
        "IPC buffers [default: false]")
    disable_hybrid_kv_cache_manager: bool | None = Field(
        default=None, description="vLLM 0.9.1+ --disable-hybrid-kv-cache-manager: every "
        "sliding-window (and, from 0.10.0, chunked-local) layer is cached as full attention "
        "when the model has full-attention layers too [default: false]")
    chunked_local_hybrid: bool | None = Field(
        default=None, description="vLLM 0.10.1+ VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1: "
        "Llama 4's chunked-local layers stay in the hybrid KV cache manager; unset, vLLM turns "
        "the manager off for them and caches them as full attention [default: false]")
    topk_topp_sampler: plain.TopkToppSampler | None = Field(
        default=None, description="vLLM 0.8-0.16: the profiling sampler's top-k/top-p path, "
        "native (PyTorch's sort, 38 B a logit: no FlashInfer, or VLLM_USE_FLASHINFER_SAMPLER=0) "
        "or flashinfer (16 B: FlashInfer installed, as in the vllm/vllm-openai image of "
        "0.10-0.11; from 0.12 VLLM_USE_FLASHINFER_SAMPLER=1) "
        "[default: native, as pip installs 0.8-0.11 and 0.12-0.16 run]")
    entrypoint: plain.Entrypoint | None = Field(
        default=None, description="vLLM: how the engine is started, serve (`vllm serve`, the "
        "OpenAI API server) or offline (the `vllm.LLM(...)` class, whose defaults profile more "
        "batched tokens: 8,192 where serve's are 2,048, 16,384 where 8,192) [default: serve]")
    cudagraph_capture_sizes: str | None = Field(
        default=None, description="vLLM --cudagraph-capture-sizes (compilation_config "
        "cudagraph_capture_sizes): the CUDA-graph capture sizes, whole numbers, comma- or "
        "space-separated; those above max_num_batched_tokens are dropped [default: the "
        "release's sizes from max_num_seqs and max_num_batched_tokens]")
    max_cudagraph_capture_size: Tokens | None = Field(
        default=None, description="vLLM --max-cudagraph-capture-size: the largest capture "
        "size (with stated sizes, it must be their largest kept) [default: 2 x max_num_seqs "
        "x the decode tokens, at most 512]")
    cudagraph_mode: plain.CudagraphMode | None = Field(
        default=None, description="vLLM compilation_config cudagraph_mode (-cc.cudagraph_mode): "
        "NONE, PIECEWISE, FULL, FULL_DECODE_ONLY or FULL_AND_PIECEWISE, the graphs captured "
        "per size [default: FULL_AND_PIECEWISE]")
    speculative_algorithm: plain.SpeculativeAlgorithm | None = Field(
        default=None, description="SGLang --speculative-algorithm (EAGLE, EAGLE3, NEXTN, "
        "STANDALONE with speculative_model; NGRAM without): the draft's weights and KV pool, "
        "the default fraction's reserve and 48 running requests, per release")
    speculative_num_steps: Annotated[int, Field(gt=0, le=lim.MAX_SEQS), NoBool] | None = Field(
        default=None, description="SGLang --speculative-num-steps (with the other two)")
    speculative_eagle_topk: Annotated[int, Field(gt=0, le=lim.MAX_SEQS), NoBool] | None = Field(
        default=None, description="SGLang --speculative-eagle-topk (with the other two)")
    speculative_num_draft_tokens: Annotated[int, Field(gt=0, le=lim.MAX_SEQS), NoBool] | None = (
        Field(default=None, description="SGLang --speculative-num-draft-tokens (with the other "
              "two) [default: SGLang's choice by architecture, 0.4.6 on]"))
    moe_dense_tp_size: Ways | None = Field(
        default=None, description="SGLang --moe-dense-tp-size: 1 builds a DeepSeek-V2-family "
        "model's dense MLP layers whole on every GPU (1 or unset to 0.5.12; 1, unset or the "
        "tensor parallel size from 0.5.13) [default: over tp]")
    enable_dp_lm_head: bool | None = Field(
        default=None, description="SGLang --enable-dp-lm-head: with data-parallel attention the "
        "LM head is split over the attention's tp / dp GPUs, not tp [default: false]")
    moe_a2a_backend: plain.MoeA2aBackend | None = Field(
        default=None, description="SGLang --moe-a2a-backend (before 0.5.0 --enable-deepep-moe): "
        "deepep sets expert parallelism to tp and builds a DeepSeek-V2-family model's shared "
        "experts whole on every GPU [default: none]")


class ContextTokens(_Strict):
    """Tokens a conversation holds (prompt plus output): a mean, percentiles, or a sample.

    The mean sizes a paged pool; p95 is also checked against the longest sequence the engine
    accepts (max_model_len)."""

    mean: Tokens | None = None
    p50: Tokens | None = None
    p95: Tokens | None = None
    p99: Tokens | None = None
    sample: str | None = Field(
        default=None, description="CSV, JSONL or JSON of request token counts, relative to this file"
    )


class Traffic(_Strict):
    peak_concurrent_users: Users | None = None
    arrival_rate_per_s: PosFloat | None = None
    mean_duration_s: PosFloat | None = None
    peak_to_mean: float = Field(default=1.0, ge=1)
    context_tokens: ContextTokens | None = None
    shared_prefix_tokens: Annotated[int, Field(ge=0, le=lim.MAX_CONTEXT_TOKENS), NoBool] = 0
    risk: float | None = Field(
        default=None, gt=0, lt=1, description="overflow probability allowed (0.01 = 1%)"
    )
    min_tokens_per_s_per_user: PosFloat | None = Field(
        default=None, description="decode speed every user must see (the SLO)"
    )
    prompt_tokens: PosInt | None = Field(
        default=None, description="prompt length for TTFT [default: the mean context]"
    )


class Requirement(_Strict):
    min_users: Users | None = Field(default=None, description="default: the traffic's peak")
    headroom_pct: float = Field(default=0.0, ge=0, description="spare capacity above the peak")


class Deployment(_Strict):
    """One deployment: a model on some GPUs under an engine, and the load it must carry."""

    apiVersion: Literal["kvplan/v1"]  # noqa: N815 - the file's own key
    name: str
    model: str = Field(description="catalog name, or a path to a spec file")
    hardware: Hardware
    parallel: Parallel = Parallel.model_construct()
    engine: Engine = Engine.model_construct()
    traffic: Traffic
    requirement: Requirement = Requirement.model_construct()
