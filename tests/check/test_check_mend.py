"""What `kvplan check` mis-read in compose files and launch scripts, mended (task h42mend): a
broken compose document's kind, a compose service's unrendered `deploy.replicas` named as
compose spells it, the option files a `docker run` mounts and a script's `cd` before a relative
`--config`. Each test asserts the exact message."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke


def check(runner: CliRunner, path: Path, *args: str) -> tuple[int, str]:
    result = flat(invoke(runner, "check", str(path), *args))
    return result.exit_code, result.output


def results(runner: CliRunner, path: Path, *args: str) -> list[dict]:
    return json.loads(invoke(runner, "check", str(path), "-f", "json", *args).output)["results"]


_COMPOSE_DEVICES = """      resources:
        reservations:
          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
"""


# ---- compose: the kind of a broken document, the name of deploy.replicas -------------------

def test_a_compose_document_yaml_cannot_read_is_reported_as_compose(runner: CliRunner,
                                                                    tmp_path: Path) -> None:
    """An unclosed flow list on line 4 (`[... "${MODEL}"` with no `]`): the parser stops at line
    5. The document has a top-level `services:` and no `kind:`, so it is a compose file: kind
    compose (it said kubernetes), and its unrendered value is said in compose's words (.env)."""
    path = tmp_path / "serve.yaml"
    path.write_text('services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n'
                    '    command: ["--model", "${MODEL}"\n    deploy:\n' + _COMPOSE_DEVICES)
    [row] = results(runner, path, "--gpu", "h100")
    assert (row["kind"], row["line"], row["verdict"]) == ("compose", 5, "ERROR")
    assert row["errors"] == [{"field": "", "line": 5, "message": (
        "unrendered template: set it in .env beside the compose file (compose reads that "
        "file), or render first (docker compose config)")}]


def test_a_broken_document_beside_a_compose_one_takes_its_kind(runner: CliRunner,
                                                               tmp_path: Path) -> None:
    """docker-compose.yml: the second document (line 6 on) is broken YAML that runs vLLM; the
    first one is a compose file, so the broken one is reported as compose too."""
    path = tmp_path / "docker-compose.yml"
    path.write_text("services:\n  web:\n    image: nginx\n---\n# the engine\n"
                    "x: [vllm/vllm-openai:v0.11.0\n")
    [row] = results(runner, path)
    assert (row["kind"], row["verdict"]) == ("compose", "ERROR")
    assert row["errors"][0]["message"].startswith("malformed YAML")


def test_a_kubernetes_document_yaml_cannot_read_stays_kubernetes(runner: CliRunner,
                                                                 tmp_path: Path) -> None:
    """The same broken flow list under `kind: Deployment` is no compose file."""
    path = tmp_path / "deploy.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n"
                    "      containers:\n      - image: vllm/vllm-openai:v0.11.0\n"
                    '        args: ["--model", "x"\n        name: a\n')
    [row] = results(runner, path)
    assert (row["kind"], row["verdict"]) == ("kubernetes", "ERROR")


def test_an_unrendered_compose_replicas_is_named_deploy_replicas(runner: CliRunner,
                                                                 tmp_path: Path) -> None:
    """`deploy.replicas: ${REPLICAS}` with no .env: the field is deploy.replicas (it said
    `replicas`, a Kubernetes spec field), at line 6 where it is written."""
    path = tmp_path / "compose.yaml"
    path.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n"
                    '    command: ["--model", "meta-llama/Llama-3.1-8B-Instruct"]\n'
                    "    deploy:\n      replicas: ${REPLICAS}\n" + _COMPOSE_DEVICES)
    code, out = check(runner, path, "--gpu", "h100")
    assert code == 2
    assert ("compose.yaml:6: deploy.replicas: '${REPLICAS}': set it in .env beside the compose "
            "file (compose reads that file), or render first (docker compose config)") in out
    [row] = results(runner, path, "--gpu", "h100")
    assert [e["field"] for e in row["errors"]] == ["deploy.replicas"]


def test_a_zero_compose_replicas_is_named_deploy_replicas(runner: CliRunner,
                                                          tmp_path: Path) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n"
                    '    command: ["--model", "meta-llama/Llama-3.1-8B-Instruct"]\n'
                    "    deploy:\n      replicas: 0\n" + _COMPOSE_DEVICES)
    code, out = check(runner, path, "--gpu", "h100")
    assert code == 2
    assert "compose.yaml:6: deploy.replicas: 0 replicas hold no users" in out
