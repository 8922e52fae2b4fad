"""`kvplan check` output: text for people, json for tools, junit for CI, github annotations."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

from kvplan.check import ERROR, FAIL, PASS, WARN, YAML_SUFFIXES, Outcome, Report
from kvplan.check.discover import NO_MATCH, NOT_FOUND
from kvplan.render.clip import printable  # a value's newline is never a line of its own


class CheckFormat(str, Enum):
    text = "text"
    json = "json"
    junit = "junit"
    github = "github"


def where(o: Outcome, line: int | None = None, path: bool = True) -> str:
    """`file:line` (github, junit), or `line N` under the file's own heading (text)."""
    line = line if line is not None else o.line
    if not path:
        return f"line {line}" if line else "file"
    return f"{o.file}:{line}" if line else o.file


def summary_text(o: Outcome) -> str:
    """The deciding numbers in one phrase."""
    if o.summary is not None:
        return f"{o.summary} ({o.model}, {o.engine} {o.engine_version or '(default version)'})"
    n = o.numbers
    if n is None:
        return "; ".join(o.reasons)
    cmp = ">=" if n.users_held >= n.users_required else "<"
    start = "yes" if n.would_start else "no"
    text = (
        f"holds {n.users_held:,} users {cmp} {n.users_required:,} required; starts: {start} "
        f"({o.model} on {n.replicas} replica(s) x {n.gpus_per_replica} {o.gpu}"
    )
    if o.engine and o.engine != "ideal":
        text += f", {o.engine} {o.engine_version or '(default version)'} profile"
    elif o.server:
        text += f", {o.server} checked with ideal arithmetic"
    return text + ")"


def problem_lines(o: Outcome) -> list[tuple[int | None, str]]:
    return [(p.line if p.line is not None else o.line, p.text()) for p in o.problems] or [
        (o.line, "cannot be checked")
    ]


def verdict_lines(o: Outcome, path: bool = True) -> list[str]:
    """The text lines of one outcome: the verdict line, then any alternatives and notes."""
    if o.verdict == ERROR:
        # every finding on the deployment (task h71sglfix): what its engine refuses too, and
        # its notes, under its problems
        lines = [f"ERROR {where(o, line, path)}: {text}" for line, text in problem_lines(o)]
        lines += [f"      refused too, {where(o, p.line, path)}: {p.text()}" for p in o.refused]
        return lines + [f"      note: {n}" for n in o.notes]
    head = f"{o.verdict:<5} {where(o, None, path)}  {o.label}: {summary_text(o)}"
    lines = [head]
    if o.verdict == FAIL and o.numbers is None:
        head = f"{o.verdict:<5} {where(o, None, path)}  {o.label}: {o.reasons[0]}"
        lines = [head, *(f"      {r}" for r in o.reasons[1:])]
    elif o.verdict == FAIL:
        assert o.numbers is not None
        reasons = [r for r in o.numbers.reasons if not r.startswith("holds ")]
        for reason in reasons:
            lines.append(f"      {reason}")
        if o.fix_text:
            lines.append(f"      fix: {o.fix_text[0]}")
            lines.extend(f"      or:  {t}" for t in o.fix_text[1:])
        elif o.numbers.p95_beyond_model:
            lines.append("      fix: none for this model: its longest context is below the p95")
        else:
            lines.append("      fix: no single change passes; plan it with `kvplan fleet`")
    lines.extend(f"      note: {n}" for n in o.notes)
    return lines


def footer(report: Report) -> str:
    c = report.counts()
    files = len({o.file for o in report.outcomes})
    text = (
        f"{len(report.outcomes)} checked in {files} file(s): {c[PASS]} PASS, {c[FAIL]} FAIL, "
        + (f"{c[WARN]} WARN, " if c[WARN] else "") + f"{c[ERROR]} ERROR"
    )
    if report.skipped:
        yaml = all(Path(f).suffix in YAML_SUFFIXES for f in report.skipped)
        text += f"; {len(report.skipped)} {'YAML ' if yaml else ''}file(s) without a " \
                "deployment skipped"
    text += scripts_skipped(report.scripts_skipped)
    text += "".join(f"\nfolder not walked: {printable(folder)}: {why}; name a file in it to "
                    "check that file" for folder, why in report.folders_skipped)
    text += "".join(f"\nnot checked: {printable(file)}: {why}"
                    for file, why in report.patches_skipped)
    if report.ignored:
        text += f"; {len(report.ignored)} unreadable non-workload document(s) ignored"
        text += "".join(f"\nignored: {printable(item)}" for item in report.ignored)
    if report.checked_none and not c[ERROR]:
        if report.scripts_skipped:
            text += ("\nerror: no deployment was checked (no kvplan/v1 file, and kvplan found "
                     "no start of vLLM, SGLang or TensorRT-LLM in the script(s) it passed over; "
                     "name one to have it read and told why); the gate fails")
        else:
            text += "\nerror: no deployment was checked (nothing here runs vLLM, SGLang or " \
                    "TensorRT-LLM, and no kvplan/v1 file); the gate fails"
    return text


