"""One model resolver for every command: a name as people type it becomes a spec, and says how.

The order, first match wins:
1. a path: a spec YAML, a Hugging Face `config.json`, or a snapshot folder (`path`);
2. a catalog name, case-insensitive (`catalog`);
3. a catalog spec's `hf_id` (`hf_id`) or one of its declared, sourced `aliases` (`alias`),
   case-insensitive; nothing is ever guessed from a name pattern;
4. a hub id (`org/name`), whose config.json is read through huggingface_hub (`hub`).
A reference none of these reads is refused in one line that names the catalog entry its name
points at, where one does (kvplan.specs.name_hints): a hint, never a plan.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kvplan.errors import InputError
from kvplan.specs.name_hints import base_hint, folder_hint, repo_name_hint
from kvplan.specs.name_hints import folder_entry as folder_entry  # kvplan.check reads it here
from kvplan.specs.schema import ModelSpec
from kvplan.specs.service_ids import service_hint, service_unknown
from kvplan.specs.spellings import ollama_hint, rewrite

RULES = ("path", "catalog", "hf_id", "alias", "hub")


@dataclass(frozen=True)
class Resolved:
    """A spec and how the reference reached it."""

    ref: str  # what the user typed
    spec: ModelSpec
    rule: str  # one of RULES
    detail: str = ""  # how a spelling was read (kvplan.specs.spellings), '' when typed plainly

    @property
    def note(self) -> str:
        """'meta-llama/Llama-3.1-8B-Instruct -> llama-3.1-8b (hf_id)', or '' for a plain name."""
        if self.rule == "catalog" and self.ref == self.spec.name:
            return ""
        return f"{self.ref} \u2192 {self.spec.name} ({self.rule})" + (
            f"; {self.detail}" if self.detail else "")


# what a file kvplan reads ends in, where no model's name does
_FILE_SUFFIXES = (".yaml", ".yml", ".json", ".py", ".ipynb", ".sh", ".bash", ".zsh", ".ksh")


def looks_like_path(ref: str) -> bool:
    """A spec file, config.json, deployment file or folder: a YAML/JSON suffix, a script's
    (`.py`, `.ipynb`, `.sh`: size, explain and fleet read them as check does, and no model is
    named so), a leading ./ ~ or /, or a folder that exists. `org/name` without a suffix is a hub
    id unless that folder exists."""
    if ref.endswith(_FILE_SUFFIXES):
        return True
    if ref.startswith(("/", "./", "../", "~")) or os.sep != "/" and os.sep in ref:
        return True
    # a file too: `kvplan size scripts/serve.py` had said 'no such file or folder' (h70hostile)
    return "/" in ref and (Path(ref).is_dir() or Path(ref).is_file())


@lru_cache(maxsize=1)
def _index() -> dict[str, tuple[str, str]]:
    """lower-case key -> (catalog file stem, rule), from every catalog spec's name, hf_id and
    aliases. Read from each file's data (the catalog index), not its validated spec, so that
    one broken spec never hides the others."""
    from kvplan.specs.loader import MODEL_DIR, aliases_of, catalog

    index: dict[str, tuple[str, str]] = {}
    files = catalog(MODEL_DIR)
    for stem in files:
        index.setdefault(stem.lower(), (stem, "catalog"))
    for stem, entry in files.items():
        if not entry.ok:
            continue  # reported when the spec itself is loaded
        data = entry.data
        if not isinstance(data, dict):
            continue
        if isinstance(data.get("hf_id"), str):
            index.setdefault(data["hf_id"].lower(), (stem, "hf_id"))
        for alias in aliases_of(data):
            if isinstance(alias, dict) and isinstance(alias.get("id"), str):
                index.setdefault(alias["id"].lower(), (stem, "alias"))
    return index


def catalog_match(ref: str) -> tuple[str, str] | None:
    """(catalog name, rule) for a name, hf_id or alias; None when the catalog has no such entry."""
    return _index().get(strip_hub_prefix(ref.strip()).lower().rstrip("/"))


# How a Hugging Face repository is written besides org/name: the hub URL, huggingface_hub's
# hf:// file-system scheme, and the short hf.co domain (Ollama's `ollama run hf.co/org/name`,
# https://huggingface.co/docs/hub/ollama).
_HUB_PREFIXES = ("hf://", "https://huggingface.co/", "http://huggingface.co/", "huggingface.co/",
                 "https://hf.co/", "http://hf.co/", "hf.co/")


def strip_hub_prefix(ref: str) -> str:
    """org/name for a hub id written as a URL or with the hf.co domain; else `ref` unchanged."""
    low = ref.lower()
    prefix = next((p for p in _HUB_PREFIXES if low.startswith(p)), "")
    return ref[len(prefix):].rstrip("/") if prefix else ref


def resolve_model(ref: str, *, base: Path | None = None, allow_hub: bool = True) -> Resolved:
    """Resolve a model reference. `base` is the folder relative paths are read from (a
    manifest's folder); raises InputError naming what to do when nothing matches."""
    from kvplan.specs.loader import MODEL_DIR, _files, load_model_file

    text = ref.strip()
    if not text:
        raise InputError("empty model name; give a catalog name (`kvplan models`), a Hugging Face id or a "
                         "spec file")
    if looks_like_path(text):
        path = Path(text).expanduser()
        if base is not None and not path.is_absolute():
            path = base / path
        if path.is_file() and path.suffix not in (".yaml", ".yml", ".json"):
            raise InputError(_not_a_spec(path))
        if path.exists():
            return Resolved(ref, load_model_file(path), "path")
        spelled = rewrite(text)  # a hub cache folder names its repository
        match = catalog_match(spelled[0]) if spelled else None
        if spelled and match:
            return _catalog_entry(ref, spelled[0], *match, f"not on this machine; {spelled[1]}")
        if text.endswith(_FILE_SUFFIXES) or text.startswith(("/", "./", "../", "~")):
            raise InputError(f"{text}: no such file{_folder_hint(text)}")
    match = catalog_match(text)
    if match is not None:
        return _catalog_entry(ref, text, *match)
    # Fireworks', Bedrock's, Vertex AI's ids: no hub id, no folder
    said = service_hint(text) or service_unknown(text)
    if said:
        raise InputError(f"unknown model {ref!r}; {said}; `kvplan models` lists the catalog")
    spelled = rewrite(strip_hub_prefix(text), on_hub=strip_hub_prefix(text) != text)
    if spelled is not None:
        match = catalog_match(spelled[0])
        if match is not None:
            return _catalog_entry(ref, spelled[0], *match, spelled[1])
        text = spelled[0]  # a hub id the catalog lacks: read from the hub as any other
    hub_id = strip_hub_prefix(text)
    uri = re.match(r"([a-z][a-z0-9+.-]*)://", text.lower())
    if uri and hub_id == text and uri[1] != "ollama":  # ollama:// is spellings.py's
        # KServe's storageUri and llm-d's modelArtifacts.uri: s3://, gs://, pvc://, oci:// ...
        last = text.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]  # oci://...:tag
        raise InputError(f"{text}: kvplan reads no model from {uri[1]}:// storage; "
                         f"pass the model's hub id, config.json or catalog name{_folder_hint(last)}")
    if hub_id == text and text.count("/") > 1 and ":" not in text:
        # no hub id has two slashes: a relative folder (`model/huggingface/Qwen2.5-7B-Instruct`)
        # or one behind a shell variable, not on this machine
        shell = " (kvplan expands no shell variable)" if "$" in text else ""
        raise InputError(f"{text}: no such file or folder{shell}{_folder_hint(text)}")
    if allow_hub and _is_hub_id(hub_id):
        from kvplan.specs.hub import fetch_config  # only for hub ids: imports huggingface_hub

        try:
            return Resolved(ref, fetch_config(hub_id), "hub")
        except InputError as err:
            hint = quantized_base_hint(text)
            if hint:
                raise InputError(f"{err}; {hint}") from None
            close = _close_ids(hub_id)  # deepseek-ai/DeepSeek-V3-Base: deepseek-v3's id first
            if close:
                raise InputError(f"{err}{close}") from None
            raise
    names = list(_files(MODEL_DIR))
    named = quantized_base_hint(text) or repo_name_hint(text)
    hint = named or ollama_hint(text)
    # a hint that names the catalog entry outranks difflib's spelling neighbours, which for
    # Qwen2.5-7B-Instruct were qwen2.5-14b-instruct and qwen2.5-7b-base
    close = "" if named else _close_names(text, names)
    raise InputError(
        f"unknown model {ref!r}{close}{'; ' + hint if hint else ''}; "
        "`kvplan models` lists the catalog; pass a Hugging Face id (org/name), a spec file or a "
        "config.json"
    )


