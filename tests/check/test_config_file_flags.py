"""vLLM's and SGLang's `--config FILE` (kvplan.check.manifests.config_file): read when kvplan can
see the file (beside the manifest, or a ConfigMap of it holding that file name), each key taken as
the option it names through the same reader and release checks as a typed option, the command
line winning where both give one (vLLM 0.33.0 vllm/utils/argparse_utils.py _pull_args_from_config
lines 571-602: the file's words go before the command line's; SGLang 0.5.23
server_args_config_parser.py line 106: `config_args + before_config + after_config`). A file kvplan
cannot see stays named in a note. Expected values are read off the manifests by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kvplan.check import check_paths
from tests.check.check_api import one_target
from tests.check.check_cli_run import check_words
from tests.check.test_check_engine_flags import manifest

ASSETS = Path(__file__).parents[1] / "assets" / "check"
COMPOSE = """services:
  srv:
    image: {image}
    command: [{argv}]
    deploy:
      resources:
        reservations:
          devices: [{{driver: nvidia, count: {gpus}, capabilities: [gpu]}}]
"""
CM = """apiVersion: v1
kind: ConfigMap
metadata:
  name: vllm-config
data:
  config.yaml: |
{body}---
"""
L70 = "meta-llama/Llama-3.1-70B-Instruct"


def _cm_manifest(tmp: Path, body: str, gpus: int, args: list[str] | None = None) -> Path:
    """A Deployment of vllm/vllm-openai:v0.11.0 (`vllm serve` + args) and a ConfigMap whose
    config.yaml is `body`, in one file."""
    pod = manifest(tmp, "srv", "vllm/vllm-openai:v0.11.0", ["vllm", "serve", L70],
                   ["--config", "/etc/vllm/config.yaml", *(args or [])], gpus).read_text()
    path = tmp / "with-cm.yaml"
    path.write_text(CM.format(body="".join(f"    {ln}\n" for ln in body.splitlines())) + pod)
    return path


@pytest.mark.parametrize(("image", "argv", "words"), [
    ("vllm/vllm-openai:v0.11.0",
     '"--model", "meta-llama/Llama-3.1-8B-Instruct", "--config", "/cfg/config.yaml"',
     "--config: vLLM reads more options from this YAML file"),
    ("lmsysorg/sglang:v0.5.21",
     '"python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct", '
     '"--config", "/cfg/config.yaml"',
     "--config: SGLang reads more server arguments from this YAML file"),
])
def test_a_config_file_the_gate_cannot_read_is_named(tmp_path: Path, image: str, argv: str,
                                                      words: str) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE.format(image=image, argv=argv, gpus=1))
    code, out = check_words(path, "--gpu", "h100")
    assert words in out, out
    assert "is not checked: give the pool's" in out
    assert code == 0  # Llama-3.1-8B on one H100 starts; the unread file is a note, not a verdict


def test_tensor_parallel_from_a_configmap_makes_the_pool_fit(tmp_path: Path) -> None:
    """Llama-3.1-70B: 70,553,706,496 params x 2 B = 141.1 GB of weights. H100-SXM 85.0 GB:
    TP 1 (the file's tensor-parallel-size: 1) cannot hold them -> FAIL; the file's
    tensor-parallel-size: 4 on 4 GPUs puts 35.3 GB on each, under 0.9 x 85.0 = 76.5 GB -> PASS
    (20 users x 2,000 tokens = 40,000 tokens; the pool left is far above that)."""
    one = _cm_manifest(tmp_path, "tensor-parallel-size: 1", 1)
    [o] = check_paths([str(one)]).outcomes
    assert o.verdict == "FAIL", o.reasons
    four = _cm_manifest(tmp_path, "tensor-parallel-size: 4", 4)
    t = one_target(four)
    assert t.deployment.parallel.tensor == 4
    assert t.field_name("parallel.tensor") == \
        "--config ConfigMap vllm-config config.yaml: tensor-parallel-size"
    assert any("1 option(s) read from ConfigMap vllm-config config.yaml" in n for n in t.notes)
    [o] = check_paths([str(four)]).outcomes
    assert o.verdict == "PASS", o.reasons
    code, out = check_words(four)
    assert code == 0 and "PASS" in out, out


def test_the_command_line_wins_over_the_file_and_says_so(tmp_path: Path) -> None:
    """File: tensor_parallel_size 2 (vLLM folds `_` into `-`), max-model-len 32768,
    gpu-memory-utilization 0.8, enforce-eager true. Command line: --max-model-len 8192, -tp 4.
    vLLM puts the file's words first, so argparse keeps 8192 and 4; the rest come from the file."""
    (tmp_path / "config.yaml").write_text(
        "tensor_parallel_size: 2\nmax-model-len: 32768\ngpu-memory-utilization: 0.8\n"
        "enforce-eager: true\n")
    path = manifest(tmp_path, "srv", "vllm/vllm-openai:v0.11.0", ["vllm", "serve", L70],
                    ["--config", "/etc/vllm/config.yaml", "--max-model-len", "8192", "-tp", "4"],
                    4)
    t = one_target(path)
    e = t.deployment.engine
    assert (t.deployment.parallel.tensor, e.max_model_len) == (4, 8192)
    assert (e.gpu_memory_utilization, e.enforce_eager) == (0.8, True)
    assert any("--max-model-len 8192 on the command line overrides config.yaml's max-model-len "
               "32768" in n for n in t.notes), t.notes
    assert any("-tp 4 on the command line overrides config.yaml's tensor_parallel_size 2" in n
               for n in t.notes), t.notes
    assert t.field_name("engine.gpu_memory_utilization") == \
        "--config config.yaml: gpu-memory-utilization"


def test_a_misspelt_key_in_the_file_fails_as_the_engine_exits(tmp_path: Path) -> None:
    """`gpu-memory-utilisation` becomes --gpu-memory-utilisation, which argparse does not know:
    vLLM exits ('unrecognized arguments'), so the gate FAILs naming the key and the file."""
    (tmp_path / "config.yaml").write_text("gpu-memory-utilisation: 0.85\n")
    path = manifest(tmp_path, "srv", "vllm/vllm-openai:v0.11.0",
                    ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"],
                    ["--config", "/etc/vllm/config.yaml"])
    code, out = check_words(path)
    assert code == 1, out
    assert ("the engine refuses it: vLLM has no option --gpu-memory-utilisation (key "
            "gpu-memory-utilisation of config.yaml); did you mean --gpu-memory-utilization?") in out


def test_a_key_the_release_table_lacks_fails_on_a_current_image(tmp_path: Path) -> None:
    """`max-num-sequences` is no vLLM option (nor a letter or two from one): on vllm-openai
    latest (the table's release) it is refused as a typed option would be."""
    (tmp_path / "config.yaml").write_text("max-num-sequences: 64\n")
    path = manifest(tmp_path, "srv", "vllm/vllm-openai:latest",
                    ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"],
                    ["--config", "/etc/vllm/config.yaml"])
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "FAIL"
    assert any("has no option --max-num-sequences (key max-num-sequences of config.yaml)" in r
               for r in o.reasons), o.reasons


def test_sglang_reads_its_file_too(tmp_path: Path) -> None:
    """SGLang 0.5.21: context-length 4096 and mem-fraction-static 0.7 from the file; the command
    line's --context-length 2048 wins."""
    (tmp_path / "sglang-args.yaml").write_text("context-length: 4096\nmem-fraction-static: 0.7\n")
    path = manifest(tmp_path, "sg", "lmsysorg/sglang:v0.5.21",
                    ["python3", "-m", "sglang.launch_server"],
                    ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--config",
                     "/cfg/sglang-args.yaml", "--context-length", "2048"])
    t = one_target(path)
    e = t.deployment.engine
    assert (e.max_model_len, e.gpu_memory_utilization) == (2048, 0.7)
    assert any("--context-length 2048 on the command line overrides sglang-args.yaml's "
               "context-length 4096 (SGLang puts" in n for n in t.notes), t.notes


