"""One deployment that its launcher may place on any of several GPUs (a SkyPilot task's
candidate accelerators, `{L4:1, A100:1}`; the GPUs a dstack `resources.gpu: 24GB` matches):
each candidate is judged as its own deployment and the verdict says on which it starts. PASS
when it starts on every candidate, FAIL when on none, WARN when on some (the launcher may pick
one it does not start on) or when a candidate could not be checked (named in a note); ERROR
when none could be checked."""

from __future__ import annotations

from collections.abc import Callable

from kvplan.check.outcome import ERROR, FAIL, PASS, WARN, Outcome
from kvplan.check.target import Target
from kvplan.deploy import Problem

# a candidate's own GPU notes, said by the verdict's list of candidates
OWN = ("SkyPilot's ", "resources.accelerators ", "dstack's ", "resources.gpu ")


def _why(o: Outcome) -> str:
    """The first reason a candidate does not start, or why it was not checked."""
    if o.verdict == ERROR:
        return o.problems[0].message if o.problems else "cannot be checked"
    if o.reasons:
        return o.reasons[0]
    if o.numbers is not None:
        shown = [r for r in o.numbers.reasons if not r.startswith("holds ")]
        if shown:
            return shown[0]
    return o.summary or "does not start"


def judge_alternatives(target: Target, judge: Callable[[Target], Outcome]) -> Outcome:
    """The verdict over every alternative of `target` (each judged by `judge`)."""
    judged = [(t.name or "", judge(t)) for t in target.alternatives]
    out = Outcome(file=target.file, verdict=ERROR, line=target.line, name=target.name,
                  kind=target.kind, notes=list(target.notes))
    checked = [(n, o) for n, o in judged if o.verdict != ERROR]
    if not checked:
        problems: list[Problem] = []
        for _, o in judged:
            problems += [p for p in o.problems if p.message not in
                         {q.message for q in problems}]
        out.problems = problems
        out.line = next((p.line for p in problems if p.line is not None), out.line)
        return out
    first = checked[0][1]
    out.server, out.model = first.server, first.model
    out.engine, out.engine_version = first.engine, first.engine_version
    if len({o.engine_version for _, o in checked}) > 1:  # an option's own image (SkyPilot)
        out.notes.append("the release differs by candidate (the first's is named above): " +
                         "; ".join(f"{n}: {o.engine} {o.engine_version or '(default version)'}"
                                   for n, o in checked))
    held: dict[str, list[str]] = {}  # each note -> the candidates it was said of
    for n, o in checked:
        for note in o.notes:
            if not note.startswith(OWN):
                held.setdefault(note, []).append(n)
    for note, names in held.items():  # what every candidate shares once, the rest with its names
        out.notes.append(note if len(names) == len(checked) else f"{', '.join(names)}: {note}")
    starts = [n for n, o in checked if o.verdict in (PASS, WARN)]
    partial = [n for n, o in checked if o.verdict == WARN]
    fails = [(n, o) for n, o in checked if o.verdict == FAIL]
    errors = [(n, o) for n, o in judged if o.verdict == ERROR]
    for n, o in [*fails, *errors]:
        what = "does not start" if o.verdict == FAIL else "not checked"
        out.notes.append(f"{n}: {what}: {_why(o)}")
    for n, o in judged:
        if o.verdict == WARN and o.summary:
            out.notes.append(f"{n}: {o.summary}")
    said = f"{target.launcher or 'its launcher'} may launch any of them"
    if not starts:
        out.verdict = FAIL
        out.reasons = [f"does not start on any candidate GPU ({', '.join(n for n, _ in fails)}"
                       f"; {said}): {_why(fails[0][1])}"]
        out.line = fails[0][1].line or out.line
        return out
    if not fails and not errors and not partial:
        out.verdict = PASS
        out.summary = f"starts on every candidate GPU: {', '.join(starts)} ({said}); no traffic " \
                      "declared"
        return out
    out.verdict = WARN
    no = [n for n, _ in fails] + [f"{n} (not checked)" for n, _ in errors]
    out.summary = (f"starts on: {', '.join(starts)}; would not start on: {', '.join(no) or 'none'}"
                   f" ({said}; drop the candidates it does not start on)")
    return out
