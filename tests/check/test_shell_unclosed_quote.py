"""A launch script whose quote never closes is refused, as bash refuses it (task h80shell):
`vllm serve M --max-model-len 8192 --served-model-name "foo` PASSed as if it ran, the line split
at its spaces, though `bash -n` says "unexpected EOF while looking for matching `"'" and runs
nothing. Each case below was checked with `bash -n` (GNU bash 5) when written: refused there
exactly when kvplan.check.manifests.shell_quotes.unclosed_quote finds a quote."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check.manifests.shell_quotes import unclosed_quote
from tests.conftest import invoke

SERVE = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"


@pytest.mark.parametrize(("text", "found"), [
    (SERVE + ' --served-model-name "foo\n', (1, '"')),
    ("#!/bin/bash\n" + SERVE + " --served-model-name 'foo\n", (2, "'")),
    ("echo `date\n" + SERVE + "\n", (1, "`")),
    ('echo "unterminated $(echo x)\n', (1, '"')),     # a closed $( ) inside an open quote
    ('foo#bar \'x\n', (1, "'")),                       # `#` inside a word begins no comment
    ('echo "a\nb"\n' + SERVE + "\n", None),            # a quote over two lines, closed
    ("echo 'it''s'\n", None),
    ('echo "$(echo "inner")"\n', None),                # quotes of their own inside $( )
    ("x=$(cat <<EOF\nit's\nEOF\n)\n", None),           # a heredoc body is text
    ("cat <<'EOF' > f\ndon't\nEOF\n", None),
    ("cat <<-EOF\n\tdon't\n\tEOF\n", None),            # <<- strips the delimiter's tabs
    ("cat <<<'here'\necho ok\n", None),                # a here-string is no heredoc
    (SERVE + " # don't\n", None),                      # a comment
    ("echo $'it\\'s'\n", None),                        # $'...' takes \\'
    ('echo "a\\"b"\n', None),
    ("echo \\'\n", None),
    ('echo "`echo "y"`"\n', None),
    ("echo $(( 1 << 2 ))\necho \"ok\"\n", None),       # a shift, not a heredoc
    ("x=$(case $1 in a) echo \"hi\";; esac)\n", None),
])
def test_a_quote_bash_never_closes(text: str, found: tuple[int, str] | None) -> None:
    assert unclosed_quote(text) == found


@pytest.mark.parametrize("command", ["check", "explain", "size"])
def test_a_script_with_an_unclosed_quote_is_one_error_exit_2(tmp_path: Path, runner: CliRunner,
                                                             command: str) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/bash\nexport HF_HOME=/data\n{SERVE} --served-model-name \"foo\n")
    result = invoke(runner, command, str(script), "--gpu", "h100")
    assert result.exit_code == 2
    said = ("a \" quote opened on this line is never closed; bash refuses the script before "
            "running any command (unexpected EOF while looking for matching `\"'), so kvplan "
            "does not read it: close the quote")
    assert said in result.output
    if command == "check":
        assert f"ERROR line 3: {said}" in result.output
        assert "PASS" not in result.output.replace("0 PASS", "")
    else:
        assert f"{script}: line 3: {said}" in result.output


def test_text_that_is_no_shell_script_by_name_is_read_as_before(tmp_path: Path,
                                                                runner: CliRunner) -> None:
    """A README's command saved as notes.txt is read as a script (kvplan.check.manifests.shell
    is_script) but is no file bash is given: its apostrophes do not refuse it."""
    notes = tmp_path / "notes.txt"
    notes.write_text(f"Here's how we start it:\n{SERVE}\n")
    result = invoke(runner, "check", str(notes), "--gpu", "h100")
    assert "never closed" not in result.output
    assert "sequences of 8,192 tokens" in result.output
