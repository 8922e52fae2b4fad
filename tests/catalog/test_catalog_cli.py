"""`kvplan models` / `kvplan gpus` over the shipped catalogs: listing, search, filters, output shapes."""

from __future__ import annotations

import csv
import io
import json

import pytest

from kvplan.specs import all_hardware, all_models, load_hardware
from kvplan.specs.loader import spec_dirs
from tests.conftest import ASSETS, invoke

REQUIRED_GPUS = {
    "h100-sxm-80gb", "h100-pcie-80gb", "h100-nvl-94gb", "h200-141gb", "b200", "gb200",
    "a100-40gb", "a100-80gb", "l40s", "l4", "a10g", "a10", "rtx-4090", "rtx-3090",
    "mi300x", "mi325x", "mi355x",
    # issue #12
    "l20", "v100-sxm2-16gb", "v100-sxm2-32gb", "t4", "h20", "h800", "a800-80gb", "b300", "gb300",
    "mi250x", "rtx-5090", "rtx-6000-ada", "rtx-pro-6000-server", "gb10",
    # issue #12, round 2: named by the project's logs and manifests, or listed by the issue
    "a100-pcie-80gb", "a100-pcie-40gb", "a40", "l40", "rtx-a6000", "rtx-4000-ada", "mi210",
}


def _json(result) -> list[dict]:  # noqa: ANN001 - typer's Result
    return json.loads(result.stdout)


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