@pytest.mark.parametrize(("image", "ref", "words"), [
    ("vllm/vllm-openai:v0.5.5", "/c/config.yaml", "vLLM added --config in 0.6.0"),
    # since task h70sglkw parsed with 0.5.2's own options (its wheel has no --config; PyPI's
    # first with it is the pre-release 0.5.3rc2)
    ("lmsysorg/sglang:v0.5.2", "/c/config.yaml",
     "SGLang 0.5.2 has no option --config (sglang/srt/server_args.py in "
     "sglang-0.5.2-py3-none-any.whl); it came in SGLang 0.5.3rc2 (the first final release with "
     "it: 0.5.3): drop it or serve SGLang 0.5.3 or newer"),
    ("vllm/vllm-openai:v0.11.0", "/c/config.json", "takes only a .yaml or .yml config file"),
])
def test_a_config_file_the_engine_refuses(tmp_path: Path, image: str, ref: str,
                                          words: str) -> None:
    (tmp_path / Path(ref).name).write_text("max-model-len: 4096\n")
    if "sglang" in image:
        command, args = ["python3", "-m", "sglang.launch_server"], ["--model-path"]
    else:
        command, args = ["vllm", "serve"], []
    path = manifest(tmp_path, "srv", image, command,
                    [*args, "meta-llama/Llama-3.1-8B-Instruct", "--config", ref])
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "FAIL"
    assert any(words in r for r in o.reasons), o.reasons


def test_a_malformed_file_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("max-model-len: 4096\ngpu-memory-utilization: [0.9\n")
    path = manifest(tmp_path, "srv", "vllm/vllm-openai:v0.11.0",
                    ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"],
                    ["--config", "/etc/vllm/config.yaml"])
    code, out = check_words(path)
    assert code == 2, out
    assert "config.yaml" in out and "malformed YAML" in out and "line 3" in out, out
    assert "Traceback" not in out


