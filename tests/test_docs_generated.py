"""Parts of the docs that are generated from the code, and numbers quoted in prose (issue #15).

- docs/specs.md's field tables equal what kvplan/render/schema_doc.py makes of the pydantic
  schema (regenerate with KVPLAN_REGEN_DOCS=1).
- Each number quoted in prose is listed in PROSE below with how to compute it; the test finds
  the sentence and compares, so a change that moves the number fails until the page says it.
  Here the plans, maths, catalog and measure pages' numbers; fixture and check counts are in
  tests/test_docs_generated_counts.py, calibration tables in tests/test_docs_generated_calibration.py.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from kvplan.render.schema_doc import schema_tables
from kvplan.specs.validators import HardwareSpec, ModelSpec  # the classes holding descriptions
from tests.docs_prose import ROOT, assert_prose

SPECS_PAGE = ROOT / "docs" / "specs.md"
BLOCK = re.compile(r"<!-- schema:(\w+) -->\n(.*?)<!-- /schema:\1 -->\n", re.S)


def test_schema_tables_are_generated_from_the_schema() -> None:
    text = SPECS_PAGE.read_text(encoding="utf-8")
    tables = schema_tables()
    if os.environ.get("KVPLAN_REGEN_DOCS"):
        text = BLOCK.sub(lambda m: f"<!-- schema:{m[1]} -->\n{tables[m[1]]}<!-- /schema:{m[1]} -->\n",
                         text)
        SPECS_PAGE.write_text(text, encoding="utf-8")
    found = dict(BLOCK.findall(text))
    assert set(found) == set(tables), "docs/specs.md must carry one table per schema block"
    for name, table in tables.items():
        assert found[name] == table, f"docs/specs.md: the {name} table drifted from the schema"


def test_every_schema_field_is_described() -> None:
    for model in (ModelSpec, HardwareSpec):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description for the docs"


def test_a_table_row_states_type_bounds_and_default() -> None:
    model = schema_tables()["model"]
    # num_layers: a strict int, 1 to MAX_LAYERS (10,000), required
    assert "| `num_layers` | integer (≥ 1, ≤ 10,000) | required |" in model
    assert "| `params_estimated` | true/false | default `false` |" in model
    assert "| `weight_dtype` | one of `fp32`, `fp16`, `bf16`, `fp8`, `int8`, `int4` | required |" in model
    hardware = schema_tables()["hardware"]
    assert "| `gpus_per_node` | integer (≥ 1, ≤ 4,096) | default `8` |" in hardware


@pytest.mark.parametrize("page", [SPECS_PAGE])
def test_the_page_names_every_field(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for model in (ModelSpec, HardwareSpec):
        for name in model.model_fields:
            assert f"`{name}`" in text


# ---------------------------------------------------------------- numbers quoted in prose

def _json(*args: str) -> dict:
    import json

    from typer.testing import CliRunner

    from kvplan.cli import app

    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    return data["results"][0] if isinstance(data, dict) else data


def _lines(*args: str) -> int:
    from typer.testing import CliRunner

    from kvplan.cli import app

    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return len(result.stdout.splitlines())


def _chatbot_traffic() -> dict[str, str]:
    """fleet.md's walk through examples/chatbot-traffic.yaml, figure by figure."""
    from kvplan.plan.planner import fleet_records
    from kvplan.plan.record import build_records
    from kvplan.traffic.decode import decode_step_time_s
    from kvplan.traffic.plan import sequence_lattice
    from kvplan.traffic.risk import overflow_probability

    plan = fleet_records(build_records("examples/chatbot-traffic.yaml", {}))[0].plan
    req = plan.size.request
    lattice = sequence_lattice(req, plan.lengths)
    pool = plan.size.kv_budget_bytes
    mean, at_risk = plan.users_per_replica_mean, plan.at_risk.users
    step = decode_step_time_s(plan.weights_read_bytes, plan.kv_read_bytes_per_sequence, at_risk,
                              req.gpu.memory_bandwidth_bytes_per_s)
    return {
        "mean_tokens": f"{round(plan.mean_tokens):,}",
        "mean_users": str(mean),
        "mean_overflow": f"{overflow_probability(lattice, mean, pool).probability * 100:.0f}",
        "risk_users": str(at_risk),
        "risk_overflow": f"{overflow_probability(lattice, at_risk, pool).probability * 100:.2f}",
        "weights_gib": f"{plan.weights_read_bytes / 2**30:.2f}",
        "step_ms": f"{float(step) * 1000:.1f}",
        "tokens_per_s": f"{float(1 / step):.0f}",
        "slo": f"{float(plan.traffic.min_tokens_per_s_per_user):.0f}",
        "slo_users": str(plan.slo_users_per_replica),
        "planned": str(plan.planned_users_per_replica),
        "gpus": str(plan.gpus_needed),
    }