def _close_names(text: str, names: list[str]) -> str:
    """' (did you mean: a, b?)': the catalog names spelt closest to `text` (difflib, ratio 0.5),
    three at most, led by the entry whose hf_id's repository part `text` misspells (ratio 0.9 or
    more, an org/ prefix read off): `Qwen2.5-7B-Instrcut` is Qwen/Qwen2.5-7B-Instruct's name
    misspelt, and the names alone no longer offered qwen2.5-7b once qwen1.5-7b-chat was a name
    nearer in spelling (task h91catalog)."""
    import difflib  # only on the error path

    from kvplan.specs.loader import MODEL_DIR, catalog

    typed = text.lower()
    close = difflib.get_close_matches(typed, names, n=3, cutoff=0.5)
    repos: dict[str, str] = {}
    for stem, found in catalog(MODEL_DIR).items():
        hf_id = found.data.get("hf_id") if found.ok and isinstance(found.data, dict) else None
        if isinstance(hf_id, str) and "/" in hf_id:
            repos.setdefault(hf_id.rsplit("/", 1)[-1].lower(), stem)
    near = difflib.get_close_matches(typed.rstrip("/").rsplit("/", 1)[-1], list(repos), n=1,
                                     cutoff=0.9)
    picked = list(dict.fromkeys([repos[r] for r in near] + close))[:3]
    return f" (did you mean: {', '.join(picked)}?)" if picked else ""