def test_config_equals_path_is_not_read_by_the_engine(tmp_path: Path) -> None:
    """vLLM looks for the word `--config` (`"--config" in args`); `--config=FILE` is parsed as
    the registered --config option and the file is not read."""
    (tmp_path / "config.yaml").write_text("max-model-len: 4096\n")
    path = manifest(tmp_path, "srv", "vllm/vllm-openai:v0.11.0",
                    ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"],
                    ["--config=/etc/vllm/config.yaml"])
    t = one_target(path)
    assert t.deployment.engine.max_model_len != 4096
    assert any("written with `=` the file is not read" in n for n in t.notes)


def test_misspelt_short_option_fails_on_the_implied_entrypoint_of_an_older_image(
        tmp_path: Path) -> None:
    """`--confg` (7 characters, one letter from --config) on vllm/vllm-openai:v0.8.5 with no
    `vllm serve` in the command: before, the short-name cut-off (8) left it a note on any image
    older than the table; no release has --confg, so it FAILs with the did-you-mean."""
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE.format(
        image="vllm/vllm-openai:v0.8.5", gpus=1,
        argv='"--model", "meta-llama/Llama-3.1-8B-Instruct", "--confg", "/cfg/config.yaml"'))
    code, out = check_words(path, "--gpu", "h100")
    assert code == 1, out
    assert "vLLM has no option --confg; did you mean --config?" in out


def test_real_manifests_match_the_hand_verdicts() -> None:
    root = ASSETS / "config-file"
    expected = yaml.safe_load((ASSETS / "config-file-expected.yaml").read_text())
    report = check_paths([str(root)])
    got: dict[str, list[str]] = {}
    for o in report.outcomes:
        got.setdefault(str(Path(o.file).relative_to(root)), []).append(o.verdict)
    for rel, e in expected.items():
        seen = got.get(rel) or (["SKIP"] if str(root / rel) in report.skipped else [])
        assert seen == e["verdicts"], (rel, seen, json.dumps(e))
    [o] = [o for o in report.outcomes if o.file.endswith("scilifelab-vllm-deployment/compose.yaml")]
    assert any("${VLLM_MODEL}" in p.message and "render first" in p.message
               for p in o.problems), o.problems


@pytest.mark.parametrize(("image", "verdict"), [
    ("lmsysorg/sglang:v0.5.5", "PASS"), ("lmsysorg/sglang:v0.5.23", "FAIL")])
def test_sglang_options_renamed_by_a_letter_are_not_misspellings(tmp_path: Path, image: str,
                                                                  verdict: str) -> None:
    """--nsa-decode-backend is in sglang 0.5.5's srt/server_args.py (renamed --dsa-decode-backend
    by the table's 0.5.23, one letter away): an option of the older release, read as the image's
    release takes it, and refused only on a release that lacks it."""
    path = manifest(tmp_path, "sg", image, ["python3", "-m", "sglang.launch_server"],
                    ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--nsa-decode-backend",
                     "flashmla_kv", "--context-length", "8192"])
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == verdict, (o.reasons, o.notes)


@pytest.mark.parametrize(("image", "verdict"), [
    ("vllm/vllm-openai:v0.8.5", "FAIL"), ("vllm/vllm-openai:v0.10.2", "PASS")])
def test_the_api_server_before_0_10_2_wedges_the_file_after_the_first_word(
        tmp_path: Path, image: str, verdict: str) -> None:
    """`python -m vllm.entrypoints.openai.api_server --model X --config F`: vLLM 0.6.0-0.10.1
    build `[args[0]] + config_args + ...`, so the file's `--max-model-len 4096` lands between
    --model and its value and argparse stops; 0.10.2 puts the file first (and the file's
    max-model-len 4096 is read)."""
    (tmp_path / "config.yaml").write_text("max-model-len: 4096\n")
    path = manifest(tmp_path, "srv", image,
                    ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                    ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--config", "/c/config.yaml"])
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == verdict, (o.reasons, o.notes)
    if verdict == "FAIL":
        assert any("here between --model and its value" in r for r in o.reasons), o.reasons
    else:
        assert one_target(path).deployment.engine.max_model_len == 4096


def test_a_list_value_gives_every_item_as_the_engine_writes_it():
    """vLLM's _pull_args_from_config (0.33.0 argparse_utils.py) writes a list as the option
    followed by each item: `cuda-graph-sizes: [1, 2, 4]` is `--cuda-graph-sizes 1 2 4`, not the
    first item alone."""
    from kvplan.check.manifests.config_file import config_words

    words = config_words("vllm", {"cuda-graph-sizes": [1, 2, 4], "max-num-seqs": 8}, frozenset())
    assert [w for _, w in words] == ["--cuda-graph-sizes", "1", "2", "4", "--max-num-seqs", "8"]
