"""Task h44fuzz's findings: inputs a structural fuzzer (mutations of the real files under
tests/assets: a mapping swapped for a list, a number or a string) turned into an internal error
(exit 3). Each reproducer under tests/assets/hostile names the real file it was derived from;
each must now be one ERROR line naming the file, the field, what it must be and what to do
(exit 2). A bug met in one file of `kvplan check` is that file's ERROR and exit 3, while every
other file's verdict is still printed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from tests.conftest import invoke

HOSTILE = Path(__file__).resolve().parents[1] / "assets" / "hostile"

# (file, the one ERROR line `kvplan check FILE` prints)
CHECK_CASES = [
    ("compose-reservations-number.yaml",
     "ERROR line 9: services.phi4.deploy.resources.reservations: must be a mapping (the Compose "
     "Specification), got a number ('-1'); write it so, or remove it"),
    ("compose-capabilities-number.yaml",
     "ERROR line 13: services.phi4.deploy.resources.reservations.devices.0.capabilities: must "
     "be a list (the Compose Specification), got a number ('-1'); write it so, or remove it"),
    ("compose-environment-string.yaml",
     "ERROR line 6: services.sglang.environment: must be a mapping (NAME: value) or a list of "
     "NAME=value (the Compose Specification), got a string ('-inf'); write it so, or remove it"),
    ("k8s-env-number.yaml",
     "ERROR line 14: spec.template.spec.containers.0.env: must be a list (Kubernetes core/v1 "
     "schema), got a number ('1000000000000000000000000000000'); write it as a list, or "
     "remove it"),
    ("k8s-node-affinity-list.yaml",
     "ERROR line 11: spec.template.spec.affinity.nodeAffinity: must be a mapping (Kubernetes "
     "core/v1 schema), got a list (\"[{'requiredDuringSchedulingIgnoredDuring\"); write it as "
     "a mapping, or remove it"),
    ("k8s-node-selector-term-list.yaml",
     "ERROR line 14: spec.template.spec.affinity.nodeAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.0: must be a mapping "
     "(Kubernetes core/v1 schema), got a list (\"[{'matchExpressions': [{'key': "
     "'nvidia.c\"); write it as a mapping, or remove it"),
    ("ome-supported-formats-number.yaml",
     "ERROR line 8: spec.supportedModelFormats: must be a list of model formats (OME "
     "ServingRuntimeSpec), got '1000000000000000000000000000000'; write it as a list, or "
     "remove it"),
    ("ome-env-name-mapping.yaml",
     "ERROR line 15: spec.engineConfig.runner.env.0.name: must be a string (Kubernetes core/v1 "
     "schema), got a mapping (\"{'k': 'PYTHONUNBUFFERED'}\"); write it as a string, or "
     "remove it"),
    ("vllmruntime-env-number.yaml",
     "ERROR line 14: spec.vllmConfig.env: must be a list (Kubernetes core/v1 schema), got a "
     "number ('1e+30'); write it as a list, or remove it"),
    ("helm-values-env-number.yaml",
     "ERROR line 10: servingEngineSpec.modelSpec.0.env: must be a list (Kubernetes core/v1 "
     "schema), got a number ('-9223372036854775808'); write it as a list, or remove it"),
]


@pytest.mark.parametrize(("name", "line"), CHECK_CASES, ids=[c[0] for c in CHECK_CASES])
def test_check_names_the_mistyped_field(name: str, line: str) -> None:
    """Was `internal error: AttributeError/TypeError ...`, exit 3. Now: the file, its one
    ERROR line (the line of the field in the file) and the count line; exit 2."""
    path = HOSTILE / name
    result = invoke(CliRunner(), "check", str(path))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stdout.splitlines()
    assert lines[:2] == [str(path), line]
    assert lines[-1] == "1 checked in 1 file(s): 0 PASS, 0 FAIL, 1 ERROR"
    # the deployment's notes follow its ERROR (task h71sglfix: every finding is said)
    assert all(n.startswith("      note: ") for n in lines[2:-1]), lines


def test_import_names_a_layer_type_that_is_no_string() -> None:
    """layer_types[3] = 0 (a number) was `internal error: TypeError: sequence item 0: expected
    str instance, int found`; now the refusal lists it with the kinds kvplan sizes."""
    path = HOSTILE / "config-layer-types-number.json"
    result = invoke(CliRunner(), "import", str(path))
    assert result.exit_code == 2, result.output
    assert result.output.strip() == (
        f"error: {path}: cannot import: layer_types has kinds kvplan cannot size: 0 (it sizes "
        "full_attention, sliding_attention, linear_attention)")


def test_a_bug_in_one_file_hides_no_other_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug (here: reading one file raises RuntimeError) was the whole run's only output, the
    internal-error line, exit 3; the other file's verdict was lost. Now that file is an ERROR
    holding the internal-error line, the other still gets its own verdict (here its ERROR),
    and the exit code is 3 (a bug outranks invalid input)."""
    import kvplan.check as check

    real = check.read_targets
    bad = HOSTILE / "k8s-env-number.yaml"

    def buggy(path: Path, *args: object):  # noqa: ANN202 - read_targets' own return type
        if Path(path) == bad:
            raise RuntimeError("boom")
        return real(path, *args)

    monkeypatch.setattr(check, "read_targets", buggy)
    other = HOSTILE / CHECK_CASES[0][0]  # its own ERROR, read without planning (fast)
    result = invoke(CliRunner(), "check", str(other), str(bad))
    assert result.exit_code == 3, result.output
    # the deployment's notes follow its ERROR (task h71sglfix: every finding is said)
    assert [ln for ln in result.stdout.splitlines() if not ln.startswith("      note: ")] == [
        str(other), CHECK_CASES[0][1],
        str(bad),
        "ERROR file: internal error: RuntimeError: boom; this is a bug in kvplan; please report "
        "it with --debug output",
        "2 checked in 2 file(s): 0 PASS, 0 FAIL, 2 ERROR",
    ]
    with pytest.raises(RuntimeError, match="boom"):  # --debug: the traceback, as promised
        CliRunner().invoke(app, ["--debug", "check", str(bad)], catch_exceptions=False)


