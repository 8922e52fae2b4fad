# derived (task h90hostile) from tests/assets/check/scripts/h80shell/zeuscsc-start-vllm.sh: the model is a
# catalog id, its bitsandbytes lines are dropped, and --gpus is 99999999999999999999 (line 3)
docker run -it --name vllm-server-0 --rm --gpus=99999999999999999999 --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 \
                 -v $(pwd):/workspace -p 8000:8000 \
                 -e NCCL_P2P_DISABLE=1 -e NCCL_SHM_DISABLE=1 \
                 vllm/vllm-openai:v0.7.2 \
                 --model meta-llama/Llama-3.1-8B-Instruct \
                 --tool-call-parser hermes \
                 --enable-auto-tool-choice \
                 --gpu-memory-utilization 0.8 \
                 --port 8000 \
                 --max_model_len 8192