def scripts_skipped(passed: list[tuple[str, str, str]]) -> str:
    """The footer's clause on the scripts a folder walk found and did not read
    (kvplan.check.discover): how many of each kind, and why; empty when none."""
    if not passed:
        return ""
    from kvplan.check.discover import NO_ENGINE, NOT_TEXT, PYTHON, SHELL

    def kinds(items: list[tuple[str, str, str]]) -> str:
        counts = {k: sum(kind == k for _, kind, _ in items) for k in (SHELL, PYTHON)}
        return ", ".join(f"{n} {k}" for k, n in counts.items() if n)

    none = [p for p in passed if p[2].startswith(NO_ENGINE)]
    unread = [p for p in passed if not p[2].startswith(NO_ENGINE)]
    named = sum(p[2] != NO_ENGINE for p in none)  # they mention an engine
    verb = "mentions" if named == 1 else "mention"
    said = (f"; {named} of them {verb} an engine: name one to be told what kvplan found"
            if named else "")
    if not unread:
        return (f"; {len(passed)} script(s) in the folders walked skipped: they start no vLLM, "
                f"SGLang or TensorRT-LLM server or engine ({kinds(none)}{said})")
    parts = []
    if none:
        parts.append(f"{len(none)} start no vLLM, SGLang or TensorRT-LLM server or engine "
                     f"({kinds(none)}{said})")
    if unread:
        parts.append(f"{len(unread)} {NOT_TEXT} ({kinds(unread)}: "
                     + ", ".join(printable(Path(f).name) for f, _, _ in unread[:3])
                     + (", ..." if len(unread) > 3 else "") + ")")
    return f"; {len(passed)} script(s) in the folders walked skipped: " + "; ".join(parts)


def wrap(line: str, width: int | None) -> list[str]:
    """One verdict line folded at `width` columns, continuation lines indented 6."""
    if width is None or len(line) <= width:
        return [line]
    import textwrap

    lead = len(line) - len(line.lstrip(" "))
    return textwrap.wrap(line, width, initial_indent="", subsequent_indent=" " * max(lead, 6),
                         break_long_words=False, break_on_hyphens=False) or [line]


def _missing(o: Outcome) -> bool:
    """Whether the outcome is a path named on the command line that names nothing."""
    return o.verdict == ERROR and o.line is None and any(
        p.message in (NOT_FOUND, NO_MATCH) for p in o.problems)


def render_text(report: Report, width: int | None = None) -> str:
    """Each file's path once, then its verdicts; lines folded at `width` (None: not folded)."""
    lines: list[str] = []
    current = None
    for o in report.outcomes:
        if o.file != current:
            lines.append(printable(o.file))
            current = o.file
        # a path that names nothing says so by its name, as a glob that matches nothing does
        # ('ERROR file: no such file or folder' read as if some file were missing; task uxfix)
        for line in verdict_lines(o, path=_missing(o)):
            lines.extend(wrap(printable(line), width))
    for line in footer(report).splitlines():  # the summary and each ignored document fold too
        lines.extend(wrap(line, width))
    return "\n".join(lines) + "\n"


# the JSON key of each figure of a judged deployment, and its field of check.numbers.Numbers
FIGURES = (
    ("users_held", "users_held"), ("users_required", "users_required"),
    ("would_start", "would_start"), ("replicas", "replicas"), ("gpus", "gpus"),
    ("gpus_per_replica", "gpus_per_replica"), ("users_per_replica", "users_per_replica"),
    ("kv_users_per_replica", "kv_users_per_replica"), ("limited_by", "limited_by"),
    ("kv_pool_bytes_per_gpu", "kv_pool_bytes"), ("max_sequence_bytes_per_gpu", "max_sequence_bytes"),
    ("max_model_len_tokens", "max_model_len"),
    ("longest_context_that_fits_tokens", "longest_context_tokens"), ("idle_gpus", "idle_gpus"),
)


def record(o: Outcome) -> dict[str, Any]:
    """One JSON object per outcome; units in every name."""
    n = o.numbers
    rec: dict[str, Any] = {
        "file": o.file,
        "line": o.line,
        "name": o.name,
        "kind": o.kind,
        "verdict": o.verdict,
        "model": o.model,
        "gpu": o.gpu,
        "engine": o.engine,
        "engine_version": o.engine_version,
        "server": o.server,
        # the verdict's phrase when it has no numbers to give it: a WARN's "no GPU named; starts
        # on: ...", a start-up-only PASS or FAIL ("no traffic declared")
        "summary": o.summary,
    }
    # every result carries every key, null where a figure does not apply (an ERROR, a FAIL
    # before any arithmetic): until task srefirst those results left out the fourteen figures
    # and `traffic_basis`, and only an ERROR had `refused`, so `r["users_held"]` raised KeyError
    rec.update({key: None if n is None else getattr(n, attr) for key, attr in FIGURES})
    # a FAIL before any arithmetic gives what the engine refuses; else the verdict's reasons
    rec["reasons"] = list(o.reasons) if n is None else list(n.reasons)
    t = n.traffic if n is not None else None  # a spread of lengths or an SLO: fleet's bases
    rec["traffic_basis"] = None if t is None else {
        "users_per_replica_at_mean": t.users_at_mean,
        "users_per_replica_at_risk": t.users_at_risk,
        "overflow_risk": t.risk,
        "risk_method": t.risk_method,
        "users_per_replica_slo": t.users_slo,
        "slo_tokens_per_s_per_user": t.slo_tokens_per_s,
    }
    rec["fixes"] = [
        {
            "change": f.change,
            "from": f.old,
            "to": f.new,
            "text": text,
            "users_held": f.numbers.users_held,
            "gpus": f.numbers.gpus,
        }
        for f, text in zip(o.fixes, o.fix_text, strict=True)
    ]
    rec["errors"] = [{"field": p.field, "line": p.line, "message": p.message} for p in o.problems]
    # what the engine refuses too, beside an ERROR's errors (task h71sglfix); empty otherwise
    rec["refused"] = [{"field": p.field, "line": p.line, "message": p.message}
                      for p in o.refused] if o.verdict == ERROR else []
    rec["notes"] = list(o.notes)
    return rec


