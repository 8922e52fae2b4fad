"""trtllm-serve's own `--kv_cache_dtype` (1.3.0rc7 on), read from a manifest's or script's
trtllm-serve command line into `engine.kv_cache_dtype` with the rules of the options file's
`kv_cache_config.dtype` (kvplan.engines.trtllm_settings):

- a release before the option (the image's tag) refuses it, as click stops on an option it does
  not have ("No such option"): a FAIL naming the first release (kvplan.check.engine_flags.trtllm
  SINCE);
- a value outside click.Choice(("auto", "fp8", "nvfp4")) is refused by click: a FAIL;
- `fp8` sets the cache dtype; `nvfp4` is an ERROR (kvplan has no NVFP4 cache); `auto` (the
  option's default) is TensorRT-LLM's checkpoint-led dtype (`resolve_auto`);
- an options file that states the cache dtype too (kv_cache_config.dtype, or the older
  top-level kv_cache_dtype) with another value is an ERROR ("state one"; pool_flags.trtllm_options
  calls `disagreement`), and a non-auto value where the TensorRT backend runs is an ERROR as the
  file's is (only the PyTorch backend reads KvCacheConfig.dtype).
"""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.engine import Found, Refusal

FLAG = "--kv_cache_dtype"


def _from_flag(found: Found) -> bool:
    return found.names.get("engine.kv_cache_dtype") == FLAG


def _drop(found: Found) -> None:
    for table in (found.values, found.lines, found.names):
        table.pop("engine.kv_cache_dtype", None)


def trtllm_kv_flag(found: Found, notes: list[str], problems: list[Any],
                   refusals: list[Refusal]) -> None:
    """The flag's release, value and meaning (before the options file is read)."""
    from kvplan.check.engine_flags.trtllm import SINCE, release_key
    from kvplan.deploy import Problem
    from kvplan.engines.trtllm_settings import ACCEPTED_KV, AUTO_NOTE, NVFP4_REFUSAL

    if not _from_flag(found):
        return
    raw = str(found.values["engine.kv_cache_dtype"])
    line = found.lines.get("engine.kv_cache_dtype")
    since, where = SINCE[FLAG]
    version = found.values.get("engine.version")
    have = release_key(str(version)) if version is not None else None
    first = release_key(since)
    if have is not None and first is not None and have < first:
        _drop(found)
        refusals.append(Refusal(FLAG, f"the engine refuses it: trtllm-serve {version} has no "
                                f"option {FLAG} (first in {since}: {where}), and click stops on "
                                "an option it does not have; state the cache dtype as "
                                "kv_cache_config.dtype in the --config file, or serve "
                                f"{since} or newer", line))
        return
    if raw not in ACCEPTED_KV:
        _drop(found)
        refusals.append(Refusal(FLAG, f"the engine refuses it: {FLAG} {raw!r} is not one of "
                                f"{', '.join(ACCEPTED_KV)} (click.Choice in "
                                "tensorrt_llm/commands/serve.py), and click stops on it", line))
        return
    if raw == "nvfp4":
        _drop(found)
        problems.append(Problem(FLAG, f"{FLAG} nvfp4: {NVFP4_REFUSAL}", line))
        return
    if raw == "auto":
        notes.append(f"{FLAG} auto: {AUTO_NOTE}")


def disagreement(found: Found, data: Any, where: str) -> str | None:
    """Why the flag and the options file's cache dtype cannot both stand (None: they agree,
    or one of them is silent)."""
    from kvplan.engines.trtllm_settings import get_path

    if not _from_flag(found) or not isinstance(data, dict) or "build_config" in data:
        return None
    flag = str(found.values["engine.kv_cache_dtype"])
    for path in (("kv_cache_config", "dtype"), ("kv_cache_dtype",)):
        raw = get_path(data, path)
        if raw is not None and str(raw) != flag:
            return (f"{FLAG} {flag} and {where}'s {'.'.join(path)} {raw} disagree (trtllm-serve "
                    f"maps {FLAG} onto kv_cache_config.dtype, which the file sets too); state "
                    "one")
    return None


def trtllm_kv_backend(found: Found, problems: list[Any]) -> None:
    """The flag's non-auto dtype where the TensorRT backend runs (after the file's backend)."""
    from kvplan.deploy import Problem
    from kvplan.engines.trtllm_settings import Setting, backend_refusal

    if not _from_flag(found) or found.values["engine.kv_cache_dtype"] == "auto":
        return
    setting = Setting("engine.kv_cache_dtype", str(found.values["engine.kv_cache_dtype"]), FLAG)
    refused = backend_refusal("trtllm-serve", [setting], found.values.get("engine.version"),
                              found.values.get("engine.trtllm_backend"))
    if refused is not None:
        problems.append(Problem(FLAG, refused, found.lines.get("engine.kv_cache_dtype")))
