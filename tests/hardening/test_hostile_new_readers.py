"""Task h81hostile's findings: hand-written hostile variants of the real inputs this stop's new
readers took (SGLang's ServerArgs set after construction, the mistral3 import, the RayService
accelerator refusal), beside benchmarks/sweep.py's mutants of them. Each reproducer under
tests/assets/hostile names the real file it came from; its line numbers are the file's own (two
header lines, then the source). Run in-process (typer's CliRunner), well under a second each.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.conftest import invoke

RUNNER = CliRunner()
HOSTILE = Path(__file__).resolve().parents[1] / "assets" / "hostile"


def test_server_args_changes_kvplan_passed_over_are_named() -> None:
    """python-sglang-attrs-passed-over.py: the real rollout-lora-server.py's __main__ ServerArgs,
    then `[setattr(server_args, "context_length", n) for n in (4096,)]` (line 66), `setattr(
    server_args, key, 2048)` with key a variable (line 68) and `del
    server_args.max_running_requests` (line 69). python_attrs read only a setattr that is a
    statement with a literal name and only `=` targets: the server PASSed at the model's own
    40,960-token context with none of the three named. Now the comprehension's field and the
    deleted one are ERRORs on their lines (both move the pool), the computed name a note."""
    path = HOSTILE / "python-sglang-attrs-passed-over.py"
    result = invoke(RUNNER, "check", str(path), "--gpu", "h100")
    assert result.exit_code == 2, result.output
    out = result.output
    assert ("ERROR line 66: context_length: server_args.context_length = ... (line 66) is not "
            "followed: set inside an expression (a comprehension, a lambda, a call); kvplan "
            "cannot plan the pool without it") in out, out
    assert ("ERROR line 69: max_running_requests: server_args.max_running_requests = ... (line "
            "69) is not followed: deleted by `del`; kvplan cannot plan the pool") in out, out
    assert ("note: setattr(server_args, key, 2048) (line 68): the field's name is computed when "
            "the script runs; the field it sets is not followed") in out, out
    assert "holds 15 sequences of 40,960 tokens" not in out, out
    assert "(line 69) replaces" not in out, out  # a deleted field replaces no keyword


def test_an_object_given_where_a_number_is_taken_is_named_as_the_script_spells_it() -> None:
    """python-sglang-struct-value.py: the real rollout-lora-server.py's __main__ ServerArgs,
    then `server_args.context_length = ServerArgs(model_path=...)` (line 66). The ERROR printed
    kvplan's own object, "context_length=Struct(name='ServerArgs', node=<ast.Call object at
    0x...>)", and said nothing to do. Now the class as the script spells it, and the fix."""
    path = HOSTILE / "python-sglang-struct-value.py"
    result = invoke(RUNNER, "check", str(path), "--gpu", "h100")
    assert result.exit_code == 2, result.output
    assert ("ERROR line 66: context_length: context_length=ServerArgs(...) (line 66): "
            "--context-length takes no such value on the command line; write a value "
            "--context-length takes\n") in result.output, result.output
    assert "Struct(" not in result.output and "ast.Call" not in result.output, result.output


def test_a_parallel_size_under_one_is_named_by_its_own_field(tmp_path: Path) -> None:
    """python-sglang-tp-negative.py: the real rollout-lora-server.py's __main__ ServerArgs, then
    `server_args.tp_size = -2` (line 66). A script's GPU count is the engine's tensor x pipeline x
    data-parallel size, and that product (-2) was refused first as "nvidia.com/gpu: -2 is not a
    positive count" on the launch's line, a field the file never writes; a Deployment with
    `--tp-size -2` got a second ERROR on `replicas`, which it does not set either. Now the size's
    own field, on its line, as `--tp-size 0` always was."""
    path = HOSTILE / "python-sglang-tp-negative.py"
    result = invoke(RUNNER, "check", str(path), "--gpu", "h100")
    assert result.exit_code == 2, result.output
    assert ("ERROR line 66: tp_size: Input should be greater than 0; give a value in range "
            "(kvplan's limits: docs/limits.md)\n") in result.output, result.output
    assert "nvidia.com/gpu" not in result.output, result.output
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/bash\nvllm serve Qwen/Qwen3-0.6B --tensor-parallel-size -2\n")
    result = invoke(RUNNER, "check", str(script))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 2: --tensor-parallel-size: Input should be greater than 0"
            ) in result.output, result.output
    assert "nvidia.com/gpu" not in result.output, result.output
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: s\n        image: lmsysorg/sglang:v0.5.5\n"
        "        command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-0.6B,"
        " --tp-size, '-2']\n        resources: {limits: {nvidia.com/gpu: 1}}\n")
    result = invoke(RUNNER, "check", str(manifest))
    assert result.exit_code == 2, result.output
    assert "ERROR line 10: --tp-size: Input should be greater than 0" in result.output
    assert "replicas" not in result.output, result.output


