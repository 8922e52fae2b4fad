"""An option file a compose service mounts into its container is read from the mount's source:
`--config /etc/vllm/config.yaml` with `volumes: ["./cfg/serve.yaml:/etc/vllm/config.yaml"]`
reads ./cfg/serve.yaml beside the compose file (compose resolves a relative source against the
compose file's folder). Llama-3.1-70B in bf16 is 141 GB of weights: on one H100 (85 GB) it
cannot start, at `tensor-parallel-size: 4` from the mounted file it does."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

runner = CliRunner()

COMPOSE = """services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    command: ["--model", "meta-llama/Llama-3.1-70B-Instruct", "--config", "{ref}"]
    volumes:
{volumes}
    deploy:
      resources:
        reservations:
          devices: [{{driver: nvidia, count: 4, capabilities: [gpu]}}]
volumes:
  hf-cache: {{}}
"""


def _check(tmp: Path, ref: str, volumes: str) -> tuple[int, str]:
    (tmp / "cfg").mkdir()
    (tmp / "cfg" / "serve.yaml").write_text("tensor-parallel-size: 4\nmax-model-len: 8192\n")
    path = tmp / "compose.yaml"
    path.write_text(COMPOSE.format(ref=ref, volumes=volumes))
    res = runner.invoke(app, ["check", str(path), "--gpu", "h100"])
    return res.exit_code, " ".join(res.stdout.split())


def test_a_file_bind_mount_is_read_from_its_source(tmp_path: Path):
    code, out = _check(tmp_path, "/etc/vllm/config.yaml",
                       "      - ./cfg/serve.yaml:/etc/vllm/config.yaml:ro\n"
                       "      - hf-cache:/root/.cache/huggingface")
    assert code == 0, out
    assert "PASS" in out and "serve.yaml (mounted at /etc/vllm/config.yaml)" in out


def test_a_folder_mount_in_the_long_syntax_is_read(tmp_path: Path):
    code, out = _check(tmp_path, "/configs/serve.yaml",
                       "      - {type: bind, source: ./cfg, target: /configs/}")
    assert code == 0, out
    assert "serve.yaml (mounted at /configs/serve.yaml)" in out


def test_a_named_volume_is_not_followed(tmp_path: Path):
    """A named volume's content is not on this machine: the file is named as not read, and the
    70B model at TP 1 on one H100 FAILs (its weights alone exceed the GPU)."""
    code, out = _check(tmp_path, "/etc/vllm/config.yaml",
                       "      - hf-cache:/etc/vllm")
    assert code == 1, out
    assert "FAIL" in out and "mounted at" not in out


def test_a_named_volume_says_which_file_is_not_read_and_why(tmp_path: Path):
    """Not silently skipped: the note names the --config path, the volume and why kvplan cannot
    read it (Docker's volume store), and the generic 'beside the manifest' note is not added."""
    _, out = _check(tmp_path, "/etc/vllm/config.yaml", "      - hf-cache:/etc/vllm")
    assert ("note: --config /etc/vllm/config.yaml: mounted from the named volume hf-cache "
            "(service vllm), whose content is in Docker's volume store on the host that runs "
            "compose, not a file kvplan can read; the options set only there") in out
    assert "beside the manifest" not in out and "ConfigMap" not in out


def test_an_absolute_host_path_that_exists_here_is_read(tmp_path: Path):
    """`/abs/cfg/serve.yaml:/etc/vllm/config.yaml`: the host path exists on this machine, so it
    is read (tensor-parallel-size 4 from it: the 70B model starts on 4 H100s, PASS), and a note
    says the host that runs compose must hold the same file."""
    host = tmp_path / "cfg" / "serve.yaml"
    code, out = _check(tmp_path, "/etc/vllm/config.yaml",
                       f"      - {host}:/etc/vllm/config.yaml:ro")
    assert code == 0, out
    assert f"--config /etc/vllm/config.yaml: 2 option(s) read from {host} (mounted at " \
           "/etc/vllm/config.yaml)" in out
    assert f"note: {host} is the host path service vllm mounts at /etc/vllm/config.yaml, read " \
           "on this machine (the one running kvplan): the host that runs compose must hold the " \
           "same file" in out


def test_an_absolute_host_folder_is_followed_to_the_file(tmp_path: Path):
    """A folder mount in the long syntax with an absolute source: /configs/serve.yaml inside the
    container is <tmp>/cfg/serve.yaml here."""
    code, out = _check(tmp_path, "/configs/serve.yaml",
                       f"      - {{type: bind, source: {tmp_path / 'cfg'}, target: /configs}}")
    assert code == 0, out
    assert f"read from {tmp_path / 'cfg' / 'serve.yaml'} (mounted at /configs/serve.yaml)" in out


def test_an_absolute_host_path_missing_here_is_named(tmp_path: Path):
    """The host path is not on this machine: FAIL at TP 1 (the file's TP 4 is not read), with a
    note naming the path and why."""
    missing = tmp_path / "elsewhere" / "serve.yaml"
    code, out = _check(tmp_path, "/etc/vllm/config.yaml",
                       f"      - {missing}:/etc/vllm/config.yaml:ro")
    assert code == 1, out
    assert (f"--config /etc/vllm/config.yaml: mounted from the host path {missing} (service "
            f"vllm), and {missing} is not a file on this machine (the one running kvplan), only "
            "perhaps on the host that runs compose") in out


def test_a_relative_source_missing_here_is_named(tmp_path: Path):
    code, out = _check(tmp_path, "/etc/vllm/config.yaml",
                       "      - ./other/serve.yaml:/etc/vllm/config.yaml:ro")
    assert code == 1, out
    assert (f"--config /etc/vllm/config.yaml: mounted from ./other/serve.yaml (service vllm), "
            f"and {tmp_path / 'other' / 'serve.yaml'} is not a file on this machine") in out


def test_a_source_from_dot_env_is_interpolated_and_read(tmp_path: Path):
    """`${CFG_DIR}:/configs` with CFG_DIR=./cfg in .env: compose interpolates the volume as the
    rest of the file, and so does kvplan (the file is read: PASS at TP 4)."""
    (tmp_path / ".env").write_text("CFG_DIR=./cfg\n")
    code, out = _check(tmp_path, "/configs/serve.yaml", "      - ${CFG_DIR}:/configs")
    assert code == 0, out
    assert "serve.yaml (mounted at /configs/serve.yaml)" in out


def test_an_unset_variable_source_and_a_tmpfs_are_named(tmp_path: Path):
    _, out = _check(tmp_path, "/configs/serve.yaml", "      - ${CFG_DIR}:/configs")
    assert ("--config /configs/serve.yaml: mounted from '${CFG_DIR}' (service vllm), a variable "
            "neither the compose file nor the .env beside it sets") in out
    tmp2 = tmp_path / "t"
    tmp2.mkdir()
    _, out = _check(tmp2, "/configs/serve.yaml", "      - {type: tmpfs, target: /configs}")
    assert ("--config /configs/serve.yaml: mounted from a tmpfs (service vllm): empty when the "
            "container starts") in out


def test_no_volume_at_the_path_says_so_in_compose_words(tmp_path: Path):
    _, out = _check(tmp_path, "/opt/serve.yaml", "      - hf-cache:/root/.cache/huggingface")
    assert ("kvplan reads it only beside the compose file or in a file a volume of it "
            "bind-mounts there, and no volume mounts this path") in out
    assert "ConfigMap" not in out


def _script(tmp: Path, ref: str) -> tuple[int, str]:
    (tmp / "serve.sh").write_text(f"vllm serve meta-llama/Llama-3.1-70B-Instruct --config {ref}\n")
    res = runner.invoke(app, ["check", str(tmp / "serve.sh"), "--gpu", "h100"])
    return res.exit_code, " ".join(res.stdout.split())


def test_a_scripts_absolute_config_path_is_read_when_it_is_here(tmp_path: Path):
    """A server a script starts outside a container reads `--config /abs/serve.yaml` on its own
    machine: kvplan reads that path when it exists where kvplan runs (TP 4 from it: PASS on 4
    H100s, where TP 1 cannot hold the 141 GB of weights), and notes the caution."""
    cfg = tmp_path / "elsewhere" / "serve.yaml"
    cfg.parent.mkdir()
    cfg.write_text("tensor-parallel-size: 4\nmax-model-len: 8192\n")
    code, out = _script(tmp_path, str(cfg))
    assert code == 0, out
    assert f"--config {cfg}: 2 option(s) read from {cfg}" in out
    assert f"note: {cfg} read on this machine (the one running kvplan): the machine that runs " \
           "the script must hold the same file" in out


def test_a_scripts_absolute_config_path_missing_here_is_named(tmp_path: Path):
    """Not there: FAIL at TP 1, and the note names the path and why (it read 'kvplan reads it
    only beside the manifest or in a ConfigMap of it', neither of which a script has)."""
    missing = tmp_path / "nowhere" / "serve.yaml"
    code, out = _script(tmp_path, str(missing))
    assert code == 1, out
    assert (f"--config {missing}: a path on the machine that runs the script, and {missing} is "
            "not a file on this machine (the one running kvplan)") in out
    assert "ConfigMap" not in out and "manifest" not in out
