"""Task readfix, item 3: SGLang's `--config` file giving `context-length: false` (or another
word that is no integer) was refused as "argparse stops on 'false'", naming neither the file nor
the key. SGLang 0.5.8+ writes a bool key of a valued option as `--key false` (0.5.23
srt/utils/server_args_config_parser.py:185-200), before the command line's words; the option's
parser then stops (kvplan.check.manifests.config_file). The refusal now says which key of which
file gave the word. Input: tests/assets/check/corpus/user-repos/inferencepack-docker-compose.
sglang.yml (SOURCES.md) with its model path an HF id (Llama-3.1-8B: 32 heads, which its --tp 8
divides) and two of its options moved into a mounted --config file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke

ASSETS = Path(__file__).parents[1] / "assets" / "check"
INFERENCEPACK = ASSETS / "corpus" / "user-repos" / "inferencepack-docker-compose.sglang.yml"


def _compose(tmp_path: Path, context: str) -> Path:
    text = INFERENCEPACK.read_text()
    for old, new in (("--model-path /models/EXAONE-3.5-32B-Instruct",
                      "--model-path meta-llama/Llama-3.1-8B-Instruct --config /cfg/sglang.yaml"),
                     ("      --mem-fraction-static 0.80\n      --chunked-prefill-size 4096\n", ""),
                     ("      - /models:/models\n",
                      "      - /models:/models\n      - ./sglang.yaml:/cfg/sglang.yaml:ro\n")):
        assert old in text
        text = text.replace(old, new, 1)
    (tmp_path / "sglang.yaml").write_text("mem-fraction-static: 0.80\nchunked-prefill-size: 4096\n"
                                          f"context-length: {context}\n")
    f = tmp_path / "docker-compose.yml"
    f.write_text(text)
    return f


@pytest.mark.parametrize(("context", "word"), [("false", "false"), ("lots", "lots")])
def test_the_refusal_names_the_file_and_key(runner: CliRunner, tmp_path: Path, context: str,
                                            word: str) -> None:
    res = invoke(runner, "check", str(_compose(tmp_path, context)), "--gpu", "h100", "-f", "json")
    [r] = json.loads(res.output)["results"]
    assert (r["verdict"], res.exit_code) == ("FAIL", 1)
    assert r["reasons"][0] == (
        f"the engine refuses it: `--context-length {word}` comes from key context-length of the "
        "--config file sglang.yaml (mounted at /cfg/sglang.yaml): SGLang 0.5.23 parses "
        "--context-length with human_readable_int (srt/utils/common.py), which takes a whole "
        "number, SI suffixes k, M, G, T (powers of 1000) or IEC suffixes Ki, Mi, Gi, Ti (powers "
        f"of 1024), case-sensitive, so argparse stops on {word!r} (\"Invalid integer value\") "
        "(the image names no release: read as kvplan's default, 0.5.23)")


def test_a_number_in_the_file_is_planned(runner: CliRunner, tmp_path: Path) -> None:
    """The same file with `context-length: 32768` is read (the number of the refusal above
    would have been): no refusal, the context the file gives."""
    res = invoke(runner, "check", str(_compose(tmp_path, "32768")), "--gpu", "h100", "-f", "json")
    [r] = json.loads(res.output)["results"]
    assert (r["verdict"], r["reasons"], r["max_model_len_tokens"]) == ("PASS", [], 32768)
