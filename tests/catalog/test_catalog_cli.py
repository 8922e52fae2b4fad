"""`kvplan models` / `kvplan gpus` over the shipped catalogs."""

from __future__ import annotations

import json

from kvplan.specs import all_hardware, load_hardware
from tests.conftest import invoke

REQUIRED_GPUS = {
    "h100-sxm-80gb", "h100-pcie-80gb", "h100-nvl-94gb", "h200-141gb", "b200", "gb200",
    "a100-40gb", "a100-80gb", "l40s", "l4", "a10g", "a10", "rtx-4090", "rtx-3090",
    "mi300x", "mi325x", "mi355x",
}


def test_models_json_lists_every_model(runner):
    result = invoke(runner, "models", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.output)}
    assert len(rows) >= 30
    assert rows["qwen3-8b"]["kv_bytes_per_token_fp16"] == 147_456
    assert rows["gemma-3-27b"]["attention"] == "GQA SWA/global"
    assert rows["gemma-3-27b"]["kv_bytes_per_token_beyond_window_fp16"] == 81_920
    assert rows["deepseek-v3"]["attention"] == "MLA"
    assert rows["falcon-7b"]["attention"] == "MQA"
    assert rows["qwen3-next-80b-a3b"]["attention"] == "GQA hybrid (linear)"
    assert all(r["source"].startswith("https://huggingface.co/") for r in rows.values())


def test_gpu_catalog_complete_and_valid():
    specs, errors = all_hardware()
    assert errors == []
    assert {g.name for g in specs} >= REQUIRED_GPUS
    for g in specs:
        assert len(g.memory_source) > 40, g.name
        if g.vendor == "nvidia":
            assert g.nvidia_smi_mib is not None and g.nvidia_smi_source, g.name
            # the runtime total is at most the nvidia-smi total (the driver keeps a reserve)
            assert g.memory_bytes <= g.nvidia_smi_mib * 1024 * 1024, g.name
        if g.price_per_hour_usd is not None:
            assert g.price_source, g.name


def test_h200_anchor():
    h200 = load_hardware("h200")
    assert h200.memory_bytes == 150_109_880_320  # torch.cuda.mem_get_info total on an H200
    assert h200.nvidia_smi_mib == 143_771


def test_h100_measured_runtime_total():
    # deviceQuery 81106 MBytes (85,045,477,376 bytes) = smi 81559 MiB - 454 MiB reserved
    h100 = load_hardware("h100")
    assert h100.memory_bytes == 85_045_477_376
    assert (81_559 - 455) * 1024**2 < h100.memory_bytes < (81_559 - 453) * 1024**2


def test_gpus_table_shows_missing_flops(runner):
    result = invoke(runner, "gpus")
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if ln.startswith(" a10g"))
    assert "n/a" in line
