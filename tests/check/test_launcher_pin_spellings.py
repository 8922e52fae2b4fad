"""`pip install` pins in a launcher's script (SkyPilot `setup`, dstack `commands`): TensorRT-LLM's
package is read as its release too (it was neither read nor noted: task h58review), under every
spelling pip accepts for one package (PEP 503: runs of -, _ and . are one separator, any case),
and a package whose name merely ends in an engine's (`my-vllm`) is not that engine."""

from __future__ import annotations

from kvplan.check.manifests.launcher_sites import pip_pins


def _at(n: int) -> str:
    return f"line {n}"


def test_tensorrt_llm_pins_in_every_spelling_pip_accepts() -> None:
    for spelled in ("tensorrt-llm", "tensorrt_llm", "TensorRT-LLM", "tensorrt.llm"):
        pins, notes = pip_pins(f"pip install {spelled}==1.0.0", _at)
        assert pins == {"trtllm": ("1.0.0", f"line 1 installs {spelled}==1.0.0: trtllm 1.0.0")}
        assert notes == []


def test_a_tensorrt_llm_range_is_noted_not_taken() -> None:
    pins, notes = pip_pins("pip install --upgrade pip\npip3 install 'tensorrt_llm>=1.0'", _at)
    assert pins == {}
    assert notes == ["line 2 installs tensorrt_llm>=1.0: a range, not a release; the trtllm "
                     "profile's default version is used"]


def test_a_package_named_after_an_engine_is_not_the_engine() -> None:
    script = "pip install my-vllm==1.0 vllm-flash-attn==2.6.1 sglang_router==0.1.4"
    assert pip_pins(script, _at) == ({}, [])
    # while the engines themselves, beside them, are read
    pins, _ = pip_pins("pip install vllm-flash-attn==2.6.1 vllm==0.10.1", _at)
    assert pins == {"vllm": ("0.10.1", "line 1 installs vllm==0.10.1: vllm 0.10.1")}


def test_every_way_of_running_pip_install_is_read() -> None:
    for runner in ("pip install", "pip3 install", "pip3.11 install", "python3 -m pip install",
                   "uv pip install"):
        pins, _ = pip_pins(f"{runner} -U vllm==0.10.1", _at)
        assert pins == {"vllm": ("0.10.1", "line 1 installs vllm==0.10.1: vllm 0.10.1")}, runner
    # a line that does not install (a freeze, a comment) is not read
    assert pip_pins("pip freeze | grep vllm==0.10.1\n# pip install vllm==0.9.0", _at) == ({}, [])