def _close_ids(hub_id: str) -> str:
    """' (did you mean: org/a?)': the catalog ids of the same org whose repository name is
    close to that of a hub id the hub could not give (deepseek-ai/DeepSeek-V3-Base:
    deepseek-ai/DeepSeek-V3); '' when none is. Same org and a 0.8 ratio: difflib over every id
    named Qwen/Qwen3-14B for OpenGVLab/InternVL3-1B and Llama-3.3-70B for a Code Llama."""
    import difflib

    from kvplan.specs.name_hints import full_id_by_repo_name

    org, _, name = hub_id.lower().partition("/")
    ids = {full.lower().partition("/")[2]: full for _, full in full_id_by_repo_name().values()
           if full.lower().partition("/")[0] == org}
    close = difflib.get_close_matches(name, list(ids), n=3, cutoff=0.8)
    return f" (did you mean: {', '.join(ids[c] for c in close)}?)" if close else ""


def _catalog_entry(ref: str, key: str, stem: str, rule: str, detail: str = "") -> Resolved:
    """The catalog spec `key` matched; for an alias published in another dtype than the spec
    (its own config.json's torch_dtype, `ModelAlias.weight_dtype`), the spec with the alias's
    weight dtype, said in the note (Gemma-2-9B is published in float32, its -it release in
    bfloat16: 2 bytes a parameter, not 4)."""
    from kvplan.specs.loader import MODEL_DIR, catalog, load_entry

    spec = load_entry(ModelSpec, catalog(MODEL_DIR)[stem])
    if rule == "alias":
        wanted = strip_hub_prefix(key.strip()).lower().rstrip("/")
        alias = next((a for a in spec.aliases if a.id.lower() == wanted), None)
        if alias is not None and alias.weight_dtype not in (None, spec.weight_dtype):
            how = (f"{alias.id} is published in {alias.weight_dtype.value} "
                   f"(its config.json), {spec.name} in {spec.weight_dtype.value}: weights planned "
                   f"in {alias.weight_dtype.value}")
            spec = spec.model_copy(update={"weight_dtype": alias.weight_dtype})
            detail = f"{detail}; {how}" if detail else how
    return Resolved(ref, spec, rule, detail)


# What an unplannable name points at (kvplan.specs.name_hints); kvplan.check and
# kvplan.specs.spellings read these names from here
quantized_base_hint = base_hint
_folder_hint = folder_hint


# A server named in a file that is not a deployment: a script whose server start kvplan cannot
# read (one it reads is planned as `kvplan check` reads it: kvplan.check.manifests.shell)
_SERVER_START = re.compile(r"vllm serve|vllm\.entrypoints|sglang\.launch_server|sglang serve"
                           r"|trtllm-serve|vllm/vllm-openai|lmsysorg/sglang")


def _not_a_spec(path: Path) -> str:
    """Why a file that is neither YAML nor JSON is not a model (a shell script, most often)."""
    from kvplan.check.outcome import PY_SUFFIXES
    from kvplan.inputs.text import read_text

    if path.suffix in PY_SUFFIXES:
        what = "a Python script" if path.suffix == ".py" else "a notebook"
        return (f"{path}: {what}; `kvplan check` reads the engine it starts (size, explain and "
                "fleet plan a model, or a kvplan/v1 file, a manifest or a launch script): check "
                "it, or give the model by name")

    try:
        starts = _SERVER_START.search(read_text(path)) is not None
    except InputError:
        starts = False
    what = (" it names a server, but no command in it starts one kvplan reads (`kvplan check` "
            "says why); plan the model by name" if starts else "")
    return (f"{path}: not a model spec YAML, config.json or snapshot folder, nor a deployment "
            f"file (kvplan/v1, Kubernetes, docker-compose YAML, a launch script);"
            f"{what or ' give one of those'}")


def _is_hub_id(ref: str) -> bool:
    """org/name with the characters the hub allows in repository ids."""
    return re.fullmatch(r"[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}", ref) is not None