@pytest.fixture
def alias_catalog():
    """The shipped catalog plus tests/assets/catalog_search (one spec with invented aliases)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("KVPLAN_SPECS_PATH", str(ASSETS / "catalog_search"))
    spec_dirs.cache_clear()
    yield
    mp.undo()
    spec_dirs.cache_clear()


# ----------------------------------------------------------------------------- models


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
    assert all(isinstance(r["aliases"], list) for r in rows.values())


def _brute_force(needle: str) -> set[str]:
    """The oracle for QUERY: every spec with the needle in its name, hf_id or an alias id."""
    specs, _ = all_models()
    return {
        m.name for m in specs
        if any(needle.lower() in n.lower() for n in [m.name, m.hf_id, *(a.id for a in m.aliases)])
    }


@pytest.mark.parametrize("query", ["qwen3", "QWEN3", "meta-llama/Llama-3.1", "Instruct", "mistral"])
def test_models_query_is_a_case_insensitive_substring(runner, query):
    result = invoke(runner, "models", query, "-f", "json")
    assert result.exit_code == 0, result.output
    assert {r["name"] for r in _json(result)} == _brute_force(query)


def test_models_query_examples(runner):
    names = {r["name"] for r in _json(invoke(runner, "models", "qwen3", "-f", "json"))}
    assert {"qwen3-8b", "qwen3-32b", "qwen3-235b-a22b", "qwen3-next-80b-a3b"} <= names
    assert "qwen2.5-7b" not in names  # qwen2.5 is not a qwen3
    # an hf_id finds its spec although the catalog name differs: Meta-Llama-3-8B -> llama-3-8b
    names = {r["name"] for r in _json(invoke(runner, "models", "meta-llama-3-8b", "-f", "json"))}
    assert "llama-3-8b" in names


@pytest.mark.parametrize(
    ("family", "inside", "outside"),
    [
        ("qwen", {"qwen2.5-7b", "qwen3-8b", "qwen3-next-80b-a3b"}, {"llama-3-8b"}),
        ("qwen2.5", {"qwen2.5-7b", "qwen2.5-72b"}, {"qwen3-8b"}),
        ("qwen3_moe", {"qwen3-235b-a22b"}, {"qwen3-8b"}),  # model_type, not the name
        ("QWEN3-MOE", {"qwen3-235b-a22b"}, {"qwen3-32b"}),  # case and -/_ do not matter
        ("llama", {"llama-2-7b", "llama-3.1-8b"}, {"mistral-7b-v0.1"}),
        ("deepseek_v3", {"deepseek-v3", "deepseek-r1"}, {"deepseek-v2-lite"}),
    ],
)
def test_models_family(runner, family, inside, outside):
    result = invoke(runner, "models", "--family", family, "-f", "json")
    assert result.exit_code == 0, result.output
    names = {r["name"] for r in _json(result)}
    assert inside <= names and not (outside & names)


@pytest.mark.parametrize(
    ("kind", "label_has", "inside", "outside"),
    [
        ("mla", "MLA", {"deepseek-v3", "deepseek-v2-lite", "kimi-k2"}, {"llama-3-8b"}),
        ("gqa", "GQA", {"llama-3-8b", "qwen3-next-80b-a3b"}, {"llama-2-7b", "falcon-7b"}),
        ("mha", "MHA", {"llama-2-7b", "phi-3-mini-4k"}, {"llama-3-8b"}),
        ("mqa", "MQA", {"falcon-7b"}, {"llama-3-8b"}),
        ("swa", "SWA", {"gemma-3-27b", "mistral-7b-v0.1", "gpt-oss-20b"}, {"llama-3-8b"}),
        ("hybrid", "hybrid", {"qwen3-next-80b-a3b"}, {"gemma-3-27b"}),
    ],
)
def test_models_attention(runner, kind, label_has, inside, outside):
    result = invoke(runner, "models", "--attention", kind, "-f", "json")
    assert result.exit_code == 0, result.output
    rows = _json(result)
    names = {r["name"] for r in rows}
    assert inside <= names and not (outside & names)
    assert all(label_has in r["attention"] for r in rows)


def test_models_filters_combine(runner):
    result = invoke(runner, "models", "qwen", "--family", "qwen3", "--attention", "hybrid", "-f", "json")
    assert {r["name"] for r in _json(result)} == {"qwen3-next-80b-a3b"}


def test_models_no_match_exits_1_with_an_empty_list(runner):
    result = invoke(runner, "models", "no-such-model-anywhere", "--attention", "mla", "-f", "json")
    assert result.exit_code == 1
    assert _json(result) == []
    assert result.stderr.strip() == (
        "no model matches 'no-such-model-anywhere' --attention mla; "
        f"`kvplan models` lists all {len(all_models()[0])}"
    )
    table = invoke(runner, "models", "--family", "nosuchfamily")
    assert table.exit_code == 1 and table.stdout == ""


def test_models_bad_attention_is_refused(runner):
    result = invoke(runner, "models", "--attention", "sparse")
    assert result.exit_code == 2
    assert "sparse" in result.output and "hybrid" in result.output


def test_models_table_fits_80_columns_and_names_every_hf_id(runner):
    result = invoke(runner, "models")
    assert result.exit_code == 0, result.output
    assert _widest(result.stdout) <= 80
    for m in all_models()[0]:
        assert m.hf_id in result.stdout, m.name


def test_models_aliases_are_searched_and_printed(runner, alias_catalog):
    # the fixture's alias kvplan-test/Alias-Search-Fixture-Instruct; its name has no "instruct"
    result = invoke(runner, "models", "fixture-INSTRUCT", "-f", "json")
    assert result.exit_code == 0, result.output
    (row,) = _json(result)
    assert row["name"] == "alias-search-fixture"
    assert row["kv_bytes_per_token_fp16"] == 23_040  # 2 x 3 KV heads x 64 x 30 layers x 2 B
    assert [a["id"] for a in row["aliases"]] == [
        "kvplan-test/Alias-Search-Fixture-Instruct",
        "kvplan-test/Alias-Search-Fixture-Long-Variant-Name",
    ]
    assert all("invented id" in a["source"] for a in row["aliases"])

    table = invoke(runner, "models", "alias-search")
    assert table.exit_code == 0, table.output
    assert _widest(table.stdout) <= 80
    # every id in full, one per line at 80 columns (the three do not fit on one line)
    lines = table.stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith(" alias-search-fixture  kvplan-test"))
    assert [ln.strip() for ln in lines[at:at + 3]] == [
        "alias-search-fixture  kvplan-test/Alias-Search-Fixture,",
        "kvplan-test/Alias-Search-Fixture-Instruct,",
        "kvplan-test/Alias-Search-Fixture-Long-Variant-Name",
    ]

    rows = list(csv.DictReader(io.StringIO(invoke(runner, "models", "alias-search", "-f", "csv").stdout)))
    assert rows[0]["aliases"] == (
        "kvplan-test/Alias-Search-Fixture-Instruct;kvplan-test/Alias-Search-Fixture-Long-Variant-Name"
    )


def test_models_long_ids_go_below_the_name_on_a_narrow_terminal(runner, alias_catalog, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    result = invoke(runner, "models", "alias-search")
    lines = result.stdout.splitlines()
    at = lines.index(" alias-search-fixture")
    # 22 (name) + 2 + 50 (the long id) = 74 > 60: all ids move below the name, indented 3
    assert lines[at + 3] == "   kvplan-test/Alias-Search-Fixture-Long-Variant-Name"
    assert _widest(result.stdout) <= 60


# ----------------------------------------------------------------------------- gpus


def test_gpu_catalog_complete_and_valid():
    specs, errors = all_hardware()
    assert errors == []
    assert {g.name for g in specs} >= REQUIRED_GPUS
    assert len(specs) >= 26
    for g in specs:
        assert len(g.memory_source) > 40, g.name
        # nvidia-smi shows no memory total on a unified-memory part ("Not Supported" on DGX Spark)
        if g.vendor == "nvidia" and not g.unified_memory:
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


def _block(text: str, name: str) -> list[str]:
    """One GPU's table lines: its name line, then the indented lines under it."""
    lines = text.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith(f" {name} "))
    out = [lines[at]]
    for ln in lines[at + 1:]:
        if not ln.startswith("   "):
            break
        out.append(ln)
    return out


