"""The option walk's vocabulary (tests/options/cases.py builds the cases from it): what a case
expects, the files it names, the Case itself, each command's base invocation and one value per
option, the two builders every command's cases share (an option alone on the base, an option on
the base that makes it apply) and the options a test of their own checks."""

from __future__ import annotations

import json
from dataclasses import dataclass

CHANGES, REFUSED, WRITES, OWN = "changes", "refused", "writes", "own"

# files the cases use (created by the walk's fixture; the names are replaced in argv)
SAMPLE, PRICES, TRTCONFIG, OUT, SAVE, SVG = "@SAMPLE", "@PRICES", "@TRTCONFIG", "@OUT", "@SAVE", \
    "@SVG"
NOGPU_MANIFEST = "@NOGPU"  # examples/k8s/vllm-llama3-8b.yaml without its node selector
LOG = "tests/assets/logs/01-vllm-llama3.1-8b-rtx3090-v0.log"
HF_CONFIG = "tests/assets/hf_configs/gemma-2-2b.json"
DEPLOYMENT = "examples/deployments/chat-llama3-8b.yaml"  # ideal engine, mean 2,000, p95 7,000
GPU_MANIFEST = "examples/k8s/vllm-llama3-8b.yaml"  # names its GPU (an H100 node selector)


@dataclass(frozen=True)
class Case:
    command: str  # "size", "plot memory"; "" for the top level
    option: str  # the long name walked
    argv: tuple[str, ...]  # the whole invocation
    expect: str
    text: str = ""  # REFUSED: the reason; OWN: the test that checks the effect
    ref: tuple[str, ...] | None = None  # the reference invocation (default: the base)
    named: str = ""  # REFUSED: the option the error line names (default: `option`)

    @property
    def id(self) -> str:
        extra = " ".join(a for a in self.argv if a not in BASE.get(self.command, ()))
        return f"{self.command or 'kvplan'}:{extra}"


BASE: dict[str, tuple[str, ...]] = {
    "": (),  # `kvplan` alone: the help
    "size": ("size", "llama-3-8b", "-f", "json"),
    "fleet": ("fleet", "llama-3-8b", "-n", "2000", "-f", "json"),
    "explain": ("explain", "llama-3-8b", "-f", "json"),
    "models": ("models", "-f", "json"),
    "gpus": ("gpus", "-f", "json"),
    "import": ("import", HF_CONFIG),
    "check": ("check", NOGPU_MANIFEST, "-f", "json"),
    "calibrate": ("calibrate", LOG, "-f", "json"),
    "plot users-vs-context": ("plot", "users-vs-context", "llama-3-8b"),
    "plot memory": ("plot", "memory", "llama-3-8b"),
    "plot risk": ("plot", "risk", "llama-3-8b", "--avg-context", "2000", "--context-p95", "6000"),
}
JSON_OUTPUT = {"size", "fleet", "explain", "models", "gpus", "check", "calibrate"}