def _maths_decode() -> dict[str, str]:
    """maths.md's hand check of decode speed: Llama-3-8B on an H100, 245 users of 2,000 tokens."""
    from fractions import Fraction

    from kvplan.traffic.decode import decode_step_time_s, slo_batch

    weights, kv = 16_060_522_496, 2_000 * 131_072
    step = decode_step_time_s(weights, kv, 245, 3_350_000_000_000)
    return {"step_ms": f"{float(step) * 1000:.1f}", "tokens_per_s": f"{float(1 / step):.1f}",
            "slo_users": str(slo_batch(weights, kv, 3_350_000_000_000, Fraction(50)))}


def _counts() -> dict[str, str]:
    from kvplan.specs import all_hardware, all_models

    return {"models": str(len(all_models()[0])), "gpus": str(len(all_hardware()[0]))}


def _cpu_measure() -> dict[str, str]:
    from kvplan.measure.progress import CPU_DEFAULT_BUDGET_BYTES, CPU_DEFAULT_CONTEXT_TOKENS

    per_token = _json("size", "tiny-test-model")["kv_bytes_per_token"]
    per_seq = per_token * CPU_DEFAULT_CONTEXT_TOKENS
    return {"mib": str(CPU_DEFAULT_BUDGET_BYTES // 2**20), "bytes": f"{CPU_DEFAULT_BUDGET_BYTES:,}",
            "context": str(CPU_DEFAULT_CONTEXT_TOKENS), "per_token": f"{per_token:,}",
            "per_seq": f"{per_seq:,}", "holds": str(CPU_DEFAULT_BUDGET_BYTES // per_seq)}


def _added_specs() -> dict[str, str]:
    """docs/catalog.md: specs added in issue 12 (the catalog less its 34 first) = PARAMS rows."""
    from kvplan.specs import all_models
    from tests.catalog.test_catalog_table import PARAMS

    return {"added": str(len(all_models()[0]) - 34), "pinned": str(len(PARAMS))}


def _official_counts() -> dict[str, str]:
    """docs/catalog.md: specs whose parameter count is an official one (params_estimated false:
    a model card's figure, a checkpoint's total_size or tensor sum, the hub's safetensors total)."""
    from kvplan.specs import all_models

    return {"official": str(sum(1 for m in all_models()[0] if not m.params_estimated))}


def _default_releases() -> dict[str, str]:
    """docs/engines.md: the release each profile models when --engine-version is left out."""
    from kvplan.engines.sglang_defaults import DEFAULT_VERSION as SGLANG
    from kvplan.engines.trtllm import DEFAULT_VERSION as TRTLLM
    from kvplan.engines.vllm import DEFAULT_VERSION as VLLM

    return {"vllm": VLLM, "sglang": SGLANG, "trtllm": TRTLLM}


# (page, pattern over the page with its line breaks folded to spaces, source of the values)
PROSE = [
    ("README.md", r"2 x 32 x 8 x 128 x 2 = (?P<bytes>[\d,]+) bytes",
     lambda: {"bytes": f"{_json('size', 'llama-3-8b')['kv_bytes_per_token']:,}"}),
    ("README.md", r"Plan a support chatbot \((?P<peak>[\d,]+) open conversations",
     lambda: {"peak": f"{_json('fleet', 'examples/support-chatbot.yaml')['peak_users']:,}"}),
    ("README.md", r"step by step \(first lines of (?P<lines>\d+)\)",
     lambda: {"lines": str(_lines("explain", "llama-3-8b", "--gpu", "h100", "--engine", "vllm",
                                  "--context", "8192"))}),
    ("docs/fleet.md",
     r"at the mean, (?P<mean_tokens>[\d,]+) tokens here\).*?Here the mean answer \((?P<mean_users>\d+)\) "
     r"would overflow the pool (?P<mean_overflow>\d+)% of the time; (?P<risk_users>\d+) overflows "
     r"(?P<risk_overflow>[\d.]+)% of the time\. Then the SLO: at \d+ users a decode step reads "
     r"(?P<weights_gib>[\d.]+) GiB of weights plus \d+ caches, (?P<step_ms>[\d.]+) ms, "
     r"(?P<tokens_per_s>\d+) tokens/s per user; (?P<slo>\d+) tokens/s allows at most "
     r"(?P<slo_users>\d+), so the SLO binds and the plan is (?P<planned>\d+) users per GPU, "
     r"(?P<gpus>\d+) GPUs", _chatbot_traffic),
    ("docs/maths.md", r"= (?P<step_ms>[\d.]+) ms, (?P<tokens_per_s>[\d.]+) tokens/s; at 50 tokens/s "
     r"at most (?P<slo_users>\d+) users", _maths_decode),
    ("docs/engines.md", r"## Which engine release kvplan assumes Without `--engine-version` each "
     r"profile models the newest release kvplan has read in source: vLLM (?P<vllm>[\d.]+), SGLang "
     r"(?P<sglang>[\d.]+), TensorRT-LLM (?P<trtllm>[\d.]+) ", _default_releases),
    ("docs/engines.md", r"## vLLM version series The default version is the newest release kvplan "
     r"has read, \*\*(?P<vllm>[\d.]+)\*\*", _default_releases),
    ("docs/engines.md", r"default version is the newest release kvplan can source \(vLLM (?P<vllm>[\d.]+), "
     r"SGLang (?P<sglang>[\d.]+), TensorRT-LLM (?P<trtllm>[\d.]+)\)", _default_releases),
    ("docs/catalog.md", r"holds (?P<models>\d+) models", _counts),
    ("docs/catalog.md", r"holds \d+ models \(34 before issue 12, (?P<added>\d+) added\).*?All "
     r"(?P<pinned>\d+) new specs' totals", _added_specs),
    ("docs/catalog.md", r"the hub's safetensors total \((?P<official>\d+) specs[;,)]", _official_counts),
    ("docs/measure.md",
     r"the cache budget is \*\*(?P<mib>\d+) MiB\*\* \((?P<bytes>[\d,]+) B\).*?sequences are "
     r"\*\*(?P<context>\d+) tokens\*\* long.*?\((?P<per_token>[\d,]+) B per token\) a sequence is "
     r"(?P<per_seq>[\d,]+) B and the budget holds (?P<holds>\d+)\.", _cpu_measure),
    # the option list: until task h100review it said --kv-budget-gib was "required on a CPU" and
    # the context defaulted to the model's maximum, where the CPU has defaults of its own
    ("docs/measure.md",
     r"at most 8,192; on a CPU (?P<context>\d+)\), `--kv-budget-gib` \(cap the cache; default "
     r"on a GPU:\s+the free memory after the weights load; on a CPU (?P<mib>\d+) MiB or a "
     r"quarter", _cpu_measure),
]


@pytest.mark.parametrize("claim", PROSE, ids=[f"{p}: {r[:40]}" for p, r, _ in PROSE])
def test_numbers_in_prose_are_what_kvplan_computes(claim) -> None:  # noqa: ANN001
    assert_prose(claim)


@pytest.mark.parametrize("command", ["size", "fleet", "explain", "check"])
def test_every_flag_is_in_the_docs(command: str) -> None:
    """Each long option of the command, as `--flag` in docs/record.md (the flag table and the
    flags that are not fields), docs/size.md or docs/check.md."""
    import typer.main

    from kvplan.cli import build_app

    docs = "".join((ROOT / "docs" / page).read_text(encoding="utf-8")
                   for page in ("record.md", "size.md", "check.md"))
    cmd = typer.main.get_command(build_app()).commands[command]  # type: ignore[attr-defined]
    flags = [o for p in cmd.params for o in (*p.opts, *p.secondary_opts) if o.startswith("--")]
    assert len(flags) > 3
    missing = [f for f in flags if f"`{f}" not in docs]
    assert not missing, f"kvplan {command}: flags the docs do not name: {missing}"
