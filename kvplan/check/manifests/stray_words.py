"""Positional words an engine's parser has no place for (task h59maxlen): `vllm serve MODEL
extra --tp 2`, or a word left after an option that takes no value (`--enforce-eager True`).

- `vllm serve` takes one positional word, `model_tag` (nargs="?", entrypoints/openai/cli_args.py
  :346-351 in 0.25.1), and from 0.11.1 moves `--model M` to the front as that word
  (FlexibleArgumentParser.parse_args, utils/argparse_utils.py:250-275 in 0.25.1); the OpenAI
  server module (`python -m vllm.entrypoints.openai.api_server`) has the same `model_tag`, which
  it never reads. argparse (Python 3.11, run by hand on the same parser shape) fills that one
  place with the first positional word and stops on the next: "unrecognized arguments".
- SGLang's `python -m sglang.launch_server` takes no positional word (prepare_server_args,
  srt/server_args.py:668-696 in 0.5.23: `parser.parse_args(argv)`); `sglang serve` turns a
  first word that is not an option into `--model-path` (cli/serve.py:62-66 in 0.5.23).
- `trtllm-serve` (click) takes one `model` argument; another word is click's "Got unexpected
  extra argument".
- vLLM 0.8.4 and older take an optional True / False after --enable-chunked-prefill and
  --multi-step-stream-outputs (StoreBoolean, nargs="?": engine/arg_utils.py in 0.7.3, 0.8.0,
  0.8.3, 0.8.4; gone from 0.8.5), and after --disable-logprobs-during-spec-decoding through
  0.8.0 (gone from 0.8.3): that word is the option's value there, not a stray one.
"""

from __future__ import annotations

from kvplan.check.argv import Invocation, Parsed, Word, takes_no_value
from kvplan.check.manifests.image_entry import entry_said
from kvplan.engine_traits import traits

# option -> the first vLLM release whose parser no longer takes a True / False after it
_STORE_BOOLEAN = {
    "--enable-chunked-prefill": (0, 8, 5),
    "--multi-step-stream-outputs": (0, 8, 5),
    "--disable-logprobs-during-spec-decoding": (0, 8, 3),
}


def _before(release: tuple[int, ...] | None, since: str | None) -> bool:
    """Whether `release` (None: kvplan's default, the newest) is older than `since`."""
    from kvplan.engines.release import read_numbers

    first = read_numbers(since) if since is not None else None
    return release is not None and first is not None and release < first


def _module(inv: Invocation) -> str | None:
    return inv.entry.removeprefix("python -m ") if inv.entry.startswith("python -m ") else None


def _places(inv: Invocation, parsed: Parsed, model_option: bool,
            release: tuple[int, ...] | None) -> tuple[int, str]:
    """How many positional words the entry point takes, and what a message calls them."""
    t = traits(inv.engine)
    module = _module(inv)
    if module is not None:
        n = 0 if module in t.demo_modules or _before(release, t.module_positional_since) \
            else t.module_positionals
        return n, ("no positional word" + (f" (model_tag came to its parser in "
                                           f"{t.module_positional_since})"
                                           if n == 0 and t.module_positional_since and
                                           module not in t.demo_modules else "")
                   if n == 0 else
                   "one positional word (model_tag, which this server does not read: it serves "
                   "--model)")
    first = parsed.positional[0] if parsed.positional else None
    if model_option and (first is None or not inv.words or first is not inv.words[0]):
        return 0, "no positional word beside the model option (it takes the model's place)"
    return 1, "one positional word, the model"


def _after(inv: Invocation, word: Word) -> str | None:
    """The option right before `word` where it takes no value (`--enforce-eager True`)."""
    at = next((i for i, w in enumerate(inv.words) if w is word), None)
    if not at:
        return None
    before = inv.words[at - 1].text
    return before if before.startswith("-") and "=" not in before and takes_no_value(before) \
        else None


def stray_words(inv: Invocation, parsed: Parsed, release: tuple[int, ...] | None,
                model_option: bool) -> tuple[str, int] | None:
    """(why the engine refuses, the line) where the command holds more positional words than
    its parser takes; None where every word has a place. `release`: the engine's release
    numbers (None: kvplan's default release, which has no StoreBoolean options)."""
    if inv.dynamo or not parsed.positional:
        return None
    words = [w for w in parsed.positional
             if not (release is not None and w.text.lower() in ("true", "false")
                     and (before := _after(inv, w)) in _STORE_BOOLEAN
                     and release < _STORE_BOOLEAN[before])]
    n, what = _places(inv, parsed, model_option, release)
    if len(words) <= n:
        return None
    left = words[n:]
    said = ", ".join(f"`{w.text}`" + (f" after {b} (which takes no value)"
                                      if (b := _after(inv, w)) else "") for w in left)
    t = traits(inv.engine)
    on = "on the next " if n else ""
    stops = (f"click stops {on}(\"Got unexpected extra argument ({left[0].text})\")"
             if t.exact_options else
             f"argparse stops {on}(\"unrecognized arguments: "
             f"{' '.join(w.text for w in left)}\")")
    first = f"`{words[0].text}` fills it and " if n else ""
    return (f"the engine refuses it: {entry_said(inv)} takes {what}; {said} "
            f"{'is' if len(left) == 1 else 'are'} left over: {first}{stops}; "
            f"{_fix(inv, release, model_option, left)}", left[0].line)


