# source: github.com/sgl-project/SpecForge/blob/2cece767e1dd174ff7f31eadc54d66ea49994677/docs/basic_usage/data_preparation.md (lines 37-42, the shell block that starts the server; copied, this line added)
python3 -m sglang.launch_server \
    --model meta-llama/Llama-3.1-8B-Instruct \
    --cuda-graph-bs 1 2 4 8 16 32 64 128 \
    --dtype bfloat16 \
    --mem-frac=0.8 \
    --port 30000
