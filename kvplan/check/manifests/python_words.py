"""A Python engine construction's keywords as the engine's command line
(kvplan.check.manifests.python_script): `--name-with-dashes VALUE` for vLLM and SGLang, whose
EngineArgs / ServerArgs fields are their options; for TensorRT-LLM the LLM API's keywords are
the options YAML `trtllm-serve --extra_llm_api_options` reads, handed to it as that file's text.

A keyword whose value the file does not state is refused when the option moves the pool (the
option table kvplan.check.manifests.option_fields maps it, or kvplan reads it elsewhere:
READ_ELSEWHERE; for TensorRT-LLM the YAML keys kvplan.engines.trtllm_config reads), noted when it
does not. A keyword the engine does not take is refused: the engine raises TypeError.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from kvplan.check.manifests.python_values import Struct, TorchDtype, Value, resolve
from kvplan.check.manifests.script_files import ScriptFiles
from kvplan.deploy import Problem


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _moves(engine: str, flag: str, model: bool) -> bool:
    from kvplan.check.manifests.option_fields import FIELDS
    from kvplan.check.manifests.unread import READ_ELSEWHERE

    return model or flag in FIELDS[engine] or flag in READ_ELSEWHERE


# the option table's kinds (kvplan.check.manifests.option_fields) whose value is one number
_NUMBERS = frozenset({"int", "float", "context", "context_si", "tokens", "bytes"})


def _kind(engine: str, flag: str) -> str:
    """How the plan reads `flag` ("true" / "false": a switch; "" when it does not read it)."""
    from kvplan.check.manifests.option_fields import FIELDS

    entry = FIELDS[engine].get(flag)
    return entry[1] if entry is not None else ""


def _wrong_type(name: str, flag: str, kind: str, value: Any, line: int) -> str | None:
    """Why a value the file states cannot be the option's (None: it can be)."""
    import math

    said = f"{name}={_short(value)} (line {line}): "
    if kind in _NUMBERS and isinstance(value, (list, tuple, dict)):
        return (said + f"a {type(value).__name__} where {flag} takes one number; write the "
                "number")
    if kind in _NUMBERS and isinstance(value, float) and not math.isfinite(value):
        return said + f"not a finite number, which {flag} needs; write the number"
    if kind not in ("", "true", "false") and kind not in _NUMBERS and isinstance(value, bool):
        return said + f"a bool where {flag} takes a value; write the value"
    return None


def not_a_model(c: Any, name: str, got: Value, line: int) -> bool:
    """Refuse (True) a model keyword whose value is no model name: a number, a bool, bytes, a
    list or a mapping (task h100readers: `LLM(5)` was "'5' is not in the catalog", `LLM(b"...")`
    "a value computed when the script runs"); a str, None or an unread value is False."""
    from kvplan.check.manifests.python_values import BYTES

    if not got.read and got.why.endswith(BYTES):
        what, value = "bytes", got.why[: -len(BYTES) - 2]
    elif got.read and got.value is not None and not isinstance(got.value, str):
        kind = type(got.value).__name__
        what, value = f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}", _short(got.value)
    else:
        return False
    c.problems.append(Problem(name, f"{name}={value} (line {line}): {what}, not a model name: "
                              f"{c.api.engine}'s {called(c)} takes the model as a str, a Hugging "
                              f"Face id or a local path; write it as one (`{name}=\"org/name\"`)",
                              line))
    return True


def _short(value: Any) -> str:
    """A value as the script spells it, cut to 40 characters (an object the reader builds,
    `ServerArgs(...)`, by its class: task h81hostile saw its Python repr in a message)."""
    text = f"{value.name}(...)" if isinstance(value, Struct) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _unread(c: Any, name: str, got: Value, line: int, moves: bool) -> None:
    if moves:
        c.problems.append(Problem(name, f"{got.why}; kvplan cannot plan the pool without it: "
                                  "write the value in the script (a literal, or a name bound "
                                  "once to one), or describe the deployment in a kvplan/v1 "
                                  "file", line))
    else:
        c.notes.append(f"{name} (line {line}) not read ({got.why}); kvplan's plan does not use "
                       "it")