def _fix(inv: Invocation, release: tuple[int, ...] | None, model_option: bool,
         left: list[Word]) -> str:
    """What to do with the words left over: vLLM's OpenAI server module before model_tag came
    to its parser (0.10.0) serves --model, so a model word alone is written as --model (task
    h62review: 'remove it' left the server with no model); any other word is removed."""
    t = traits(inv.engine)
    module = _module(inv)
    if module is None or model_option or module in t.demo_modules or \
            not _before(release, t.module_positional_since):
        return f"remove {'it' if len(left) == 1 else 'them'}"
    said = f"write it as --model {left[0].text}"
    return said if len(left) == 1 else f"{said} and remove the rest"


def reads_word(inv: Invocation) -> bool:
    """Whether the entry point serves its first positional word as the model (vLLM's OpenAI
    server module takes model_tag and never reads it: `unread_word`)."""
    t = traits(inv.engine)
    module = _module(inv)
    return module is None or module in t.demo_modules or not t.module_positional_unread


def unread_word(inv: Invocation, parsed: Parsed, release: tuple[int, ...] | None,
                model_option: bool) -> tuple[str, int] | None:
    """(why, the line) where `python -m vllm.entrypoints.openai.api_server MODEL` holds a word
    its parser takes but the server never reads (0.10.0 on; before, the parser has no place for
    it: `stray_words`): the server would load --model's model, not the word's."""
    t = traits(inv.engine)
    if inv.dynamo or reads_word(inv) or not parsed.positional or \
            _before(release, t.module_positional_since):
        return None
    word = parsed.positional[0]
    if _after(inv, word) is not None:  # `--key True` (KAITO's booleans): said as before, where
        return None  # the word fills model_tag and a second stops argparse (task h59maxlen)
    serves = ("--model's model" if model_option else "the default --model (ModelConfig.model, "
              "Qwen/Qwen3-0.6B in vLLM 0.34.0's config/model.py:161)")
    fix = "remove it" if model_option else f"write it as --model {word.text}"
    return (f"`{word.text}` is not served: {entry_said(inv)} takes one positional word (model_tag, "
            f"in its parser since {t.module_positional_since}) and never reads it (only `vllm "
            f"serve` copies it to --model, entrypoints/cli/serve.py), so the server loads "
            f"{serves}; {fix}", word.line)


def model_option(inv: Invocation, parsed: Parsed, release: tuple[int, ...] | None,
                 image: str | None) -> tuple[str, str, int] | None:
    """("refused" | "note", why, the line) for `vllm serve --model M` (the word `--model`):
    refused by the releases of traits' serve_model_option, warned about and served from the
    next (kvplan's default release, the newest, where the file names none). Only a command the
    file writes: the vllm/vllm-openai image's own entrypoint (`implied`) was the OpenAI server
    module in those releases, which takes --model."""
    t = traits(inv.engine)
    span = t.serve_model_option
    if span is None or inv.implied or inv.dynamo or _module(inv) is not None or \
            t.command is None or inv.entry != f"{t.command} serve":
        return None
    # FlexibleArgumentParser matches the exact word `--model` up to 0.11.0 (`--model=M` is
    # argparse's, and served); from 0.11.1 `--model=M` too
    first_warn = _before(release, span[1])
    said = next((w for w in inv.words if w.text == "--model" or
                 (not first_warn and w.text.startswith("--model="))), None)
    if said is None:
        return None
    rel = f"{t.title} {image}" if release is not None and image else \
        f"{t.title} (no release named: kvplan's default, the newest)"
    if _before(release, span[0]):
        if parsed.positional:  # the model given as the word too: not read for these releases
            return None
        return ("refused", f"the engine refuses it: {rel}'s `{inv.entry}` takes the model as a "
                "required positional word (model_tag; vllm/scripts.py in 0.5.4-0.7.1, "
                "entrypoints/cli/serve.py:46 in 0.7.3), so argparse stops (\"the following "
                f"arguments are required: model_tag\"), and from 0.5.5 to before {span[0]} "
                "--model beside it is a ValueError (\"With `vllm serve`, you should provide the "
                "model as a positional argument instead of via the `--model` option.\"); write "
                "the model as the first word after serve", said.line)
    if first_warn:
        return ("refused", f"the engine refuses it: {rel} stops on `{inv.entry} --model` "
                "(ValueError \"With `vllm serve`, you should provide the model as a positional "
                "argument or in a config file instead of via the `--model` option.\": "
                f"FlexibleArgumentParser.parse_args, {span[0]} to before {span[1]}); write the "
                "model as the first word after serve", said.line)
    return ("note", f"--model: {rel} warns \"With `vllm serve`, you should provide the model as "
            "a positional argument or in a config file instead of via the `--model` option\" "
            "(and that the option will be removed) and serves it as the model (from "
            f"{span[1]}: FlexibleArgumentParser moves it to the model's place); read as the "
            "model", said.line)
