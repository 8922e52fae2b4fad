# Option 1: Use PyTorch NGC container with vLLM installed
docker run --gpus all -p 8000:8000 \
    -v ~/.cache/huggingface:/root/.cache/huggingface \
    -e HF_TOKEN=$HF_TOKEN \
    --ipc=host \
    nvcr.io/nvidia/pytorch:25.11-py3 \
    bash -c "pip install vllm && python -m vllm.entrypoints.openai.api_server \
        --model Qwen/Qwen3-8B-Instruct \
        --enforce-eager \
        --max-model-len 4096 \
        --dtype bfloat16"

# Option 2: Use official vLLM container (verify ARM64 support)
# docker run --gpus all -p 8000:8000 \
#     -v ~/.cache/huggingface:/root/.cache/huggingface \
#     --ipc=host \
#     vllm/vllm-openai:latest \
#     --model Qwen/Qwen3-8B-Instruct \
#     --enforce-eager
