"""Model names as hosted inference services write them, and Windows paths: read back to a
repository name, for the one line that refuses them. Hints only: a service's name is never
planned (the service runs its own build, and kvplan plans a checkpoint one serves itself).

Readings, each from the services' own ids (typed-r3.tsv rows give the public files):
- Fireworks `accounts/<account>/models/<name>` writes a version's point as `p`
  (`llama-v3p1-8b-instruct` is Llama 3.1 8B Instruct, `qwen2p5-7b-instruct` Qwen2.5 7B
  Instruct: its model pages and API ids, code index file 962392986);
- Amazon Bedrock `[<region>.]<vendor>.<name>-v<N>:<M>`, LiteLLM's `bedrock/` before it: the
  vendor before a dot, the API version after the name, and Llama's version with a dash
  (`meta.llama3-1-8b-instruct-v1:0` is Llama 3.1 8B Instruct: LiteLLM's Bedrock table, code
  index file 24342697670, "Meta llama3-1-405b | bedrock/meta.llama3-1-405b-instruct-v1:0");
- Vertex AI's model-as-a-service ids end in `-maas` (`vertex_ai/meta/llama-4-scout-17b-16e-
  instruct-maas`, LiteLLM's `vertex_ai/` before the publisher);
- Groq names its hosted Llama models by size and a speed tier, `-instant` or `-versatile`
  (`llama-3.1-8b-instant` is Llama 3.1 8B, `llama-3.3-70b-versatile` Llama 3.3 70B: Groq's
  model list as LobeChat and LiteLLM carry it, docs index https://app.unpkg.com/@lobehub/chat@
  1.143.3/files/src/config/modelProviders/groq.ts "displayName: 'Llama 3.1 8B' ... id:
  'llama-3.1-8b-instant'", https://www.mintlify.com/BerriAI/litellm/providers/groq "Llama 3.1
  8B - Fast and efficient ... groq/llama-3.1-8b-instant"); Groq serves the instruction-tuned
  release, so the name is read with `-instruct` first, then as written;
- Together AI's `-Turbo` after the hub id (`meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo`,
  `Qwen/Qwen2.5-7B-Instruct-Turbo`: Together's chat-completions reference lists them, pages
  index https://togetherai-migration.mintlify.app/reference/chat-completions-1) is its FP8-
  quantized serving of that checkpoint ("Turbo is a highly optimized version of the Llama
  3.3-70B model, utilizing FP8 quantization", DeepInfra's page of the same -Turbo id, pages
  index https://deepinfra.com/meta-llama/Llama-3.3-70B-Instruct-Turbo/api; Together's own page
  saying so was not in the docs or pages index when this was written); LiteLLM
  writes `together_ai/` before it, and only that prefixed form is read (a hub id may end in
  -turbo: openai/whisper-large-v3-turbo). Self-hosting plans the base checkpoint.
A name that reads as no catalog repository name (token by token, as name_hints does) gets none.
"""

from __future__ import annotations

import re

_FIREWORKS = re.compile(r"^(?:fireworks_ai/)?accounts/[\w-]+/models/([\w.-]+)$", re.IGNORECASE)
_BEDROCK = re.compile(r"^(bedrock/(?:converse/)?)?(?:[a-z]{2,6}\.)?([a-z][a-z0-9-]*)\."
                      r"([a-z][\w.-]*?)(?:-v(\d+)(?::(\d+))?)?$", re.IGNORECASE)
_MAAS = re.compile(r"^(?:vertex_ai/)?(?:[\w-]+/)?([\w.-]+)-maas$", re.IGNORECASE)
# Groq's speed tiers; `groq/` is LiteLLM's prefix. A name with a slash is no Groq id.
_GROQ = re.compile(r"^(?:groq/)?([a-z][\w.]*(?:-[\w.]+)*?)-(instant|versatile)$", re.IGNORECASE)
# Together's Turbo serving, `org/Name-Turbo`, read only after LiteLLM's `together_ai/`: a hub
# repository may end in -turbo itself (openai/whisper-large-v3-turbo) and is read from the hub
_TURBO = re.compile(r"^(together_ai/)[\w.-]+/([\w.-]+)-Turbo$", re.IGNORECASE)
_DRIVE = re.compile(r"^[A-Za-z]:(?=[\\/A-Za-z0-9])")


