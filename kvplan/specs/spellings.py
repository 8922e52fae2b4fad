"""Model references people type that are not a catalog name, hub id or path, read back to the
hub id they stand for: `Org/Name@revision`, huggingface_hub's cache folder `models--Org--Name`,
and Ollama's `name:tag`. Each reading says what it read; a tag that names a quantization is
refused with what to write instead (the cache plan takes no weights' width from a name).

`rewrite(ref)` gives (hub id, what was read) or None when the reference is none of these;
kvplan.specs.resolve then matches the hub id against the catalog as usual.
"""

from __future__ import annotations

import re

from kvplan.errors import InputError

# `Org/Name@rev`: how huggingface_hub's file system (hf://Org/Name@rev/...) and `hf download`
# write a revision; vLLM takes it as --revision. The catalog holds one revision per entry.
_REVISION = re.compile(r"^([A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96})@([\w./-]{1,255})$")

# huggingface_hub's cache folder of a model repository: "models--" + repo_id with "/" written
# "--" (huggingface_hub constants REPO_ID_SEPARATOR, file_download.repo_folder_name); a repo id
# never holds "--" itself (utils/_validators.validate_repo_id), so the split is unambiguous.
_CACHE = re.compile(r"(?:^|/)models--([A-Za-z0-9][\w.-]*?)--([\w.-]+?)(?:/snapshots/\w+)?/?$")

# Ollama `name:tag` (ollama.com/library). Which checkpoint a library name and size stand for,
# read from the model makers' and Ollama's own pages (no other family is guessed):
# - qwen2.5: "ollama run qwen2.5:0.5b ... qwen2.5:72b ... Even though the tag may not have the
#   instruct suffix, they are all instruct models" (Qwen's docs, run_locally/ollama.md,
#   https://qwen.readthedocs.io/en/v2.5/run_locally/ollama.html);
# - llama3.1 8b / 70b / 405b, llama3.2 1b / 3b, llama3.3 70b, gemma3 1b / 4b / 12b / 27b,
#   phi4 14b: the model table of Ollama's README (github.com/ollama/ollama README.md, e.g.
#   v0.14.2 "Llama 3.1 | 8B | ollama run llama3.1", "Llama 3.2 | 1B | ollama run llama3.2:1b";
#   llama3.1:70b in its earlier table). Ollama's library serves the instruction-tuned release
#   under the size tag and the base one under `<size>-text`.
_OLLAMA: dict[str, dict[str, str]] = {
    "qwen2.5": {s: f"Qwen/Qwen2.5-{s.upper()}-Instruct"
                for s in ("0.5b", "1.5b", "3b", "7b", "14b", "32b", "72b")},
    "llama3.1": {s: f"meta-llama/Llama-3.1-{s.upper()}-Instruct" for s in ("8b", "70b", "405b")},
    "llama3.2": {s: f"meta-llama/Llama-3.2-{s.upper()}-Instruct" for s in ("1b", "3b")},
    "llama3.3": {"70b": "meta-llama/Llama-3.3-70B-Instruct"},
    "gemma3": {s: f"google/gemma-3-{s}-it" for s in ("1b", "4b", "12b", "27b")},
    "phi4": {"14b": "microsoft/phi-4"},
}
_BASE = {"llama3.1": "meta-llama/Llama-3.1-{}", "llama3.2": "meta-llama/Llama-3.2-{}"}
_OLLAMA_REF = re.compile(r"^([a-z0-9][a-z0-9._-]*):([A-Za-z0-9._-]+)$")
# GGUF weight types as Ollama tags name them (q4_K_M, q8_0, iq3_xxs ...); fp16 / bf16 are the
# checkpoint's own 16-bit weights
_QUANT = re.compile(r"^(i?q\d\w*|fp8|int4|int8)$", re.IGNORECASE)
_SIXTEEN = ("fp16", "bf16")


def _ollama(name: str, tag: str) -> tuple[str, str] | None:
    sizes = _OLLAMA.get(name)
    if sizes is None:
        return None
    parts = tag.split("-")
    size, rest = parts[0].lower(), parts[1:]
    if size not in sizes:
        known = ", ".join(f"{name}:{s}" for s in sizes)
        raise InputError(f"{name}:{tag}: Ollama tag whose size kvplan cannot read (it knows "
                         f"{known}); write the size (`{name}:{next(iter(sizes))}`) or the hub id")
    quant = [p for p in rest if _QUANT.match(p)]
    hub_id = sizes[size]
    if "text" in (p.lower() for p in rest) and name in _BASE:
        hub_id = _BASE[name].format(size.upper())
    if quant:
        from kvplan.specs.resolve import catalog_match

        entry = catalog_match(hub_id)
        plan = f"`{entry[0]}`" if entry else f"`{hub_id}`"
        raise InputError(
            f"{name}:{tag}: Ollama's {quant[0]} GGUF build of {hub_id}: kvplan does not price "
            f"GGUF weights from a name; plan the checkpoint, {plan} (the same KV cache), with "
            "--weight-dtype for its weights' width")
    width = next((p for p in rest if p.lower() in _SIXTEEN), "")
    # Ollama's size tags are its own GGUF builds, not the 16-bit checkpoint (its README's
    # sizes: Llama 3.1 8B, 4.7GB): the KV cache is the checkpoint's, the weights are not
    built = (f"Ollama's {width} build" if width else
             "Ollama serves its own quantized GGUF build of this tag; planned with the "
             "checkpoint's own weights")
    return hub_id, f"Ollama tag {name}:{tag} read as {hub_id} ({built})"