def test_mistral3_without_a_vision_config_is_refused_not_counted_as_text_only() -> None:
    """config-mistral3-no-vision.json: the real tests/assets/hf_configs/
    mistral-small-3.1-24b.json with its vision_config deleted (null did the same). A mistral3
    checkpoint always holds the Pixtral tower (transformers' Mistral3Config builds its default
    one where the dict has none), and the importer refuses a missing text_config for that reason;
    a missing vision_config was imported as the text model alone, params_total 23,572,403,200
    where the real config gives 24,011,361,280, in silence. Now refused in one line, exit 2."""
    path = HOSTILE / "config-mistral3-no-vision.json"
    result = invoke(RUNNER, "import", str(path))
    assert result.exit_code == 2, result.output
    assert (f"error: {path}: cannot import: model_type 'mistral3' without a vision_config: "
            "transformers' Mistral3Config") in result.output, result.output
    assert "kvplan reads only the vision_config a config.json states" in result.output
    assert "23572403200" not in result.output, result.output


def test_a_vision_tower_past_the_parameter_limit_names_vision_config() -> None:
    """config-mistral3-vision-layers-1e9.json: the real mistral-small-3.1-24b.json with
    vision_config.num_hidden_layers 10^9. Refused, but as "params_total: Input should be less
    than or equal to 10000000000000000" and the same for params_encoder: spec fields the
    config.json does not hold. Now the block whose shapes give the count: 10^9 Pixtral layers of
    2 x 1,024 + 4 x 1,024^2 + 3 x 1,024 x 4,096 = 16,779,264 parameters each, plus the patch
    embedding and projector, past 10^16."""
    path = HOSTILE / "config-mistral3-vision-layers-1e9.json"
    result = invoke(RUNNER, "import", str(path))
    assert result.exit_code == 2, result.output
    assert (f"error: {path}: cannot import: vision_config: its shapes give a vision tower of "
            "16,779,264,") in result.output, result.output
    assert "above kvplan's limit of 10,000,000,000,000,000 (docs/limits.md)" in result.output
    assert "params_total" not in result.output, result.output


def test_a_ray_worker_gpu_count_of_the_wrong_type_or_size_is_named() -> None:
    """rayservice-worker-gpus-word.yaml: the real eks-llm-neuron-ray-service.yaml (corpus round
    r7) with the workers' aws.amazon.com/neuroncore made nvidia.com/gpu "two" (requests, line 87)
    and 10^30 (limits, line 91). raycluster counted a group's GPUs with int() and 0 for what it
    could not read: the limit 10^30 was taken as is and "two" never seen, and the RayService
    PASSed. Now each is an ERROR on its line, as `nvidia.com/gpu` of a pod is."""
    path = HOSTILE / "rayservice-worker-gpus-word.yaml"
    result = invoke(RUNNER, "check", str(path), "--gpu", "h100")
    assert result.exit_code == 2, result.output
    assert ("ERROR line 91: nvidia.com/gpu: 1,000,000,000,000,000,000,000,000,000,000 is beyond "
            "the limit of 10,000,000 (docs/limits.md)\n") in result.output, result.output
    assert ("ERROR line 87: nvidia.com/gpu: 'two' is not a whole number of GPUs: a GPU resource "
            "(Kubernetes takes a whole number of an extended resource); write a count, or remove "
            "it\n") in result.output, result.output
    assert "PASS  line" not in result.output, result.output


