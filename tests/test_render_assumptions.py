"""Assumptions are visible in the table output, not only in JSON: `kvplan explain` lists every
assumption of the engine profile, and `kvplan size`'s table names each term the engine has and
kvplan does not book ("not modelled"), so a prediction that leaves one out says so."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kvplan.cli import app

VL = ("qwen2.5-vl-7b", "--gpu", "a100-80gb", "--engine", "vllm")


def _run(*argv: str) -> str:
    res = CliRunner().invoke(app, [*argv, "--no-color"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    return res.output


def test_size_table_names_what_is_not_modelled() -> None:
    out = " ".join(_run("size", *VL).split())
    assert "not modelled (kvplan explain lists every assumption):" in out
    # the default release, 0.34.0 since task h41v034
    assert "vision tower's activation while vLLM 0.34.0 profiles the encoder is not modelled" in out


def test_size_table_has_no_caveat_when_every_term_is_modelled() -> None:
    # 0.33.0: the default 0.34.0 names its extensible cache's warm-up steps as not modelled
    # (task h41v034), so a release where every term is modelled is stated; eager, since a
    # compiling start names the cold compile cache's excess as not modelled (task h48cold)
    out = _run("size", "llama-3-8b", "--gpu", "h100", "--engine", "vllm", "--engine-version",
               "0.33.0", "--enforce-eager")
    assert "not modelled" not in out
    compiled = _run("size", "llama-3-8b", "--gpu", "h100", "--engine", "vllm",
                    "--engine-version", "0.33.0")
    assert " ".join(compiled.split()).count("not modelled") == 2  # the heading and the compile note


def test_explain_lists_the_same_assumptions_as_json() -> None:
    text = _run("explain", *VL, "--context", "8192")
    res = CliRunner().invoke(app, ["size", *VL, "--context", "8192", "-f", "json"])
    assumptions = json.loads(res.stdout)["results"][0]["assumptions"]
    assert "Assumptions" in text
    flat = " ".join(text.split())  # rich wraps long lines at the terminal's width
    for a in assumptions:
        assert f"- {a}" in flat


def test_size_table_names_a_stated_setting_the_plan_does_not_read() -> None:
    # vLLM 0.10.2 with 64 sequences: the sampler sorts by PyTorch's full-sort path, so the stated
    # path moves nothing; the table says so rather than only the JSON
    out = " ".join(_run("size", "qwen3-32b", "--gpu", "h100", "--engine", "vllm",
                        "--engine-version", "0.10.2", "--max-num-seqs", "64",
                        "--topk-topp-sampler", "native", "--context", "8192").split())
    assert "not used: topk_topp_sampler native: 64 sampler rows take PyTorch's full-sort path" in out
    assert out.count("so it is not used") == 1


def test_size_table_says_when_a_newer_release_is_modelled_by_the_newest_series() -> None:
    """Issue 13: an unknown newer version uses the newest known series, with a note, in `size`'s
    table as well as in explain: the plan's numbers are another release's rules."""
    for engine, name, version, newest in (("vllm", "vLLM", "9.9", "0.34.0"),
                                          ("sglang", "SGLang", "0.9.1", "0.5.23"),
                                          ("trtllm", "TensorRT-LLM", "2.5", "1.3.0")):
        out = " ".join(_run("size", "llama-3-8b", "--gpu", "h100", "--engine", engine,
                            "--engine-version", version).split())
        assert f"note: {name} {version} is newer than the newest modelled release ({newest})" in out


def test_size_table_has_no_version_note_for_a_modelled_release() -> None:
    out = _run("size", "llama-3-8b", "--gpu", "h100", "--engine", "vllm", "--engine-version", "0.12.0")
    assert "note:" not in out


def test_a_long_caveat_keeps_its_indent_on_every_line() -> None:
    """At 80 columns vLLM 0.34's extensible-cache caveat wraps to six lines; each continuation
    is indented two columns like its first line (it used to restart at the left margin, where it
    read as a new paragraph), and the heading stays on its own line."""
    res = CliRunner().invoke(app, ["size", "llama-3.1-8b", "--engine", "vllm", "--no-color"],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    head = lines.index("not modelled (kvplan explain lists every assumption):")
    caveat = []
    for line in lines[head + 1:]:
        if line.startswith(("█", "▓")):  # the memory bar
            break
        caveat.append(line)
    assert len(caveat) > 2, caveat  # it does wrap at 80 columns
    assert all(line.startswith("  ") and not line.startswith("   ") for line in caveat), caveat
    # the compile-cache note first (task h48cold), then the extensible cache's
    assert caveat[0].startswith("  torch.compile cache warm"), caveat
    assert "vLLM 0.34's extensible KV cache" in " ".join(caveat)


def test_explain_wraps_formulas_and_assumptions_under_their_first_word() -> None:
    """At 80 columns a step's `= formula` and an `- assumption` wrap under their own first word
    (columns 9 and 4), not back at the left margin where they read as a new step or item."""
    res = CliRunner().invoke(app, ["explain", "llama-3.1-8b", "--engine", "vllm", "--no-color"],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    # step 2's formula: "       = default (1.0 with vLLM 0.34's" and its continuations
    at = next(i for i, line in enumerate(lines) if line.startswith("       = default (1.0 with"))
    assert lines[at + 1].startswith("         extensible KV cache"), lines[at:at + 3]
    head = lines.index("Assumptions")
    items = []
    for line in lines[head + 1:]:
        if not line.startswith(" "):  # "vllm starts; ..." follows the list
            break
        items.append(line)
    continued = [line for line in items if not line.startswith("  - ")]
    assert continued, items  # some assumption does wrap at 80 columns
    assert all(line.startswith("    ") for line in continued if line.strip()), continued
