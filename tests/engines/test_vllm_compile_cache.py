"""The torch.compile cache state a vLLM prediction assumes (task h48cold): warm, said where vLLM
compiles (V1 without enforce_eager, the pool profiled rather than given), nowhere else.

Hand figures. kvplan's activation peak is the forward's, with no compile term, so its pool is a
warm-cache figure: for held-out log 440's setting (Qwen3-8B bf16 on an RTX 4090, vLLM 0.27.1 at
8,192 tokens and the 0.9 default) kvplan books 44,208 tokens; the source's cold run logged 35,792
(44,208 / 35,792 = 1.2351: +23.51%) and its two warm runs 43,040 (44,208 / 43,040 = 1.0271:
+2.71%). The cold runs' excess in the reports the note cites: 0.47 GiB a GPU on 2x RTX 4090
(vLLM #54479's comment: 245 blocks, 4.5%) and 6.03 - 3.53 = 2.50 GiB on a Quadro RTX 8000
(1Cat-vLLM #518's warm and cold KV; its torch peak 2.59 - 0.74 = 1.85 plus non-torch 0.86 - 0.22
= 0.64 GiB, 2.49 within the print rounding). 440's own: (43,040 - 35,792) x 147,456 B (36 layers
x 8 KV heads x 128 x 2 x 2 B) = 1,068,761,088 B = 0.995 GiB, its notes' peak activation 1.18 -
0.19 = 0.99 GiB.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kvplan.engines.interface import EngineSettings
from kvplan.engines.vllm_compile_cache import NOTE, compiles
from kvplan.engines.vllm_series import flavour
from tests.conftest import invoke

RUN = ("qwen3-8b", "--gpu", "rtx-4090", "--context", "8192", "--format", "json")


def _size(*extra: str) -> dict:
    res = invoke(CliRunner(), "size", *RUN, *extra)
    assert res.exit_code in (0, 1), res.output  # 1: a plan that does not fit (0.8.0, SGLang)
    return json.loads(res.output)["results"][0]


@pytest.mark.parametrize(("extra", "said"), [
    (("--engine", "vllm", "--engine-version", "0.27.1"), True),  # log 440's release
    (("--engine", "vllm", "--engine-version", "0.8.0"), True),  # the first V1 default release
    (("--engine", "vllm", "--engine-version", "0.34.0"), True),  # the extensible cache too
    (("--engine", "vllm", "--engine-version", "0.7.3"), False),  # V0: no compile by default
    (("--engine", "vllm", "--engine-version", "0.27.1", "--enforce-eager"), False),
    (("--engine", "vllm", "--engine-version", "0.27.1", "--kv-cache-memory-bytes",
      str(4 << 30)), False),  # the pool is given: no profile sizes it
    (("--engine", "sglang"), False),
])
def test_note_where_vllm_compiles(extra: tuple[str, ...], said: bool) -> None:
    assert (NOTE in _size(*extra)["assumptions"]) is said


def test_compiles_reads_the_flavour_and_settings() -> None:
    v1, v0 = flavour("0.27.1"), flavour("0.6.6")
    assert compiles(v1, EngineSettings())
    assert not compiles(v0, EngineSettings())
    assert not compiles(v1, EngineSettings(enforce_eager=True))


@pytest.mark.parametrize(("extra", "said"), [
    ((), True),
    (("--kv-budget-gib", "4"), False),  # kvplan's stated pool (vLLM's --kv-cache-memory)
])
def test_a_stated_budget_drops_it(extra: tuple[str, ...], said: bool) -> None:
    r = _size("--engine", "vllm", "--engine-version", "0.27.1", *extra)
    assert (NOTE in r["assumptions"]) is said


def test_the_figure_is_the_warm_one() -> None:
    # task h51blocks: vLLM 0.21+ counts torch's whole blocks in the weights; Qwen3-8B's
    # embeddings and LM head, 151,936 x 4,096 x 2 B = 1,187 MiB each, round up to 1,188: 2 MiB
    # less pool, 2,097,152 / 147,456 B a token (36 layers x 8 KV heads x 128 x 2 x 2 B) = 14.2
    # tokens, one 16-token block: 44,208 -> 44,192
    r = _size("--engine", "vllm", "--engine-version", "0.27.1")
    assert r["kv_cache_tokens"] == 44_192
    assert round((44_192 / 43_040 - 1) * 100, 2) == 2.68  # the warm runs
    assert round((44_192 / 35_792 - 1) * 100, 2) == 23.47  # the cold run


def test_note_states_the_sources_interval() -> None:
    low, high = 0.47, 6.03 - 3.53
    assert f"{low:.2f}-{high:.2f} GiB a GPU" in NOTE
    assert (43_040 - 35_792) * 147_456 == 1_068_761_088  # 440's cold-warm gap, within it
    assert low < 1_068_761_088 / (1 << 30) < high
    assert "unfixed through 0.34.0" in NOTE


def test_deployment_file_enforce_eager_drops_it(tmp_path) -> None:
    f = tmp_path / "d.yaml"
    f.write_text("apiVersion: kvplan/v1\nname: q\nmodel: qwen3-8b\nhardware: {gpu: rtx-4090}\n"
                 "engine: {name: vllm, version: 0.27.1, enforce_eager: true}\n"
                 "traffic: {peak_concurrent_users: 4, context_tokens: {mean: 8192}}\n")
    res = invoke(CliRunner(), "size", str(f), "--format", "json")
    assert res.exit_code == 0, res.output
    assert NOTE not in json.loads(res.output)["results"][0]["assumptions"]
