# 15 GB 的东西不要默认丢 /opt。挂了 volume 的实例上 /workspace 是 volume、
# /opt 在 overlay 上,两者可用空间能差一个数量级。
df -h /opt /workspace        # 需要 >= 20 GB(15 GB 包 + 余量)
mkdir /workspace/vllm-venv
VLLM_VENV=/workspace/vllm-venv

# whatever python3 the distro ships; version only has to satisfy vLLM itself
/usr/bin/python3 -V
/usr/bin/python3 -m venv "$VLLM_VENV" \
  || { apt-get install -y python3-venv && /usr/bin/python3 -m venv "$VLLM_VENV"; }
"$VLLM_VENV/bin/pip" install --no-cache-dir -U pip

# Pick the pin HERE and record it (section 7). Do NOT copy a version out of this
# doc: like the nsys URL in 6b, it goes stale, and a silently-moved vLLM makes the
# A/B unreproducible. `pip index versions vllm` lists what is installable today.
VLLM_PIN="v0.30.0"      # quoted, v0.30.0 is latest at 2026.10.03

nvidia-smi --query-gpu=driver_version --format=csv,noheader   # < 580 rules out cu13 outright

# --dry-run resolves without downloading: read which torch / nvidia-* wheels it wants
"$VLLM_VENV/bin/pip" install --no-cache-dir --dry-run vllm=="$VLLM_PIN" 2>&1 \
  | grep -iE 'torch|nvidia-cuda'

# --no-cache-dir is load-bearing here, not hygiene: vLLM ships a full torch +
# CUDA runtime (10-15 GB), and pip's cache keeps a SECOND copy of every wheel in
# ~/.cache/pip -- 20-30 GB total. See section 8's "No space left on device" row.
# Pin the version: it is the only thing that makes the A/B reproducible later.
"$VLLM_VENV/bin/pip" install --no-cache-dir vllm=="$VLLM_PIN"

"$VLLM_VENV/bin/vllm" serve "$QWEN_MODEL_DIR/qwen2.5-7b-instruct" \
  --dtype bfloat16 --no-enable-prefix-caching --enforce-eager --port 8001
