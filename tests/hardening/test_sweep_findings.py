"""Task h51sweep's findings: mutants of the real inputs under tests/assets that benchmarks/sweep.py
(every key path's value replaced, deleted or duplicated; scripts and logs cut, flags swapped,
repeated or unknown) ran through every command. Each reproducer under tests/assets/hostile names
the real file it came from. Run in-process (typer's CliRunner), well under a second each.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import invoke

RUNNER = CliRunner()
HOSTILE = Path(__file__).resolve().parents[1] / "assets" / "hostile"


def test_size_and_explain_name_a_refused_server_of_a_two_server_manifest() -> None:
    """aibrix-env-item-string.yaml: the decode role's env.1 is "" (line 104 = the source's 102
    plus the two header lines). `kvplan check` gives that server an ERROR; size and explain plan
    the prefill server and, before this task, dropped the decode one without a word (the note
    "the manifest runs 2 servers" vanished). Now they say which server was not planned and why."""
    path = HOSTILE / "aibrix-env-item-string.yaml"
    for command in ("size", "explain"):
        result = invoke(RUNNER, command, str(path))
        assert result.exit_code == 0, result.output
        assert (f"note: {path}: not planned: vllm-1p1d decode (line 104: spec.template.spec."
                "roles.1.template.spec.containers.0.env.1: must be a mapping (Kubernetes core/v1 "
                "schema), got a string (''); write it as a mapping, or remove it; `kvplan check` "
                "lists every problem)") in result.output, result.output


def test_size_and_explain_say_the_engine_refuses_an_unknown_option() -> None:
    """script-unknown-option.sh: `--kvplan-sweep-unknown 7` added to a real docker-run script
    (line 9 = the source's 7 plus two header lines). `kvplan check` FAILs it (vLLM 0.34.0's
    option table has no such option); size and explain planned it without a word. Now they say
    the engine refuses it, and that the plan is made as if it started."""
    path = HOSTILE / "script-unknown-option.sh"
    for command in ("size", "explain"):
        result = invoke(RUNNER, command, str(path))
        assert result.exit_code == 0, result.output
        assert (f"note: {path}: line 9: the engine refuses it: vLLM 0.34.0 has no option "
                "--kvplan-sweep-unknown; planned as if it started (`kvplan check` FAILs it)"
                ) in result.output, result.output


def test_check_names_an_engine_version_it_cannot_read_on_its_line() -> None:
    """kvplan-engine-version-word.yaml: engine.version 'abc' (line 11 = the source's 9 plus two
    header lines). `kvplan check` read the vLLM flag table's version before the record was
    validated: exit 3 (an internal error: InputError). Now one ERROR on the field's own line,
    exit 2, as `kvplan size` says it (which named engine.name, line 10, before this task)."""
    path = HOSTILE / "kvplan-engine-version-word.yaml"
    line = ("line 11: engine.version: cannot read engine version 'abc'; write it like 0.10.2")
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 2, result.output
    assert f"ERROR {line}\n" in result.output, result.output
    result = invoke(RUNNER, "size", str(path))
    assert result.exit_code == 2, result.output
    assert f"error: {path}: {line}" in result.output, result.output


def test_check_refuses_a_metadata_name_that_is_not_a_string() -> None:
    """k8s-metadata-name-list.yaml: a GKE Deployment whose metadata.name is [] (line 21 = the
    source's 19 plus two header lines). kvplan named the server after the file and passed it;
    the Kubernetes API refuses a name that is not a string (ObjectMeta.name: string). Now one
    ERROR on its line, as metadata and metadata.annotations of the wrong type are (h46silent)."""
    path = HOSTILE / "k8s-metadata-name-list.yaml"
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 21: metadata.name: must be a string (Kubernetes ObjectMeta), got a list "
            "('[]'); write it as a string, or remove it\n") in result.output, result.output


def test_calibrate_reports_the_good_log_beside_a_run_it_cannot_resolve() -> None:
    """log-directive-unknown-spec.log: `# kvplan: spec=no-such-model` (line 11), given after a
    good log (the real 01-vllm-llama3.1-8b-rtx3090-v0.log). The unknown model was raised out of
    the loop over logs: the good log's table vanished, and the one line named neither the file
    nor the directive. Now the good log is reported, and the bad one's runs (A, B, C share the
    directive) get one line naming the file and the directive, exit 2."""
    good = HOSTILE.parent / "logs" / "01-vllm-llama3.1-8b-rtx3090-v0.log"
    bad = HOSTILE / "log-directive-unknown-spec.log"
    result = invoke(RUNNER, "calibrate", str(good), str(bad))
    assert result.exit_code == 2, result.output
    assert "01-vllm-llama3.1-8b-rtx3090-v0.log run A: vllm 0.6.4" in result.output, result.output
    errors = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert errors == [f"error: {bad}: runs A, B, C: directive `# kvplan: spec=no-such-model`: "
                      "unknown model 'no-such-model' (did you mean: tiny-test-model?); `kvplan "
                      "models` lists the catalog; pass a Hugging Face id (org/name), a spec file "
                      "or a config.json"], result.output


def test_check_refuses_a_command_item_that_is_not_a_string() -> None:
    """lws-command-item-list.yaml: the LWS leader's command.9 (--nnodes) is [] (line 39 = the
    source's 37 plus two header lines). The item was dropped from the command line in silence
    (--nnodes vanished from the "not used" note) and the group PASSed; Kubernetes' Container
    schema takes command and args as lists of strings. Now one ERROR on its line."""
    path = HOSTILE / "lws-command-item-list.yaml"
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 39: spec.leaderWorkerTemplate.leaderTemplate.spec.containers.0.command.9:"
            " must be a string (Kubernetes core/v1 schema), got a list ('[]'); write it as a "
            "string, or remove it\n") in result.output, result.output


def test_check_says_a_calibration_directive_in_a_script_is_not_read() -> None:
    """script-kvplan-directive.sh: a calibration log's `# kvplan: sweep_unknown=3` line (line
    3) in a real synthetic script. To the shell it is a comment, and kvplan read past it
    without a word, so a directive written there (gpu=, a traffic figure) looked honoured.
    Now each such line is named in a note with where the settings go instead."""
    path = HOSTILE / "script-kvplan-directive.sh"
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 0, result.output
    assert ("note: line 3: `# kvplan: sweep_unknown=3`: `# kvplan:` lines are read in "
            "calibration logs only (`kvplan calibrate`), not in scripts: this one is not read; "
            "write the traffic and GPU in the side file script-kvplan-directive.kvplan.yaml, or "
            "give --gpu\n") in result.output


def test_a_float_field_refuses_true_in_a_deployment_and_a_gpu_spec() -> None:
    """kvplan-headroom-true.yaml: requirement.headroom_pct: true (line 17 = the source's 15 plus
    two header lines); pydantic's lax float read it as 1.0: check PASSed against 2,400 x 1.01 =
    2,424 users, not the file's 10% (2,640), and said nothing. gpu-price-true.yaml: an L4 spec
    with price_per_hour_usd: true was priced at $1 per GPU-hour. Both are refused now."""
    result = invoke(RUNNER, "check", str(HOSTILE / "kvplan-headroom-true.yaml"))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 17: requirement.headroom_pct: expected a number, not true/false\n"
            in result.output), result.output
    gpu = HOSTILE / "gpu-price-true.yaml"
    result = invoke(RUNNER, "fleet", "llama-3-8b", "--gpu", str(gpu), "-n", "100")
    assert result.exit_code == 2, result.output
    assert (f"error: command line: hardware.gpu (--gpu): {gpu}: price_per_hour_usd: Value error, "
            "expected a number, not true/false") in result.output, result.output


# (reproducer, the line `kvplan calibrate` refuses it with, exit 2); the line numbers are the
# source's plus the two header lines.
DAMAGED_LOGS = [
    # `# kvplan: spec= kv_dtype=bf16`: an empty value passed every key's check (the text keys
    # took any string) and `spec=` was read as no spec, the model found from the log, exit 0.
    ("log-directive-empty-spec.log",
     "{path}:11: kvplan directive 'spec=': has no value; write key=value, or remove it"),
    # SGLang's "Load weight end ... mem usage=10^30 GB": the figure reached the stand-in GPU's
    # schema (memory above 1 PiB), exit 3, a pydantic ValidationError. Every logged figure above
    # 10^15 (no start-up figure comes near: 1 PiB is 1,048,576 GiB) is refused with its line.
    ("log-mem-usage-1e30.log",
     "{path}:14: weights_gib = 1e+30 is beyond any figure an engine prints at start-up (above "
     "10^15); the line is damaged: fix it or remove it"),
    # SGLang's "Load weight begin. avail mem=-1 GB", the free memory its stand-in GPU is sized by
    # ((-1 + 0.4) x 1,024 MiB < 0): exit 3, a pydantic ValidationError.
    ("log-avail-mem-negative.log",
     "{path}: line 13: the GPU's free memory at start-up is -1 GB; a start-up log of a real GPU "
     "shows a positive figure; check the line"),
    # `# kvplan: version=abc` on a TensorRT-LLM log: shown as "trtllm abc (stated)", a release
    # with no number accepted without a word; refused as check refuses engine.version 'abc'.
    ("log-directive-version-word.log",
     "{path}:11: kvplan directive 'version=abc': cannot read engine version 'abc'; write it "
     "like 0.10.2"),
]


@pytest.mark.parametrize(("name", "said"), DAMAGED_LOGS)
def test_calibrate_refuses_a_damaged_log_line(name: str, said: str) -> None:
    """A mutant of a real log the sweep found read in silence or stopping calibrate with an
    internal error (exit 3): one line naming the file and line, exit 2."""
    path = HOSTILE / name
    result = invoke(RUNNER, "calibrate", str(path))
    assert result.exit_code == 2, result.output
    assert f"error: {said.format(path=path)}" in result.output, result.output


# (reproducer, the ERROR line `kvplan check` prints); each was read past in silence before task
# h51sweep: the item dropped, the value written out as text, or the field left unread. Each
# line is the source's plus the two header lines.
READ_PAST = [
    ("k8s-image-list.yaml",  # from outcomes/08-llmd-mixtral-8x7b-tp2-h100.yaml: PASSed
     "ERROR line 36: spec.template.spec.containers.0.image: must be a string (Kubernetes core/v1 "
     "schema), got a list ('[]'); write it as a string, or remove it"),
    ("kserve-env-value-list.yaml",  # from corpus/kserve/llm-inference-service-A10-ngram.yaml
     "ERROR line 27: spec.template.containers.0.env.0.value: must be a string (Kubernetes core/v1"
     " schema), got a list ('[]'); write it as a string, or remove it"),
    ("compose-entrypoint-item-list.yaml",  # from outcomes/03-vllm-r1-distill-qwen15b-4xl4-oom
     "ERROR line 27: services.llm-server.entrypoint.6: must be a string (the Compose "
     "Specification), got a list ('[]'); write it so, or remove it"),
    ("compose-environment-item-list.yaml",  # from qa/amd-multi-model-compose.yaml
     "ERROR line 96: services.vllm-model3.environment.0: must be a string (NAME=value) (the "
     "Compose Specification), got a list (\"['HIP_VISIBLE_DEVICES=3']\"); write it so, or "
     "remove it"),
    ("rayservice-containers-number.yaml",  # synthetic/formats/rayservice.yaml: exit 3 before
     "ERROR line 24: spec.rayClusterConfig.headGroupSpec.template.spec.containers: must be a list "
     "(Kubernetes core/v1 schema), got a number ('-1'); write it as a list, or remove it"),
    ("llmisvc-baserefs-number.yaml",  # corpus/kserve/inference_default.yaml: exit 3 before
     "ERROR line 16: spec.baseRefs: must be a list (KServe LLMInferenceService CRD, "
     "serving.kserve.io), got a number ('-1'); write it as a list, or remove it"),
    ("kubeai-args-item-list.yaml",  # corpus/kubeai/deepseek-r1-distill-llama-8b-l4.yaml
     "ERROR line 16: spec.args.3: must be a string (KubeAI Model CRD, kubeai.org/v1), got a list "
     "('[]'); write it as a string, or remove it"),
    ("llmd-values-label-key-list.yaml",  # synthetic/formats/llmd-values.yaml: WARN, no GPU
     "ERROR line 11: decode.acceleratorTypes.labelKey: must be a string (llm-d-modelservice chart "
     "values), got a list ('[]'); write it as a string, or remove it"),
    ("stormservice-role-name-list.yaml",  # synthetic/formats/stormservice.yaml: PASSed
     "ERROR line 12: spec.template.spec.roles.0.name: must be a string (AIBrix StormService CRD, "
     "orchestration.aibrix.ai/v1alpha1), got a list ('[]'); write it as a string, or remove it"),
    ("stormservice-role-replicas-true.yaml",  # synthetic/formats/stormservice.yaml: "2 role
     # sets x True prefill replica(s)", read as 1 (the second sweep)
     "ERROR line 13: spec.template.spec.roles.0.replicas: true is not a count of replicas; write "
     "a whole number"),
    ("vllmruntime-registry-list.yaml",  # from corpus/production-stack/..._autoscaling.yaml
     "ERROR line 53: spec.deploymentConfig.image.registry: must be a string (VLLMRuntime CRD, "
     "production-stack.vllm.ai/v1alpha1), got a list ('[]'); write it as a string, or remove it"),
]


@pytest.mark.parametrize(("name", "line"), READ_PAST, ids=[c[0] for c in READ_PAST])
def test_check_refuses_a_field_of_the_wrong_type_it_read_past(name: str, line: str) -> None:
    result = invoke(RUNNER, "check", str(HOSTILE / name))
    assert result.exit_code == 2, result.output
    assert line + "\n" in result.output, result.output


def test_size_names_the_planned_server_of_a_script_by_its_line() -> None:
    """Seen in the sweep's output for synthetic/two-servers.sh (the real file shows it): a
    script's servers have no name, and size printed "planning the first (None)". The first
    server starts on line 3 (`CUDA_VISIBLE_DEVICES=0 nohup python3 -m sglang.launch_server`)."""
    path = HOSTILE.parent / "check" / "scripts" / "synthetic" / "two-servers.sh"
    result = invoke(RUNNER, "size", str(path))
    assert result.exit_code == 0, result.output
    assert (f"note: {path}: the script runs 2 servers; planning the first (line 3)\n"
            in result.output), result.output



def test_a_spec_with_aliases_of_the_wrong_type_does_not_stop_every_lookup(tmp_path: Path) -> None:
    """Found by hand beside the sweep (its mutants run a spec by path, not on the search path):
    a spec on KVPLAN_SPECS_PATH whose `aliases` is 5 (model_specs/llama-3-8b.yaml renamed
    zz-test) made every name lookup an internal error (a TypeError in the alias index), `size
    llama-3-8b` included. Now the others resolve (a child process: the catalog index is cached
    per process), and that spec alone is refused, with its field, when it is read."""
    import yaml

    from tests.hardening.limited import run_limited

    data = yaml.safe_load((HOSTILE.parents[2] / "model_specs" / "llama-3-8b.yaml").read_text())
    data.update(name="zz-test", aliases=5)
    (tmp_path / "model_specs").mkdir()
    spec = tmp_path / "model_specs" / "zz-test.yaml"
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    out = run_limited("size", "llama-3-8b", "--gpu", "h100", "--format", "json",
                      env={"KVPLAN_SPECS_PATH": str(tmp_path)})
    assert out.code == 0, out.stderr
    result = invoke(RUNNER, "size", str(spec), "--gpu", "h100")  # the spec itself: its field
    assert result.exit_code == 2, result.output
    assert f"{spec}: aliases: Input should be a valid list" in result.output, result.output