# Ollama's way to run a GGUF repository of the hub: `hf.co/{username}/{repository}:{quant}`
# (https://huggingface.co/docs/hub/ollama); the hf.co prefix is removed before this is read
_HUB_TAG = re.compile(r"^([A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}):([\w.-]+)$")
# An Ollama tag: "Model names follow a `model:tag` format, where `model` can have an optional
# namespace such as `example/model`. Some examples are `orca-mini:3b-q4_1` and `llama3:70b`.
# The tag is optional and, if not provided, will default to `latest`" (Ollama's docs/api.md,
# Conventions, code index file 482418188): `latest`, or a parameter count first (3b, 70b, 0.5b,
# 8x7b) and the variant after it (`huihui_ai/gemma-4-abliterated:26b-q4_K`, typed-r3.tsv)
_OLLAMA_TAG = re.compile(r"^(?:latest|\d+(?:\.\d+)?(?:x\d+)?[bm](?:-[\w.]+)*)$", re.IGNORECASE)


def _gguf_tag(hub_id: str, tag: str) -> InputError:
    from kvplan.specs.resolve import quantized_base_hint

    hint = quantized_base_hint(hub_id) or quantized_base_hint(f"{hub_id}-gguf")
    return InputError(f"{hub_id}:{tag}: the {tag} GGUF file of {hub_id} (Ollama's hf.co/...:"
                      "quant spelling): kvplan does not price GGUF weights from a name"
                      + (f"; {hint}" if hint else "; pass the checkpoint's hub id or config.json"))


def _before_tag(hub_id: str) -> str:
    """What the id before a `:tag` is (OpenRouter's `meta-llama/llama-3.1-8b-instruct:free`):
    ' (the catalog's llama-3.1-8b)', or the hint for a quantized copy; '' for neither."""
    from kvplan.specs.resolve import catalog_match, quantized_base_hint

    match = catalog_match(hub_id)
    if match is not None:
        return f" (the catalog's {match[0]})"
    hint = quantized_base_hint(hub_id)
    return f"; {hint}" if hint else ""


def rewrite(ref: str, *, on_hub: bool = False) -> tuple[str, str] | None:
    """(hub id, what was read) for a revision, cache folder or Ollama spelling; None else.
    `on_hub`: the reference was written as a hub URL or `hf.co/` (no Ollama registry name)."""
    text = ref.strip()
    if text.lower().startswith("ollama://"):  # how some launchers write an Ollama model
        text = text[len("ollama://"):]
    m = _HUB_TAG.match(text)
    if m:
        from kvplan.specs.name_hints import is_gguf_type

        if is_gguf_type(m[2]) or m[1].lower().endswith("gguf"):  # a GGUF repository's tag
            raise _gguf_tag(m[1], m[2])
        if _OLLAMA_TAG.match(m[2]) and not on_hub:
            said = _before_tag(m[1])
            said = f"; {m[1]} is {said[2:-1]}" if said.startswith(" (") else said
            raise InputError(
                f"{text}: an Ollama model name (Ollama's own naming: namespace/model:tag, "
                f"':{m[2]}' its tag), not a hub id with a GGUF type (Q4_K_M, Q8_0, F16 ...); "
                "kvplan reads no model from Ollama's registry: pass the Hugging Face id or the "
                f"config.json of the checkpoint it packages{said}")
        raise InputError(f"{text}: ':{m[2]}' after a hub id is not a GGUF type (Q4_K_M, Q8_0, "
                         f"F16 ...) and names nothing kvplan or vLLM reads; for a revision write "
                         f"{m[1]}@{m[2]} (vLLM takes it as --revision), else {m[1]}"
                         f"{_before_tag(m[1])}")
    m = _REVISION.match(text)
    if m:
        return m[1], (f"revision @{m[2]} not read: the catalog entry of {m[1]} is planned (vLLM "
                      "takes a revision as --revision)")
    m = _CACHE.search(text)
    if m:
        hub_id = f"{m[1]}/{m[2]}"
        return hub_id, f"{text} is huggingface_hub's cache folder of {hub_id}"
    m = _OLLAMA_REF.match(text)
    if m:
        return _ollama(m[1], m[2])
    return None


def ollama_hint(ref: str) -> str:
    """For an Ollama-looking `name:tag` whose library name kvplan has no reading of: what to
    write instead ('' for anything else)."""
    m = _OLLAMA_REF.match(ref.strip())
    if m is None or m[1] in _OLLAMA:
        return ""
    return (f"{ref.strip()!r} looks like an Ollama name:tag; kvplan reads the tags of "
            f"{', '.join(_OLLAMA)} only: write the Hugging Face id of the checkpoint")