def option_words(c: Any, kws: list[tuple[str, Value, int]],
                 release: str | None = None) -> tuple[list[str], list[int]]:
    """vLLM / SGLang: the command words and their lines; `release`: the stated one, whose
    options (and those of them that take several values) the keywords are read with where
    kvplan read them release by release (kvplan.check.manifests.release_options; SGLang's), as
    a command line naming that release is parsed (task h80sglpy: the newest table's before)."""
    from kvplan.check.argv import TABLES, several_values
    from kvplan.check.manifests.release_options import option_flags, option_multi

    api = c.api
    stated = option_flags(api.engine, release, release is None)
    table = TABLES[api.engine][0] if stated is None else stated
    multi = several_values(api.engine, table, option_multi(api.engine, release, release is None))
    words = [*api.command, *c.words]
    lines = [c.line] * len(words)
    spelled = dict(api.flag_spellings)
    cls = called(c)
    pinned = _pinned(c, release)
    for name, got, line in kws:
        model = name == api.model_keyword
        if model and not_a_model(c, name, got, line):
            continue
        flag = dict(api.keyword_flags).get(name, _flag(name))
        if pinned is not None and not model and \
                _by_release(c, pinned, cls, name, line, flag in table or name in api.signature):
            continue
        known = flag in table or name in api.signature
        if name in spelled:  # the command line's spelling, no field: TypeError
            field = spelled[name]
            spelling = (f"the command line's spelling of the field {field}" if field else
                        "an option of the command line only, no field")
            fix = f"; write {field}=" if field else ""
            c.problems.append(Problem(name, f"not a keyword {api.engine} takes: {_flag(name)} is "
                                      f"{spelling}, and the constructor raises TypeError on it "
                                      f"({api.spellings_source}){fix}", line))
            continue
        if name in api.flagless:
            c.notes.append(f"{name} (line {line}): a field of {api.engine}'s ServerArgs that no "
                           "option of the command line carries; kvplan's plan does not read it")
            continue
        if not known:
            refused = (api.unknown_refused_args.format(cls=cls)
                       if cls in api.args_classes and api.unknown_refused_args
                       else api.unknown_refused)
            c.problems.append(Problem(name, f"not a keyword {api.engine} takes: "
                                      f"{refused}, and has no {flag}", line))
            continue
        if not got.read:
            _unread(c, name, got, line, _moves(api.engine, flag, model))
            continue
        c.notes.extend(n for n in got.notes if n not in c.notes)
        if flag not in table:  # a parameter of LLM(...) itself that no option carries
            c.notes.append(f"{name} (line {line}): a parameter of the LLM class itself, not "
                           "an engine option; kvplan's plan does not read it")
            continue
        value = got.value
        if isinstance(value, TorchDtype) and value == "float64" and api.float64_refused:
            c.problems.append(Problem(name, f"{name}={value.spelled} (line {line}): "
                                      f"{api.float64_refused}; write torch.bfloat16, "
                                      "torch.float16 or torch.float32", line))
            continue
        kind = _kind(api.engine, flag)
        wrong = _wrong_type(name, flag, kind, value, line)
        if wrong is not None:
            c.problems.append(Problem(name, wrong, line))
            continue
        if isinstance(value, str) and kind in _NUMBERS and not api.bool_as_number:
            # a quoted number ("64") was read as the number in silence (task h70hostile);
            # SGLang's ServerArgs and TensorRT-LLM's LLM are not vLLM's lax pydantic configs
            c.problems.append(Problem(name, f"{name}={_short(value)} (line {line}): a string "
                                      f"where {flag} takes a number, which kvplan does not know "
                                      f"what {api.engine} makes of; write the number", line))
            continue
        if isinstance(value, bool) and kind in _NUMBERS:
            if not api.bool_as_number:
                c.problems.append(Problem(name, f"{name}={value!r} (line {line}): a bool where "
                                          f"{flag} takes a number, which kvplan does not know "
                                          f"what {api.engine} makes of; write the number", line))
                continue
            c.notes.append(f"{name}={value!r} (line {line}): a bool where {flag} takes a "
                           f"number; {api.bool_as_number}: planned with {int(value)}")
            value = int(value)
        said = _value_words(flag, value, table, multi)
        if said is None:
            why = (f"{name}={_short(value)} (line {line}): {flag} takes no such value on the "
                   "command line")
            if isinstance(value, bool) or value is None:
                c.notes.append(f"{name}={value!r} (line {line}): the option left out, as a "
                               f"command line without {flag}")
            elif _moves(api.engine, flag, model):
                c.problems.append(Problem(name, f"{why}; write a value {flag} takes", line))
            else:
                c.notes.append(why + "; kvplan's plan does not read it")
            continue
        words.extend(said)
        lines.extend([line] * len(said))
    return words, lines


