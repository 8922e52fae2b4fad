"""The engine releases a plain Python script's own pip commands pin (task h90readers): a
`subprocess.run(["pip", "install", "vllm==0.8.5"])`, `os.system("pip install vllm==0.8.5")` or
`subprocess.check_call([sys.executable, "-m", "pip", "install", ...])` runs pip as a notebook's
`!pip install vllm==0.8.5` does, and is read the same way: the commands of the script's calls that
run a program (kvplan.check.manifests.python_servers.starts, in line order), each read as the
shell text it runs, go through the one pip reader (launcher_sites.pip_pins: an exact pin is the
release, the last one replacing an earlier one; a range, a variable kvplan does not know, or a pip
that installs nothing, pip_commands.inert, is noted). Before, only a notebook's (and a Jupytext or
Databricks `.py` notebook's) pip lines were read, and a plain script's server was planned on the
engine profile's default release, "the one installed, which the script does not name"
(ebubekir-pulat/OptimEAGLE's FlashEAGLE/LIO/Chat_Template_Test.py: `subprocess.run(["uv", "pip",
"install", "sglang[all]>=0.5.3rc0"])` then SGLang's launch_server_cmd)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from kvplan.check.manifests.python_constructions import Imports


def script_pins(tree: ast.Module, imports: Imports, given: Callable[[int], dict[str, str]],
                ) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """engine -> (release, note) of the exact pins the script's pip commands hold, and the notes
    on the ones not read; each named by its call, `subprocess.run(...) (line 14)`; `given(line)`:
    the variables a command on that line starts with (os.environ sets before it)."""
    from kvplan.check.manifests.launcher_sites import pip_pins
    from kvplan.check.manifests.python_servers import starts

    text: list[str] = []
    where: list[str] = []
    env: list[dict[str, str]] = []
    for start in starts(tree, imports):
        for line in start.text.strip("\n").splitlines() or [""]:
            text.append(line)
            where.append(f"{start.what} (line {start.line})")
            env.append({**given(start.line), **start.env})
    if not text:
        return {}, []
    return pip_pins("\n".join(text), lambda n: where[n - 1], lambda n: env[n - 1])
