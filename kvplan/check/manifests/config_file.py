"""vLLM's and SGLang's `--config FILE`: more options from a YAML file, read as the engine reads it.

Both engines turn the file's keys into command-line words before argparse runs, and put them
BEFORE the command line's own options, so an option given on both wins from the command line
(argparse keeps the last value):

- vLLM, since 0.6.0 (vllm/utils.py FlexibleArgumentParser._pull_args_from_config; 0.5.5 has
  none): `args = [args[0]] + config_args + args[1:index] + args[index + 2:]` (0.6.0 line 1168);
  0.11.0 vllm/utils/__init__.py lines 2049-2069 and 0.33.0 vllm/utils/argparse_utils.py lines
  571-602 keep the order (the api_server entry point: file first; `vllm serve MODEL`: after the
  model). load_config_file (0.33.0 lines 606-673): each key becomes `--key` (then the same `_`/`-`
  folding and prefix matching as a typed option); a bool true is `--key` alone, false is
  `--no-key` where that option exists, else nothing; a list is `--key item ...`; a mapping is its
  JSON; anything else `--key str(value)`. The file must end .yaml/.yml (ValueError otherwise).
  A key that is no option reaches argparse as an unrecognized argument: vLLM exits.
- SGLang, since 0.5.3 (sglang/srt/server_args.py prepare_server_args line 3159 and
  server_args_config_parser.py ConfigArgumentMerger; 0.5.2 has no --config):
  `return config_args + before_config + after_config` (0.5.3 line 72; 0.5.23
  srt/utils/server_args_config_parser.py line 106); keys become `--key` as written (SGLang's
  argparse does not fold `_` into `-`); a store_true key true is `--key`, false nothing; from
  0.5.8 a bool key of any other option is `--key true` / `--key false` (0.5.23
  srt/utils/server_args_config_parser.py:185-200, _add_boolean_arg: "Regular booleans: always
  add --key true/false"; the option's own type then reads the word, so `context-length: false`
  stops SGLang as `--context-length false` does). 0.5.3-0.5.7 drop any false key and write a
  true one as `--key` (0.5.3 server_args.py:3164-3169 looks for an `action` attribute argparse's
  actions lack, so its boolean_actions list is always empty). A key is a store_true switch as
  kvplan.check.argv.takes_no_value reads command lines.

Both engines look for the exact word `--config` (`"--config" in args`): written `--config=FILE`
the file is not read. The file is found as TensorRT-LLM's options file is
(kvplan.check.manifests.option_files.options_text: a compose volume or a `docker run` mount that
covers the path first, then beside the manifest, then a ConfigMap of it; for a script's server
outside a container, relative to its `cd`: kvplan.check.manifests.script_files).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kvplan.check.argv import Invocation, Parsed, Word, _resolve, parse
from kvplan.engine_traits import traits

# engine -> (first release with --config, where that is read)
SINCE = {
    "vllm": ("0.6.0", "vllm/utils.py FlexibleArgumentParser._pull_args_from_config; 0.5.5 has "
             "none"),
    "sglang": ("0.5.3", "sglang/srt/server_args.py prepare_server_args and "
               "server_args_config_parser.py; 0.5.2 has none"),
}


def config_words(engine: str, data: dict[str, Any], table: frozenset[str],
                 version: Any = None) -> list[tuple[str, str]]:
    """(key, word) pairs: the file's keys as the engine turns them into command-line words. A
    false vLLM key is `--no-key` as 0.33.0 writes it; 0.11.0 (vllm/utils/__init__.py line 2111)
    and older drop it (bar their StoreBoolean options, none of which kvplan reads)."""
    from kvplan.check.argv import takes_no_value

    since = traits(engine).config_no_key_since
    no_key = since is not None and not (version is not None and _older(version, since))
    valued = traits(engine).config_bool_value_since
    bool_words = valued is not None and not (version is not None and _older(version, valued))
    out: list[tuple[str, str]] = []
    for key, value in data.items():
        flag = f"--{key}"
        if isinstance(value, bool) and bool_words and \
                not takes_no_value("--" + str(key).replace("_", "-")):
            out += [(str(key), flag), (str(key), str(value).lower())]  # `--context-length false`
        elif isinstance(value, bool):
            if value:
                out.append((str(key), flag))
            elif no_key and f"--no-{str(key).replace('_', '-')}" in table:
                out.append((str(key), f"--no-{key}"))
        elif isinstance(value, list):
            if value:  # `--key item ...`, every item, as the engine writes it
                out += [(str(key), flag)] + [(str(key), engine_text(v)) for v in value]
        elif isinstance(value, dict):
            out += [(str(key), flag), (str(key), json.dumps(value))]
        else:
            out += [(str(key), flag), (str(key), engine_text(value))]
    return out


def engine_text(value: Any) -> str:
    """A YAML value as the engines write it onto the command line: str(value) (None is "None",
    0.9 is "0.9", true is "True"): vLLM's --config reader, and KAITO's inference_api.py, which
    appends str(value) (kvplan.check.manifests.kaito_config)."""
    return str(value)


def _older(version: Any, since: str) -> bool:
    from kvplan.check.manifests.engine import older_release

    return older_release(version, since)


def _wedged(inv: Invocation, version: Any) -> str | None:
    """The first word, when vLLM 0.6.0-0.10.1's API server entry point (`python -m
    vllm.entrypoints.openai.api_server`, no sub command) would put the file's options between it
    and its value: 0.10.1.1 vllm/utils/__init__.py still builds `[args[0]] + config_args +
    args[1:index] + ...`; 0.10.2 (line 1993) puts them first when args[0] starts with '-'."""
    from kvplan.check.argv import takes_no_value

    until = traits(inv.engine).config_wedged_before
    if until is None or not inv.entry.startswith("python -m vllm.entrypoints") or \
            version is None or not _older(version, until) or not inv.words:
        return None
    first = inv.words[0].text
    if first == "--config" or (first.startswith("-") and "=" not in first
                                and not takes_no_value(first)):
        return first
    return None


def merge_config_file(inv: Invocation, parsed: Parsed, found: Any, problems: list[Any],
                      refusals: list[Any], notes: list[str],
                      manifest: Path | None, script: Any = None,
                      flags: frozenset[str] | None = None,
                      multi: frozenset[str] | None = None) -> dict[str, tuple[str, str]]:
    """Reads the --config file into `parsed` as the engine does (its options before the command
    line's); returns option -> (the file's key, the file) for the messages. `flags`: the stated
    release's options (kvplan.check.manifests.release_options), else the newest table's;
    `multi`: those of them that take several values, else the newest table's (task h80sglpy:
    the newest's were used for every release)."""
    from kvplan.check.argv import TABLES
    from kvplan.check.manifests.engine import Refusal
    from kvplan.check.manifests.option_fields import FIELDS
    from kvplan.deploy import Problem

    if inv.engine not in SINCE or inv.dynamo or "--config" not in parsed.options:
        return {}
    ref, line = parsed.options["--config"]
    name = traits(inv.engine).said
    if ref is None:
        return {}
    since, where_since = SINCE[inv.engine]
    version = found.values.get("engine.version")
    if version is not None and _older(version, since):
        parsed.options.pop("--config")
        refusals.append(Refusal("--config", f"the engine refuses it: {name} added --config in "
                                f"{since} ({where_since}); {name} {version} stops on it as an "
                                "unrecognized argument", line))
        return {}
    wedged = _wedged(inv, version)
    if wedged:
        refusals.append(Refusal("--config", f"the engine refuses it: vLLM {version}'s API server "
                                "puts the file's options after the first command-line word "
                                "(vllm/utils.py _pull_args_from_config: `[args[0]] + config_args + "
                                "...`, until 0.10.2 handled an entry point without a sub "
                                f"command), here between {wedged} and its value, so argparse "
                                "stops; give a flag that takes no value first, or use vllm "
                                "serve", line))
        return {}
    if any(w.text.startswith("--config=") for w in inv.words):
        parsed.options.pop("--config")
        notes.append(f"--config={ref}: {name} reads the file only when --config and its path are "
                     "two words (it looks for the word `--config`); written with `=` the file is "
                     "not read, so its options do not apply and kvplan does not read it either")
        return {}
    if Path(ref).suffix.lower() not in (".yaml", ".yml"):
        parsed.options.pop("--config")
        refusals.append(Refusal("--config", f"the engine refuses it: {name} takes only a .yaml or "
                                f".yml config file and stops on {ref!r} (ValueError)", line))
        return {}
    from kvplan.check.manifests.option_files import UNREAD_MOUNT, options_text

    text, where = options_text(str(ref), manifest, notes, script)
    if text is None and where.startswith(UNREAD_MOUNT):
        parsed.options.pop("--config")  # said here, not again as the generic not-read note
        notes.append(f"--config {ref}: {where}; the options set only there ("
                     + traits(inv.engine).config_pool_options + " ...) are not checked: give the "
                     "pool's options as flags, or " + (
                         "save its content to a regular file and name that"
                         if "not a regular file" in where else
                         getattr(script, "advice", None) or (
                         "run kvplan where the file is" if script is not None and script.on_host
                         else "bind-mount the file from beside the script (-v ./FILE:PATH)"
                         if script is not None and not getattr(script, "compose", False) else
                         "bind-mount the file from beside the compose file")))
        return {}
    if text is None:
        return {}  # the not-read note (kvplan.check.manifests.option_fields.NOT_MODELLED) names it
    parsed.options.pop("--config")
    from kvplan.errors import InputError
    from kvplan.inputs import load_yaml
    from kvplan.inputs.yamlsafe import load_yaml_text

    try:
        data = load_yaml(text) if isinstance(text, Path) else load_yaml_text(text, where)
    except InputError as err:
        problems.append(Problem("--config", str(err), line))
        return {}
    if data is None and traits(inv.engine).config_refuses_empty:
        refusals.append(Refusal("--config", f"the engine refuses it: {where} is empty, and vLLM "
                                "stops on it (load_config_file calls .items() on None)", line))
        return {}
    if data is not None and not isinstance(data, dict):
        problems.append(Problem("--config", f"{where}: a {name} config file is a mapping of "
                                f"option names to values, not a {type(data).__name__}", line))
        return {}
    table = TABLES[inv.engine][0] if flags is None else flags
    empty = [str(k) for k, v in (data or {}).items() if isinstance(v, list) and not v]
    said = traits(inv.engine).config_empty_list_source  # task h90hostile: it passed in silence
    notes.extend(f"{where}'s {key}: [] gives no option: {name} writes a list key only when the "
                 f"list holds an item ({said}), so --{key} is not given and its default "
                 "applies; write its values, or remove the key" for key in empty)
    pairs = config_words(inv.engine, data or {}, table, version)
    written = {k for k, _ in pairs}
    from kvplan.check.argv import takes_no_value

    notes.extend(  # a false key of a valued option the engine writes no word for (task
        # h100readers: SGLang 0.5.3-0.5.7, vLLM without `--no-KEY`); a switch's false is its default
        f"{where}'s {key}: false gives no option: {name} "
        f"{version or 'as kvplan plans it'} writes no word for a false key of an option that "
        f"is no switch, so --{key} is not given and its default applies; write its value, or "
        "remove the key" for key in map(str, data or {}) if (data or {})[key] is False
        and key not in written and not takes_no_value("--" + key.replace("_", "-")))
    cfg = parse(Invocation(inv.engine, inv.entry, [Word(w, line) for _, w in pairs], inv.dynamo),
                flags, multi)
    _strays(inv, cfg, pairs, where, version, refusals, line)
    key_of: dict[str, str] = {}
    for key, word in pairs:
        if word.startswith("-"):
            flag = word.partition("=")[0]
            key_of.setdefault(flag, key)
            key_of.setdefault(_resolve(inv.engine, flag, table)[0] or flag, key)
    origin = {flag: (key_of.get(flag, flag.lstrip("-")), where)
              for flag in [*cfg.options, *(u[0] for u in cfg.unknown),
                           *(a[0] for a in cfg.ambiguous)]}
    fields = FIELDS[inv.engine]
    on_line = {fields.get(f, (f, ""))[0]: (f, v) for f, (v, _) in parsed.options.items()}
    merged: dict[str, tuple[str | None, int]] = {}
    for flag, (raw, at) in cfg.options.items():
        key = origin[flag][0]
        if flag == "--model" and parsed.positional:
            notes.append(f"{where}'s {key} {raw} is not used: the command line names the model "
                         f"({parsed.positional[0].text}), which {name} keeps")
            continue
        path = fields.get(flag, (flag, ""))[0]
        if path in on_line:
            origin.pop(flag, None)  # the command line's value is used: not the file's
            cli_flag, cli_raw = on_line[path]
            if cli_raw != raw:
                mine = f"{cli_flag} {cli_raw}" if cli_raw is not None else cli_flag
                theirs = f"{key} {raw}" if raw is not None else key
                notes.append(f"{mine} on the command line overrides {where}'s {theirs} ({name} "
                             "puts the file's options before the command line's, and the last "
                             "one given wins)")
            continue
        merged[flag] = (raw, at)
    parsed.options = {**merged, **parsed.options}
    # a list key's every item (`--key item ...`), as the command line's multi-value options
    parsed.several = {**{f: v for f, v in cfg.several.items() if f in merged}, **parsed.several}
    parsed.unknown = [*cfg.unknown, *parsed.unknown]
    parsed.ambiguous = [*cfg.ambiguous, *parsed.ambiguous]
    notes.append(f"--config {ref}: {len(data or {}) - len(empty)} option(s) read from {where}; "
                 "an option the command line also gives is taken from the command line, as the "
                 "engine does")
    return origin