def called(c: Any) -> str:
    """The class the script calls with the keywords: LLM, EngineArgs, AsyncEngineArgs,
    ServerArgs, Engine (the last part of its dotted name)."""
    return ast.unparse(c.call.func).rsplit(".", 1)[-1]


def _pinned(c: Any, release: str | None) -> Any:
    """The pinned release placed among those whose Python API kvplan read (None: not read so,
    no pin, or outside them: the option table reads the keywords, as with no pin)."""
    from kvplan.check.engine_flags import OPTION_TABLES
    from kvplan.engines.python_api import placed_release

    if release is None:
        return None
    return placed_release(c.api, release, OPTION_TABLES[c.api.engine].label)


def _by_release(c: Any, pinned: Any, cls: str, name: str, line: int, in_table: bool) -> bool:
    """A keyword judged by the pinned release's own fields (task h82vllmrel): refused when a
    read release lacks it (its dataclass raises TypeError), noted when kvplan's option table
    lacks it (a field of that release the newest one dropped) or when the release was not read
    and neither release around it has it. True: said here (no command word); False: read
    through the option table as before."""
    from kvplan.check.engine_flags import OPTION_TABLES
    from kvplan.engines import vllm_python as read

    fields_of = cls if cls in ("EngineArgs", "AsyncEngineArgs") else "LLM"
    name_of = read.fields_source(pinned.below, fields_of)
    table = OPTION_TABLES[c.api.engine].label
    if pinned.takes(name, fields_of):
        if in_table:
            return False
        c.notes.append(f"{name} (line {line}): a field of vLLM {pinned.release}'s EngineArgs "
                       f"({name_of}), which vLLM {table}, whose options kvplan reads "
                       "keywords with, no longer has; taken by that release, kvplan's plan "
                       "does not read it")
        return True
    if pinned.kind == "between":
        c.notes.append(f"{name} (line {line}): vLLM {pinned.release} was not read: neither "
                       f"vLLM {pinned.below} nor {pinned.above}, the releases read around it, "
                       f"has a field {name}: not checked, and not read")
        return True
    came = read.first_with(name, pinned.below, fields_of)
    gone = read.last_with(name, pinned.below, fields_of)
    if fields_of != "AsyncEngineArgs" and pinned.takes(name, "AsyncEngineArgs"):
        history = (f"it is a field of AsyncEngineArgs, EngineArgs' subclass "
                   f"({read.fields_source(pinned.below, 'AsyncEngineArgs')}), which "
                   "AsyncLLMEngine.from_engine_args takes")
    elif came is not None:
        history = f"it came in vLLM {came}: drop it or pin vllm {came} or newer"
    elif gone is not None:
        history = f"vLLM {gone} took it, later releases read do not"
    else:
        first, last = read.releases()[0], read.releases()[-1]
        history = f"no vLLM release read, {first} to {last}, takes it"
    who = ("vLLM's LLM passes it to EngineArgs(**kwargs), a dataclass" if fields_of == "LLM"
           else f"vLLM's {cls}(...) is a dataclass")
    c.problems.append(Problem(name, f"not a keyword vLLM {pinned.release} takes: {who} whose "
                              f"fields in that release ({name_of}) hold no {name}, so it raises "
                              f"TypeError (unexpected keyword argument); {history}", line))
    return True