def test_a_parallel_size_past_its_limit_is_named_by_its_own_field(tmp_path: Path) -> None:
    """python-sglang-tp-1e30.py: the real rollout-lora-server.py's __main__ ServerArgs, then
    `server_args.tp_size = 10**30` written out (line 66). Beside the right ERROR (tp_size past
    4,096) came "replicas: 1,000,...,000 is beyond the limit of 10,000,000" on the launch's line:
    the GPU total (replicas x tp) refused under a field the script does not have. A Deployment
    with `--tp-size` 10^30 got only "nvidia.com/gpu: tensor 10^30 needs 10^30 GPUs", never the
    option's own limit. Now the option's limit alone, in both."""
    path = HOSTILE / "python-sglang-tp-1e30.py"
    result = invoke(RUNNER, "check", str(path), "--gpu", "h100")
    assert result.exit_code == 2, result.output
    assert ("ERROR line 66: tp_size: 1,000,000,000,000,000,000,000,000,000,000 is beyond the "
            "limit of 4,096 (docs/limits.md)\n") in result.output, result.output
    assert "replicas" not in result.output, result.output
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: s\n        image: lmsysorg/sglang:v0.5.5\n"
        "        command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-0.6B,"
        " --tp-size, '1000000000000000000000000000000']\n"
        "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    result = invoke(RUNNER, "check", str(manifest))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 10: --tp-size: 1,000,000,000,000,000,000,000,000,000,000 is beyond the "
            "limit of 4,096 (docs/limits.md)\n") in result.output, result.output
    assert "needs" not in result.output, result.output


def test_a_pip_pin_that_is_no_release_is_named() -> None:
    """skypilot-pip-pin-word.yaml: the real corpus qwen25-7b.yaml (SkyPilot) with its setup's
    `pip install vllm==0.6.1.post2` made `vllm==latest` (line 27). A pin whose version does not
    start with a digit matched neither the release pattern nor the variable one and was passed
    over: the plan said only that the script names no release. pip installs nothing for it (pip
    23.2.1: "No matching distribution found for vllm==latest"; packaging 26.4's Requirement
    refuses it, InvalidRequirement). Now a note says so, and that the default is used."""
    path = HOSTILE / "skypilot-pip-pin-word.yaml"
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 0, result.output
    assert ("note: setup installs vllm==latest: latest is no release (a PEP 440 version starts "
            "with a digit) and pip installs nothing for it") in result.output, result.output
    assert "the vllm profile's default version is used" in result.output, result.output


def test_a_keyword_given_twice_in_one_call_is_refused() -> None:
    """python-sglang-keyword-twice.py: the real round2 sglang-offline-llama31.py's
    `sgl.Engine(model_path=...)` given `context_length=4096` (line 18) and
    `**{"context_length": 8192}` (line 19). Python raises TypeError ("got multiple values for
    keyword argument 'context_length'", run here on a plain function) before Engine runs; the
    reader took the second value in silence and PASSed 50 sequences of 8,192 tokens."""
    path = HOSTILE / "python-sglang-keyword-twice.py"
    result = invoke(RUNNER, "check", str(path), "--gpu", "h100")
    assert result.exit_code == 2, result.output
    assert ("ERROR line 19: context_length: context_length is given twice to sgl.Engine(...) "
            "(lines 18 and 19): Python raises TypeError (\"got multiple values for keyword "
            "argument 'context_length'\") before the engine starts; give it once\n"
            ) in result.output, result.output
    assert "PASS  line" not in result.output, result.output


def test_a_helm_ray_head_with_raw_resources_still_plans(tmp_path: Path) -> None:
    """The real production-stack values-15-a (raySpec) with its headNode's requestGPU written as
    a raw `resources: {limits: {nvidia.com/gpu: 1}}` (line 26) and a catalog model. This task's
    change to raycluster._gpus (the RayService GPU counts above) left helm_ray's call with the old
    arguments: exit 3, "TypeError: _gpus() missing 4 required positional arguments", which no
    corpus file reached. The chart's count is read as before: one GPU on the head."""
    src = Path(__file__).resolve().parents[1] / "assets" / "check" / "corpus" / \
        "production-stack" / "values-15-a-minimal-pipeline-parallel-example-raycluster.yaml"
    text = src.read_text(encoding="utf-8").replace('"distilbert/distilgpt2"', '"Qwen/Qwen3-0.6B"')
    lines = text.splitlines(keepends=True)
    assert lines[25] == "        requestGPU: 1\n"
    lines[25] = "        resources: {limits: {nvidia.com/gpu: 1}}\n"
    path = tmp_path / "values.yaml"
    path.write_text("".join(lines), encoding="utf-8")
    result = invoke(RUNNER, "check", str(path), "--gpu", "h100")
    assert result.exit_code == 0, result.output
    assert "PASS  line 4  distilgpt2-raycluster: starts" in result.output, result.output
