# derived (task h90hostile) from tests/assets/check/sglang-releases/sglang-v045.sh: the image is
# v0.5.23 and the launch adds --config /code/config.yaml (line 13; config.yaml beside this file)
volume=$PWD/data
model=deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B
docker run -d -ti --rm --gpus all \
    --shm-size 1g \
    -p 1337:30000 \
    -v $volume:/root/.cache/huggingface \
    -v ./:/code \
    -w /code \
    --ipc=host \
    lmsysorg/sglang:v0.5.23 \
    python3 -m sglang.launch_server --model-path $model --host 0.0.0.0 --port 30000 --config /code/config.yaml
