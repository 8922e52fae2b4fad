"""What a model reference kvplan cannot plan points at: the catalog entry its repository name
names, for the one line that refuses it. Hints only: kvplan never plans from a name pattern.

A reference is read down to a repository name (`org/Name`, a URL's or path's last part, a GGUF
file or repository, a quantized copy's suffix removed) and matched against the repository part
of every catalog hf_id and alias: exactly (any case), else token by token, so that a separator
or case variant (`llama3.1-8b-instruct`, `qwen-2.5-7b-instruct`) still names its entry. A token
match that two entries share names neither.
"""

from __future__ import annotations

import re

# Suffixes that name a quantized copy of a checkpoint (its config.json is the base's plus a
# quantization_config: the attention shape, so the KV cache, is the base's) and the
# --weight-dtype that prices their packed weights; matched longest first. `-unsloth-bnb-4bit`
# is unsloth's dynamic bitsandbytes export (unsloth/Qwen3-VL-2B-Instruct-unsloth-bnb-4bit),
# `-4bit` / `-8bit` MLX's (mlx-community/Qwen2-7B-Instruct-4bit).
_QUANT_SUFFIXES = (
    ("-awq-int4", "int4"), ("-gptq-int4", "int4"), ("-gptq-int8", "int8"), ("-fp8-dynamic", "fp8"),
    ("-quantized.w4a16", "int4"), ("-quantized.w8a8", "int8"), ("-quantized.w8a16", "int8"),
    ("-unsloth-bnb-4bit", "int4"), ("-bnb-4bit", "int4"), ("-w4a16", "int4"), ("-w8a8", "int8"),
    ("-nvfp4", "int4"),
    # Meta's own quantized Llama 3.2 1B/3B Instruct releases for ExecuTorch (QLoRA: quantization-
    # aware training with LoRA adaptors; SpinQuant: rotation + GPTQ): 4-bit groupwise weights
    # (group 32) with 8-bit dynamic activations; the params.json of the 1B QLoRA copy keeps the
    # base's shapes (dim 2048, 16 layers, 32 heads, 8 KV heads; quantization_args group_size 32,
    # lora_args rank 16: huggingface.co/software-mansion/react-native-executorch-llama-3.2
    # commit be5fb7c, llama-3.2-1B/QLoRA/config.json; ai.meta.com/blog/
    # meta-llama-quantized-lightweight-models)
    ("-qlora_int4_eo8", "int4"), ("-spinquant_int4_eo8", "int4"),
    ("-fp8-kv", "fp8"),  # AMD's Quark exports (amd/Llama-3.1-70B-Instruct-FP8-KV)
    ("-awq", "int4"), ("-gptq", "int4"), ("-fp8", "fp8"), ("-int4", "int4"), ("-int8", "int8"),
    ("-4bit", "int4"), ("-8bit", "int8"),
)
# An export format's name after the width (`-int4-ov`, optimum-intel's OpenVINO IR exports,
# /mnt/.../OpenVINO/DeepSeek-R1-Distill-Qwen-14B-int4-awq-ov): read only before a width suffix
_PACKAGING = ("-ov",)
# The weights' grouping after the width, read only before a width suffix: `-cw`, channel-wise
# (one scale per output channel, optimum-cli's --group-size -1: "Channel-wise symmetric int4
# (--sym --group-size -1)", huggingface.co/HarmenWessels/Seed-Coder-8B-Instruct-int4-cw-ov;
# OpenVINO/DeepSeek-R1-Distill-Qwen-1.5B-int4-cw-ov, typed-r3.tsv). The width is the suffix's.
_GROUPING = ("-cw",)
# Abliteration removes a refusal direction from the weight matrices (orthogonalisation, Arditi
# et al., arXiv 2406.11717); the config.json, so the attention shape, is the base's.
# Publishers put their own name first (huihui-ai's `Huihui-Qwen3-4B-Instruct-2507-abliterated`)
_DERIVED = "-abliterated"
_RELEASES = {"-qlora_int4_eo8": "Meta's QLoRA int4 release (4-bit weights, 8-bit dynamic "
                                  "activations, for ExecuTorch)",
             "-spinquant_int4_eo8": "Meta's SpinQuant int4 release (4-bit weights, 8-bit dynamic "
                                    "activations, for ExecuTorch)"}
