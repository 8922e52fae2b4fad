"""A context length as each engine's parser reads it, by release (task h59maxlen): vLLM's
`--max-model-len`, SGLang's `--context-length`. Read from the wheels:

vLLM `--max-model-len` (`auto` / `-1`: kvplan.check.manifests.auto_context):
- 0.8.3 and older (read: 0.7.3, 0.8.0, 0.8.3): `type=int` (engine/arg_utils.py:366 in 0.7.3,
  :369 in 0.8.3): `32k` stops argparse ("invalid int value").
- 0.8.4 to 0.12.x (read: 0.8.4, 0.8.5, 0.9.2, 0.10.2, 0.11.0, 0.12.0): `human_readable_int`
  (engine/arg_utils.py:1749 in 0.8.4, :2066 in 0.12.0): `(\\d+(?:\\.\\d+)?)([kKmMgGtT])`, then
  k / m / g are 10^3 / 10^6 / 10^9 of `int(float(number) * mult)` (25.6k = 25,600), K / M / G
  are 2^10 / 2^20 / 2^30 of a whole number (a decimal: "Decimals are not allowed with binary
  suffixes like K"); t and T match the pattern but have no multiplier, so they fall to
  `int(value)` and stop argparse; anything else is `int(value)` (digits, `_` separators, a
  sign: `1_000k` and `+32k` stop argparse).
- 0.13.0 on (read: 0.13.0, 0.14.0, 0.25.1, 0.29.0, 0.34.0): t = 10^12 and T = 2^40 too
  (engine/arg_utils.py:2042-2048 in 0.13.0; utils/argparse_utils.py:29-72 in 0.25.1 and 0.29.0).

SGLang `--context-length`:
- 0.5.9 and older (read: 0.5.5-0.5.9): `type=int` (srt/server_args.py:2962 in 0.5.9).
- 0.5.10 on (read: 0.5.10, 0.5.19, 0.5.21-0.5.23): its own `human_readable_int`
  (srt/utils/common.py:2229 in 0.5.10, :3394 in 0.5.23): `(\\d+(?:\\.\\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)`,
  case-sensitive: SI k / M / G / T are 10^3 / 10^6 / 10^9 / 10^12 of
  `int(Decimal(number) * mult)` (exact: 4.35k = 4,350), IEC Ki / Mi / Gi / Ti are powers of
  1024 of a whole number; `32K` and `1m` stop argparse ("Invalid integer value"), and `1M` is
  1,000,000 tokens, not vLLM's 1,048,576.

Each reader raises Refused with the release's reason where that release's parser stops.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

from kvplan.check.manifests.auto_context import AUTO_SINCE
from kvplan.engines.release import read_numbers


class Refused(ValueError):
    """The engine's parser stops on the value: the reason, naming the release."""


# vLLM: the first release whose --max-model-len takes suffixes, and the one that added t / T
_VLLM_SUFFIX_SINCE = (0, 8, 4)
_VLLM_T_SINCE = (0, 13, 0)
_VLLM_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_VLLM_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
# SGLang: the first release whose --context-length takes suffixes
_SGLANG_SUFFIX_SINCE = (0, 5, 10)
_SGLANG_SI = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_SGLANG_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def _release(version: str | None, default: str) -> tuple[tuple[int, ...], str, str]:
    """The release's numbers, how a message names it, and what a refusal adds where the image
    names none (read as kvplan's default release)."""
    have = read_numbers(str(version)) if version is not None else None
    if have is None:
        return (read_numbers(default) or (0,), default,
                f" (the image names no release: read as kvplan's default, {default})")
    return have, str(version), ""


def _plain(text: str, parser: str, said: str, flag: str) -> int:
    """Python's int() as the parser's last step; Refused where it stops."""
    try:
        return int(text)
    except ValueError:
        raise Refused(f"the engine refuses it: {said} parses {flag} with {parser}, which does "
                      f"not take {text!r}") from None


def _before_suffixes(text: str, said: str, flag: str, where: str, since: str) -> int:
    """A release whose argparse reads the length with int (`where`), before human_readable_int
    came in `since`."""
    try:
        return int(text)
    except ValueError:
        raise Refused(f"the engine refuses it: {said} parses {flag} with int ({where}), which "
                      f"takes digits only, so argparse stops on {text!r}; suffixes such as 32k "
                      f"came in {since} (human_readable_int): give the number of tokens") from None


