"""Options checked against the stated release's own option set, for the engines read release by
release (OptionTable.history, kvplan.check.engine_flags: SGLang's, task h70sglkw).

`placed` places the release an image tag or a pip pin states; kvplan.check.argv.parse then
resolves the command line against that release's options (its prefixes, what it lacks), and
`check_unknown` says what the release makes of each option it does not take:
- a release read: refused as its argparse refuses it ("unrecognized arguments"), naming the
  release, the wheel read, and the release that added the option (or the one that removed it);
  an ambiguous prefix is refused too;
- a release between two read ones: noted, naming both (neither has the option);
- a release after the newest read: the newest table as before, with a note.
A release before the oldest read, or none stated, is left to kvplan.check.manifests.engine as
before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kvplan.check.argv import Invocation, Parsed
from kvplan.check.engine_flags.history import History, Placed
from kvplan.engines.release import read_release


def history(engine: str) -> History | None:
    """The engine's option sets read release by release (None: not read so)."""
    from kvplan.check.engine_flags import OPTION_TABLES

    table = OPTION_TABLES.get(engine)
    return None if table is None else table.history


def placed(engine: str, release: object, release_unknown: bool) -> Placed | None:
    """Where the stated release stands among the engine's read releases (None: the engine
    has no history, the release is not named, or it is unknown)."""
    read = history(engine)
    if read is None or release_unknown or release is None:
        return None
    return read.place(release)


def option_flags(engine: str, release: object, release_unknown: bool) -> frozenset[str] | None:
    """The options to parse a command line with: the placed release's, else None (the
    engine's newest table)."""
    where = placed(engine, release, release_unknown)
    return None if where is None or where.kind == "before" else where.flags


def option_multi(engine: str, release: object, release_unknown: bool) -> frozenset[str] | None:
    """The placed release's options that take several values, else None (MULTI_VALUE: the
    newest table's and kvplan.check.argv.OLD_MULTI_VALUE)."""
    where = placed(engine, release, release_unknown)
    return None if where is None or where.kind == "before" else where.multi


def _why(inv: Invocation, where: Placed, flag: str, hint: str = "") -> str:
    """What the read release's history says of an option it lacks (`hint`: the did-you-mean
    said of an option no release read has)."""
    read = history(inv.engine)
    assert read is not None
    name, release = read.program, where.release
    source = read.source(where.below or "")
    came = read.added_after(where.below or "", flag)
    if came is not None:
        first = _first_final(read.releases, read.sets, came, flag)
        final = f" (the first final release with it: {first})" if first != came else ""
        before = read.spelled_before.get(flag)
        spelled = f"; older releases spell it {before}" if before else ""
        return (f"{name} {release} has no option {flag} ({source}); it came in {name} "
                f"{came}{final}{spelled}: drop it or serve {name} {first} or newer")
    gone = read.had(where.below or "", flag)
    if gone is not None:
        return (f"{name} {release} has no option {flag} ({source}); {name} {gone[0]} had it, "
                f"{gone[1]} removed it")
    first, last = read.releases[0], read.releases[-1]
    return (f"{name} {release} has no option {flag} ({source}; no {name} release read, "
            f"{first} to {last}, has it){hint}")


def _first_final(releases: tuple[str, ...], sets: dict[str, frozenset[str]], came: str,
                 flag: str) -> str:
    """`came`, or where it is a pre-release (0.5.3rc2), the first final release from it on
    that has `flag` (0.5.3); `came` when none does."""
    for release in releases[releases.index(came):]:
        found = read_release(release)
        if found is not None and found.pre is None and flag in sets[release]:
            return release
    return came


