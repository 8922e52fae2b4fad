"""argparse's defaults in a Python script (task h61pyleft): `args.x` of `args =
parser.parse_args()` is the `default=` of the add_argument whose dest is x, converted by `type=`
when it is a string (as argparse does), said in a note; an option without a default, a required
or positional one, and what kvplan does not follow (parse_known_args, set_defaults, subparsers)
stay ERRORs naming the option and why (kvplan.check.manifests.python_argparse)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.cli import app

HEAD = "import argparse\nfrom vllm import LLM\n"


def _one(tmp_path: Path, text: str):  # noqa: ANN202
    path = tmp_path / "run.py"
    path.write_text(HEAD + text)
    [t] = read_targets(path, {})
    return t


def _problems(t) -> str:  # noqa: ANN001
    return " | ".join(f"{p.field} line {p.line}: {p.message}" for p in t.problems)


def test_defaults_with_type_dest_and_a_group_are_read(tmp_path: Path) -> None:
    t = _one(tmp_path, 'def main():\n'
             '    parser = argparse.ArgumentParser()\n'
             '    parser.add_argument("--model", default="Qwen/Qwen3-8B")\n'
             '    parser.add_argument("-l", "--max-model-len", type=int, default="4096")\n'
             '    mem = parser.add_argument_group("memory")\n'
             '    mem.add_argument("--gmu", dest="util", type=float, default=0.8)\n'
             '    parser.add_argument("--eager", action="store_true")\n'
             '    args = parser.parse_args()\n'
             '    return LLM(model=args.model, max_model_len=args.max_model_len,\n'
             '               gpu_memory_utilization=args.util, enforce_eager=args.eager)\n')
    d = t.deployment
    assert d is not None, _problems(t)
    e = d.engine
    assert (d.model, e.max_model_len, e.gpu_memory_utilization, e.enforce_eager) == \
        ("qwen3-8b", 4096, 0.8, False)
    assert ("args.max_model_len: argparse's default 4096 for --max-model-len (line 6) is used, "
            "the value the script runs with when its command line does not give "
            "--max-model-len, which can change it") in t.notes
    assert any(n.startswith("args.eager: argparse's default False for --eager") for n in t.notes)


def test_a_non_string_default_is_not_converted_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    # argparse applies type= to a string default only: type=int leaves 0.85 a float
    t = _one(tmp_path, 'p = argparse.ArgumentParser()\n'
             'p.add_argument("--gmu", type=int, default=0.85)\n'
             'p.add_argument("--len", type=int, default="8k")\n'
             'p.add_argument("--tp", type=lambda s: int(s), default="2")\n'
             'args = p.parse_args()\n'
             'LLM(model="Qwen/Qwen3-8B", gpu_memory_utilization=args.gmu, max_model_len=args.len,\n'
             '    tensor_parallel_size=args.tp)\n')
    said = _problems(t)
    assert "gpu_memory_utilization" not in said
    assert ("max_model_len line 8: args.len: the command line's --len (argparse, line 5): "
            "argparse's type=int of its default '8k' fails when the script runs (invalid literal "
            "for int() with base 10: '8k')") in said
    assert ("args.tp: the command line's --tp (argparse, line 6): type=lambda s: int(s) "
            "converts its default '2' when the script runs, which kvplan does not do") in said


def test_no_default_required_and_positional_stay_errors(tmp_path: Path) -> None:
    t = _one(tmp_path, 'p = argparse.ArgumentParser()\n'
             'p.add_argument("model")\n'
             'p.add_argument("--tp", type=int, required=True, default=1)\n'
             'p.add_argument("--max-len", type=int)\n'
             'args = p.parse_args()\n'
             'LLM(model=args.model, tensor_parallel_size=args.tp, max_model_len=args.max_len)\n')
    said = _problems(t)
    assert ("model line 8: args.model: the command line's model (argparse, line 4), a "
            "positional argument: given on the command line the script is run with") in said
    assert "args.tp: the command line's --tp (argparse, line 5), required=True" in said
    assert ("args.max_len: the command line's --max-len (argparse, line 6): no default (None), "
            "so the value is the command line's") in said


def test_what_is_not_followed_says_why(tmp_path: Path) -> None:
    known = _one(tmp_path, 'p = argparse.ArgumentParser()\np.add_argument("--tp", default=2)\n'
                 'args, rest = p.parse_known_args()\n'
                 'LLM(model="Qwen/Qwen3-8B", tensor_parallel_size=args.tp)\n')
    assert "args.tp: an option of the command line the script is run with (argparse)" in \
        _problems(known)
    for extra, why in (('p.set_defaults(tp=4)\n', "set_defaults(...) call"),
                       ('s = p.add_subparsers()\n', "subparsers"),
                       ('p.add_argument("--tp", default=8)\n', "added 2 times")):
        t = _one(tmp_path, 'p = argparse.ArgumentParser()\np.add_argument("--tp", default=2)\n' +
                 extra + 'args = p.parse_args()\n'
                 'LLM(model="Qwen/Qwen3-8B", tensor_parallel_size=args.tp)\n')
        assert why in _problems(t) and t.deployment is None
    listed = _one(tmp_path, 'p = argparse.ArgumentParser()\np.add_argument("--tp", default=2)\n'
                  'args = p.parse_args(["--tp", "4"])\n'
                  'LLM(model="Qwen/Qwen3-8B", tensor_parallel_size=args.tp)\n')
    assert "parsed from p.parse_args(['--tp', '4']), arguments the file passes" in \
        _problems(listed)


def test_cli_reads_an_argparse_default(tmp_path: Path) -> None:
    path = tmp_path / "offline.py"
    path.write_text(HEAD + 'p = argparse.ArgumentParser()\n'
                    'p.add_argument("--model", default="Qwen/Qwen3-8B")\n'
                    'p.add_argument("--max-model-len", type=int, default=8192)\n'
                    'args = p.parse_args()\n'
                    'llm = LLM(args.model, max_model_len=args.max_model_len)\n')
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100", "-f", "json"])
    [row] = json.loads(res.output)["results"]
    assert (res.exit_code, row["verdict"]) == (0, "PASS")
    assert "argparse's default 'Qwen/Qwen3-8B' for --model (line 4) is used" in json.dumps(row)


def test_the_public_scripts_errors_name_the_option() -> None:
    """Round 1's two argparse scripts (tests/assets/check/python, SOURCES.md): still ERRORs (no
    verdict moved); of their `args.x`, only the model is refused, which each takes from the
    command line without a default; --tp-size 1 and --mem-fraction 0.5 are argparse's defaults,
    read (sglang-bnb-4bit.py's fork keywords stay refused as before)."""
    from tests.conftest import ASSETS

    py = ASSETS / "check" / "python"
    [olmo] = read_targets(py / "sglang-olmo-generate.py", {})
    assert [(p.field, p.message.split(": given")[0]) for p in olmo.problems] == [
        ("model_path", "args.model: the command line's model (argparse, line 12), a positional "
         "argument")]
    [bnb] = read_targets(py / "sglang-bnb-4bit.py", {})
    assert [(p.field, p.message.split(": given")[0]) for p in bnb.problems
            if "args." in p.message] == [
        ("model_path", "args.model: the command line's --model (argparse, line 16), "
         "required=True")]


def test_args_passed_to_a_function_names_the_parameter(tmp_path: Path) -> None:
    """`def main(args): LLM(model=args.model)` with the parser under `if __name__`: the file
    does give a default, so the refusal says args is main's parameter, whose parse kvplan does
    not follow (task h62review: it said 'which the file does not fix')."""
    t = _one(tmp_path, 'def main(args):\n    LLM(model=args.model)\n\n'
             'if __name__ == "__main__":\n    p = argparse.ArgumentParser()\n'
             '    p.add_argument("--model", default="Qwen/Qwen3-8B")\n    main(p.parse_args())\n')
    assert ("model line 4: args.model: args is a parameter of function main, whose value comes "
            "from its callers (line 3); kvplan does not follow its callers to a parser and its "
            "defaults") in _problems(t) and t.deployment is None


def test_keywords_unpacked_into_add_argument_are_not_passed_over(tmp_path: Path) -> None:
    # `**opts` can hold default=, type= or action=: kvplan dropped it, so a default given there
    # read 'no default (None)', and a type= there was not applied ('8192' read as a str)
    t = _one(tmp_path, 'p = argparse.ArgumentParser()\n'
             'opts = {"default": "Qwen/Qwen3-8B"}\n'
             'p.add_argument("--model", **opts)\n'
             'p.add_argument("--max-model-len", default="8192", **{"type": int})\n'
             'args = p.parse_args()\n'
             'LLM(model=args.model, max_model_len=args.max_model_len)\n')
    said = _problems(t)
    assert ("model line 8: args.model: the command line's --model (argparse, line 5): "
            "**opts can set its default, type or action, which kvplan does not follow") in said
    assert ("max_model_len line 8: args.max_model_len: the command line's --max-model-len "
            "(argparse, line 6): **{'type': int} can set its default, type or action, which "
            "kvplan does not follow") in said


def test_a_positional_with_nargs_optional_takes_its_default(tmp_path: Path) -> None:
    # argparse gives a positional of nargs="?" its default when the command line has none
    # (Lib/argparse.py _get_values, :2474-2481 in Python 3.11.7, type= applied to a string
    # default); kvplan refused it as 'a positional argument: given on the command line'
    t = _one(tmp_path, 'p = argparse.ArgumentParser()\n'
             'p.add_argument("model", nargs="?", default="Qwen/Qwen3-8B")\n'
             'p.add_argument("max_len", nargs="?", type=int, default="4096")\n'
             'args = p.parse_args()\n'
             'LLM(model=args.model, max_model_len=args.max_len)\n')
    d = t.deployment
    assert d is not None, _problems(t)
    assert (d.model, d.engine.max_model_len) == ("qwen3-8b", 4096)
    assert ("args.model: argparse's default 'Qwen/Qwen3-8B' for model (line 4) is used, the "
            "value the script runs with when its command line does not give model, which can "
            "change it") in t.notes
    # a plain positional is still the command line's
    t = _one(tmp_path, 'p = argparse.ArgumentParser()\np.add_argument("model")\n'
             'args = p.parse_args()\nLLM(model=args.model)\n')
    assert "a positional argument: given on the command line" in _problems(t)


def test_a_boolean_optional_action_takes_its_default(tmp_path: Path) -> None:
    # argparse.BooleanOptionalAction (--x / --no-x) keeps the default it is given when neither
    # flag is on the command line (Lib/argparse.py BooleanOptionalAction.__init__ passes
    # default= on, :885-913 in Python 3.11.7); kvplan refused it as 'action=... whose value
    # kvplan does not follow'
    t = _one(tmp_path, 'p = argparse.ArgumentParser()\n'
             'p.add_argument("--model", default="Qwen/Qwen3-8B")\n'
             'p.add_argument("--enforce-eager", action=argparse.BooleanOptionalAction,\n'
             '               default=True)\n'
             'args = p.parse_args()\n'
             'LLM(model=args.model, enforce_eager=args.enforce_eager)\n')
    d = t.deployment
    assert d is not None, _problems(t)
    assert d.engine.enforce_eager is True
    assert ("args.enforce_eager: argparse's default True for --enforce-eager (line 5) is used, "
            "the value the script runs with when its command line does not give "
            "--enforce-eager, which can change it") in t.notes
