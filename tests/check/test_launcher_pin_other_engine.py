"""A launcher's `pip install` pin is the release of the engine it names only (task h58review):
`pip install vllm==0.10.1` beside an SGLang server took the server's release as named (its
options judged strictly against the newest table) and dropped the note that the installed SGLang
release is unknown; now the pin is named as not this server's and the note stays. The vLLM
server of the same file still takes the pin as its release."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths

SGLANG = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 8192"
VLLM = "vllm serve Qwen/Qwen3-8B --max-model-len 8192"


def _one(path: Path) -> object:
    [o] = check_paths([str(path)]).outcomes
    return o


def _dstack(tmp_path: Path, name: str, server: str) -> object:
    path = tmp_path / f"{name}.dstack.yml"
    path.write_text("type: service\nname: x\ncommands:\n  - pip install vllm==0.10.1\n"
                    f"  - {server}\nresources:\n  gpu: H100:1\nport: 8000\n")
    return _one(path)


def _sky(tmp_path: Path, name: str, server: str) -> object:
    path = tmp_path / f"{name}.sky.yaml"
    path.write_text("resources:\n  accelerators: H100:1\nsetup: pip install vllm==0.10.1\n"
                    f"run: |\n  {server}\n")
    return _one(path)


def test_a_pin_of_another_engine_is_not_the_servers_release(tmp_path: Path) -> None:
    for o, said in ((_dstack(tmp_path, "d", SGLANG), "commands (line 4) installs vllm==0.10.1"),
                    (_sky(tmp_path, "s", SGLANG), "setup installs vllm==0.10.1")):
        assert (o.engine, o.engine_version) == ("sglang", None)  # type: ignore[attr-defined]
        assert f"{said}: not the engine this server runs, so not its release" in o.notes  # type: ignore[attr-defined]
        assert any(n.startswith("started outside a container: the sglang release is the one "
                                "installed") for n in o.notes)  # type: ignore[attr-defined]


def test_the_pinned_engines_server_takes_the_pin(tmp_path: Path) -> None:
    for o, said in ((_dstack(tmp_path, "d", VLLM), "commands (line 4) installs vllm==0.10.1"),
                    (_sky(tmp_path, "s", VLLM), "setup installs vllm==0.10.1")):
        assert (o.engine, o.engine_version) == ("vllm", "0.10.1")  # type: ignore[attr-defined]
        assert f"{said}: vllm 0.10.1" in o.notes  # type: ignore[attr-defined]
        assert not any(n.startswith("started outside a container") for n in o.notes)  # type: ignore[attr-defined]
