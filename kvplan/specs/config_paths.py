"""Where a config.json field sits: its dotted path, for the one-line refusals (task h48mend).

The importer reads the language model's keys from a merged mapping (kvplan.specs.hf_config
`text_config`: a nested `text_config` over the top level; ChatGLM's keys renamed by
kvplan.specs.params_remote) and the vision tower's from `vision_config`. A refusal must name
the field as the file spells it (`text_config.num_attention_heads`, `rope_scaling.factor`,
`quantization_config.bits`, `num_layers` for ChatGLM's layers), not only the key the reader
asked for: a `Located` mapping carries each key's dotted path, and `field_path` reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.errors import InputError


class UnsupportedArchitecture(InputError):
    """The config describes a model whose shapes kvplan cannot account for."""


class Located(dict[str, Any]):
    """A config block that knows each key's dotted path in config.json: `paths` for keys read
    from elsewhere than `prefix` (a nested block's keys merged over the top level, a renamed
    key), `prefix` (the block's own path, "" at the top level) for the rest."""

    def __init__(self, data: Mapping[str, Any], prefix: str = "",
                 paths: Mapping[str, str] | None = None) -> None:
        super().__init__(data)
        self.prefix = prefix
        self.paths = dict(paths or {})


def relocated(src: Mapping[str, Any], data: Mapping[str, Any],
              renamed: Mapping[str, str] | None = None) -> Located:
    """`data` read from `src`: its keys keep `src`'s paths, and a key in `renamed` (key -> the
    key of `src` it was read from) takes that key's path."""
    moved = {key: field_path(src, old) for key, old in (renamed or {}).items()}
    if isinstance(src, Located):
        return Located(data, src.prefix, {**src.paths, **moved})
    return Located(data, paths=moved)


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def field_path(cfg: Mapping[str, Any], key: str) -> str:
    """The dotted path of `key` in config.json as `cfg` was read from it (`key` itself for a
    plain mapping: the top level)."""
    if isinstance(cfg, Located):
        return cfg.paths.get(key, _join(cfg.prefix, key))
    return key


def wrong(cfg: Mapping[str, Any], key: str, value: object, must: str,
          kind: type[UnsupportedArchitecture] = UnsupportedArchitecture) -> UnsupportedArchitecture:
    """The one-line refusal of a field of the wrong type or value: `config field 'PATH' is
    VALUE; MUST` (PATH dotted, as config.json spells it)."""
    return kind(f"config field {field_path(cfg, key)!r} is {value!r}; {must}")


def block(cfg: Mapping[str, Any], key: str) -> Located | None:
    """The nested mapping at `key` with its keys' paths under `key`'s (None where the key is
    absent or null); any other type there is refused with the dotted path."""
    value = cfg.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise wrong(cfg, key, value, "it must be an object (a mapping of fields)")
    return Located(value, field_path(cfg, key))