def _fireworks(name: str) -> str:
    name = re.sub(r"(?<![a-z0-9])v(\d+)p(\d+)(?=-|$)", r"\1.\2", name, flags=re.IGNORECASE)
    return re.sub(r"(?<=[a-z])(\d+)p(\d+)(?=-|$)", r"\1.\2", name, flags=re.IGNORECASE)


def _bedrock(m: re.Match[str]) -> list[str]:
    """The names a Bedrock id may stand for: without its API version, and (Mistral writes its
    own version last, `mistral.mistral-7b-instruct-v0:2`) with it read as a version."""
    name = re.sub(r"^(llama)(\d)-(\d)(?=-\d)", r"\1\2.\3", m[3], flags=re.IGNORECASE)
    out = [name]
    if m[4] is not None and m[5] is not None:
        out.append(f"{name}-v{m[4]}.{m[5]}")
    return out


def readings(ref: str) -> tuple[list[str], str]:
    """(the repository names a service id may stand for, whose id it is) or ([], '')."""
    text = ref.strip()
    m = _FIREWORKS.match(text)
    if m:
        return [_fireworks(m[1])], "Fireworks' model name (`p` for a version's point)"
    m = _MAAS.match(text)
    if m:
        return [m[1]], "Vertex AI's model-as-a-service name (`-maas`)"
    m = _GROQ.match(text)
    if m:
        name = m[1]
        instruct = [] if re.search(r"-(instruct|it|chat)$", name, re.IGNORECASE) else \
            [f"{name}-instruct"]
        return instruct + [name], f"Groq's model name (`-{m[2]}`, Groq's speed tier)"
    m = _TURBO.match(text)
    if m:
        return [m[2]], ("Together AI's model id (`-Turbo`: Together's own FP8-quantized serving "
                        "of the checkpoint, not a checkpoint of its own)")
    m = _BEDROCK.match(text)
    if m and (m[1] or m[5] is not None):  # `bedrock/`, or the API version `-v1:0`
        return _bedrock(m), (f"Amazon Bedrock's model id (`{m[2]}.` the vendor, `-v{m[4]}:{m[5]}` "
                             "the API version)" if m[5] is not None else
                             f"Amazon Bedrock's model id (`{m[2]}.` the vendor)")
    return [], ""


def service_hint(ref: str) -> str:
    """For a hosted service's model id that reads as a catalog checkpoint: the entry to plan
    for serving it oneself; '' for anything else, or where its readings name two entries."""
    from kvplan.specs.name_hints import entry_for

    names, whose = readings(ref)
    found = [f for f in (entry_for(n) for n in names) if f is not None]
    if len({f[0] for f in found}) != 1:
        return ""
    stem, full, _ = found[0]  # the first reading that names it (Groq's: the instruct release)
    return (f"it is {whose} for {full.rsplit('/', 1)[-1]}, the repository name of {full} (the "
            f"catalog's {stem}); a service runs its own build: to plan serving that checkpoint, "
            f"plan `{stem}`")


def windows_hint(ref: str) -> str:
    """For a Windows path (`C:\\AI\\models\\Qwen3-8B-FP8-Dynamic`), or one whose backslashes a
    shell removed (bash reads it unquoted as `C:AImodelsQwen3-8B-FP8-Dynamic`): what its last
    part names; '' when it is none or names nothing."""
    from kvplan.specs.name_hints import folder_hint

    text = ref.strip()
    if not _DRIVE.match(text):
        return ""
    parts = [p for p in re.split(r"[\\/]+", text[2:]) if p]
    if not parts:
        return ""
    if len(parts) > 1 or text[2] in "\\/":
        hint = folder_hint("/" + parts[-1])
        return f"it is a Windows path, not one on this machine; {_said(parts[-1], hint)}" \
            if hint else ""
    rest = parts[0]
    # where a folder name may start: the start, and each capital after a small letter
    starts = [0] + [i for i in range(1, len(rest)) if rest[i].isupper() and rest[i - 1].islower()]
    for i in starts:
        hint = folder_hint("/" + rest[i:])
        if hint:
            return ("it reads as a Windows path whose backslashes the shell removed (bash "
                    "passes an unquoted C:\\a\\b as C:ab: quote it); "
                    + _said(rest[i:], hint).replace("its last part", "its end", 1))
    return ""


def _said(name: str, hint: str) -> str:
    """folder_hint's words about a last part `name`, as one clause."""
    said = hint.removeprefix("; ")
    lead = f"its last part {name!r} "
    return said if said.startswith(lead) else f"{lead.strip()}: {said}"
