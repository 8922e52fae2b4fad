# source: code index id 61187286933 (read_file id=61187286933; the index gives no repository or path): a README's "With our containerized launcher" bash block (its image tag elided with "..." as written); this line added
podman run --rm --device nvidia.com/gpu=all --ipc=host --network host \
    -e HF_HOME=/root/.cache/huggingface \
    -v /tmp/qwen38-27b-fp8attn-nvfp4mlp:/model:ro \
    docker.io/voipmonitor/vllm:gilded-gnosis-v20-... \
    vllm serve /model --quantization compressed-tensors \
    --gpu-memory-utilization 0.90 --max-model-len 32768
