"""The heredoc delimiters bash takes beyond `<<EOF` / `<<'EOF'` (task h58review): a backslash
quotes the word (`<<\\EOF`, bash(1): "If any part of word is quoted ... the lines in the
here-document are not expanded"), a quoted word may hold a dash (`<<'EOF-YAML'`), and a
here-string (`<<<word`) opens no heredoc. Before, the first two were not seen as heredocs (the
options file was reported as absent, the body read as commands) and a here-string swallowed the
rest of the script as a heredoc body."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.manifests.shell_lex import read_script

SERVE = "trtllm-serve Qwen/Qwen3-8B --backend pytorch --extra_llm_api_options opts.yaml\n"


def _summary(tmp_path: Path, name: str, body: str) -> tuple[str, list[str]]:
    (tmp_path / f"{name}.sh").write_text("#!/usr/bin/env bash\n" + body)
    (tmp_path / f"{name}.kvplan.yaml").write_text("gpu: h100\n")
    [o] = check_paths([str(tmp_path / f"{name}.sh")]).outcomes
    return o.summary or "", list(o.notes)


def test_a_backslash_or_a_dashed_quoted_delimiter_is_a_heredoc_read_as_written(
        tmp_path: Path) -> None:
    """`<<\\EOF` is quoted, so `$` in its body is kept: read; `<<'EOF-YAML'` ends at its own
    line. Qwen3-8B's own 40,960-token context is what the pool holds when the file is not read."""
    bs, bs_notes = _summary(tmp_path, "b", "cat > opts.yaml <<\\EOF\n# $HOME unexpanded\n"
                            "max_seq_len: 8192\nEOF\n" + SERVE)
    dash, _ = _summary(tmp_path, "d", "cat > opts.yaml <<'EOF-YAML'\nmax_seq_len: 4096\n"
                       "EOF-YAML\n" + SERVE)
    assert "of 8,192 tokens per replica" in bs
    assert ("opts.yaml: read from the heredoc the script writes it with (line 2), not from a "
            "file on this machine") in bs_notes
    assert "of 4,096 tokens per replica" in dash


def test_a_here_string_opens_no_heredoc() -> None:
    """`cat <<<word` feeds one word: the commands after it are still the script's."""
    script = read_script("cat <<<hello > /dev/null\nvllm serve Qwen/Qwen3-8B\n")
    assert [c[0].words for c in script.commands] == [
        ["cat", "<<<hello"], ["vllm", "serve", "Qwen/Qwen3-8B"]]
    assert not script.written
    unquoted = read_script("cat > o.yaml <<EOF\nx: 1\nEOF\n")
    assert [(w.path, w.text, w.exact) for w in unquoted.written] == [("o.yaml", "x: 1\n", True)]