# A GPTQ/AWQ copy whose name adds the bits and group size after the method, each part with a
# digit (ISTA-DASLab/gemma-3-27b-it-GPTQ-4b-128g, litellm#11689); int8 where a part says 8 bits
_QUALIFIED = re.compile(r"-(gptq|awq)((?:-[a-z_]*\d[a-z0-9_]*){1,3})$", re.IGNORECASE)
# A GGUF weight type at the end of a GGUF file or repository name, as llama.cpp names them
# (Q4_K_M, q5_k_m, Q8_0, IQ1_S, unsloth's UD-IQ2_XXS, F16, BF16)
_GGUF_TYPE = re.compile(r"[-._]((?:ud-)?i?q\d(?:_[a-z0-9]+)*|f16|bf16|f32)$", re.IGNORECASE)


def is_gguf_type(tag: str) -> bool:
    """Whether a `repo:TAG` tag is a GGUF weight type as llama.cpp names them (Q4_K_M, IQ2_XXS,
    UD-Q4_K_XL, F16, BF16), the part Ollama's and vLLM's `hf.co/org/repo:quant` spelling adds."""
    m = _GGUF_TYPE.search(f"-{tag}")
    return m is not None and m[1] == tag


def _read(name: str) -> tuple[str, str | None, str]:
    """(the checkpoint's repository name, --weight-dtype or '' for GGUF or None for none,
    the GGUF type read) for a repository or file name."""
    name, _, tag = name.partition(":")  # `repo:Q4_K_M`, Ollama's and vLLM's GGUF spelling
    gguf = bool(tag)
    for end in (".gguf", "-gguf"):
        if name.lower().endswith(end):
            name, gguf = name[:-len(end)], True
    gtype = tag
    m = _GGUF_TYPE.search(name) if gguf else None
    if m:
        name, gtype = name[:m.start()], gtype or m[1]
    if gguf:
        return name, "", gtype
    low = name.lower()
    packed = next((p for p in _PACKAGING if low.endswith(p)), "")
    core = name[:len(name) - len(packed)]
    grouped = next((g for g in _GROUPING if core.lower().endswith(g)), "")
    if grouped and _width_suffix(core[:-len(grouped)]):
        core = core[:-len(grouped)]
    first: str | None = None
    while True:  # stacked suffixes: `-int4-awq` (gaunernst/gemma-3-12b-it-int4-awq)
        low = core.lower()
        suffix, width = next(((s, w) for s, w in sorted(_QUANT_SUFFIXES, key=lambda s: -len(s[0]))
                              if low.endswith(s)), ("", ""))
        if not suffix:
            break
        core, first = core[:-len(suffix)], first or width
    if first is not None:
        return core, first, ""
    m = _QUALIFIED.search(name)
    if m:  # -GPTQ-4b-128g: the method, then its bits and group size
        quals = m[2].lower().split("-")[1:]
        return name[:m.start()], "int8" if {"8b", "8bit", "int8", "w8"} & set(quals) else "int4", ""
    return name, None, ""


def _width_suffix(name: str) -> str:
    """The quantized copy's suffix `name` ends with, longest first ('' for none)."""
    low = name.lower()
    return next((s for s, _ in sorted(_QUANT_SUFFIXES, key=lambda s: -len(s[0]))
                 if low.endswith(s)), "")


def _tokens(name: str) -> tuple[str, ...]:
    """`llama3.1-8b-instruct` and `Llama-3.1-8B-Instruct` alike: ('llama', '3.1', '8', 'b', ...)."""
    return tuple(re.findall(r"[a-z]+|\d+(?:\.\d+)*", name.lower()))


def full_id_by_repo_name() -> dict[str, tuple[str, str]]:
    """The repository part of every catalog hf_id and alias, lower-case -> (catalog name, the
    id as the spec spells it); the first spec in catalog order keeps a name two share. Built
    on each call (error paths only) from the catalog index, so it follows KVPLAN_SPECS_PATH."""
    from kvplan.specs.loader import MODEL_DIR, aliases_of, catalog

    out: dict[str, tuple[str, str]] = {}
    for stem, entry in catalog(MODEL_DIR).items():
        data = entry.data if entry.ok else None
        if not isinstance(data, dict):
            continue
        ids = [data.get("hf_id")] + [a.get("id") for a in aliases_of(data) if isinstance(a, dict)]
        for full in ids:
            if isinstance(full, str) and "/" in full:
                out.setdefault(full.rsplit("/", 1)[-1].lower(), (stem, full))
    return out


