"""Positional words an engine's parser has no place for (task h59maxlen): `vllm serve MODEL
extra --tp 2`, or a word left after an option that takes no value (`--enforce-eager True`).

- `vllm serve` takes one positional word, `model_tag` (nargs="?", entrypoints/openai/cli_args.py
  :346-351 in 0.25.1), and from 0.12.0 moves `--model M` to the front as that word
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
from kvplan.engine_traits import traits

# option -> the first vLLM release whose parser no longer takes a True / False after it
_STORE_BOOLEAN = {
    "--enable-chunked-prefill": (0, 8, 5),
    "--multi-step-stream-outputs": (0, 8, 5),
    "--disable-logprobs-during-spec-decoding": (0, 8, 3),
}


def _places(inv: Invocation, parsed: Parsed, model_option: bool) -> tuple[int, str]:
    """How many positional words the entry point takes, and what a message calls them."""
    t = traits(inv.engine)
    if inv.entry.startswith("python -m "):
        module = inv.entry.removeprefix("python -m ")
        n = 0 if module in t.demo_modules else t.module_positionals
        return n, ("no positional word" if n == 0 else
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
    n, what = _places(inv, parsed, model_option)
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
    return (f"the engine refuses it: {inv.entry} takes {what}; {said} "
            f"{'is' if len(left) == 1 else 'are'} left over: {first}{stops}; remove "
            f"{'it' if len(left) == 1 else 'them'}", left[0].line)
