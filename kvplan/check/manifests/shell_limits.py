"""What kvplan reads of one shell script, at most (docs/limits.md), and the one ERROR past each
limit. Split from kvplan.check.manifests.shell_lex along that seam (task h100readers)."""

from __future__ import annotations

# docs/limits.md: the largest stored script is under 2 KB, its longest line 412 characters. One
# of 2.4 MB took 11 s, a 2 MB line 47 s (shlex grows a token a character at a time), and 60 lines
# of `A="$A$A"` double A to 2^61 characters, without end (task h70hostile)
MAX_SCRIPT_BYTES = 512 * 1024  # as a Python script's (python_script.MAX_CODE_BYTES)
MAX_COMMAND_CHARS = 64 * 1024  # one command with its continuation lines
MAX_VALUE_CHARS = 64 * 1024  # a variable's value or a word, once expanded
# server starts in one script or one notebook's shell lines, as a Python script's engine
# constructions (python_script.MAX_CONSTRUCTIONS): each is planned (about 4 ms of CPU), and a
# notebook of 3,000 `!vllm serve` lines took 11 s once read in linear time (task h90hostile)
MAX_SERVERS = 64


def too_many_servers(count: int, line: int) -> ScriptTooLarge:
    """The one ERROR of a script or notebook that starts more than MAX_SERVERS servers, on the
    line of the first one past the limit."""
    return ScriptTooLarge(line, (
        f"{count:,} server starts, over the {MAX_SERVERS} kvplan reads in one file "
        "(docs/limits.md); describe the deployments in a kvplan/v1 file"))


class ScriptTooLarge(Exception):
    """A script past a limit above: the line and message of its one ERROR."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


def too_long(line: int) -> ScriptTooLarge:
    return ScriptTooLarge(line, (
        f"a word of this command expands to more than {MAX_VALUE_CHARS:,} characters, over "
        "what kvplan reads in a launch script (docs/limits.md); write the value out, or describe "
        "the deployment in a kvplan/v1 file"))