# one value per option (a flag takes none)
VALUE: dict[str, tuple[str, ...]] = {
    "--gpu": ("h200",), "--context": ("4096",), "--max-model-len": ("4096",),
    "--avg-context": ("1500",), "--kv-dtype": ("fp8",), "--weight-dtype": ("fp8",),
    "--allocation": ("reserved",), "--block-size": ("48",),  # 8,192 is no multiple of 48
    "--kv-group-size": ("32",), "--tp": ("2",), "--pp": ("2",), "--nodes": ("2",),
    "--ep": ("2",), "--memory-utilization": ("0.8",), "--reserve-gib": ("4",),
    "--kv-budget-gib": ("40",), "--shared-prefix-tokens": ("512",), "--engine": ("vllm",),
    "--engine-version": ("0.10.2",), "--max-num-batched-tokens": ("4096",),
    "--max-num-seqs": ("8",), "--enforce-eager": (), "--kv-cache-memory-bytes": ("10737418240",),
    "--cpu-offload-gb": ("2",), "--limit-mm-per-prompt": ("1",),
    "--speculative-model": ("llama-3.2-1b",),
    "--speculative-config": (json.dumps({"model": "llama-3.2-1b", "num_speculative_tokens": 4}),),
    "--num-speculative-tokens": ("4",), "--tp-transport": ("host",),
    "--disable-custom-all-reduce": (), "--topk-topp-sampler": ("flashinfer",),
    "--entrypoint": ("offline",), "--enable-extensible-kv-cache": (),
    "--disable-hybrid-kv-cache-manager": (), "--chunked-local-hybrid": (),
    "--cudagraph-capture-sizes": ("1,2,4",), "--max-cudagraph-capture-size": ("64",),
    "--cudagraph-mode": ("PIECEWISE",),
    "--page-size": ("32",),
    "--chunked-prefill-size": ("4096",), "--cuda-graph-max-bs": ("64",),
    "--max-running-requests": ("8",), "--max-total-tokens": ("100000",),
    "--attention-backend": ("aiter",), "--mm-feature-transport": ("cuda_ipc",),
    "--attention-dp": ("2",), "--moe-dense-tp-size": ("1",), "--enable-dp-lm-head": (),
    "--moe-a2a-backend": ("deepep",),
    "--speculative-algorithm": ("NGRAM",), "--speculative-num-steps": ("3",),
    "--speculative-eagle-topk": ("1",), "--speculative-num-draft-tokens": ("4",),
    "--max-batch-size": ("8",), "--max-num-tokens": ("4096",),
    "--max-seq-len": ("4096",),
    "--tokens-per-block": ("64",), "--free-gpu-memory-fraction": ("0.8",),
    "--max-tokens-in-paged-kv-cache": ("100000",), "--trtllm-config": (TRTCONFIG,),
    "--trt-activation-bytes": ("1811942912",), "--trtllm-backend": ("tensorrt",),
    "--peak-users": ("3000",), "--headroom": ("0.2",), "--min-users": ("2500",),
    "--arrival-rate": ("10",), "--mean-duration-s": ("300",), "--peak-to-mean": ("1.5",),
    "--context-p50": ("1200",), "--context-p95": ("6000",), "--context-p99": ("7000",),
    "--context-sample": (SAMPLE,), "--risk": ("0.05",), "--bandwidth-efficiency": ("0.8",),
    "--flops-efficiency": ("0.5",), "--min-tokens-per-s-per-user": ("60",),
    "--prompt-tokens": ("500",), "--price-per-hour": ("3",), "--prices": (PRICES,),
    "--search": (), "--search-gpus": ("h200",), "--top": ("3",), "--format": ("csv",), "--output": (OUT,),
    "--save": (SAVE,), "--allow-no-fit": (), "--device": ("cpu",), "--tolerance": ("5",),
    "--time-limit": ("10",), "--layers": ("2",), "--family": ("qwen",), "--attention": ("mla",),
    "--vendor": ("amd",), "--name": ("walked",), "--hf-id": ("org/walked",), "--users": ("100",),
}

# another value where the base already gives the option its VALUE
_ALT = {"--context-p95": ("7000",), "--avg-context": ("2500",)}


def alone(command: str, refused: dict[str, str], options: list[str]) -> list[Case]:
    base = BASE[command]
    out = []
    for opt in options:
        argv = (*base, opt, *(_ALT[opt] if opt in base else VALUE[opt]))
        if opt in refused:
            out.append(Case(command, opt, argv, REFUSED, refused[opt]))
        else:
            out.append(Case(command, opt, argv, CHANGES))
    return out


def pair(command: str, option: str, context: tuple[str, ...], *extra: str,
         base: tuple[str, ...] | None = None) -> Case:
    """The option on a base that makes it apply (`context`), against that base without it."""
    start = (*(base or BASE[command]), *context)
    return Case(command, option, (*start, *extra), CHANGES, ref=start)


# options checked by a test of their own (tests/options/test_own_effects.py)
GLOBAL_OWN = {"--debug": "test_debug_shows_the_traceback_of_every_command",
              "--no-color": "test_no_color_strips_the_colours_of_every_command"}
OWN_OPTIONS: dict[str, dict[str, str]] = {
    "size": {**GLOBAL_OWN, "--allow-no-fit": "test_allow_no_fit_turns_the_verdict_into_exit_0",
             "--measure": "test_measure_and_its_options_change_the_measurement"},
    "fleet": {**GLOBAL_OWN, "--allow-no-fit": "test_allow_no_fit_turns_the_verdict_into_exit_0"},
    "": {**GLOBAL_OWN, "--install-completion": "test_completion_is_installed_and_completes",
         "--show-completion": "test_completion_is_installed_and_completes"},
}
for _c in BASE:
    OWN_OPTIONS.setdefault(_c, dict(GLOBAL_OWN))

