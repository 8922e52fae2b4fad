"""Help text in words: `MODEL_OR_FILE`, `--device DEVICE`, `--format table|json|csv`.

Typer (0.27.2 to 0.29) prints each argument's Python type beside its name (`MODEL_OR_FILE
<str>`), braces around required arguments in the usage line (`{MODEL_OR_FILE}`), no `...` after
an argument with a metavar that takes several values (0.28), and a type name for an option
without a metavar (`--vendor <str>`, `--output <path>`). kvplan's commands use this command class
(typer's documented `cls=` hook, a subclass of `typer.core.TyperCommand`) so that help shows what
a user types instead: the argument's name, the choices of a choice option, and an upper-case word
for any other value. The parsing of arguments is untouched; a value an option's callback or type
refuses (typer.BadParameter) prints kvplan's one `error:` line, exit 2, as every other input
error does, instead of the parser's usage banner (common.refuse_bad_value).
"""

from __future__ import annotations

import re
from typing import Any

import typer
from typer.core import TyperCommand

from kvplan.cli.common import refuse_bad_value

_TYPE = re.compile(r" <([^<>]*)>$")
# a type name typer prints -> the word kvplan prints in its place (None: the option's own name)
_WORDS = {"path": "FILE", "Path": "FILE"}


def _word(param: Any, label: str) -> str:
    if "|" in label:  # the choices of a choice option: already words
        return label.removeprefix("list[").removesuffix("]")
    if label in _WORDS:
        return _WORDS[label]
    return str(param.name or "VALUE").upper()


def help_name(param: Any, name: str) -> str:
    """`name` as typer formats a parameter's help column, with the type name put in words."""
    match = _TYPE.search(name)
    if match is None:
        return name
    head = name[: match.start()]
    if getattr(param, "param_type_name", "") == "argument":  # the name is already the word
        return head
    return f"{head} {_word(param, match.group(1))}"


def usage_piece(piece: str) -> str:
    """`{PATH}...` -> `PATH...`: a bare upper-case name is required, `[NAME]` optional."""
    return re.sub(r"^\{([^{}]*)\}", r"\1", piece)


class WordsCommand(TyperCommand):
    """A typer command whose help names values in words (see the module docstring)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except typer.BadParameter as err:
            if type(err) is not typer.BadParameter:  # a missing argument: the usage helps
                raise
            refuse_bad_value(err)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            got = list(param.get_usage_pieces(ctx))
            # an argument taking several values: `PATH...` (typer 0.28 drops the dots where
            # the argument has a metavar; 0.29 prints them)
            if getattr(param, "nargs", 1) != 1 and got and not got[-1].endswith("..."):
                got[-1] += "..."
            pieces += got
        return [usage_piece(piece) for piece in pieces]

    def format_options(self, ctx: Any, formatter: Any) -> None:
        args: list[tuple[str, str]] = []
        opts: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            row = (help_name(param, record[0]), record[1])
            (args if param.param_type_name == "argument" else opts).append(row)
        for title, rows in (("Arguments", args), ("Options", opts)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
