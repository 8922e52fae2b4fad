"""Notebooks exported as Python by nbconvert (`jupyter nbconvert --to script`, Jupyter's and
Kaggle's "Download as .py"): `# In[N]:` (or `# In[ ]:`) opens each code cell, markdown cells are
`# ` comment lines, and IPython's own syntax is written as the calls IPython makes of it (IPython's
TransformerManager): a shell line `!cmd` is `get_ipython().system('cmd')`, `x = !cmd` is `x =
get_ipython().getoutput('cmd')`, a line magic `%pip install vllm==0.8.5` is
`get_ipython().run_line_magic('pip', 'install vllm==0.8.5')`, and a cell magic is
`get_ipython().run_cell_magic('bash', '', 'BODY')`, its whole cell on one line.

Task h90readers: such a file was read as a plain script, whose `get_ipython().system(...)` calls
run nothing kvplan reads, so unslothai/notebooks' python_scripts/Gemma3N_(2B)-Inference.py, which
starts SGLang with `get_ipython().system('nohup python -m sglang.launch_server ...')`, was "this
file mentions SGLang, but none of its commands starts a server". Each such call whose arguments
are literal strings is read back as the line it was written from, in place (the file's own
line numbers), and the file as the notebook it is (kvplan.check.manifests.notebook: its `!`
lines, pins and server starts). The same calls in a Jupytext percent script or in a `.py` file
without cell markers (a notebook exported cell by cell) are read so too. A cell magic is not read:
its cell's lines are one string on one line, which kvplan does not spread over the file's lines
(noted; read the `.ipynb`). A call with an argument that is not a literal string (a name, an
f-string) is Python and read as such (noted).

Task h91readers2: a shell cell magic, `get_ipython().run_cell_magic('bash', '', 'BODY')` (also
`sh`, and `script` with `bash` / `sh` as its line), is read as the %%bash cell it was written
from: its body is one shell script (a Chunk whose lines all sit on the call's line,
Chunk.on_line), its pip installs pin the release and a server it starts is planned, said at the
call's line with the line of the cell that starts it. Other cell magics (%%writefile, %%capture,
...) stay noted, not read."""

from __future__ import annotations

import ast
import re

from kvplan.check.manifests.notebook import Notebook

IN_MARK = re.compile(r"^# In\[[ 0-9]*\]:\s*$")
CALL = re.compile(r"^(\s*)(?:([A-Za-z_][\w.]*)\s*=\s*)?get_ipython\(\)\."
                  r"(system|getoutput|run_line_magic|run_cell_magic)\(.*\)\s*$")


def has_calls(lines: list[str]) -> bool:
    return any(CALL.match(line) for line in lines)


def unwrite(out: Notebook, at: int, line: str, cell: int = 1) -> str:
    """The IPython line a `get_ipython().X(...)` line (file line `at`, in code cell `cell`) was
    written from, or the line itself when it is none (a note says why); a shell cell magic's
    call is read as its cell (_shell_cell) and leaves the line blank to Python."""
    m = CALL.match(line)
    if m is None:
        return line
    indent, lhs, method = m.group(1), m.group(2), m.group(3)
    args = _literal_args(line.strip() if lhs is None else line.strip().split("=", 1)[1].strip())
    short = line.strip()[:60]
    if args is None:
        out.note(at, f"line {at}: `{short}` calls IPython with an argument kvplan does not read "
                     "as a literal string: read as Python, which runs no command kvplan reads")
        return line
    if method == "run_cell_magic":
        name = args[0] if args else "?"
        if lhs is None and _shell_cell(out, at, args, cell, short):
            return indent + "pass" if indent else ""
        out.note(at, f"line {at}: `{short}` is a %%{name} cell nbconvert wrote as one call: its "
                     "cell is not read (its lines are one string on this line); check the "
                     ".ipynb to have them read")
        return line
    if method in ("system", "getoutput") and len(args) == 1:
        text = ("!" if method == "system" or lhs else "!!") + args[0]
    elif method == "run_line_magic" and len(args) == 2:
        text = f"%{args[0]} {args[1]}".rstrip()
    else:
        return line
    if "\n" in text:  # not one line: read as Python
        return line
    out.note(at, f"line {at}: `{short}` is the IPython line `{text[:40]}` nbconvert wrote as "
                 "Python: read as that line")
    return indent + (f"{lhs} = " if lhs else "") + text


def _shell_cell(out: Notebook, at: int, args: list[str], cell: int, short: str) -> bool:
    """A `run_cell_magic('bash' | 'sh' | 'script', 'bash' | 'sh' | '', BODY)` call read as the
    shell cell it was written from (IPython's %%bash / %%sh / %%script bash: the body runs in
    one shell); False for another magic."""
    from kvplan.check.manifests.notebook import Chunk, _shell_magic

    if len(args) != 3:
        return False
    magic = _shell_magic(f"%%{args[0]} {args[1]}".strip())
    if magic is None:
        return False
    body = args[2].splitlines()
    out.add_shell((at, text, f"the {magic} cell of line {at}, its line {k}")
                  for k, text in enumerate(body, start=1))
    out.chunks.append(Chunk(at, body, cell, magic, on_line=True))
    out.note(at, f"line {at}: `{short}` is a {magic} cell nbconvert wrote as one call: its "
                 f"script ({len(body)} line(s), all on line {at}) is read as that cell's, in a "
                 "shell of its own")
    return True


def _literal_args(expr: str) -> list[str] | None:
    try:
        call = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(call, ast.Call) or call.keywords:
        return None
    out: list[str] = []
    for a in call.args:
        if not (isinstance(a, ast.Constant) and isinstance(a.value, str)):
            return None
        out.append(a.value)
    return out
