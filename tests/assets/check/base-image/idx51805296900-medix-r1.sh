# Option A: bare metal (after pip install vllm on the GH200)
vllm serve MBZUAI/MediX-R1-30B \
  --port 8000 \
  --dtype bfloat16 \
  --max-model-len 8192 \
  --gpu-memory-utilization 0.90 \
  --served-model-name medix-r1-30b

# Option B: NGC container (recommended — avoids ARM wheel pain)
docker run --gpus all --rm -it \
  -p 8000:8000 \
  -v ~/.cache/huggingface:/root/.cache/huggingface \
  nvcr.io/nvidia/pytorch:24.10-py3 \
  bash -c "pip install vllm && \
    vllm serve MBZUAI/MediX-R1-30B \
      --port 8000 --dtype bfloat16 \
      --max-model-len 8192 \
      --served-model-name medix-r1-30b --host 0.0.0.0"
