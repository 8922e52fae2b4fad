"""What a model reference `kvplan check` cannot plan points at, in one parenthetical of its
ERROR: the resolver's hints (kvplan.specs.name_hints, the one matcher of reference names), put
to a manifest's or script's model (task h53checkgaps).

Four readings the typed references of tests/assets/model_ids/typed.tsv showed check missing:
a folder inside the container whose name is a quantized copy or another spelling of a catalog
checkpoint (only an exact repository name was read); a relative folder (`./Models/...`), which
read as "no such spec file"; a model path behind an unset shell variable, whose literal last
part was never read; and a served name beside a folder that names nothing (`/mnt/models`).
"""

from __future__ import annotations

import re

from kvplan.specs.name_hints import base_hint, folder_entry, folder_hint, repo_name_hint

SPEC_SUFFIXES = (".yaml", ".yml", ".json")
_VARIABLE = re.compile(r"\$(?:\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*|\()|`")


def folder_said(path: str) -> str:
    """` (...)` naming the catalog entry a folder's name points at, '' for none. An exact
    repository name keeps check's words (the annotation to set); a quantized copy, a GGUF build
    or another spelling takes the resolver's hint (name_hints.folder_hint)."""
    stem = folder_entry(path)
    if stem is not None:
        return (f" (its folder name is the hub repository of the catalog's {stem}: "
                f"kvplan.io/model: {stem} if it holds that checkpoint)")
    hint = folder_hint(path)
    return f" ({hint.removeprefix('; ')})" if hint else ""


def served_said(served: str) -> str:
    """` (...)` for a served name the catalog lacks that is another spelling or a copy of a
    catalog checkpoint's repository name, '' for none."""
    hint = repo_name_hint(served) or base_hint(served)
    if hint.startswith("it "):  # "it is another spelling ...", "it names a quantized copy ..."
        return f" (its served name {hint[3:]})"
    return f" (its served name: {hint})" if hint else ""


def is_folder(ref: str) -> bool:
    """A relative path that is no spec file: a folder (`./Models/llama3.1-8b-instruct`, and
    `./`, `../` or `~/` themselves, which read as a catalog name to import)."""
    bare = ref.rstrip("/")
    return bare in (".", "..", "~") or (ref.startswith(("./", "../", "~")) and bare.count("/") >= 1
                                        and not ref.lower().endswith(SPEC_SUFFIXES))


def variable_said(word: str) -> str:
    """For a model path behind a variable kvplan cannot expand (`${ROOT}/models/Name`): what its
    literal last part names, '' when that part is itself a variable or names nothing."""
    last = word.rstrip("/").rsplit("/", 1)
    if len(last) < 2 or not last[1] or _VARIABLE.search(last[1]):
        return ""
    said = folder_said("/" + last[1])
    return f"; the folder's own name is written out{said}" if said else ""


MODEL_FLAGS = ("--model", "--model-path", "--model_path")


def is_model_word(args: list[str], word: str) -> bool:
    """Whether `word` is the model in a server's arguments `args`: the first positional, or the
    value of --model / --model-path (`--model=X` too)."""
    for i, w in enumerate(args):
        if w != word:
            continue
        flag, eq, _ = w.partition("=")
        if (eq and flag in MODEL_FLAGS) or (i == 0 and not w.startswith("-")) \
                or (i and args[i - 1] in MODEL_FLAGS):
            return True
    return False


def model_word_said(args: list[str], bad: str) -> str:
    """variable_said for `bad` where it is the model in a server's arguments `args` (the first
    positional, or the value of --model / --model-path); '' for any other word."""
    for i, word in enumerate(args):
        if word != bad:
            continue
        flag, eq, value = word.partition("=")
        if eq and flag in MODEL_FLAGS:
            return variable_said(value)
        if (i == 0 and not word.startswith("-")) or (i and args[i - 1] in MODEL_FLAGS):
            return variable_said(word)
    return ""
