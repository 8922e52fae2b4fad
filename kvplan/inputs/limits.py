"""Every limit kvplan puts on what it reads, in one place (docs/limits.md explains each).

Each physical bound sits far above any published model or accelerator, so it never refuses a
real input; it exists so a typo or a hostile file is refused before it costs memory or time.
"""

from __future__ import annotations

# ---------------------------------------------------------------- files
MAX_FILE_BYTES = 16 * 2**20  # specs, deployments, manifests, prices, config.json
MAX_LOG_BYTES = 256 * 2**20  # engine logs and request-length samples
MAX_YAML_DEPTH = 64  # nested mappings/sequences; a Kubernetes manifest uses about 12
MAX_YAML_ALIASES = 100  # `*name` references in one document
MAX_YAML_NODES = 200_000  # values after every alias is expanded (a bomb expands to billions)
MAX_NUMBER_DIGITS = 40  # digits in one number literal (2^64 has 20)
MAX_WALK_ENTRIES = 50_000  # files and folders one `kvplan check FOLDER` walk visits

# ---------------------------------------------------------------- model shapes
# Largest published values, for scale: 126 layers (Llama 3.1 405B), 128 heads (DeepSeek-V3),
# head_dim 256 (Gemma 2), vocab 262,144 (Gemma 3), 10M context (Llama 4 Scout),
# 384 experts (Kimi K2), about 1.0e12 parameters (Kimi K2).
MAX_LAYERS = 10_000
MAX_HEADS = 65_536
MAX_HEAD_DIM = 65_536
MAX_HIDDEN = 2**24
MAX_VOCAB = 2**28
MAX_CONTEXT_TOKENS = 2**34  # about 17 billion tokens
MAX_EXPERTS = 65_536
MAX_PARAMS = 10**16

# ---------------------------------------------------------------- hardware
# Largest shipping: 288 GB (B300), 8 TB/s, about 2.5e15 dense BF16 FLOP/s.
MAX_MEMORY_BYTES = 2**50  # 1 PiB on one device
MAX_BANDWIDTH_BYTES_PER_S = 10**16
MAX_FLOPS = 10**19
MAX_NVIDIA_SMI_MIB = 2**30

# ---------------------------------------------------------------- deployments and traffic
MAX_GPUS = 10**7
MAX_PARALLEL = 4096  # tensor or pipeline ways
MAX_USERS = 10**12
MAX_SEQS = 10**9
MAX_BLOCK_TOKENS = 2**20
