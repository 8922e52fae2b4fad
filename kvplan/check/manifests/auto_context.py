"""vLLM's automatic context spellings of --max-model-len (`auto`, `-1`; the same words as a
--config YAML file's `max_model_len:` key, which vLLM turns into the flag), read by every vLLM
reader through kvplan.check.manifests.engine.read_options (task h58auto). Read from the wheels:

- 0.14.0 on: `--max-model-len` is parsed by `human_readable_int_or_auto`, which returns -1 for
  `-1` or `auto` (any case) and reads anything else as `human_readable_int`
  (engine/arg_utils.py:301 and :2121 in 0.14.0; utils/argparse_utils.py:75-91 and
  engine/arg_utils.py:358 in 0.25.1). ModelConfig.max_model_len takes it (`Field(ge=-1)`,
  config/model.py:175 in 0.14.0, :188 in 0.25.1) and `_get_and_verify_max_len` starts from the
  model's own context for -1 as for no flag (config/model.py:1982 in 0.14.0, :2236 in 0.25.1);
  then `get_kv_cache_configs` calls `_auto_fit_max_model_len` when `original_max_model_len ==
  -1` (v1/core/kv_cache_utils.py:1389/:1508 in 0.14.0, :1899/:2092 in 0.25.1): the model's own
  context where one sequence fits the KV pool, else the longest that does
  (kvplan.check.autofit). vLLM PR #29431 (merged 2025-11-25) added it.
- 0.13.0: the type is `human_readable_int` (engine/arg_utils.py:304, :2026), so `auto` stops
  argparse ("invalid human_readable_int value"); `-1` parses but ModelConfig refuses it
  (`Field(default=None, gt=0)`, config/model.py:167): the server does not start either way.
- 0.12.0 and older (read: 0.10.2, 0.11.0, 0.12.0): `auto` stops argparse the same way
  (human_readable_int, engine/arg_utils.py:2066 in 0.12.0, :1740 in 0.11.0, :1819 in 0.10.2);
  `-1` is taken unchecked (`SkipValidation[int]`, config/model.py:190 in 0.12.0, :160 in 0.11.0,
  config/__init__.py:344 in 0.10.2) and `_get_and_verify_max_len` returns it as given (only
  None reads the model's length, config/model.py:1870 in 0.11.0): a context of -1 tokens, not
  a size kvplan can check (an ERROR).
"""

from __future__ import annotations

from typing import Any

# the first release whose --max-model-len takes `auto` / `-1` (see above)
AUTO_SINCE = (0, 14, 0)
# where 0.13.0 refuses -1 (ModelConfig validation), where 0.12.0 and older take it unchecked
_REFUSED_MINUS_ONE = (0, 13, 0)


def is_auto(raw: str) -> bool:
    """Whether a --max-model-len value is vLLM's automatic spelling (human_readable_int_or_auto:
    `-1`, or `auto` in any case, after strip())."""
    text = raw.strip()
    return text == "-1" or text.lower() == "auto"


def read_auto(raw: str, version: Any, release_unknown: bool, said: str = "--max-model-len",
              unnamed: str = "the image does not name its vLLM release") -> tuple[str, str]:
    """(what, text) for an automatic --max-model-len on the image's vLLM release: ("auto",
    note) where the release sizes it (or none is named: kvplan's default release), ("refused",
    why) where its server stops, ("error", why) where it starts with a length kvplan cannot
    check. `said`, `unnamed`: how the text names the setting and a missing release (a kvplan/v1
    file's engine.max_model_len and engine.version)."""
    from kvplan.engines.release import read_numbers
    from kvplan.engines.vllm_series import DEFAULT_VERSION

    spelled = raw.strip()
    have = read_numbers(str(version)) if version is not None else None
    since = ".".join(str(p) for p in AUTO_SINCE)
    how = ("vLLM starts with the model's own context where one sequence fits the KV pool, else "
           "with the longest that does (_auto_fit_max_model_len, v1/core/kv_cache_utils.py)")
    if have is None:
        why = (unnamed if release_unknown or version is None
               else f"vLLM {version} names no release kvplan reads")
        return "auto", (f"{said} {spelled}: {why}; read as kvplan's default release, "
                        f"vLLM {DEFAULT_VERSION}, which takes it (from {since}): {how}")
    if have >= AUTO_SINCE:
        return "auto", f"{said} {spelled} (vLLM {version}, from {since}): {how}"
    if spelled.lower() == "auto":
        return "refused", (f"the engine refuses it: vLLM {version} parses --max-model-len with "
                           "human_readable_int, which takes only numbers, so argparse stops on "
                           f"'{spelled}' (\"invalid human_readable_int value\"); `auto` came in "
                           f"{since} (engine/arg_utils.py:2121 there): give a number or a "
                           f"{since}+ image")
    if have >= _REFUSED_MINUS_ONE:
        return "refused", (f"the engine refuses it: vLLM {version}'s ModelConfig takes only a "
                           "positive --max-model-len (Field(gt=0), config/model.py:167 in "
                           f"0.13.0), so the server stops on -1; -1 means auto-fit from {since}")
    return "error", (f"vLLM {version} takes --max-model-len -1 unchecked (SkipValidation, "
                     "config/model.py:190 in 0.12.0) and keeps -1 as the context: no length "
                     f"kvplan can check (-1 means auto-fit from {since}); give a number")


def file_auto(data: dict[str, Any]) -> tuple[dict[str, Any], str, str]:
    """A kvplan/v1 document's `engine.max_model_len: auto` (or -1), read as the flag is
    (task h59maxlen): (the document without the key, what, text) with read_auto's what and text
    for engine.name vllm at engine.version; ("error", why) for another engine, whose length
    takes a number; (data, "", "") where the key is no automatic spelling."""
    from kvplan.engine_traits import traits

    engine = data.get("engine")
    value = engine.get("max_model_len") if isinstance(engine, dict) else None
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not is_auto(str(value)):
        return data, "", ""
    assert isinstance(engine, dict)
    spelled = str(value).strip()
    name = str(engine.get("name", "ideal"))
    kept = {**data, "engine": {k: v for k, v in engine.items() if k != "max_model_len"}}
    if traits(name).auto_context_since is None:  # auto-fit is vLLM's alone
        return kept, "error", (
            f"{spelled!r} is vLLM's automatic context (engine.name vllm, vLLM "
            f"{'.'.join(str(p) for p in AUTO_SINCE)} on); engine.name {name} takes a number "
            "of tokens: give one, or leave the key out for the model's own context")
    version = engine.get("version")
    what, text = read_auto(spelled, None if version is None else str(version), version is None,
                           said="engine.max_model_len",
                           unnamed="engine.version is not set")
    return kept, what, text