@pytest.mark.parametrize(("name", "line"), [
    ("binary.yaml", "ERROR file: binary data (a NUL byte at offset 0), not text; save it as "
     "UTF-8 text"),
    ("utf16-no-bom.yaml", "ERROR file: looks like UTF-16 without a byte-order mark; save it as "
     "UTF-8 text (or UTF-16 with a BOM)"),
])
def test_check_reads_files_as_every_command_does(name: str, line: str) -> None:
    """`kvplan check` read files with its own path.read_text: a binary file was "cannot read
    file: 'utf-8' codec can't decode byte 0x80 in position 128: invalid start byte" and a
    UTF-16 file without a BOM "malformed YAML: unacceptable character #x0000". It now reads
    through kvplan.inputs.text like size, fleet and calibrate: the same line, with what to do."""
    path = HOSTILE / name
    result = invoke(CliRunner(), "check", str(path))
    assert result.exit_code == 2, result.output
    assert result.stdout.splitlines() == [
        str(path), line, "1 checked in 1 file(s): 0 PASS, 0 FAIL, 1 ERROR"]


@pytest.mark.parametrize(("argv", "message"), [
    (("explain", "config-opt-proj-dim-mapping.json"),
     "error: command line: model: {path}: cannot import: config field 'word_embed_proj_dim' "
     "is {{'k': 768}}; it must be a whole number"),
    (("import", "config-siglip-channels-string.json"),
     "error: {path}: cannot import: config field 'vision_config.num_channels' is '3'; it must be "
     "a whole number"),
    (("import", "config-deepstack-number.json"),
     "error: {path}: cannot import: config field 'vision_config.deepstack_visual_indexes' is "
     "1e+30; it must be a list"),
])
def test_optional_config_fields_are_type_checked(argv: tuple[str, str], message: str) -> None:
    """Optional config.json fields the parameter count reads (OPT's word_embed_proj_dim,
    SigLIP's num_channels, Qwen3-VL's deepstack_visual_indexes) were used as found: a mapping
    multiplied (TypeError "unsupported operand type(s) for *: 'int' and 'dict'"), a string
    added to a number, a float given to len(). Now they
    are checked where they are read (kvplan.specs.params_base: _int_or, _list_or_empty)."""
    path = HOSTILE / argv[1]
    result = invoke(CliRunner(), argv[0], str(path))
    assert result.exit_code == 2, result.output
    assert result.output.strip() == message.format(path=path)


def test_a_mistyped_runtime_beside_base_models_is_named_not_a_bug(tmp_path: Path) -> None:
    """`kvplan check tests/assets` was exit 3: with OME BaseModels in the same run, matching them
    to a ServingRuntime whose supportedModelFormats is a number raised `TypeError: 'int' object
    is not iterable` (ome_run.fits), though the runtime alone gave its named ERROR. Now the
    runtime matches no model and keeps its one ERROR line; exit 2, no internal error."""
    runtime = tmp_path / "ome-supported-formats-number.yaml"
    runtime.write_bytes((HOSTILE / runtime.name).read_bytes())
    corpus = Path(__file__).parents[1] / "assets" / "check" / "corpus" / "ome"
    base = tmp_path / "basemodel-qwen3-8b.yaml"
    base.write_bytes((corpus / base.name).read_bytes())
    result = invoke(CliRunner(), "check", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert "internal error" not in result.output
    assert ("ERROR line 8: spec.supportedModelFormats: must be a list of model formats (OME "
            "ServingRuntimeSpec), got '1000000000000000000000000000000'; write it as a list, "
            "or remove it") in result.output