def test_gpus_table_shows_missing_flops(runner):
    result = invoke(runner, "gpus")
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if ln.startswith(" a10g"))
    assert "n/a" in line


def test_gpus_table_fits_80_columns_with_every_alias_in_full(runner):
    result = invoke(runner, "gpus")
    assert result.exit_code == 0, result.output
    assert _widest(result.stdout) <= 80
    assert "…" not in result.stdout  # nothing truncated
    words = {w.strip(",") for w in result.stdout.split()}
    for g in all_hardware()[0]:
        assert g.name in words
        for alias in g.aliases:
            assert alias in words, (g.name, alias)


def test_gpus_table_memory_in_gib_and_bytes(runner):
    block = _block(invoke(runner, "gpus").stdout, "h100-sxm-80gb")
    # 85,045,477,376 B / 2**30 = 79.2047 GiB
    assert "79.20 GiB" in block[0] and "3.35" in block[0] and "989" in block[0]
    assert "yes" in block[0] and block[0].rstrip().endswith("3.78")
    assert "85,045,477,376" in block[1] and "h100, h100-sxm, h100-80gb" in block[1]


def test_gpus_table_marks_upper_bounds(runner):
    text = invoke(runner, "gpus").stdout
    # L40: torch's 44.40 GiB x 2**30 = 47,674,136,986 B, a runtime reading since task h43gputotals
    # (46068 MiB x 2**20 = 48,305,799,168 B = 44.99 GiB*, the nvidia-smi total, before)
    assert "44.40 GiB " in _block(text, "l40")[0] and "44.99 GiB" not in text
    # L20: vLLM's 44.52 GiB x 2**30 = 47,802,986,004 B, a runtime reading: no star
    assert "44.52 GiB " in _block(text, "l20")[0] and "44.52 GiB*" not in text
    assert "79.20 GiB*" not in text and "79.20 GiB" in text  # H100: a runtime reading
    assert "255.98 GiB " in _block(text, "mi325x")[0]  # HIP's total, no longer the nominal 256.00*
    # no shipped spec is an upper bound any more, so the footnote is not printed
    assert "*" not in text and "upper bound" not in text


def test_gpus_table_stars_an_upper_bound_spec():
    # a spec that only has an nvidia-smi total (the L40 as it was: 46068 MiB x 2**20 =
    # 48,305,799,168 B = 44.99 GiB) is starred and the footnote says why
    from kvplan.render.catalog import gpus_table, upper_bound
    from kvplan.specs.schema import HardwareSpec

    bound = HardwareSpec.model_validate({
        "name": "l40-as-it-was", "vendor": "nvidia", "label": "NVIDIA L40 48GB (PCIe)",
        "memory_bytes": 46_068 * 2**20,
        "memory_source": "DERIVED UPPER BOUND, not a runtime reading: nvidia-smi total 46068 MiB",
        "memory_bandwidth_bytes_per_s": 864_000_000_000, "fp8_supported": True,
        "source": "a test spec, the L40 datasheet figures"})
    assert upper_bound(bound) and not upper_bound(load_hardware("l40"))
    text = gpus_table([bound, load_hardware("l40")], "gpus", term_width=120)
    assert "44.99 GiB*" in _block(text, "l40-as-it-was")[0]
    assert "44.40 GiB " in _block(text, "l40")[0]
    assert text.rstrip().endswith("* upper bound: no runtime reading found; nvidia-smi or nominal total")


