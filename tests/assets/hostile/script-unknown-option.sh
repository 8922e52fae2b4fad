# derived by mutation (task h51sweep's benchmarks/sweep.py: an unknown option added) from
# tests/assets/check/scripts/dagnaputra-serve-7b-model.sh: --kvplan-sweep-unknown 7 on line 9
# source: github.com/dagnaputra/nlp/blob/41a5ccc95090be43214ea40c1badbd63629d6a9e/scripts/serve_7b_model.sh (copied whole; this line added)
docker run -d --runtime nvidia --gpus all \
    -v ~/.cache/huggingface:/root/.cache/huggingface \
    -p 9898:8000 \
    --ipc=host \
    vllm/vllm-openai:latest \
    --model Qwen/Qwen2.5-7B-Instruct --max_model_len 1024 --api-key "test_api_key" --kvplan-sweep-unknown 7 --gpu_memory_utilization 0.7
