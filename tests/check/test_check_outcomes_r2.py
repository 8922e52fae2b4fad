"""Reader defects found by round 2 of the deployments whose real outcome is public
(tests/assets/check/outcomes, files 18-28; task h52outcomes). Each test is the smallest case of
what scoring that round showed, with the value a correct reader gives worked out by hand."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.manifests.shell import SHELL_SUFFIXES
from kvplan.check.manifests.side import _SIDE_OF, is_side_file, side_file_for
from kvplan.check.outcome import PY_SUFFIXES

SCRIPT = "vllm serve Qwen/Qwen3-8B --max-model-len 8192\n"


def test_a_scripts_side_file_is_not_read_as_a_document(tmp_path: Path) -> None:
    """Round 2 put six launch scripts in the outcomes folder, each with `<name>.kvplan.yaml` (the
    side file docs/check.md gives a script). `kvplan check FOLDER FOLDER/*.sh` then said
    "28 checked ...; 6 YAML file(s) without a deployment skipped": the walk took the six side
    files for documents of their own, because is_side_file knew only YAML manifests. Here one
    script and its side file, named both ways side_file_for finds: one server is checked and
    nothing is skipped (0 skipped, by hand: the folder holds no other YAML)."""
    script = tmp_path / "serve.sh"
    script.write_text(SCRIPT)
    for side_name in ("serve.kvplan.yaml", "serve.sh.kvplan.yaml"):
        for old in tmp_path.glob("*.kvplan.yaml"):
            old.unlink()
        side = tmp_path / side_name
        side.write_text("gpu: h100\n")
        assert side_file_for(script) == side
        assert is_side_file(side)
        for paths in ([str(tmp_path), str(script)], [str(tmp_path / "*")]):
            report = check_paths(paths)
            assert [Path(o.file).name for o in report.outcomes] == ["serve.sh"], paths
            assert report.skipped == [], (side_name, paths)
            assert report.outcomes[0].gpu == "h100-sxm-80gb"  # the side file was read as one
    lonely = tmp_path / "other.kvplan.yaml"  # no manifest or script beside it
    lonely.write_text("apiVersion: kvplan/v1\n")
    assert not is_side_file(lonely)
    # side.py keeps its own copy of the script suffixes (no import of the shell readers)
    assert (".yaml", ".yml", *SHELL_SUFFIXES, *PY_SUFFIXES) == _SIDE_OF


def test_v0_note_of_a_script_names_no_image(tmp_path: Path) -> None:
    """Round 2's file 23 (vllm#17431) sets VLLM_USE_V1=0 before a server started outside a
    container; the note said "the image names no release", where there is no image. It now
    says what is unnamed for both cases (an image tag without a release, or no container)."""
    script = tmp_path / "v0.sh"
    script.write_text("VLLM_USE_V1=0 " + SCRIPT)
    [outcome] = check_paths([str(script)], default_gpu="h100").outcomes
    [note] = [n for n in outcome.notes if n.startswith("VLLM_USE_V1=0")]
    assert note == ("VLLM_USE_V1=0 selects the V0 engine only in vLLM 0.8-0.11 (removed in "
                    "0.11); no release is named (an image tag without one, or a server started "
                    "outside a container), so the default version's engine is planned")