def render_json(report: Report) -> str:
    doc = {
        "summary": {
            # every count, WARN's too (until task h100review `warn` was left out when 0, so a
            # script reading summary.warn failed on a run without one)
            **{k.lower(): v for k, v in report.counts().items()},
            "exit_code": report.exit_code,
            "skipped_files": report.skipped,
            "skipped_scripts": [{"file": f, "kind": k, "why": w}
                                for f, k, w in report.scripts_skipped],
            "skipped_folders": [{"folder": f, "why": w} for f, w in report.folders_skipped],
            "skipped_patches": [{"file": f, "why": w} for f, w in report.patches_skipped],
        },
        "results": [record(o) for o in report.outcomes],
    }
    return json.dumps(doc, indent=2) + "\n"


def render_junit(report: Report) -> str:
    import xml.etree.ElementTree as ET  # only for this format: the others start faster

    c = report.counts()
    attrs = {
        "name": "kvplan check",
        "tests": str(len(report.outcomes)),
        "failures": str(c[FAIL]),
        "errors": str(c[ERROR]),
    }
    root = ET.Element("testsuites", attrs)
    suite = ET.SubElement(root, "testsuite", {**attrs, "skipped": "0"})
    for o in report.outcomes:
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": o.file, "name": o.label, "file": o.file, "line": str(o.line or 0)},
        )
        lines = verdict_lines(o)
        if o.verdict == FAIL:
            el = ET.SubElement(case, "failure", {"message": summary_text(o), "type": "FAIL"})
            el.text = "\n".join(lines)
        elif o.verdict == ERROR:
            first = problem_lines(o)[0][1]
            el = ET.SubElement(case, "error", {"message": first, "type": "ERROR"})
            el.text = "\n".join(lines)
        else:
            ET.SubElement(case, "system-out").text = "\n".join(lines)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(printable(text)).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report) -> str:
    """GitHub Actions workflow commands: an ::error on the offending line of each FAIL/ERROR, a
    ::warning on each WARN's."""
    out: list[str] = []
    for o in report.outcomes:
        if o.verdict == PASS:
            out.extend(printable(line) for line in verdict_lines(o))
            continue
        if o.verdict == ERROR:
            for line, text in problem_lines(o):
                props = f"file={_gh_prop(o.file)}" + (f",line={line}" if line else "")
                props += f",title={_gh_prop('kvplan check: invalid config')}"
                out.append(f"::error {props}::{_gh_data(printable(text))}")
            for p in o.refused:  # what the engine refuses too (task h71sglfix)
                props = f"file={_gh_prop(o.file)}" + (f",line={p.line}" if p.line else "")
                props += f",title={_gh_prop(f'kvplan check FAIL: {o.label}')}"
                out.append(f"::error {props}::{_gh_data(printable(p.text()))}")
            continue
        # a WARN (exit 0: no GPU named, or SGLang refusing its longest requests) is a warning
        # annotation; until task srefirst it was an ::error titled "FAIL" on a green job
        level = "warning" if o.verdict == WARN else "error"
        props = f"file={_gh_prop(o.file)}" + (f",line={o.line}" if o.line else "")
        props += f",title={_gh_prop(f'kvplan check {o.verdict}: {o.label}')}"
        body = "\n".join(printable(line.strip()) for line in verdict_lines(o))
        out.append(f"::{level} {props}::{_gh_data(body)}")
    out.append(footer(report))
    return "\n".join(out) + "\n"


def render(fmt: CheckFormat, report: Report, width: int | None = None) -> str:
    """The report in `fmt`. In text and github annotations, read by people, a long value a file
    gave is clipped (kvplan.render.clip); json and junit keep every value whole, for tools."""
    from kvplan.render.clip import clip_words

    if fmt == CheckFormat.text:
        return clip_words(render_text(report, width))
    if fmt == CheckFormat.github:
        return clip_words(render_github(report))
    return render_json(report) if fmt == CheckFormat.json else render_junit(report)
