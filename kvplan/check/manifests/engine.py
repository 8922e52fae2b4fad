"""Engine options, as the engine resolved them (kvplan.check.argv), to kvplan/v1 fields."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvplan.check.argv import Invocation, Parsed
from kvplan.check.manifests.auto_context import is_auto, read_auto
from kvplan.check.manifests.option_fields import DEFAULTS, FIELDS, NOT_MODELLED
from kvplan.engine_traits import traits
from kvplan.units import parse_tokens


@dataclass
class Found:
    """kvplan fields read from a manifest, with the line of each and what to call it.
    `files`: the fields an options file set (TensorRT-LLM's --extra_llm_api_options / --config,
    vLLM's and SGLang's --config), each with (the file, its key), so that a fix changes the key
    in the file rather than a flag the file would override or that its value contradicts;
    `engine.trtllm_config` names the TensorRT-LLM options file itself (key "")."""

    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    files: dict[str, tuple[str, str]] = field(default_factory=dict)
    # vLLM's --max-model-len auto / -1 on a release that sizes it (kvplan.check.autofit)
    auto_context: bool = False

    def put(self, path: str, value: Any, line: int, name: str) -> None:
        self.values[path] = value
        self.lines[path] = line
        self.names[path] = name


# vLLM accepts 32k / 1M style lengths: k/m are powers of 1000, K/M powers of 1024 (one parser
# with the CLI's --context / --max-model-len)
tokens = parse_tokens


def convert(kind: str, raw: str) -> Any:
    if kind == "int":
        return int(raw)
    if kind == "tokens":  # --max-num-batched-tokens (--max-model-len: context_spellings)
        # a decimal before a decimal suffix, as vLLM reads it (25.6k = 25,600:
        # `int(float(number) * mult)`, utils/argparse_utils.py:40-58 in 0.25.1,
        # engine/arg_utils.py:1829-1845 in 0.10.2); a decimal before K/M/G is refused there too
        match = re.fullmatch(r"(\d+\.\d+)([kmg])", raw.strip())
        if match:
            return int(float(match.group(1)) * 1000 ** " kmg".index(match.group(2)))
        return tokens(raw)
    if kind == "float":
        return float(raw)
    if kind == "sizes":  # several whole numbers, kept as kvplan/v1's text
        return " ".join(raw.replace(",", " ").split())
    if kind == "max":  # the largest of several integers (kvplan.check.argv Parsed.several)
        return max(int(value) for value in raw.split())
    if kind == "bytes":  # vLLM's human_readable_int: 8G (2^30), 1.5g (10^9), or digits
        match = re.fullmatch(r"(\d+\.\d+)([kmgt])", raw.strip())
        if match:
            return int(float(match.group(1)) * 1000 ** " kmgt".index(match.group(2)))
        return tokens(raw)
    if kind in ("mm", "json"):
        from kvplan.check.manifests.pool_flags import mm_items, speculative_json

        return mm_items(raw) if kind == "mm" else speculative_json(raw)
    return raw


def vllm_rejects_mm(raw: str) -> bool:
    """Whether every vLLM release stops on this --limit-mm-per-prompt value: it is not a JSON
    object (json.loads, the only form from 0.10) and not the older MODALITY=N pairs
    (vllm/engine/arg_utils.py nullable_kvs, 0.5-0.9: each comma item split on `=` into two
    parts, the second int(); 0.9's parse_type hands values not shaped `{...}` to it). Either
    parser raises argparse.ArgumentTypeError, and argparse exits before the engine starts."""
    import json

    text = raw.strip()
    if text.startswith("{") and text.endswith("}"):
        try:
            return not isinstance(json.loads(text), dict)
        except ValueError:
            return True
    for item in text.split(","):
        parts = [part.lower().strip() for part in item.split("=")]
        if len(parts) != 2:
            return True
        try:
            int(parts[1])
        except ValueError:
            return True
    return False


def older_release(image: Any, than: str) -> bool:
    """Whether `image` names a release older than `than` (False when either names none): an
    image older than the option table's release (options removed since then are not refused:
    kvplan has no table for that release), or than the release an option file's rule starts
    at (kvplan.check.manifests.config_file)."""
    from kvplan.engines.release import read_numbers

    if image is None:
        return False
    have, read = read_numbers(str(image)), read_numbers(than)
    return have is not None and read is not None and have < read


@dataclass
class Refusal:
    """Why the engine would refuse to start on its command line (a FAIL, not an ERROR)."""

    field: str
    message: str
    line: int | None


def read_options(
    inv: Invocation, parsed: Parsed, found: Found, problems: list[Any], refusals: list[Refusal],
    notes: list[str], strict: bool, manifest: Path | None = None,
    release_unknown: bool = False, script: Any = None, noted: frozenset[str] = frozenset(),
    pods: int = 1,
) -> None:
    """The options kvplan uses into `found`; an option the engine does not know is a refusal
    (a note where the launcher adds its own options, or `strict` is off). `noted`: options a
    note already names (a shell-expanded value, kvplan.check.manifests.shell_runtime), left out
    of the not-used list so each option is named once; `pods`: the pods the file runs for one
    engine, which the --nnodes note compares (kvplan.check.manifests.node_options)."""
    from kvplan.check.engine_flags import OPTION_TABLES
    from kvplan.deploy import Problem

    table = FIELDS[inv.engine]
    options = OPTION_TABLES[inv.engine]
    version, name = options.label, options.program
    image = found.values.get("engine.version")
    place = options.position(image)
    older, unpinned = place == "older", place == "unpinned"
    from kvplan.check.argv import misspelling_of
    from kvplan.check.flag_spelling import undeclared_single_dash
    from kvplan.check.manifests import release_options
    from kvplan.check.manifests.config_file import config_origin, merge_config_file

    # the stated release placed among the releases read one by one (task h70sglkw): a read
    # one, or one between two, decides its own unknown and ambiguous options (a --config
    # file's too)
    placed_at = release_options.placed(inv.engine, image, release_unknown)
    origin = merge_config_file(inv, parsed, found, problems, refusals, notes, manifest, script,
                               release_options.option_flags(inv.engine, image, release_unknown),
                               release_options.option_multi(inv.engine, image, release_unknown))
    demo = traits(inv.engine)
    if any(inv.entry == f"python -m {m}" for m in demo.demo_modules):
        notes.append(demo.demo_note)
    if any(inv.entry == f"python -m {m}" for m in demo.router_modules):
        _router_options(inv, parsed, demo, notes)
    newer = release_options.newer_note(inv, placed_at)
    if newer is not None:
        notes.append(newer)
    own = placed_at is not None and placed_at.kind in ("read", "between")
    if own:
        assert placed_at is not None
        release_options.check_unknown(inv, parsed, placed_at, origin, refusals, notes, strict)
        release_options.check_choices(inv, parsed, placed_at, origin, refusals, notes, strict)
    elif placed_at is None or placed_at.kind == "newer":  # task h80sglpy
        release_options.check_unplaced_choices(inv, parsed, placed_at, origin, refusals, notes,
                                               strict)
    for flag, line, hint in [] if own else parsed.unknown:
        src = f" (key {origin[flag][0]} of {origin[flag][1]})" if flag in origin else ""
        text = f"{name} {version} has no option {flag}{src}{hint}"
        # an older or unnamed release may still have an option the table lacks, but not a
        # misspelling of one it has
        near = misspelling_of(inv.engine, flag) if older or unpinned or release_unknown else None
        added = options.added_after.get(flag)
        short = undeclared_single_dash(inv.engine, flag)  # task h101left: SGLang's `-dp 4`
        if short is not None and strict and not inv.dynamo:
            refusals.append(Refusal(flag, f"the engine refuses it: {short}{src}", line))
        elif added is not None:
            notes.append(f"{text}: {name} gained it after the option table's source "
                         f"({added}); not read by kvplan, not checked")
        elif near is not None and strict and not inv.dynamo:
            refusals.append(Refusal(flag, f"the engine refuses it: {name} has no option {flag}"
                                    f"{src}; "
                                    f"did you mean {near}? (a letter or two from it: no release "
                                    "accepts that spelling)", line))
        elif older:
            notes.append(f"{text}; the image is {inv.engine} {image}, older than the option "
                         "table: not checked")
        elif unpinned:
            notes.append(f"{text}; the image is {inv.engine} {image}, and the option table's "
                         f"release is not pinned (older: {options.older_through} and "
                         f"below; at or after it: {options.at_or_after_from} on): not "
                         "checked")
        elif release_unknown:
            notes.append(f"{text}; the image does not name its {name} release: not checked")
        elif strict and not inv.dynamo:
            # a pinned table's release is in the message already ("vLLM 0.34.0 has no ...");
            # a bounded one is named by its commit, so the bound the image passed is said
            since = (f"; the image is {inv.engine} {image}, at or after the option table's "
                     f"release ({options.at_or_after_from} on)"
                     if not options.is_pinned and image is not None else "")
            refusals.append(Refusal(flag, f"the engine refuses it: {text}{since}", line))
        else:
            notes.append(f"{text} (not checked: {inv.entry} adds options of its own)")
    from kvplan.check.argv import OLD_OPTIONS

    gone_from = OLD_OPTIONS.get(inv.engine, {})
    for flag in sorted(set(gone_from) & set(parsed.options)):
        line = parsed.options[flag][1]
        said = release_options.old_option(inv, placed_at, flag)
        if said == "taken":  # the stated release has it
            continue
        if said is not None:
            refusals.append(Refusal(flag, said, line))
            continue
        text = f"{name} {version} has no option {flag} (older releases have it)"
        have, gone = options.key(str(image)) if image is not None else None, options.key(
            gone_from[flag])
        if have is None or gone is None or have < gone:
            notes.append(f"{text}; read as the image's release takes it (gone from "
                         f"{gone_from[flag]})")
        else:
            refusals.append(Refusal(flag, f"the engine refuses it: {text}; {name} "
                                    f"{gone_from[flag]} and later have no {flag}", line))
    from kvplan.check.argv import FIRST_RELEASE

    for flag, (since, where) in FIRST_RELEASE.get(inv.engine, {}).items():
        given = [ln for f, (_, ln) in parsed.options.items() if f.partition(".")[0] == flag]
        if given and older_release(image, since):
            refusals.append(Refusal(flag, f"the engine refuses it: {name} {image} has no option "
                                    f"{flag} (it came in {since}, {where})", given[0]))
    for flag, line, candidates in [] if own else parsed.ambiguous:
        src = f" (key {origin[flag][0]} of {origin[flag][1]})" if flag in origin else ""
        text = f"ambiguous option{src}: could match {', '.join(candidates[:4])}"
        # argparse refuses an ambiguous prefix, but only the table's release is read: an older
        # or unnamed release may have an option of that exact name (as unknown options above)
        if older or unpinned or release_unknown or image is None:
            where = (f"the image is {inv.engine} {image}, older than the option table"
                     if older else f"the image is {inv.engine} {image}, whose release the "
                     "option table does not pin" if unpinned
                     else f"the image does not name its {name} release")
            notes.append(f"{flag}: {text} in {name} {version}; {where}: not checked")
        else:
            refusals.append(Refusal(flag, text, line))
    from kvplan.check.manifests.stray_words import (
        model_option,
        reads_word,
        stray_words,
        unread_word,
    )
    from kvplan.engines.release import read_numbers

    release = None if release_unknown or image is None else read_numbers(str(image))
    said_model = any(table.get(f, ("",))[0] == "model" for f in parsed.options)
    stray = stray_words(inv, parsed, release, said_model)
    if stray is not None:  # a word the engine's parser has no place for (task h59maxlen)
        refusals.append(Refusal("", *stray))
    if inv.from_image:  # the image's entrypoint read as the newest's (task h61misc)
        from kvplan.check.manifests.image_entry import image_entry, unnamed_note

        unnamed = unnamed_note(inv, parsed, image_entry(inv.from_image).release_named)
        if unnamed is not None:
            notes.append(unnamed)
    unread_word_said = unread_word(inv, parsed, release, said_model)
    if stray is None and unread_word_said is not None:  # taken, never read (h60leftovers)
        refusals.append(Refusal("", *unread_word_said))
    option = model_option(inv, parsed, release, None if image is None else str(image))
    if option is not None:  # `vllm serve --model M` (task h60leftovers)
        if option[0] == "refused":
            refusals.append(Refusal("--model", option[1], option[2]))
        else:
            notes.append(option[1])
    # a word the server never reads is no model where --model names one; without it the word
    # is planned, beside its refusal, so the verdict says why (not "no model")
    if parsed.positional and (reads_word(inv) or not said_model):
        first = parsed.positional[0]
        found.put("model", first.text, first.line, "the served model")
    mm: list[tuple[str, str | None, int]] = []
    from kvplan.check.manifests.unread import MOVES_MEMORY, READ_ELSEWHERE, unread_note

    unread: list[str] = []  # neither mapped nor noted: one note (task h43capsz)
    for flag, (raw, line) in parsed.options.items():
        entry = table.get(flag)
        if entry is None and "." in flag:  # vLLM's --json-arg.key value
            base = flag.split(".", 1)[0]
            if base == "--limit-mm-per-prompt":
                mm.append((flag, raw, line))
            elif base in table and base != "--speculative-config":
                notes.append(f"{flag}: one key of {base} is not read by kvplan; give {base} "
                             "whole to have it checked")
            elif base not in table and base not in READ_ELSEWHERE:
                unread.append(flag)
            continue
        if entry is None:
            reason = (NOT_MODELLED.get(inv.engine, {}).get(flag)
                      or MOVES_MEMORY.get(inv.engine, {}).get(flag))
            if reason:
                notes.append(f"{flag}: {reason}")
            elif flag not in READ_ELSEWHERE:
                unread.append(flag)
            continue
        path, kind = entry
        said = f"--config {origin[flag][1]}: {origin[flag][0]}" if flag in origin else flag
        if kind in ("true", "false"):
            found.put(path, kind == "true", line, said)
            if flag in origin:
                found.files[path] = (origin[flag][1], origin[flag][0])
            continue
        if raw is None:
            problems.append(Problem(said, "needs a value", line))
            continue
        if kind in ("max", "sizes"):
            raw = " ".join(parsed.several.get(flag) or [raw])
        if kind == "context" and is_auto(raw):  # vLLM's auto-fit spellings (task h58auto)
            what, text = read_auto(raw, image, release_unknown)
            if what == "auto":
                found.auto_context = True
                notes.append(text if flag not in origin else f"{said}: {text}")
            elif what == "refused":
                refusals.append(Refusal(flag, config_origin(text, flag, raw, origin), line))
            else:
                problems.append(Problem(said, text, line))
            continue
        if kind in ("context", "context_si"):  # as the release's parser reads it (h59maxlen)
            from kvplan.check.manifests.context_spellings import (
                Refused,
                not_expanded,
                sglang_length,
                vllm_length,
            )

            reader = vllm_length if kind == "context" else sglang_length
            if re.search(r"[$`]", raw):  # a shell word kvplan could not expand: not the engine's
                problems.append(Problem(said, not_expanded(raw), line))
                continue
            try:
                found.put(path, reader(raw, None if release_unknown else image, flag), line, said)
            except Refused as why:
                refusals.append(Refusal(flag, config_origin(str(why), flag, raw, origin), line))
                continue
            if flag in origin:
                found.files[path] = (origin[flag][1], origin[flag][0])
            continue
        try:
            found.put(path, convert(kind, raw), line, said)
            if flag in origin:
                found.files[path] = (origin[flag][1], origin[flag][0])
        except ValueError:
            if kind == "mm" and traits(inv.engine).mm_limit_strict and vllm_rejects_mm(raw):
                refusals.append(Refusal(flag, f"the engine refuses it: {raw!r} is neither a JSON "
                                        "object nor MODALITY=N pairs, so vLLM's parser stops "
                                        "(every release; quotes in a container's args reach the "
                                        "engine: no shell removes them)", line))
                continue
            what = {"mm": "a count or a JSON object of counts", "json": "a JSON object"}.get(
                kind, "a number")
            problems.append(Problem(said, f"{raw!r} is not {what}", line))
    from kvplan.check.manifests.node_options import NODE_OPTIONS, node_note

    node_said = node_note(parsed.options, pods)
    if node_said is not None:
        notes.append(node_said)
    unread = [f for f in unread if f not in noted and f not in NODE_OPTIONS]
    unread_said = unread_note(unread)
    if unread_said is not None:
        notes.append(unread_said)
    if mm:
        try:
            from kvplan.check.manifests.pool_flags import mm_items

            total = sum(mm_items(str(raw)) for _, raw, _ in mm)
            found.put("engine.limit_mm_per_prompt", total, mm[0][2], "--limit-mm-per-prompt")
        except ValueError:
            problems.append(Problem(mm[0][0], f"{mm[0][1]!r} is not a count", mm[0][2]))
    for key, value in DEFAULTS.get(inv.engine, {}).items():
        found.values.setdefault(key, value)


def _router_options(inv: Invocation, parsed: Parsed, engine: Any, notes: list[str]) -> None:
    """A router launcher's `--router-*` options (EngineTraits.router_modules) taken out of the
    unknown ones and noted: the router's, not a server's, so they do not move the KV pool."""
    prefix = engine.router_prefix
    mine = sorted({flag for flag, _, _ in parsed.unknown if flag.startswith(prefix)} |
                  {flag for flag, _, _ in parsed.ambiguous if flag.startswith(prefix)})
    parsed.unknown[:] = [u for u in parsed.unknown if not u[0].startswith(prefix)]
    parsed.ambiguous[:] = [a for a in parsed.ambiguous if not a[0].startswith(prefix)]
    notes.append(f"{inv.entry} starts --dp-size {engine.title} servers behind a router, read as "
                 f"{engine.title}'s data-parallel replicas of --tp-size GPUs each ({engine.router_source})"
                 + (f"; router options, not a server's (they do not move the KV pool): "
                    f"{', '.join(mine)}" if mine else ""))