def check_unknown(inv: Invocation, parsed: Parsed, where: Placed, origin: dict[str, Any],
                  refusals: list[Any], notes: list[str], strict: bool) -> None:
    """The options `where`'s release lacks (parsed.unknown, parsed.ambiguous), refused or
    noted; a placed release of kind "read" or "between" only."""
    from kvplan.check.argv import misspelling_of
    from kvplan.check.manifests.engine import Refusal

    read = history(inv.engine)
    assert read is not None
    name, release = read.program, where.release
    refuse = strict and not inv.dynamo
    for flag, line, hint in parsed.unknown:
        src = f" (key {origin[flag][0]} of {origin[flag][1]})" if flag in origin else ""
        if where.kind == "read":
            why = _why(inv, where, flag, hint)
            if src:
                why = why.replace(f"option {flag} ", f"option {flag}{src} ", 1)
            if refuse:
                refusals.append(Refusal(flag, f"the engine refuses it: {why}", line))
            else:
                notes.append(f"{why} (not checked: {inv.entry} adds options of its own)")
            continue
        near = misspelling_of(inv.engine, flag)
        if near is not None and refuse:
            refusals.append(Refusal(flag, f"the engine refuses it: {name} has no option {flag}"
                                    f"{src}; did you mean {near}? (a letter or two from it: no "
                                    "release accepts that spelling)", line))
            continue
        notes.append(f"{name} {release} was not read: neither {name} {where.below} nor "
                     f"{where.above}, the releases read around it, has option {flag}{src}"
                     f"{hint}: not checked")
    for flag, line, candidates in parsed.ambiguous:
        src = f" (key {origin[flag][0]} of {origin[flag][1]})" if flag in origin else ""
        text = (f"ambiguous option{src}: {flag} could match {', '.join(candidates[:4])} in "
                f"{name} {release}")
        if where.kind == "read" and refuse:
            refusals.append(Refusal(flag, f"{text} ({read.source(where.below or '')})", line))
        else:
            notes.append(f"{text}: not checked")


def old_option(inv: Invocation, where: Placed | None, flag: str) -> str | None:
    """For an option of kvplan.check.argv.OLD_OPTIONS given on a placed release: "taken" when
    the release has it, the refusal's text when a read release lacks it, else None (the
    OLD_OPTIONS rule decides)."""
    if where is None or where.kind not in ("read", "between"):
        return None
    if flag in where.flags:
        return "taken"
    if where.kind == "between":
        return None
    return f"the engine refuses it: {_why(inv, where, flag)}"


def newer_note(inv: Invocation, where: Placed | None) -> str | None:
    """The note for a release after the newest read."""
    read = history(inv.engine)
    if where is None or where.kind != "newer" or read is None:
        return None
    name = read.program
    return (f"{name} {where.release} is newer than the newest release whose options were read "
            f"({where.below}): its options, and the values of {', '.join(CHOICE_CHECKED)}, are "
            f"checked against {where.below}'s")


# the options whose value a placed release's argparse checks against its choices (task
# h71sglfix; the choices read per release by benchmarks/extract_sglang_flags.py). --dtype's are
# the same in every release read and kvplan.check.compute_dtype refuses a value outside them
# already (an ERROR naming them), so it is not refused twice here.
CHOICE_CHECKED = ("--kv-cache-dtype", "--attention-backend")


def value_history(read: History, release: str, option: str, value: str) -> str:
    """What the releases read say of `value` for `option`, which `release` (a read one) does not
    take: the release that added it, the one that removed it, or that none takes it."""
    name = read.program
    came = next((r for r in read.releases[read.releases.index(release) + 1:]
                 if value in (read.choices(r, option) or ())), None)
    if came is not None:
        return f"{value} came in {name} {came}: give one of these, or serve {name} {came} or newer"
    earlier = [r for r in read.releases[: read.releases.index(release)]
               if value in (read.choices(r, option) or ())]
    if earlier:
        after = read.releases[read.releases.index(earlier[-1]) + 1]
        return f"{name} {earlier[-1]} took it, {after} removed it"
    return f"no {name} release read, {read.releases[0]} to {read.releases[-1]}, takes it"


