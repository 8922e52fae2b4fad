"""Readers for request-length files (`--context-sample`): CSV with a header, JSONL, or one JSON
document; each request's tokens are a total column/key, or prompt plus output.

A file kvplan cannot read as it stands is refused with the reason and the way out: a benchmark
summary (totals per run, not per request), conversation text (no token counts), a CSV whose first
line is data, or lengths under names kvplan does not read (listed, never picked by kvplan).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvplan.errors import InputError
from kvplan.inputs.jsonsafe import NonFinite

TOTAL_KEYS = ("tokens", "total_tokens", "context_tokens")
# The public traces' own headers are read as they are published (a header is lower-cased and its
# spaces/hyphens read as underscores first): BurstGPT's `Request tokens` / `Response tokens` /
# `Total tokens` (github.com/HPMLL/BurstGPT README.md "Schema", e92f533: total = request +
# response), and the Azure LLM inference trace's `ContextTokens` / `GeneratedTokens`
# (github.com/Azure/AzurePublicDataset data/AzureLLMInferenceTrace_conv.csv, 7909210), where
# ContextTokens is the PROMPT: read as kvplan's `context_tokens` (a total) it would drop every
# generated token, so it is a prompt key here and never a total. Mooncake's JSONL traces give
# `input_length` / `output_length` (github.com/kvcache-ai/Mooncake
# FAST25-release/traces/conversation_trace.jsonl, 3cca71d). splitwise-sim's traces give
# `prompt_size` / `token_size` (github.com/Mutinifni/splitwise-sim request.py: max_seq_len =
# prompt_size + token_size; generate_trace.py fills them from Azure's ContextTokens /
# GeneratedTokens; 3780880).
PROMPT_KEYS = ("prompt_tokens", "input_tokens", "request_tokens", "contexttokens", "input_length",
               "prompt_size")
OUTPUT_KEYS = ("output_tokens", "completion_tokens", "response_tokens", "generatedtokens",
               "output_length", "token_size")
# vLLM's benchmark_serving.py / `vllm bench serve` result JSON and SGLang's bench_serving
# --output-details keep one list entry per request: input_lens[i] + output_lens[i].
ARRAY_KEYS = ("input_lens", "output_lens")
# A run's totals (SGLang bench_serving --output-file, vLLM --save-result without the lists).
SUMMARY_KEYS = ("total_input_tokens", "completed")
TEXT_KEYS = ("conversations", "conversation", "messages", "prompt", "text")
_LENGTHY = re.compile(r"len|token|size|(^|_)num(_|$)")

WANTED = ("a column/key named tokens, total_tokens, context_tokens, or prompt_tokens + "
          "output_tokens (also read: BurstGPT's Request/Response/Total tokens, Azure's "
          "ContextTokens + GeneratedTokens, Mooncake's input_length + output_length, "
          "splitwise's prompt_size + token_size, vLLM/SGLang input_lens + output_lens lists)")


def _key(name: str) -> str:
    """A column/key as matched: lower case, spaces and hyphens read as underscores."""
    return "_".join(name.strip().lower().replace("-", " ").split())


def _whole(value: object, key: str, where: str) -> int:
    if isinstance(value, NonFinite):  # JSON NaN/Infinity, kept so a summary is named as one
        raise InputError(f"{where}: {key}: {value} is not a finite number; give a whole "
                         "number of tokens")
    if value is None:  # JSON null, or a CSV row shorter than its header
        raise InputError(f"{where}: {key}: no value (null, or a row shorter than the header); "
                         "give a whole number of tokens")
    text = str(value).strip().replace("_", "")
    if len(text) > 100:  # it would fill the line (int() refuses 4,300 digits and more); shorter
        # numbers are read and refused by the request-length limit, with the figure
        raise InputError(f"{where}: {key}: a value of {len(text):,} characters "
                         f"({text[:12]}...) is not a request's length in tokens")
    try:
        n = int(text)
    except ValueError:
        raise InputError(f"{where}: {key}: {value!r} is not a whole number of tokens") from None
    if n < 0:
        raise InputError(f"{where}: {key}: must not be negative, got {n}; a request holds 0 "
                         "tokens or more: correct the value or drop the row")
    return n


def _unread(keys: dict[str, object], where: str) -> InputError:
    """The refusal for a row with no key kvplan reads: why, and what to do."""
    if all(k in keys for k in SUMMARY_KEYS):
        return InputError(
            f"{where}: a benchmark summary (total_input_tokens over {keys['completed']} completed "
            "requests), not one line per request; give the per-request lengths (SGLang "
            "bench_serving --output-details, vLLM bench serve --save-result --save-detailed: "
            "input_lens + output_lens), or --context-p50/--context-p95")
    text = next((k for k in TEXT_KEYS if isinstance(keys.get(k), (str, list))), None)
    if text is not None:
        return InputError(
            f"{where}: conversation text (`{text}`), no token counts; count each request's "
            "tokens with the model's tokenizer and give a file with prompt_tokens,output_tokens "
            "(or tokens)")
    could = [k for k, v in keys.items() if _LENGTHY.search(k) and _is_count(v)]
    if could:
        return InputError(
            f"{where}: no column kvplan reads as a request's tokens; it could use "
            f"{', '.join(could)}; kvplan does not pick one: rename the one you mean to `tokens` "
            "(a total) or the pair to `prompt_tokens` + `output_tokens`")
    return InputError(f"{where}: no token count; give {WANTED}")


def _is_data(fields: Sequence[str]) -> bool:
    """A first line that is mostly numbers is a row of data, not a header."""
    named = [f.strip() for f in fields if f.strip()]

    def number(f: str) -> bool:
        try:
            float(f)
        except ValueError:
            return False
        return True

    return bool(named) and 2 * sum(number(f) for f in named) >= len(named)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) or (
        isinstance(value, str) and value.strip().isdigit())


READ_KEYS = frozenset(TOTAL_KEYS + PROMPT_KEYS + OUTPUT_KEYS + ARRAY_KEYS)


@dataclass
class Tally:
    """What a file held besides the lengths read, said in notes (task srefirst: never in
    silence): its columns/keys not read, in file order, and the requests whose output column is
    there but empty (read as their prompt alone)."""

    unread: dict[str, None] = field(default_factory=dict)
    blank_output: int = 0
    output_column: str = ""

    def notes(self, name: str, requests: int) -> list[str]:
        out = []
        if self.unread:
            names = list(self.unread)
            listed = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6
                                             else "")
            out.append(f"{name}: not read: {listed} (only each request's length moves the "
                       "plan; the load is the peak of users, or the arrival rate and duration)")
        if self.blank_output:
            out.append(f"{name}: {self.blank_output:,} of {requests:,} requests have no "
                       f"{self.output_column} value: read as their prompt alone")
        return out


def same_name(names: Sequence[str], where: str) -> None:
    """Refuse two columns/keys kvplan would read as one name (`Tokens` and `tokens`, `Prompt
    tokens` and `prompt_tokens`): it would take one and drop the other in silence."""
    seen: dict[str, str] = {}
    for name in names:
        key = _key(name)
        if key in READ_KEYS and key in seen:
            raise InputError(f"{where}: columns {seen[key]!r} and {name!r} are both read as "
                             f"`{key}`; keep one, or rename the other")
        seen.setdefault(key, name)


def _given(keys: dict[str, object], names: Sequence[str]) -> list[str]:
    return [k for k in names if k in keys and keys[k] not in (None, "")]


def _agree(keys: dict[str, object], where: str) -> None:
    """Refuse a row whose columns give one request two lengths: two totals, two prompts or two
    outputs that differ, or a total that is not its prompt plus output (task srefirst: the total
    was read and the rest dropped in silence). Columns that agree are read as one."""
    for names, what in ((TOTAL_KEYS, "total"), (PROMPT_KEYS, "prompt"), (OUTPUT_KEYS, "output")):
        given = _given(keys, names)
        values = [_whole(keys[k], k, where) for k in given]
        if len(set(values)) > 1:
            said = ", ".join(f"{k} {v:,}" for k, v in zip(given, values, strict=True))
            raise InputError(f"{where}: two {what} lengths for one request ({said}); keep the "
                             "column you mean")
    totals, prompts, outs = (_given(keys, n) for n in (TOTAL_KEYS, PROMPT_KEYS, OUTPUT_KEYS))
    if totals and prompts and outs:
        total = _whole(keys[totals[0]], totals[0], where)
        pair = _whole(keys[prompts[0]], prompts[0], where) + _whole(keys[outs[0]], outs[0], where)
        if total != pair:
            raise InputError(f"{where}: {totals[0]} {total:,} is not {prompts[0]} + {outs[0]} "
                             f"({pair:,}); keep the total or the pair")


def _lengths(row: dict[Any, Any], where: str, tally: Tally | None = None) -> list[int]:
    """Tokens of the request(s) in one row: a total, prompt plus output, or per-request lists."""
    if row.get(None) is not None:  # csv.DictReader's overflow: more fields than the header
        extra = row[None]
        raise InputError(f"{where}: {len(row) - 1 + len(extra)} fields where the header names "
                         f"{len(row) - 1} (the extra: {','.join(map(str, extra))[:40]}); a "
                         "value with a comma (1,000) is two fields: write 1000, or quote it")
    same_name([k for k in row if k is not None], where)
    keys = {_key(k): v for k, v in row.items() if k is not None}
    if tally is not None:
        tally.unread.update((k, None) for k in row if k is not None and _key(k) not in READ_KEYS)
    _agree(keys, where)
    for key in TOTAL_KEYS:
        if key in keys and keys[key] not in (None, ""):
            return [_whole(keys[key], key, where)]
    prompt = next((k for k in PROMPT_KEYS if k in keys), None)
    out = next((k for k in OUTPUT_KEYS if k in keys), None)
    if prompt is not None:
        more = _whole(keys[out], out, where) if out is not None and keys[out] not in (None, "") else 0
        if out is not None and keys[out] in (None, "") and tally is not None:
            tally.blank_output += 1
            tally.output_column = out
        return [_whole(keys[prompt], prompt, where) + more]
    ins, outs = (keys.get(k) for k in ARRAY_KEYS)
    if isinstance(ins, list):
        if not isinstance(outs, list) or len(outs) != len(ins):
            raise InputError(f"{where}: input_lens has {len(ins)} entries but output_lens "
                             f"{len(outs) if isinstance(outs, list) else 'none'}; give both, one "
                             "entry per request")
        return [_whole(i, f"input_lens entry {j}", where) + _whole(o, f"output_lens entry {j}", where)
                for j, (i, o) in enumerate(zip(ins, outs, strict=True), start=1)]
    raise _unread(keys, where)


def _item(item: object, where: str, tally: Tally | None = None) -> list[int]:
    if isinstance(item, (int, NonFinite)) and not isinstance(item, bool):
        return [_whole(item, "tokens", where)]  # a bare count: refused when negative
    if isinstance(item, dict):
        return _lengths(item, where, tally)
    raise InputError(f"{where}: expected an object or a whole number")


def _document(doc: object, where: str, tally: Tally | None = None) -> list[int]:
    """One JSON document: a list of requests, an object keyed by request id, or one object."""
    if isinstance(doc, list):
        return [n for i, item in enumerate(doc)
                for n in _item(item, f"{where}: entry {i + 1}", tally)]
    if isinstance(doc, dict) and doc and all(isinstance(v, dict) for v in doc.values()):
        return [n for k, v in doc.items() for n in _lengths(v, f"{where}: entry {k!r}", tally)]
    return _item(doc, where, tally)


def read_lengths(path: Path, tally: Tally | None = None) -> list[int]:
    """Every request's tokens in the file, in file order (zeros kept; the caller drops them);
    `tally` gathers what the file held besides (Tally.notes says it)."""
    from kvplan.inputs import MAX_LOG_BYTES, loads_json, read_text  # size and encoding checked
    from kvplan.inputs.errors import InputFileError

    text = read_text(path, MAX_LOG_BYTES)
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        lines = [(i, line) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
        if path.suffix.lower() == ".json" or len(lines) == 1:
            try:  # one document (a .json file, or one line); a .json of lines is read as JSONL
                return _document(loads_json(text, str(path), keep_non_finite=True), str(path),
                                 tally)
            except InputFileError:
                if len(lines) == 1:
                    raise
        return [n for i, line in lines
                for n in _item(loads_json(line, str(path), i, keep_non_finite=True),
                               f"{path}: line {i}", tally)]
    reader = csv.DictReader(text.splitlines())
    try:
        if not reader.fieldnames:
            raise InputError(f"{path}: empty CSV; the first line must name the columns")
        if _is_data(reader.fieldnames):
            raise InputError(f"{path}: line 1 ({','.join(reader.fieldnames)[:60]}) is data, "
                             f"not a header; the first line must name the columns: {WANTED}")
        same_name(reader.fieldnames, f"{path}: line 1")
        return [n for i, row in enumerate(reader, start=2)
                for n in _lengths(dict(row), f"{path}: line {i}", tally)]
    except csv.Error as err:  # a field past csv's 131,072 characters; the line being read
        raise InputError(f"{path}: line {reader.line_num + 1}: not a CSV kvplan reads "
                         f"({err}); give a CSV, JSON or JSONL file of request lengths") from None
