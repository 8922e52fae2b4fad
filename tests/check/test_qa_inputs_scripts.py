"""Shell scripts, pasted start-up logs and model names typed on the command line as people write
them (tasks h29qa, h30qa, h41shell), run through the CLI as a new user would.
tests/assets/check/qa/SOURCES.md names each file's repository, path and commit; the expected
values are read off the files by hand."""

from __future__ import annotations

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns
from tests.check.qa_inputs import QA, check
from tests.conftest import invoke

# ---- model references as people type them ----

def test_hf_co_domain_is_a_hub_id(runner: CliRunner) -> None:
    # `ollama run hf.co/{org}/{repo}` (https://huggingface.co/docs/hub/ollama) and the short
    # domain people paste; it used to be "unknown model"
    result = flat(invoke(runner, "size", "hf.co/Qwen/Qwen2.5-7B-Instruct", "--gpu", "l4",
                         "--context", "4096"))
    assert result.exit_code == 0, result.output
    assert "model hf.co/Qwen/Qwen2.5-7B-Instruct → qwen2.5-7b (hf_id)" in result.output
    assert "KV per token     56 KiB (57,344 B)" in result.output


def test_a_container_folder_names_the_catalog_entry_of_its_repository(
        runner: CliRunner) -> None:
    # a model folder inside a container (`--model /models/Qwen2.5-7B-Instruct`, as in
    # haejillyeok/backend's /models/Qwen3.5-9B): not on this machine, but the folder is named
    # after the hub repository
    result = flat(invoke(runner, "size", "/models/Qwen2.5-7B-Instruct", "--gpu", "l4"))
    assert result.exit_code != 0
    assert ("/models/Qwen2.5-7B-Instruct: no such file; its last part 'Qwen2.5-7B-Instruct' is "
            "the repository name of the catalog's qwen2.5-7b: if the folder holds that "
            "checkpoint, plan `qwen2.5-7b`") in result.output
    quant = flat(invoke(runner, "size", "/models/Qwen2.5-7B-Instruct-AWQ/", "--gpu", "l4"))
    assert "plan `qwen2.5-7b --weight-dtype int4`" in quant.output
    unknown = flat(invoke(runner, "size", "/models/foo", "--gpu", "l4"))
    assert "model: /models/foo: no such file\n" in unknown.output


# ---- a start-up log pasted as people paste them ----

def test_a_log_without_its_model_says_how_to_state_it(runner: CliRunner) -> None:
    # vllm-project/vllm#12569: the command line, an elided stretch and the V1 lines; kvplan
    # cannot plan without the model, and now says which line to add
    result = flat(invoke(runner, "calibrate", str(QA / "vllm-pr12569-excerpt.log")))
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the report wraps at 80 columns
    assert ("model not stated in the log: add a `# model: <hub id>` line (or `# kvplan: "
            "spec=<catalog name or spec file>`) above its first line") in text


# ---- a shell script is not a deployment file ----

def test_a_shell_script_that_starts_a_server_is_read(runner: CliRunner) -> None:
    # banjuede/deepseek-test: `trtllm-serve /local/deepseek-ai/DeepSeek-R1 --tp_size 8 ...`
    # in a .sh. check said "nothing that runs ... TensorRT-LLM in this file", then (task h30qa)
    # that scripts are not read; since task h41shell it reads the command: the model is a
    # folder on the machine, whose name is the hub repository of the catalog's deepseek-r1,
    # named with the side-file fix a script can take (scripts have no annotations). trtllm-serve
    # has no --served-model-name (its option table at commit 00209af has none: task h42mend),
    # so the advice no longer offers one the engine would refuse
    code, out = check(runner, "trtllm-serve.sh")
    assert code == 2
    assert ("trtllm-serve.sh:1: the served model: '/local/deepseek-ai/DeepSeek-R1' is a path on "
            "the machine; name the model with `model:` in a side file trtllm-serve.kvplan.yaml "
            "(a catalog name or spec file) (its folder name is the hub repository of the "
            "catalog's deepseek-r1: model: deepseek-r1 if it holds that checkpoint), or a "
            "config.json beside the script") in out
    assert "--served-model-name" not in out and "--served_model_name" not in out
    assert "model: deepseek-r1 if it holds that checkpoint" in out
    assert "nothing that runs" not in out
    result = flat(invoke(runner, "explain", str(QA / "trtllm-serve.sh")))
    assert result.exit_code == 2
    assert "'/local/deepseek-ai/DeepSeek-R1' is a path on the machine" in result.output
    assert "expected a mapping" not in result.output


def test_a_docker_run_script_is_read_by_check_and_explain(runner: CliRunner) -> None:
    # jackypanster/deploy-qwen deploy-32k.sh: `docker run ... vllm/vllm-openai:v0.8.5 --model
    # /qwen/qwen3-30b-a3b --served-model-name coder --tensor-parallel-size 4 ...`. Read since
    # task h41shell: the options after the image go to the image's `vllm serve` (line 27 holds
    # --model); the folder inside the container is named only by 'coder', not a catalog name
    code, out = check(runner, "deploy-qwen-docker-run.sh")
    assert code == 2
    assert ("deploy-qwen-docker-run.sh:27: --model: '/qwen/qwen3-30b-a3b' is a path inside the "
            "container, and its served name 'coder' is not in the catalog") in out
    assert "`model:` in a side file deploy-qwen-docker-run.kvplan.yaml" in out
    result = flat(invoke(runner, "explain", str(QA / "deploy-qwen-docker-run.sh")))
    assert result.exit_code == 2
    assert "its served name 'coder' is not in the catalog" in result.output
