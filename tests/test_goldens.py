"""Whole-output goldens for every format. Regenerate with KVPLAN_REGEN_GOLDEN=1 and review the diff."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import GOLDEN, invoke

CASES = {
    "size-chatbot-table.txt": ["size", "llama-3-8b", "--gpu", "h100", "--context", "8192",
                               "--avg-context", "2000", "--kv-budget-gib", "60"],
    "size-sweep-table.txt": ["size", "llama-3-8b", "--gpu", "h100,h200", "--context", "8192",
                             "--avg-context", "2000", "--kv-dtype", "fp16,fp8",
                             "--allocation", "reserved,paged"],
    "size-sweep.csv": ["size", "llama-3-8b", "--gpu", "h100,h200", "--context", "8192",
                       "--avg-context", "2000", "--kv-dtype", "fp16,fp8", "-f", "csv"],
    "size-mistral.json": ["size", "mistral-7b-v0.1", "--gpu", "h200", "--context", "32768",
                          "--tp", "2", "-f", "json"],
    "size-70b-does-not-fit.txt": ["size", "llama-3.1-70b", "--gpu", "h100", "--context", "8192"],
    "fleet-chatbot-table.txt": ["fleet", "examples/support-chatbot.yaml"],
    "fleet-chatbot.csv": ["fleet", "examples/support-chatbot.yaml", "-f", "csv"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_whole_output(runner, name):
    result = invoke(runner, *CASES[name])
    # exit 1 where nothing fits (a verdict of no, docs/errors.md), else 0
    assert result.exit_code == (1 if "does-not-fit" in name else 0), result.output
    path = GOLDEN / name
    if os.environ.get("KVPLAN_REGEN_GOLDEN"):
        path.write_text(result.stdout)
    assert result.stdout == path.read_text()


# --- independent anchors: each golden's key numbers, worked by hand -------------------------
# Regenerating a golden cannot hide a wrong number: the same case runs again as JSON and its key
# fields must equal these hand-worked values, and the golden file must show each of them.
# Llama-3-8B: 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 B = 131,072 B per token (fp16);
# 8,030,261,248 params x 2 B = 16,060,522,496 B of bf16 weights. H100 SXM 85,045,477,376 B:
# usable floor(0.9 x) = 76,540,929,638; - weights - 2 GiB reserve = 58,332,923,494 B pool.
# H200 150,109,880,320 B: usable 135,098,892,288; pool 116,890,886,144 B.
ANCHORS = [
    ("size-chatbot-table.txt", None, "kv_bytes_per_token", 131_072, "32 x 2 x 8 x 128 x 2 B"),
    ("size-chatbot-table.txt", None, "kv_bytes_per_sequence", 262_144_000,
     "2,000 tokens = 125 whole 16-token blocks x 131,072 B"),
    ("size-chatbot-table.txt", None, "kv_budget_bytes", 64_424_509_440, "60 x 2^30 (stated)"),
    ("size-chatbot-table.txt", None, "users_per_gpu", 245, "64,424,509,440 // 262,144,000"),
    ("size-chatbot-table.txt", None, "reserved_waste_bytes_per_sequence", 811_597_824,
     "(8,192 - 2,000) x 131,072"),
    ("size-sweep-table.txt", ("h100-sxm-80gb", "fp16", "reserved"), "users_per_gpu", 54,
     "58,332,923,494 // (8,192 x 131,072 = 1,073,741,824)"),
    ("size-sweep-table.txt", ("h200-141gb", "fp8", "paged"), "users_per_gpu", 891,
     "116,890,886,144 // (2,000 x 65,536 = 131,072,000)"),
    ("size-sweep-table.txt", ("h200-141gb", "fp8", "reserved"), "users_per_gpu", 217,
     "116,890,886,144 // (8,192 x 65,536 = 536,870,912)"),
    ("size-sweep.csv", ("h100-sxm-80gb", "fp8", "paged"), "users_per_gpu", 445,
     "58,332,923,494 // 131,072,000"),
    ("size-sweep.csv", ("h200-141gb", "fp16", "paged"), "users_per_gpu", 445,
     "116,890,886,144 // 262,144,000"),
    ("size-sweep.csv", ("h100-sxm-80gb", "fp16", "paged"), "kv_budget_bytes", 58_332_923_494,
     "floor(0.9 x 85,045,477,376) - 16,060,522,496 - 2,147,483,648"),
    # Mistral-7B v0.1, TP 2: 4 KV heads per rank x 256 x 2 B x 32 layers = 65,536 B per token;
    # every layer slides over 4,096 tokens: a 32,768-token sequence holds 4,096 x 65,536
    ("size-mistral.json", None, "kv_bytes_per_token", 65_536, "4 x (128 + 128) x 2 B x 32"),
    ("size-mistral.json", None, "kv_bytes_per_sequence", 268_435_456, "4,096 x 65,536"),
    ("size-mistral.json", None, "weights_bytes", 7_241_732_096, "7,241,732,096 x 2 B / 2 GPUs"),
    ("size-mistral.json", None, "kv_budget_bytes", 125_709_676_544,
     "135,098,892,288 - 7,241,732,096 - 2,147,483,648"),
    ("size-mistral.json", None, "users_per_replica", 468,
     "125,709,676,544 // 268,435,456 = 468 (468.3)"),
    # Llama-3.1-70B on one H100: 70,553,706,496 x 2 B = 141,107,412,992 B of weights > 76.5 GB
    ("size-70b-does-not-fit.txt", None, "weights_bytes", 141_107_412_992, "70,553,706,496 x 2"),
    ("size-70b-does-not-fit.txt", None, "users_per_gpu", 0, "the weights alone do not fit"),
    # The support chatbot: 60 GiB pool holds 245 users; ceil(20,000 / 245) = 82 GPUs
    ("fleet-chatbot-table.txt", None, "users_per_gpu", 245, "64,424,509,440 // 262,144,000"),
    ("fleet-chatbot-table.txt", None, "gpus_needed", 82, "ceil(20,000 / 245) = ceil(81.6)"),
    ("fleet-chatbot.csv", None, "gpus_needed", 82, "ceil(20,000 / 245)"),
    ("fleet-chatbot.csv", None, "cost_per_hour_usd", 309.96, "82 GPUs x 3.78 USD"),
    ("fleet-chatbot.csv", None, "step_time_s", 0.023965911,
     "(16,060,522,496 + 245 x 262,144,000) B / 3.35e12 B/s = 80,285,802,496 / 3.35e12"),
]


NOT_IN_TABLE = {("size-chatbot-table.txt", "reserved_waste_bytes_per_sequence")}


def _json_case(runner, name: str):  # noqa: ANN202 - parsed JSON
    args = list(CASES[name])
    for flag in ("-f", "--format"):
        if flag in args:
            i = args.index(flag)
            del args[i:i + 2]
    result = invoke(runner, *args, "-f", "json")
    assert result.exit_code == (1 if "does-not-fit" in name else 0), result.output
    return json.loads(result.stdout)["results"]  # one JSON shape: {"results": [...]}


def _shown(value: int | float) -> list[str]:
    """How a number may appear in a golden: 131072, 131,072 or 309.96."""
    if isinstance(value, float):
        return [repr(value)]
    return [str(value), f"{value:,}"]


@pytest.mark.parametrize(("name", "row", "field", "value", "arithmetic"), ANCHORS,
                         ids=[f"{a[0]}-{a[2]}-{i}" for i, a in enumerate(ANCHORS)])
def test_golden_key_numbers_by_hand(runner, name, row, field, value, arithmetic):
    doc = _json_case(runner, name)
    if row is not None:
        gpu, kv, alloc = row
        (doc,) = [d for d in doc if (d["gpu"], d["kv_dtype"], d["allocation"]) == (gpu, kv, alloc)]
    elif isinstance(doc, list):
        (doc,) = doc
    assert doc[field] == pytest.approx(value, rel=1e-9), arithmetic
    text = (GOLDEN / name).read_text()
    if (name, field) in NOT_IN_TABLE:  # the table rounds it (774 MiB); JSON carries the bytes
        return
    if field != "users_per_gpu" or value:  # a bare 0 would match anything
        assert any(s in text for s in _shown(value)), f"{name} does not show {value} ({arithmetic})"


# --- documented examples: the same anchors for what README.md and docs/ show ------------------------
README_ANCHORS = [
    ("kvplan size llama-3-8b --gpu h100 --context 8192 --avg-context 2000 --kv-budget-gib 60",
     "users_per_gpu", 245, "64,424,509,440 // (2,000 x 131,072 = 262,144,000)"),
    ("kvplan size llama-3-8b --gpu h100 --context 8192 --avg-context 2000 --kv-budget-gib 60",
     "kv_bytes_per_token", 131_072, "32 x 2 x 8 x 128 x 2 B"),
    ("kvplan size llama-3.1-70b --gpu h100 --context 8192", "weights_bytes", 141_107_412_992,
     "70,553,706,496 params x 2 B"),
    # reserved: every sequence sets aside 8,192 x 131,072 = 1 GiB: 60 GiB holds 60;
    # ceil(20,000 / 60) = 334 GPUs at 3.78 USD = 1,262.52 USD per hour
    ("kvplan fleet llama-3-8b --gpu h100 --context 8192 --kv-budget-gib 60 --peak-users 20000 "
     "--allocation reserved -f csv", "users_per_gpu", 60, "64,424,509,440 // 1,073,741,824"),
    ("kvplan fleet llama-3-8b --gpu h100 --context 8192 --kv-budget-gib 60 --peak-users 20000 "
     "--allocation reserved -f csv", "gpus_needed", 334, "ceil(20,000 / 60) = ceil(333.3)"),
    ("kvplan fleet examples/support-chatbot.yaml", "users_per_gpu", 245, "as the size example"),
    ("kvplan fleet examples/support-chatbot.yaml", "kv_budget_bytes", 64_424_509_440,
     "60 x 2^30 (kv_budget_gib: 60)"),
]


@pytest.mark.parametrize(("cmd", "field", "value", "arithmetic"), README_ANCHORS,
                         ids=[f"{a[0].split()[2]}-{a[1]}-{i}" for i, a in enumerate(README_ANCHORS)])
def test_readme_key_numbers_by_hand(runner, cmd, field, value, arithmetic):
    from tests.test_docs import EXAMPLES  # README.md and docs/*.md

    shown = [e.expected for e in EXAMPLES if e.kind == "console" and e.cmd == cmd]
    assert shown, f"the documentation no longer shows `{cmd}`"
    assert any(s in shown[0] for s in _shown(value)), f"README shows no {value} ({arithmetic})"
    args = cmd.split()[1:]
    if "-f" in args:
        i = args.index("-f")
        del args[i:i + 2]
    doc = json.loads(invoke(runner, *args, "-f", "json").stdout)["results"]  # docs/record.md
    assert doc[0][field] == value, arithmetic
