"""Where a trtllm image's release stands against the trtllm-serve option table (task h42trtver).

The table is serve.py at commit 00209af149e7, a pre-review revision of NVIDIA/TensorRT-LLM PR
#11037 that no release carries (kvplan/check/engine_flags/trtllm.py TABLE_RELEASE): 1.2.0rc2 and
below lack its `--config` (older: an option it lacks is noted), 1.3.0rc6 on (tagged on main
after its January 2026 base) has all of its options (an option it lacks is refused), and
1.2.0rc3 up to 1.3.0rc5 is the band no source read pins (noted, saying so). The hash is never
read as a release (parse_version("00209af149e7") is (209,), which put every release below it).

The Deployment is tests/assets/check/trtllm-options/llama8b-fp8-options.yaml (the numbers of
tests/check/test_trtllm_kv_flag.py: 61 users >= 45 required, PASS) with an option the table
lacks, `--max_attention_window 4096` (an LLM-API key, not a trtllm-serve option).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check.engine_flags.trtllm import table_position
from kvplan.cli import app

ASSET = (Path(__file__).resolve().parents[1] / "assets" / "check" / "trtllm-options"
         / "llama8b-fp8-options.yaml")
ARGS = 'args: ["--extra_llm_api_options", "/config/agg.yaml"]'
DIGEST = "release@sha256:" + "0123456789abcdef" * 4
UNKNOWN = "trtllm-serve 00209af149e7 has no option --max_attention_window"
HINT = "; did you mean --fail_fast_on_attention_window_too_large?"


def _check(tmp_path: Path, image: str, flags: str = '"--max_attention_window", "4096", '
           ) -> tuple[int, str]:
    """`kvplan check` on the asset with the image `...tensorrt-llm/<image>` and `flags` put
    before the options file."""
    text = ASSET.read_text().replace("release:1.2.0", image)
    text = text.replace(ARGS, f'args: [{flags}"--extra_llm_api_options", "/config/agg.yaml"]')
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    res = CliRunner().invoke(app, ["check", str(path)])
    return res.exit_code, " ".join(res.output.split())


@pytest.mark.parametrize("tag", ["1.3.0rc6", "1.3.0rc7", "1.3.0"])
def test_a_release_at_or_after_the_table_refuses_an_option_it_lacks(tmp_path: Path,
                                                                    tag: str) -> None:
    """1.3.0rc6 (the first release shown to carry every option of the table) and later: click
    stops on the option, a FAIL (exit 1) naming the release and the bound."""
    code, out = _check(tmp_path, f"release:{tag}")
    assert code == 1, out
    assert (f"FAIL line 43 llama8b-trtllm: the engine refuses it: {UNKNOWN}{HINT}; the image is "
            f"trtllm {tag}, at or after the option table's release (1.3.0rc6 on)") in out


@pytest.mark.parametrize("tag", ["1.2.0rc2", "1.1.0", "1.0.0"])
def test_an_older_release_notes_it(tmp_path: Path, tag: str) -> None:
    """1.2.0rc2 lacks the table's --config (PR #9104 came after it), and so is older than the
    table, as the releases numbered below it: noted, the plan stands (61 users, PASS)."""
    code, out = _check(tmp_path, f"release:{tag}")
    assert code == 0, out
    assert "holds 61 users >= 45 required" in out
    assert (f"note: {UNKNOWN}{HINT}; the image is trtllm {tag}, older than the option table: "
            "not checked") in out


@pytest.mark.parametrize("tag", ["1.2.0rc3", "1.2.0", "1.2.1", "1.3.0rc5"])
def test_a_release_in_the_unpinned_band_says_so(tmp_path: Path, tag: str) -> None:
    """1.2.0rc3 up to 1.3.0rc5: no source read pins which of them carries the table's options,
    so the note says the table's release is not pinned (not that the image is older)."""
    code, out = _check(tmp_path, f"release:{tag}")
    assert code == 0, out
    assert (f"note: {UNKNOWN}{HINT}; the image is trtllm {tag}, and the option table's release "
            "is not pinned (older: 1.2.0rc2 and below; at or after it: 1.3.0rc6 on): not "
            "checked") in out
    assert "older than the option table" not in out


def test_an_image_that_names_no_release_notes_it(tmp_path: Path) -> None:
    """An image pinned by digest names no release: noted as before (PASS)."""
    code, out = _check(tmp_path, DIGEST)
    assert code == 0, out
    assert (f"note: {UNKNOWN}{HINT}; the image does not name its trtllm-serve release: not "
            "checked") in out


def test_a_misspelling_is_refused_in_the_unpinned_band(tmp_path: Path) -> None:
    """`--max_num_token` is one letter from the table's --max_num_tokens: no release accepts
    it, so 1.2.0 (unpinned) refuses it as an older release would (FAIL)."""
    code, out = _check(tmp_path, "release:1.2.0", flags='"--max_num_token", "8192", ')
    assert code == 1, out
    assert ("the engine refuses it: trtllm-serve has no option --max_num_token; did you mean "
            "--max_num_tokens? (a letter or two from it: no release accepts that spelling)"
            ) in out


def test_an_option_added_after_the_table_is_noted_not_refused(tmp_path: Path) -> None:
    """--grpc (PR #11037, merged after the table's revision of it) on 1.3.0rc7: a note naming
    where it comes from; the plan stands (61 users, PASS)."""
    code, out = _check(tmp_path, "release:1.3.0rc7", flags='"--grpc", ')
    assert code == 0, out
    assert ("note: trtllm-serve 00209af149e7 has no option --grpc: trtllm-serve gained it after "
            "the option table's source (PR #11037, merged 2026-01-29 as a flag of serve); not "
            "read by kvplan, not checked") in out


@pytest.mark.parametrize(("image", "place"), [
    ("1.2.0rc2", "older"), ("1.2.0rc2.post2", "older"), ("1.1.0", "older"),
    ("1.2.0rc3", "unpinned"), ("1.2.0", "unpinned"), ("1.2.1", "unpinned"),
    ("1.3.0rc5.post2", "unpinned"), ("1.3.0rc6", None), ("1.3.0rc29", None), ("1.3.0", None),
    ("latest", None), (None, None),
])
def test_table_position_bounds(image: str | None, place: str | None) -> None:
    """The bounds 1.2.0rc2 (older, `.postN` ranking with what it follows) and 1.3.0rc6 (at or
    after); a text that names no release is not placed."""
    assert table_position(image) == place
