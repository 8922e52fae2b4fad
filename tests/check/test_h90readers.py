"""Reader gaps left at stop 80 and closed in task h90readers, each on a public file gathered with
the search tools (tests/assets/check/readers, SOURCES.md names each source): a plain script's
`set --` followed into `"$@"`, ..."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.manifests import shell
from kvplan.check.manifests.shell_lex import read_script
from tests.conftest import ASSETS

HERE = ASSETS / "check" / "readers"


def _outcomes(path: Path) -> list:  # noqa: ANN201
    return check_paths([str(path)]).outcomes


# ---- 5. `set --` then `"$@"` in a plain script (kvplan.check.manifests.shell_set) ----

ENTRY = HERE / "ctxcost-entrypoint.sh"  # Pedro105/contextExtension deploy/docker/entrypoint.sh
# the variables its image's ENV and the sweep's `docker run -e` give (deploy/docker/serve.Dockerfile)
GIVEN = {"MODEL": "Qwen/Qwen2.5-7B-Instruct", "ENABLE_PREFIX_CACHING": "true",
         "VLLM_CPU_BACKEND": "false"}


def test_set_args_are_followed_into_exec_in_a_plain_script() -> None:
    """`set -- vllm serve "$MODEL" --max-model-len "$MAX_MODEL_LEN" ...` (line 14), two `if`s
    appending to it (`set -- "$@" --enable-prefix-caching`, line 23; the else's `set -- "$@"
    --gpu-memory-utilization "$GPU_MEMORY_UTILIZATION"`, line 45), then `exec "$@"` (line 47).
    Before: `set -- vllm serve ...` itself was read as the server start (line 14, the words
    after `if`s lost) and a plain `"$@"` refused as "an argument of the script". With the
    variables the image gives, each `if` is decided and the server is the words set so far:
    the defaults the script writes (`${MAX_MODEL_LEN:-4096}`, `${MAX_NUM_SEQS:-256}`,
    `${GPU_MEMORY_UTILIZATION:-0.9}`), each at the line that wrote it."""
    [target] = shell.targets(ENTRY, ENTRY.read_text(), {}, "h100", GIVEN)
    assert target.problems == []
    engine = target.deployment.engine
    assert (target.deployment.model, engine.max_model_len, engine.max_num_seqs,
            engine.gpu_memory_utilization, engine.enable_prefix_caching) == \
        ("qwen2.5-7b", 4096, 256, 0.9, True)
    lines = target.doc.lines
    assert (lines[("model",)], lines[("engine", "max_model_len")],
            lines[("engine", "max_num_seqs")], lines[("engine", "enable_prefix_caching")],
            lines[("engine", "gpu_memory_utilization")]) == (14, 15, 16, 23, 45)


def test_set_args_from_undecided_alternatives_are_refused() -> None:
    """Without those variables, the `if`s of lines 22 and 34 are undecided and have an else:
    `"$@"` holds one branch's words or the other's, and the server is refused for it, as a
    server started inside such a branch is (before: `set -- vllm serve` read as the start)."""
    [o] = _outcomes(ENTRY)
    assert (o.verdict, o.line) == ("ERROR", 14)
    assert o.problems[0].message.startswith(
        'this `vllm serve` runs the words `"$@"` holds, and a `set --` in the `if` of line 22 '
        "gives some of them: its branches are alternatives")


def test_set_args_shift_and_function_arguments() -> None:
    """`shift` drops the first parameter; `"$@"` inside a function is the function's own
    arguments (kept as written); `set -- "$@" --x` appends; before any `set --`, `"$@"` stays
    the script's arguments."""
    script = read_script('echo "$@"\nset -- serve m --max-model-len 8192\nshift\n'
                         'f() { echo "$@"; }\nset -- "$@" -tp 2\nexec vllm serve "$@"\n')
    words = [c.words for c, _, _ in script.commands]
    assert words[0] == ["echo", "$@"]
    assert ["echo", "$@"] in words[1:]  # the function body's
    assert words[-1] == ["vllm", "serve", "m", "--max-model-len", "8192", "-tp", "2"]
    assert script.commands[-1][0].lines == [6, 6, 2, 2, 2, 5, 5]
