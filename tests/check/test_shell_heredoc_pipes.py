"""Which command a heredoc writes a file with (task h58review): `cat <<'EOF' | envsubst > f`
writes f with envsubst's output, not the body (it was read as cat writing f: `${LEN}` taken
as the value, an ERROR "expected a number, got '${LEN}'"); `cat <<'EOF' | tee f` writes the
body (it was not read); a write inside a function is named with the function (its calls are
not followed), where the file was said to be missing on this machine."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.manifests.shell_heredoc import opened

SERVE = "trtllm-serve Qwen/Qwen3-8B --backend pytorch --extra_llm_api_options opts.yaml\n"


def _one(tmp_path: Path, name: str, body: str) -> object:
    (tmp_path / f"{name}.sh").write_text("#!/usr/bin/env bash\n" + body)
    (tmp_path / f"{name}.kvplan.yaml").write_text("gpu: h100\n")
    [o] = check_paths([str(tmp_path / f"{name}.sh")]).outcomes
    return o


def test_the_target_is_cats_own_redirect_or_a_tee_it_pipes_to() -> None:
    assert opened("cat <<'EOF' | envsubst > opts.yaml", 1).target == ""  # type: ignore[union-attr]
    assert opened("cat <<EOF | python fill.py > opts.yaml", 1).target == ""  # type: ignore[union-attr]
    assert opened("cat <<'EOF' | tee opts.yaml > /dev/null", 1).target == "opts.yaml"  # type: ignore[union-attr]
    assert opened("cat <<'EOF' | tee -a opts.yaml", 1).target == ""  # type: ignore[union-attr]
    assert opened("cat > opts.yaml <<'EOF'", 1).target == "opts.yaml"  # type: ignore[union-attr]


def test_envsubst_output_is_not_the_body_and_a_piped_tee_is(tmp_path: Path) -> None:
    env = _one(tmp_path, "e", "export LEN=8192\ncat <<'EOF' | envsubst > opts.yaml\n"
               "max_seq_len: ${LEN}\nEOF\n" + SERVE)
    tee = _one(tmp_path, "t", "cat <<'EOF' | tee opts.yaml\nmax_seq_len: 8192\nEOF\n" + SERVE)
    assert env.verdict == "PASS"  # type: ignore[attr-defined]
    assert "of 40,960 tokens per replica" in (env.summary or "")  # type: ignore[attr-defined]
    assert "of 8,192 tokens per replica" in (tee.summary or "")  # type: ignore[attr-defined]


def test_a_write_inside_a_function_is_named_not_read(tmp_path: Path) -> None:
    o = _one(tmp_path, "f", "write() {\n  cat > opts.yaml <<'EOF'\nmax_seq_len: 8192\nEOF\n}\n"
             "write\n" + SERVE)
    assert "of 40,960 tokens per replica" in (o.summary or "")  # type: ignore[attr-defined]
    assert any("written by its heredoc of line 3 inside the function `write` (line 2), whose "
               "calls kvplan does not follow: write the file outside it to have it read" in n
               for n in o.notes)  # type: ignore[attr-defined]