def _by_tokens() -> dict[tuple[str, ...], tuple[str, str] | None]:
    """Token spelling -> (catalog name, id); None where two catalog entries share a spelling."""
    out: dict[tuple[str, ...], tuple[str, str] | None] = {}
    for name, found in full_id_by_repo_name().items():
        key = _tokens(name)
        # Meta's repositories without their `Meta-` (`llama3_8B_instruct` for
        # Meta-Llama-3-8B-Instruct, typed-r2.tsv), as entry_for reads a typed name without it
        for spelling in (key, key[1:] if key[:1] == ("meta",) else ()):
            if spelling:
                held = out.get(spelling, found)
                out[spelling] = held if held is not None and held[0] == found[0] else None
    return out


def entry_for(name: str) -> tuple[str, str, bool] | None:
    """(catalog name, id, exact) for a repository name; exact is False for a token match."""
    names = full_id_by_repo_name()
    low = name.lower()
    for key in (low, low + "-hf", low.removeprefix("meta-")):
        if key in names:
            return (*names[key], True)
    tokens = _tokens(name)
    for spelling in (tokens, tokens[1:] if tokens[:1] == ("meta",) else ()):
        found = _by_tokens().get(spelling) if spelling else None
        if found is not None:
            return (*found, False)
    return None


def _spelt(name: str, full: str, exact: bool) -> str:
    return name if exact else f"{name} (read as {full.rsplit('/', 1)[-1]})"


def base_hint(ref: str) -> str:
    """For a hub id, URL or file whose repository names a catalog checkpoint: a quantized or GGUF
    copy (what to plan, with --weight-dtype), or a copy under another org (ModelScope's
    LLM-Research, unsloth's re-uploads); '' when it names none or is the catalog's own id."""
    from kvplan.specs.service_ids import service_hint, windows_hint

    said = windows_hint(ref) or service_hint(ref)
    if said:
        return said
    ref = ref.strip().rstrip("/")
    name = ref.rsplit("/", 1)[-1]
    before, colon, tag = name.partition(":")
    if colon and tag and not is_gguf_type(tag) and not before.lower().endswith(("gguf", "ggml")):
        found = entry_for(before)  # `llama-3.1-8b:free` was 'a free GGUF build' (h56review)
        if found is not None:
            return (f"':{tag}' after it is not a GGUF type (Q4_K_M, Q8_0, F16 ...) and names "
                    f"nothing kvplan reads; {before} is the catalog's {found[0]}: plan "
                    f"`{found[0]}`")
    base, width, gtype = _read(name)
    base, derived = _underived(base)
    found = entry_for(base) if base else None
    if found is not None and derived:
        return _derived_hint(base, found, width, gtype)
    named = catalog_name(name) if "/" in ref and width is None else None
    if named is not None and (found is None or not found[2]):
        # a catalog name outranks a token reading of it (`models/llama-3-8b`)
        return (f"its last part {name!r} is the catalog name {named} (no catalog hub id has it): "
                f"if it is a folder holding that checkpoint, plan `{named}` (or pass the folder's "
                "config.json)")
    if found is None:
        return ""
    stem, full, exact = found
    if width is None:
        if ref.lower().endswith("/" + full.lower()) and exact:
            before = ref[:-len(full)]
            if not before.lower().endswith(("hf.co/", "huggingface.co/", "hf://")):
                # LiteLLM's provider prefix (`vllm/`, `hosted_vllm/`, litellm#2831, #11689)
                return (f"it is the catalog's id {full} (the catalog's {stem}) after "
                        f"{before!r}, a prefix kvplan does not strip (a LiteLLM provider's, "
                        f"as `vllm/` or `hosted_vllm/`): plan `{stem}`")
        if "/" not in ref or ref.lower().endswith(full.lower()) and exact:
            return ""  # a bare name (repo_name_hint) or the catalog's own id
        return (f"its repository name {_spelt(name, full, exact)} is that of {full} (the "
                f"catalog's {stem}), under another org: if it is an unchanged copy, plan "
                f"`{stem}`; else pass its config.json")
    flag = f" --weight-dtype {width}" if width else " --weight-dtype (the GGUF file's type)"
    what = f"a {gtype} GGUF build" if gtype else _RELEASES.get(name[len(base):].lower(),
                                                               "a quantized copy")
    return (f"it names {what} of {_spelt(base, full, exact)}, whose catalog entry {stem} has the "
            f"same attention shape (the KV cache is the base's): plan `{stem}{flag}` (kvplan's "
            "generic pricing of that width), or pass the copy's config.json for its exact weights")


