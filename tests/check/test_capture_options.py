"""`kvplan check` applies vLLM's stated CUDA-graph capture (task h43capsz): --cudagraph-capture-sizes
(nargs="+"), --max-cudagraph-capture-size, -cc.cudagraph_mode / --compilation-config's keys, and
the same in a kvplan/v1 file; what vLLM refuses FAILs (kvplan.engines.vllm_capture)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app
from tests.check.check_cli_run import check_script, docker_script

SERVE = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"


def test_stated_sizes_and_mode_move_the_pool(tmp_path: Path):
    """H100, the default release (0.34), 1,024 sequences / 8,192 tokens. Since task
    h44graphbase the estimate is a first capture (358,612,992 B) + later graphs x layers x
    89,653 B: the default capture is 102 graphs in 2 modes, 358,612,992 + 100 x 32 x 89,653 =
    645,502,592 B, leaving 64,144,578,944 B of pool (30,586 blocks of 2,097,152 B, 489,376
    tokens); the stated one (1, 2, 4 under PIECEWISE, one mode) 358,612,992 + 2 x 32 x 89,653 =
    364,350,784 B, the 281,151,808 B between them (2,145 tokens of 131,072 B: 32 layers x 8 KV
    heads x 128 x 2 x 2 B) giving 64,425,730,752 B, 30,720 blocks (x 2,097,152 =
    64,424,509,440), 491,520 tokens. (Until that task graphs x layers x 235,929 B: 770,072,256
    and 22,649,184 B, 488,432 and 494,128 tokens.)"""
    code, out = check_script(tmp_path, f"#!/bin/sh\n{SERVE}\n")
    assert code == 0 and "(489,376 tokens in the pool)" in out, out
    code, out = check_script(tmp_path, f"#!/bin/sh\n{SERVE} --cudagraph-capture-sizes 1 2 4 "
                       "--max-cudagraph-capture-size 4 -cc.cudagraph_mode=PIECEWISE\n")
    assert code == 0 and "(491,520 tokens in the pool)" in out, out
    # the same through --compilation-config's JSON; an unread key is noted
    comp = json.dumps({"cudagraph_mode": "PIECEWISE", "cudagraph_capture_sizes": [1, 2, 4],
                       "backend": "inductor"})
    code, out = check_script(tmp_path, f"#!/bin/sh\n{SERVE} --compilation-config '{comp}'\n")
    assert code == 0 and "(491,520 tokens in the pool)" in out, out
    assert "--compilation-config: key backend not read by kvplan" in out


def test_a_maximum_other_than_the_largest_size_fails(tmp_path: Path):
    code, out = check_script(tmp_path, f"#!/bin/sh\n{SERVE} --cudagraph-capture-sizes 1 2 4 "
                       "--max-cudagraph-capture-size 8\n")
    assert code == 1 and "FAIL" in out
    assert "max_cudagraph_capture_size (8) is not the largest capture size kept (4)" in out


def test_a_kvplan_file_states_the_capture(tmp_path: Path):
    """The same deployment as a kvplan/v1 file, sizes as text: PIECEWISE 1, 2, 4 on the H100."""
    doc = ("apiVersion: kvplan/v1\nname: graphs\nmodel: meta-llama/Llama-3.1-8B-Instruct\n"
           "hardware: {gpu: h100}\nengine: {name: vllm, max_model_len: 8192, "
           "cudagraph_capture_sizes: '1 2 4', cudagraph_mode: PIECEWISE}\n"
           "traffic: {peak_concurrent_users: 10, context_tokens: {mean: 4096}}\n")
    path = tmp_path / "dep.yaml"
    path.write_text(doc)
    res = CliRunner().invoke(app, ["explain", str(path), "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    steps = {s["label"]: s for s in row["steps"]}
    assert steps["CUDA graph memory"]["value"] == 358_612_992 + 2 * 32 * 89_653 == 364_350_784


def test_a_config_file_states_the_capture(tmp_path: Path):
    """`--config` YAML: a list key is every item (`--cudagraph-capture-sizes 1 2 4`, until this
    task only the first was kept) and `compilation-config`'s mapping is the JSON object: the same
    3 PIECEWISE graphs and pool as the flags (491,520 tokens; 494,128 before task h44graphbase)."""
    (tmp_path / "vllm.yaml").write_text("cudagraph-capture-sizes: [1, 2, 4]\n"
                                        "compilation-config:\n  cudagraph_mode: PIECEWISE\n")
    code, out = check_script(tmp_path, f"#!/bin/sh\n{SERVE} --config vllm.yaml\n")
    assert code == 0 and "(491,520 tokens in the pool)" in out, out


def test_an_image_before_0_11_1_refuses_the_capture_flags(tmp_path: Path):
    """--cudagraph-capture-sizes and --max-cudagraph-capture-size came in vLLM 0.11.1
    (engine/arg_utils.py:1112, :1124; 0.11.0 has only --cuda-graph-sizes, :893): an image of
    0.11.0 or 0.10.2 stops on them (argparse), 0.11.1 takes them (task h44checkgaps)."""
    code, out = check_script(tmp_path, docker_script("v0.11.0", "--cudagraph-capture-sizes 1 2 4"))
    assert code == 1 and ("the engine refuses it: vLLM 0.11.0 has no option "
                          "--cudagraph-capture-sizes (it came in 0.11.1") in out, out
    code, out = check_script(tmp_path, docker_script("v0.10.2", "--max-cudagraph-capture-size 64"))
    assert code == 1 and "vLLM 0.10.2 has no option --max-cudagraph-capture-size" in out, out
    code, out = check_script(tmp_path, docker_script("v0.11.1", "--cudagraph-capture-sizes 1 2 4 "
                                        "--max-cudagraph-capture-size 4"))
    assert code == 0 and "PASS" in out, out
