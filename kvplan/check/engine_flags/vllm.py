"""Every option `vllm serve` (vLLM 0.33.0) accepts: the option strings of every add_argument call in
vllm/engine/arg_utils.py and vllm/entrypoints/common/cli_args.py, the fields of the *FrontendArgs
dataclasses (one `--field-name` each), `--no-X` for each boolean field (BooleanOptionalAction) and
the `--enable-X` / `--disable-X` pairs vllm.utils.argparse_utils.EnableDisableAction adds.
Extracted with Python's ast from the vllm 0.33.0 wheel; regenerate from a newer release."""

from __future__ import annotations

SOURCE = {'repo': 'vllm-project/vllm', 'version': '0.33.0', 'paths': 'vllm/engine/arg_utils.py, vllm/entrypoints/common/cli_args.py', 'from': 'the vllm-0.33.0 wheel on PyPI (vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl)'}

FLAGS: frozenset[str] = frozenset(
    """
--additional-config --aggregate-engine-logging --all2all-backend --allow-credentials
--allow-deprecated-quantization --allowed-headers --allowed-local-media-path --allowed-media-domains
--allowed-methods --allowed-origins --anthropic-disabled-thinking-effort --api-key
--api-server-count --async-scheduling --attention-backend --attention-config --aux-output-config
--block-size --chat-template --chat-template-content-format --code-revision --cohere-format
--cohere-is-reasoning-model --collect-detailed-traces --compilation-config --config --config-format
--convert --cp-kv-cache-interleave-size --cpu-distributed-timeout-seconds --cpu-offload-gb
--cpu-offload-params --cudagraph-capture-sizes --cudagraph-metrics --custom-histogram-buckets
--data-parallel-address --data-parallel-backend --data-parallel-external-lb
--data-parallel-hybrid-lb --data-parallel-multi-port-external-lb --data-parallel-rank
--data-parallel-rpc-port --data-parallel-size --data-parallel-size-local --data-parallel-start-rank
--data-parallel-supervisor-port --dbo-decode-token-threshold --dbo-prefill-token-threshold
--dcp-comm-backend --dcp-kv-cache-interleave-size --dcp-q-replicate --decode-context-parallel-size
--default-chat-template-kwargs --default-mm-loras --device-ids --device-memory-utilization
--diffusion-config --disable-access-log-for-endpoints --disable-auto-tool-choice
--disable-batch-sharded-sampling --disable-cascade-attn --disable-chunked-mm-input
--disable-chunked-prefill --disable-cumem-allocator --disable-custom-all-reduce --disable-dbo
--disable-elastic-ep --disable-ep-weight-filter --disable-eplb --disable-expert-parallel
--disable-fastapi-docs --disable-fault-tolerance --disable-flash-late-interaction
--disable-flashinfer-autotune --disable-force-include-usage --disable-hc-sp
--disable-hybrid-kv-cache-manager --disable-layerwise-nvtx-tracing --disable-log-deltas
--disable-log-outputs --disable-log-stats --disable-logging-iteration-details --disable-lora
--disable-mamba-cache-stochastic-rounding --disable-mamba-shared-prefix-checkpoint
--disable-mfu-metrics --disable-mixed-moe-lora-format --disable-mm-embeds --disable-moe-shared-loras
--disable-nccl-comm-suspend --disable-nccl-for-dp-synchronization --disable-offline-docs
--disable-per-request-metrics --disable-prefix-caching --disable-prompt-embeds
--disable-prompt-tokens-details --disable-request-id-headers --disable-return-routed-experts
--disable-scale-out --disable-server-load-tracking --disable-shm-tensor-arena --disable-sleep-mode
--disable-sliding-window --disable-ssl-refresh --disable-tokenizer-info-endpoint
--disable-tower-connector-lora --disable-trace-replay --disable-uvicorn-access-log
--distributed-executor-backend --distributed-timeout-seconds --download-dir
--dp-supervisor-probe-failure-threshold --dp-supervisor-probe-interval-s
--dp-supervisor-probe-timeout-s --dp-sync-interval --dtype --ec-manager-config --ec-transfer-config
--elastic-ep-max-dp-size --enable-auto-tool-choice --enable-batch-sharded-sampling
--enable-cascade-attn --enable-chunked-mm-input --enable-chunked-prefill --enable-cumem-allocator
--enable-custom-all-reduce --enable-dbo --enable-elastic-ep --enable-ep-weight-filter --enable-eplb
--enable-expert-parallel --enable-fastapi-docs --enable-fault-tolerance
--enable-flash-late-interaction --enable-flashinfer-autotune --enable-force-include-usage
--enable-hc-sp --enable-hybrid-kv-cache-manager --enable-layerwise-nvtx-tracing --enable-log-deltas
--enable-log-outputs --enable-log-requests --enable-log-stats --enable-logging-iteration-details
--enable-lora --enable-mamba-cache-stochastic-rounding --enable-mamba-shared-prefix-checkpoint
--enable-mfu-metrics --enable-mixed-moe-lora-format --enable-mm-embeds --enable-moe-shared-loras
--enable-nccl-comm-suspend --enable-nccl-for-dp-synchronization --enable-offline-docs
--enable-per-request-metrics --enable-prefix-caching --enable-prompt-embeds
--enable-prompt-tokens-details --enable-request-id-headers --enable-return-routed-experts
--enable-scale-out --enable-server-load-tracking --enable-shm-tensor-arena --enable-sleep-mode
--enable-sliding-window --enable-ssl-refresh --enable-tokenizer-info-endpoint
--enable-tower-connector-lora --enable-trace-replay --enable-uvicorn-access-log --enforce-eager
--engram-config --eplb-config --exclude-tools-when-tool-choice-none --expert-placement-strategy
--fail-on-environ-validation --fault-tolerance-config --fingerprint-mode --fingerprint-value
--fully-sharded-loras --gdn-prefill-backend --generation-config --gpu-memory-utilization --grpc
--grpc-port --h11-max-header-count --h11-max-incomplete-event-size --headless --hf-config-path
--hf-overrides --hf-token --host --ignore-patterns --interleave-mm-strings --io-processor-plugin
--ir-op-priority --jit-monitor-mode --jit-monitor-verbose --kda-decode-backend --kda-prefill-backend
--kernel-config --kv-cache-dtype --kv-cache-dtype-skip-layers --kv-cache-memory-bytes
--kv-cache-metrics --kv-cache-metrics-sample --kv-events-config --kv-offloading-backend
--kv-offloading-size --kv-sharing-fast-prefill --kv-transfer-config --language-model-only
--limit-mm-per-prompt --linear-backend --load-format --log-config-file --log-error-stack --log-level
--logging-config --logits-processors --logprobs-mode --long-prefill-token-threshold
--long-prefill-token-threshold-adaptive --lora-dtype --lora-modules --lora-target-modules
--mamba-backend --mamba-block-size --mamba-cache-dtype --mamba-cache-mode
--mamba-cache-philox-rounds --mamba-ssm-cache-dtype --mamba-ssu-algorithm --master-addr
--master-port --max-cpu-loras --max-cudagraph-capture-size --max-log-len --max-logprobs
--max-lora-cls-labels --max-lora-rank --max-loras --max-model-len --max-num-active-seqs
--max-num-batched-tokens --max-num-queued-reqs --max-num-queued-tokens --max-num-scheduled-tokens
--max-num-seqs --max-parallel-loading-workers --media-io-kwargs --middleware
--mm-device-do-normalize --mm-encoder-attn-backend --mm-encoder-attn-dtype
--mm-encoder-fp8-scale-path --mm-encoder-fp8-scale-save-margin --mm-encoder-fp8-scale-save-path
--mm-encoder-only --mm-encoder-tp-mode --mm-hasher-algorithm --mm-ipc-gpu-memory-gb
--mm-processor-cache-gb --mm-processor-cache-type --mm-processor-device --mm-processor-kwargs
--mm-shm-cache-max-object-size-mb --mm-tensor-ipc --model --model-class-overrides --model-impl
--model-loader-extra-config --moe-backend --monokernel --nnodes --no-aggregate-engine-logging
--no-allow-credentials --no-allow-deprecated-quantization --no-async-scheduling
--no-cohere-is-reasoning-model --no-cudagraph-metrics --no-data-parallel-external-lb
--no-data-parallel-hybrid-lb --no-data-parallel-multi-port-external-lb --no-dcp-q-replicate
--no-disable-cascade-attn --no-disable-chunked-mm-input --no-disable-custom-all-reduce
--no-disable-fastapi-docs --no-disable-hybrid-kv-cache-manager --no-disable-log-stats
--no-disable-nccl-for-dp-synchronization --no-disable-sliding-window --no-disable-uvicorn-access-log
--no-enable-auto-tool-choice --no-enable-batch-sharded-sampling --no-enable-chunked-prefill
--no-enable-cumem-allocator --no-enable-dbo --no-enable-elastic-ep --no-enable-ep-weight-filter
--no-enable-eplb --no-enable-expert-parallel --no-enable-fault-tolerance
--no-enable-flash-late-interaction --no-enable-flashinfer-autotune --no-enable-force-include-usage
--no-enable-hc-sp --no-enable-layerwise-nvtx-tracing --no-enable-log-deltas --no-enable-log-outputs
--no-enable-logging-iteration-details --no-enable-lora --no-enable-mamba-cache-stochastic-rounding
--no-enable-mamba-shared-prefix-checkpoint --no-enable-mfu-metrics --no-enable-mixed-moe-lora-format
--no-enable-mm-embeds --no-enable-moe-shared-loras --no-enable-nccl-comm-suspend
--no-enable-offline-docs --no-enable-per-request-metrics --no-enable-prefix-caching
--no-enable-prompt-embeds --no-enable-prompt-tokens-details --no-enable-request-id-headers
--no-enable-return-routed-experts --no-enable-scale-out --no-enable-server-load-tracking
--no-enable-shm-tensor-arena --no-enable-sleep-mode --no-enable-ssl-refresh
--no-enable-tokenizer-info-endpoint --no-enable-tower-connector-lora --no-enable-trace-replay
--no-enforce-eager --no-exclude-tools-when-tool-choice-none --no-fail-on-environ-validation
--no-fully-sharded-loras --no-interleave-mm-strings --no-jit-monitor-verbose --no-kv-cache-metrics
--no-kv-sharing-fast-prefill --no-language-model-only --no-log-error-stack
--no-long-prefill-token-threshold-adaptive --no-mm-device-do-normalize --no-mm-encoder-only
--no-monokernel --no-numa-bind --no-ray-workers-use-nsight --no-return-sampling-mask
--no-return-tokens-as-token-ids --no-scheduler-reserve-full-isl --no-skip-mm-profiling
--no-skip-tokenizer-init --no-sleep-mode-offload-cudagraph --no-specialize-active-lora
--no-swa-bounded-replay --no-tokens-only --no-trust-remote-code --no-trust-request-chat-template
--no-trust-request-mm-kwargs --no-use-fp64-gumbel --no-use-replayssm --no-use-tqdm-on-load
--node-rank --num-gpu-blocks-override --numa-bind --numa-bind-cpus --numa-bind-nodes
--offload-backend --offload-group-size --offload-num-in-group --offload-params
--offload-prefetch-step --optimization-level --otlp-traces-endpoint --override-generation-config
--per-request-spec-decode-metrics --performance-mode --pipeline-parallel-size --pooler-config --port
--prefill-context-parallel-size --prefill-schedule-interval --prefix-cache-retention-interval
--prefix-caching-hash-algo --prefix-match-unit --profiler-config --pt-load-map-location
--quantization --quantization-config --ray-workers-use-nsight --reasoning-config
--reasoning-effort-map --reasoning-parser --reasoning-parser-plugin --renderer-num-workers
--replayssm-buffer-len --response-role --return-sampling-mask --return-tokens-as-token-ids
--revision --root-path --runner --safetensors-load-strategy --safetensors-prefetch-block-size
--safetensors-prefetch-num-threads --scheduler-cls --scheduler-reserve-full-isl --scheduling-policy
--seed --served-model-name --show-hidden-metrics-for-version --shutdown-timeout --skip-mm-profiling
--skip-tokenizer-init --sleep-mode-backend --sleep-mode-offload-cudagraph
--sleep-preserve-parameter-names --sparse-indexer-topk-backend --spec-method --spec-model
--spec-tokens --specialize-active-lora --speculative-config --sse-keep-alive-interval --ssl-ca-certs
--ssl-cert-reqs --ssl-certfile --ssl-ciphers --ssl-keyfile --stream-interval
--structured-outputs-config --swa-bounded-replay --tensor-parallel-size --tokenizer --tokenizer-mode
--tokenizer-revision --tokens-only --tool-call-parser --tool-parser-plugin --tool-server
--tool-strict-level --trust-remote-code --trust-request-chat-template --trust-request-mm-kwargs
--ubatch-size --uds --use-fp64-gumbel --use-replayssm --use-tqdm-on-load --uvicorn-log-level
--video-pruning-method --video-pruning-rate --watchdog-config --watermark --watermark-config
--weight-transfer-config --worker-cls --worker-extension-cls -ac -asc -cc -dc -dcp -dp -dpa -dpb
-dpe -dph -dpl -dpm -dpn -dpp -dpr -ep -n -pcp -pp -q -r -sc -tp
""".split()
)