def test_gpus_query_and_vendor(runner):
    names = {r["name"] for r in _json(invoke(runner, "gpus", "H100", "-f", "json"))}
    assert names == {"h100-sxm-80gb", "h100-pcie-80gb", "h100-nvl-94gb"}
    # device names are searched too: the runtime calls V100s and the T4 "Tesla ..."
    names = {r["name"] for r in _json(invoke(runner, "gpus", "tesla", "-f", "json"))}
    assert names == {"v100-sxm2-16gb", "v100-sxm2-32gb", "t4"}
    amd = _json(invoke(runner, "gpus", "--vendor", "AMD", "-f", "json"))
    assert {r["name"] for r in amd} == {"mi210", "mi250x", "mi300x", "mi325x", "mi355x"}
    # what a user types for the A100s: "a100" finds both form factors and both sizes, "pcie"
    # every PCIe card by its label or runtime name ("NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-40GB")
    names = {r["name"] for r in _json(invoke(runner, "gpus", "a100", "-f", "json"))}
    assert names == {"a100-40gb", "a100-80gb", "a100-pcie-40gb", "a100-pcie-80gb"}
    names = {r["name"] for r in _json(invoke(runner, "gpus", "pcie", "-f", "json"))}
    assert names == {"a100-pcie-40gb", "a100-pcie-80gb", "a40", "h100-pcie-80gb", "l20", "l40",
                     "mi210", "t4"}
    both = _json(invoke(runner, "gpus", "mi3", "--vendor", "amd", "-f", "json"))
    assert {r["name"] for r in both} == {"mi300x", "mi325x", "mi355x"}


def test_gpus_json_and_csv_carry_full_alias_lists(runner):
    rows = {r["name"]: r for r in _json(invoke(runner, "gpus", "-f", "json"))}
    assert rows["h100-sxm-80gb"]["aliases"] == ["h100", "h100-sxm", "h100-80gb"]
    assert rows["h100-sxm-80gb"]["memory_gib"] == 79.2
    assert rows["l40"]["memory_is_upper_bound"] is False  # torch's 44.40 GiB (task h43gputotals)
    assert rows["l20"]["memory_is_upper_bound"] is False  # vLLM's 44.52 GiB (task h42gputotals)
    assert rows["h100-sxm-80gb"]["memory_is_upper_bound"] is False
    assert rows["b200"]["memory_is_upper_bound"] is False  # torch's whole-MiB reading
    upper = {name for name, r in rows.items() if r["memory_is_upper_bound"]}
    assert not rows["a10"]["memory_is_upper_bound"]  # deviceQuery 22599 MBytes (task h42gputotals)
    # task h43gputotals read runtime totals for the last nine (gb200, mi325x, mi355x, l40, h800,
    # a800-80gb, b300, gb300, rtx-pro-6000-server): no spec is an upper bound now
    assert upper == set()
    out = invoke(runner, "gpus", "v100", "-f", "csv").stdout
    by_name = {r["name"]: r for r in csv.DictReader(io.StringIO(out))}
    assert by_name["v100-sxm2-32gb"]["aliases"] == "v100;v100-32gb;v100-sxm2;tesla-v100-sxm2-32gb"
    assert by_name["v100-sxm2-32gb"]["device_names"] == "Tesla V100-SXM2-32GB"


def test_gpus_no_match_and_bad_vendor(runner):
    result = invoke(runner, "gpus", "tpu-v5", "-f", "json")
    assert result.exit_code == 1
    assert _json(result) == []
    assert result.stderr.startswith("no GPU matches 'tpu-v5'; `kvplan gpus` lists all ")
    bad = invoke(runner, "gpus", "--vendor", "intel")
    assert bad.exit_code == 2
    assert "unknown vendor 'intel'; the catalog has amd, nvidia" in bad.output