def check_choices(inv: Invocation, parsed: Parsed, where: Placed, origin: dict[str, Any],
                  refusals: list[Any], notes: list[str], strict: bool) -> None:
    """A CHOICE_CHECKED option's value outside the placed release's choices: refused as its
    argparse refuses it ("invalid choice"), naming the choices of that release (a read one);
    noted on a release between two read ones, or where a plugin may add an attention backend."""
    from kvplan.check.manifests.engine import Refusal

    read = history(inv.engine)
    if read is None or where.kind not in ("read", "between") or where.below is None:
        return
    name = read.program
    for option, value, line in _stated_choices(parsed):
        src = f" (key {origin[option][0]} of {origin[option][1]})" if option in origin else ""
        if where.kind == "between":
            low, high = (read.choices(r, option) or () for r in (where.below, where.above or ""))
            if value not in low and value not in high:
                notes.append(f"{name} {where.release} was not read: neither {name} "
                             f"{where.below} nor {where.above} takes {option} {value}{src}: "
                             "not checked")
            continue
        choices = read.choices(where.below, option)
        if choices is None or value in choices:
            continue
        said = (f"{name} {where.release} takes {option}{src} {', '.join(choices)}, not {value} "
                f"({read.source(where.below)}); {value_history(read, where.below, option, value)}")
        if option == "--attention-backend" and read.extendable(where.below):
            notes.append(f"{said}; a plugin may add backends to these choices "
                         "(add_attention_backend_choices): not checked")
        elif strict and not inv.dynamo:
            refusals.append(Refusal(option, f"the engine refuses it (argparse: invalid "
                                    f"choice): {said}", line))
        else:
            notes.append(f"{said} (not checked: {inv.entry} adds options of its own)")


def _stated_choices(parsed: Parsed) -> Iterator[tuple[str, str, int]]:
    """(option, value, line) of each CHOICE_CHECKED option the command states as a literal (a
    variable or a template is not read)."""
    for option in CHOICE_CHECKED:
        value, line = parsed.options.get(option, (None, 0))
        if value is not None and "$" not in value and "{{" not in value:
            yield option, value, line


def check_unplaced_choices(inv: Invocation, parsed: Parsed, where: Placed | None,
                           origin: dict[str, Any], refusals: list[Any], notes: list[str],
                           strict: bool) -> None:
    """A CHOICE_CHECKED option's value where no read release decides it (task h80sglpy; before,
    none was checked): a release newer than the newest read is checked against the newest's
    choices (newer_note says so), as its options are; no release named, against the release
    kvplan plans with (kvplan.engines.default_release), refused when no release read takes the
    value (as a misspelt option is) and noted when an older one does (the installed release,
    which the file does not name, may be that one). A release before the oldest read is left
    alone."""
    from kvplan.check.manifests.engine import Refusal
    from kvplan.engines import default_release

    read = history(inv.engine)
    if read is None or (where is not None and where.kind != "newer") or \
            not any(o in parsed.options for o in CHOICE_CHECKED):
        return  # (the release data is loaded only for a value to check)
    default = default_release(inv.engine)
    against = where.below if where is not None else default
    if against is None or against not in read.releases:
        return
    name = read.program
    for option, value, line in _stated_choices(parsed):
        choices = read.choices(against, option)
        if choices is None or value in choices:
            continue
        src = f" (key {origin[option][0]} of {origin[option][1]})" if option in origin else ""
        takes = f"takes {option}{src} {', '.join(choices)}, not {value}"
        source = read.source(against)
        first = read.first_with_choice(option, value)
        if where is not None:
            said = (f"{name} {where.release} is newer than the newest release read, {against}, "
                    f"which {takes} ({source}); {value_history(read, against, option, value)}")
        else:
            said = (f"the file names no {name} release; {name} {against}, the one kvplan plans "
                    f"with, {takes} ({source}); {value_history(read, against, option, value)}")
        if option == "--attention-backend" and read.extendable(against):
            notes.append(f"{said}; a plugin may add backends to these choices "
                         "(add_attention_backend_choices): not checked")
        elif where is None and first is not None:
            notes.append(f"{said}; the installed release, which the file does not name, may "
                         f"be one that takes it: not checked")
        elif strict and not inv.dynamo:
            refusals.append(Refusal(option, f"the engine refuses it (argparse: invalid "
                                    f"choice): {said}", line))
        else:
            notes.append(f"{said} (not checked: {inv.entry} adds options of its own)")
