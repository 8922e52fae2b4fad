"""`python -m sglang_router.launch_server` (task sgrouter): SGLang's router launcher, read as SGLang.
Its source (sgl-router/py_src/sglang_router/launch_server.py at sgl-project/sglang 0e6ed14d) puts
ServerArgs' and RouterArgs' (`--router-` prefixed) options on one parser and starts one SGLang
server per --dp-size, each with dp_size = 1 on tp_size GPUs from base_gpu_id = dp_id x tp_size
(launch_server_process, :78-89): --dp-size independent replicas, as SGLang's own --dp-size is read.
The `--router-*` options are the router's and are noted, not refused, not planned."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.check.check_cli_run import CHECK, results

OUTCOME = CHECK / "outcomes" / "127-sglang-router-qwen3-vl-235b-dp8-8xh800-oom.sh"
SERVER = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --dp-size 2 --tp-size 2"
ROUTER = ("python3 -m sglang_router.launch_server --model-path Qwen/Qwen3-8B --dp-size 2 "
          "--tp-size 2 --router-policy cache_aware --router-dp-worker-base-port 32000")


def _row(tmp_path: Path, name: str, line: str) -> dict:
    path = tmp_path / name
    path.write_text(f"#!/usr/bin/env bash\n{line}\n")
    rows = results(CliRunner(), path, "--gpu", "h100")
    assert len(rows) == 1
    return rows[0]


def test_the_router_launcher_plans_as_sglang_with_its_replicas(tmp_path: Path) -> None:
    """2 servers of TP 2 behind the router: the same plan as `python -m sglang.launch_server`
    with the same --dp-size and --tp-size (2 replicas x 2 GPUs, the same pool a GPU), the two
    router options named once as the router's."""
    router, server = _row(tmp_path, "router.sh", ROUTER), _row(tmp_path, "server.sh", SERVER)
    assert router["verdict"] == server["verdict"] == "PASS"
    assert (router["engine"], router["replicas"], router["gpus_per_replica"]) == ("sglang", 2, 2)
    for key in ("kv_pool_bytes_per_gpu", "max_model_len_tokens", "users_per_replica", "gpus"):
        assert router[key] == server[key], key
    said = " ".join(router["notes"])
    assert ("router options, not a server's (they do not move the KV pool): "
            "--router-dp-worker-base-port, --router-policy") in said
    assert "has no option --router-" not in said
    assert "router" not in " ".join(server["notes"])


def test_a_misspelt_server_option_beside_the_router_is_still_named(tmp_path: Path) -> None:
    """Only `--router-` options are the router's: another unknown one is still said."""
    row = _row(tmp_path, "typo.sh", ROUTER + " --mem-fracton-static 0.8")
    said = " ".join(row["notes"] + row["reasons"] + [e if isinstance(e, str) else str(e)
                                                    for e in row["errors"] + row["refused"]])
    assert "--mem-fracton-static" in said


def test_outcome_127_is_eight_sglang_servers_that_do_not_fit() -> None:
    """Qwen3-VL-235B (bf16) at --dp-size 8 and the default --tp-size 1 on 8 x H800: eight
    servers of one 80 GB GPU each, which cannot hold the weights: FAIL, as the post's OOM."""
    rows = results(CliRunner(), OUTCOME)
    assert len(rows) == 1
    row = rows[0]
    assert (row["verdict"], row["engine"], row["replicas"], row["gpus_per_replica"]) == \
        ("FAIL", "sglang", 8, 1)
    assert row["would_start"] is False
    said = " ".join(row["notes"])
    assert "--router-prometheus-port, --router-worker-startup-timeout-secs" in said