def _value_words(flag: str, value: Any, table: frozenset[str],
                 multi: frozenset[str]) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, bool):
        if value:
            return [flag]
        off = "--no-" + flag[2:]
        return [off] if off in table else None
    if isinstance(value, Struct):
        return None
    if isinstance(value, (list, tuple)):
        if flag in multi:
            return [flag, *(str(v) for v in value)]
        return [flag, json.dumps(value)]
    if isinstance(value, dict):
        return [flag, json.dumps(value)]
    return [flag, str(value)]


# the LLM API keys kvplan.engines.trtllm_config and trtllm_settings read (limits and settings),
# with the BuildConfig keys that are the same limits; any other key is named by its `unread`
_BUILD_LIMITS = ("max_batch_size", "max_num_tokens", "max_seq_len")


def _trt_moves(name: str) -> bool:
    from kvplan.engines.trtllm_config import _YAML_KEYS, MOVES_MEMORY
    from kvplan.engines.trtllm_settings import SETTING_KEYS

    read = {k[0][0] for k in (*_YAML_KEYS, *SETTING_KEYS)}
    return name in read or name in MOVES_MEMORY or name == "build_config"


def _mapping(c: Any, name: str, value: Any, line: int) -> Any:
    """A config object's keywords (KvCacheConfig(...)) as a mapping; each value the file does
    not state refused or noted as a top-level keyword is."""
    if not isinstance(value, Struct):
        return value
    out: dict[str, Any] = {}
    for k in value.node.keywords:
        key = f"{name}.{k.arg}" if k.arg else f"{name}.**"
        got = resolve(k.value, c.ctx) if k.arg else Value(why="keywords of unknown content")
        if not got.read:
            _unread(c, key, got, k.value.lineno, _trt_moves(name))
            continue
        c.notes.extend(n for n in got.notes if n not in c.notes)
        out[str(k.arg)] = _mapping(c, key, got.value, k.value.lineno)
    return out


def options_file_words(c: Any, kws: list[tuple[str, Value, int]],
                       files: ScriptFiles) -> tuple[list[str], list[int], ScriptFiles]:
    """TensorRT-LLM: `trtllm-serve MODEL --extra_llm_api_options REF`, REF's text the YAML of
    the keywords (the LLM API's arguments are that file's keys)."""
    import yaml

    from kvplan.engines.trtllm_config import states_a_read_key, unread_note

    api = c.api
    model: Any = None
    options: dict[str, Any] = {}
    for name, got, line in kws:
        if name == api.model_keyword and not_a_model(c, name, got, line):
            continue
        if not got.read:
            _unread(c, name, got, line, name == api.model_keyword or _trt_moves(name))
            continue
        c.notes.extend(n for n in got.notes if n not in c.notes)
        if name == api.model_keyword:
            model = got.value
            continue
        options[name] = _mapping(c, name, got.value, line)
    build = options.pop("build_config", None)
    if isinstance(build, dict):
        for key in _BUILD_LIMITS:
            if key not in build:
                continue
            if key in options and options[key] != build[key]:
                c.problems.append(Problem("build_config", f"build_config.{key} {build[key]} and "
                                          f"{key} {options[key]} disagree; state one", c.line))
            options.setdefault(key, build.pop(key))
        for key in build:
            c.notes.append(f"build_config.{key} (line {c.line}) not read: kvplan reads "
                           f"BuildConfig's {', '.join(_BUILD_LIMITS)} only")
    words = [*api.command, *([str(model)] if model is not None else []), *c.words]
    ref = f"the {c.what[:-5]}(...) keywords of line {c.line}"
    if options and not states_a_read_key(options):
        # keywords none of which kvplan reads (`executor_type="ray"` alone): the options-file
        # reader refuses such a file as naming the wrong YAML; here each is a note, as an unread
        # keyword beside a read one is (docs/check.md)
        note = unread_note(options, ref)
        if note:
            c.notes.append(note)
    elif options:
        files.given[ref] = yaml.safe_dump(options, sort_keys=False)
        words += ["--extra_llm_api_options", ref]
    return words, [c.line] * len(words), files