def _length(raw: str, version: str | None, flag: str, default: str, title: str,
            read: Callable[[str, tuple[int, ...], str, str], int]) -> int:
    """`raw` as `read` takes it on the release `version` names (else kvplan's `default`, which a
    refusal then says): the engines' shared frame, `title` naming the engine."""
    have, name, unnamed = _release(version, default)
    try:
        return read(raw.strip(), have, f"{title} {name}", flag)
    except Refused as why:
        raise Refused(f"{why}{unnamed}") from None


def vllm_length(raw: str, version: str | None, flag: str = "--max-model-len") -> int:
    """`--max-model-len` as the vLLM release's argparse type reads it (not `auto` / `-1`:
    auto_context reads those first)."""
    from kvplan.engines.vllm_series import DEFAULT_VERSION

    return _length(raw, version, flag, DEFAULT_VERSION, "vLLM", _vllm)


def _vllm(text: str, have: tuple[int, ...], said: str, flag: str) -> int:
    if have < _VLLM_SUFFIX_SINCE:
        return _before_suffixes(text, said, flag, "engine/arg_utils.py:369 in 0.8.3", "0.8.4")
    # 0.14.0 on wraps it in human_readable_int_or_auto (kvplan.check.manifests.auto_context)
    parser = "human_readable_int_or_auto" if have >= AUTO_SINCE else "human_readable_int"
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT])", text)
    if match is None:
        if re.fullmatch(r"[+-]?\d[\d_]*(?:\.\d+)?[kKmMgGtT]", text):
            raise Refused(f"the engine refuses it: {said} parses {flag} with {parser}, which "
                          "takes a suffix only after plain digits (no sign, no `_`), so argparse "
                          f"stops on {text!r}")
        return _plain(text, parser, said, flag)
    number, suffix = match.groups()
    if suffix in "tT" and have < _VLLM_T_SINCE:
        raise Refused(f"the engine refuses it: {said} parses {flag} with {parser}, which has "
                      f"no multiplier for {suffix!r} (t and T came in 0.13.0, "
                      f"engine/arg_utils.py:2042 there), so argparse stops on {text!r}")
    if suffix in _VLLM_DECIMAL:
        return int(float(number) * _VLLM_DECIMAL[suffix])  # vLLM's own float arithmetic
    if "." in number:
        raise Refused(f"the engine refuses it: {said} parses {flag} with {parser}, which "
                      "takes no decimal before a binary suffix (\"Decimals are not allowed with "
                      f"binary suffixes like {suffix}. Did you mean to use "
                      f"{number}{suffix.lower()} instead?\")")
    return int(number) * _VLLM_BINARY[suffix]


def sglang_length(raw: str, version: str | None, flag: str = "--context-length") -> int:
    """`--context-length` as the SGLang release's argparse type reads it."""
    from kvplan.engines.sglang_defaults import DEFAULT_VERSION

    return _length(raw, version, flag, DEFAULT_VERSION, "SGLang", _sglang)


def _sglang(text: str, have: tuple[int, ...], said: str, flag: str) -> int:
    if have < _SGLANG_SUFFIX_SINCE:
        return _before_suffixes(text, said, flag, "srt/server_args.py:2962 in 0.5.9", "0.5.10")
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)", text)
    if match is None:
        try:
            return int(text)
        except ValueError:
            raise Refused(f"the engine refuses it: {said} parses {flag} with "
                          "human_readable_int (srt/utils/common.py), which takes a whole number, "
                          "SI suffixes k, M, G, T (powers of 1000) or IEC suffixes Ki, Mi, Gi, "
                          "Ti (powers of 1024), "
                          f"case-sensitive, so argparse stops on {text!r} (\"Invalid integer "
                          "value\")") from None
    number, suffix = match.groups()
    if suffix in _SGLANG_IEC:
        if "." in number:
            raise Refused(f"the engine refuses it: {said} parses {flag} with "
                          "human_readable_int, which takes no decimal before an IEC suffix "
                          f"(\"Decimals are not allowed with IEC suffixes like '{suffix}'\")")
        return int(number) * _SGLANG_IEC[suffix]
    return int(Decimal(number) * _SGLANG_SI[suffix])


def not_expanded(raw: str) -> str:
    """A context value holding a shell expansion kvplan did not expand: an arithmetic `$(( ))`
    said as one (task readfix: `$((9**9**9))` in a container's `sh -c` was "not a number", with
    nothing about why), anything else not a number."""
    if "$((" in raw:
        from kvplan.check.manifests.shell_arith import why_not

        return (f"{raw!r}: an arithmetic expansion kvplan does not evaluate: {why_not(raw)}; "
                "write the value in the script")
    return f"{raw!r} is not a number"
