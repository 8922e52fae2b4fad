"""The keywords a Python engine construction passes (kvplan.check.manifests.python_script): its
keyword arguments, a `**{...}` spread, the model given positionally, and the positional arguments
after it, refused where the engine takes none (vLLM's LLM from 0.9.1, SGLang's Engine) and read
in the order of a pinned release that takes them (vLLM before 0.9.1, kvplan.engines.vllm_python;
task h82vllmrel). Split from python_script.py along that seam."""

from __future__ import annotations

import ast

from kvplan.check.manifests.python_constructions import FIX, Construction
from kvplan.check.manifests.python_values import Value, resolve
from kvplan.deploy import Problem


def keywords(c: Construction, call: ast.Call,
             release: str | None = None) -> list[tuple[str, Value, int]]:
    """(name, value, line) of each keyword the call passes, `**{...}` spread; the model
    positional as its keyword. `**x` of unknown content is refused (any keyword may be in it).
    `release`: the pinned one, whose positional parameters are read where the engine took more
    than the model so (vLLM before 0.9.1, kvplan.engines.vllm_python; task h82vllmrel)."""
    out: list[tuple[str, Value, int]] = []
    if call.args and c.api.model_positional:
        out.append((c.api.model_keyword, resolve(call.args[0], c.ctx), call.args[0].lineno))
    key = c.api.args_keyword
    fix = (f"give it as {key}= (`{c.what[:-5]}({key}=...)`), or its fields as keywords" if key
           else f"give it by its keyword (`{c.what[:-5]}(model, tokenizer=...)`)")
    first = 1 if c.api.model_positional else 0
    for at, extra in enumerate(call.args[first:], first):
        # the start class's own call (not the args object's: a dataclass takes its fields in
        # order, and `from_engine_args(ea)` is c.start)
        if c.api.positional_refused and call is c.call and c.start is None and not c.launch:
            if _old_positional(c, release, at, extra, out):
                continue
            pinned = _positional_pin(c, release)
            c.problems.append(Problem("", f"{c.what} (line {c.line}) is given "
                                      f"{ast.unparse(extra)[:40]} as a positional argument: "
                                      f"{c.api.positional_refused}{pinned}; {fix}",
                                      extra.lineno))
            continue
        c.notes.append(f"line {extra.lineno}: positional argument {ast.unparse(extra)[:40]} "
                       "passed over: the constructor takes its options by keyword")
    for k in call.keywords:
        line = k.value.lineno
        if k.arg is not None:
            out.append((k.arg, resolve(k.value, c.ctx), line))
            continue
        got = resolve(k.value, c.ctx)
        if got.read and isinstance(got.value, dict):
            out.extend((str(name), Value(v, notes=got.notes), line)
                       for name, v in got.value.items())
            continue
        c.problems.append(Problem("**", f"**{ast.unparse(k.value)[:50]}: keywords of unknown "
                                  f"content ({got.why or 'not a mapping'}), any of which may set "
                                  f"the pool; {FIX}", line))
    return _once(c, out)


def _positional_pin(c: Construction, release: str | None) -> str:
    """What the pinned release says of a refused positional argument ("" when none is pinned
    or the engine's releases are not told apart)."""
    from kvplan.engines.python_api import positional_release

    read = positional_release(c.api)
    if read is None or release is None or not read.positional_gone(release):
        return ""
    return (f"; the script pins vllm {release}, at or after {read.POSITIONAL_GONE}, the first "
            f"release without them ({read.llm_source(read.POSITIONAL_GONE)}-"
            f"{read.positional_line(read.POSITIONAL_GONE)}: `model: str, *, ...`)")


def _old_positional(c: Construction, release: str | None, at: int, extra: ast.expr,
                    out: list[tuple[str, Value, int]]) -> bool:
    """A positional argument after the model on a pinned release that takes it (vLLM before
    0.9.1): read as the parameter that release's order puts there (appended to `out`), or
    noted as passed over, naming it, where kvplan did not read that release's order. False:
    the release refuses it (or none is pinned)."""
    from kvplan.check.engine_flags import OPTION_TABLES
    from kvplan.engines.python_api import placed_release, positional_release

    read = positional_release(c.api)
    if read is None or release is None or read.positional_gone(release) is not False:
        return False
    given = ast.unparse(extra)[:40]
    where = placed_release(c.api, release, OPTION_TABLES[c.api.engine].label)
    params = where.positionals() if where is not None else None
    name = params[at - 1] if params is not None and at - 1 < len(params) else None
    taken = (f"vLLM {release} takes the parameters of LLM.__init__ after the model "
             f"positionally, deprecated (a DeprecationWarning; vLLM PR #9424) until "
             f"{read.POSITIONAL_GONE} made them keyword only (PR #18802)")
    if name:
        seen = (read.llm_source(where.below) if where.kind == "read" else
                f"{read.llm_source(where.below)} and {read.llm_source(str(where.above))}, the "
                "releases read around it, agree")
        said = f"positional argument {at + 1}, {given}, read as {name}="
        earlier = next((i for i, n in enumerate(c.notes) if n.startswith(
            f"line {extra.lineno}: positional argument") and n.endswith(f"({seen})")), None)
        if earlier is None:
            c.notes.append(f"line {extra.lineno}: {said}: {taken}; each is the parameter "
                           f"of LLM.__init__ at that place ({seen})")
        else:  # one note for a call's positional arguments
            head, rest = c.notes[earlier].split(": vLLM ", 1)
            c.notes[earlier] = f"{head}; {said}: vLLM {rest}"
        out.append((name, resolve(extra, c.ctx), extra.lineno))
        return True
    read_old = [r for r in read.releases() if not read.positional_gone(r)]
    c.notes.append(f"line {extra.lineno}: positional argument {at + 1}, {given}, passed over: "
                   f"{taken}, in an order kvplan read for vLLM {', '.join(read_old)} only, "
                   f"which does not say what argument {at + 1} is in {release}: not read; give "
                   "it by keyword")
    return True


def _once(c: Construction, kws: list[tuple[str, Value, int]]) -> list[tuple[str, Value, int]]:
    """The keywords with a name given twice in one call (`tp_size=2, **{"tp_size": 4}`, or the
    model positional and its keyword) refused: Python raises TypeError ("got multiple values for
    keyword argument") before the constructor runs (task h81hostile: the second was read in
    silence, and the server planned)."""
    seen: dict[str, int] = {}
    out = []
    for name, value, line in kws:
        if name in seen:
            lines = f"line {line}" if seen[name] == line else f"lines {seen[name]} and {line}"
            c.problems.append(Problem(name, f"{name} is given twice to {c.what} ({lines}): "
                                      "Python raises TypeError (\"got "
                                      f"multiple values for keyword argument '{name}'\") before "
                                      "the engine starts; give it once", line))
            continue
        seen[name] = line
        out.append((name, value, line))
    return out