def _underived(name: str) -> tuple[str, bool]:
    """(the base's repository name, whether `name` is an abliterated copy of it)."""
    if not name.lower().endswith(_DERIVED):
        return name, False
    base = name[:-len(_DERIVED)]
    if entry_for(base) is None and "-" in base:
        base = base.split("-", 1)[1]  # the publisher's own name first
    return base, True


def _derived_hint(base: str, found: tuple[str, str, bool], width: str | None, gtype: str) -> str:
    stem, full, exact = found
    what = ("an abliterated copy" if width is None else "a quantized abliterated copy" if width
            else f"a {gtype + ' ' if gtype else ''}GGUF build of an abliterated copy")
    flag = "" if width is None else (f" --weight-dtype {width}" if width else
                                     " --weight-dtype (the GGUF file's type)")
    return (f"it names {what} of {_spelt(base, full, exact)} (abliteration edits the weights, not "
            f"the config.json), whose catalog entry {stem} has the same attention shape: plan "
            f"`{stem}{flag}`, or pass the copy's config.json")


def repo_name_hint(ref: str) -> str:
    """For a bare repository name (`Qwen2.5-7B-Instruct`, no org) that is the repository part of
    a catalog hf_id or alias: the entry and the full id to write ('' otherwise). A hint, never a
    plan: the same name under another org may be another checkpoint."""
    if "/" in ref or ":" in ref:  # `name:tag` is Ollama's: kvplan.specs.spellings reads it
        return ""
    found = entry_for(ref.strip())
    if found is None:
        return ""
    stem, full, exact = found
    how = "the repository name" if exact else "another spelling of the repository name"
    return f"it is {how} of {full} (the catalog's {stem}): write the full id, `{full}`"


def folder_entry(path: str) -> str | None:
    """The catalog entry whose hub repository has the folder's name (`/models/Qwen2.5-7B-Instruct`
    -> qwen2.5-7b), any case; None when none has. A hint for a path that cannot be read."""
    return _base_by_repo_name().get(path.rstrip("/").rsplit("/", 1)[-1].lower())


def folder_hint(path: str) -> str:
    """For a path that does not exist here (a folder inside a container): what to plan instead."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    stem = folder_entry(path)
    if stem is not None:
        return (f"; its last part {name!r} is the repository name of the catalog's {stem}: if the "
                f"folder holds that checkpoint, plan `{stem}` (or pass the folder's config.json)")
    hint = base_hint(name)
    if hint:
        return f"; {hint}"
    stem = catalog_name(name)
    if stem is not None:  # `models/llama-3-8b`: the folder is named after the catalog entry
        return (f"; its last part {name!r} is the catalog name {stem}: if the folder holds that "
                f"checkpoint, plan `{stem}` (or pass the folder's config.json)")
    found = entry_for(name)
    if found is None:
        return ""
    stem, full, _ = found
    return (f"; its last part {name!r} reads as {full.rsplit('/', 1)[-1]}, the repository name of "
            f"the catalog's {stem}: if the folder holds that checkpoint, plan `{stem}` (or pass "
            "the folder's config.json)")


def catalog_name(name: str) -> str | None:
    """The catalog entry named `name` in any case (a folder's or a hub id's last part that is a
    catalog name, `models/llama-3-8b`); None when none is. A hint for a path: a path is never
    planned from its name."""
    from kvplan.specs.loader import MODEL_DIR, catalog

    low = name.lower()
    return next((stem for stem in catalog(MODEL_DIR) if stem.lower() == low), None)


def _base_by_repo_name() -> dict[str, str]:
    """The repository part of every catalog hf_id and alias, lower-case -> catalog name."""
    return {name: stem for name, (stem, _) in full_id_by_repo_name().items()}