def _strays(inv: Invocation, cfg: Parsed, pairs: list[tuple[str, str]], where: str,
            version: Any, refusals: list[Any], line: int | None) -> None:
    """A list key of an option that takes one value in the release parsed with: the engine
    writes `--key item ...` and argparse takes the first item, the rest are words it has no
    place for ("unrecognized arguments": the engine stops)."""
    from kvplan.check.manifests.engine import Refusal

    if not cfg.positional:
        return
    keys = [k for k, w in pairs if w == cfg.positional[0].text]
    key = keys[0] if keys else "?"
    name = traits(inv.engine).said
    release = f" {version}" if version is not None else ""
    items = " ".join(w.text for w in cfg.positional)
    refusals.append(Refusal("--config", f"the engine refuses it: {where}'s {key} is a list, "
                            f"which {name} writes as `--{key} ITEM ...`, but {name}{release}'s "
                            f"--{key.replace('_', '-')} takes one value, so argparse stops on "
                            f"the rest ({items}: unrecognized arguments); give one value",
                            line))


REFUSES = "the engine refuses it: "


def config_origin(text: str, flag: str, raw: str, origin: dict[str, tuple[str, str]]) -> str:
    """A refusal of an option's value, naming the --config file and key it came from (task
    readfix: SGLang's `context-length: false` in a --config YAML was refused as "argparse stops
    on 'false'", naming neither the file nor the key)."""
    if flag not in origin:
        return text
    key, where = origin[flag]
    said = f"`{flag} {raw}` comes from key {key} of the --config file {where}"
    if text.startswith(REFUSES):
        return f"{REFUSES}{said}: {text.removeprefix(REFUSES)}"
    return f"{said}: {text}"
