"""The option walk's table: for every command, what each option is expected to do.

A case is one invocation and what it must show against a reference invocation:
- CHANGES: exit 0 (or 1 where the reference is a verdict of no) and a different output (the
  JSON where the command has it, else the text); for explain, the record must also name the
  option as the origin of its field;
- REFUSED: exit 2 and exactly one error line that names the option and holds the reason;
- WRITES: the output goes to a file instead (stdout empty, the file equals the reference's
  standard output, or for --save a kvplan/v1 file beside an unchanged stdout);
- OWN: an effect no output shows (--debug, --no-color, --allow-no-fit, --measure, completion),
  checked by the named test in tests/options/test_own_effects.py.

Each case names the (command, option) it walks; tests/options/test_option_walk.py enumerates
every option of every command from the typer app and fails for one that no case walks.
"""

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
    "--page-size": ("32",),
    "--chunked-prefill-size": ("4096",), "--cuda-graph-max-bs": ("64",),
    "--max-running-requests": ("8",), "--max-total-tokens": ("100000",),
    "--attention-backend": ("aiter",), "--max-batch-size": ("8",), "--max-num-tokens": ("4096",),
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
    "--search": (), "--search-gpus": ("h200",), "--format": ("csv",), "--output": (OUT,),
    "--save": (SAVE,), "--allow-no-fit": (), "--device": ("cpu",), "--tolerance": ("5",),
    "--time-limit": ("10",), "--layers": ("2",), "--family": ("qwen",), "--attention": ("mla",),
    "--vendor": ("amd",), "--name": ("walked",), "--hf-id": ("org/walked",), "--users": ("100",),
}

# the engine's own settings: refused under the base's ideal engine, applied under their own
_VLLM = ("--enforce-eager", "--kv-cache-memory-bytes", "--cpu-offload-gb", "--speculative-model",
         "--speculative-config", "--num-speculative-tokens", "--disable-custom-all-reduce",
         "--topk-topp-sampler", "--entrypoint", "--enable-extensible-kv-cache")
_SGLANG = ("--cuda-graph-max-bs", "--max-total-tokens", "--attention-backend")
_TRTLLM = ("--max-tokens-in-paged-kv-cache", "--trtllm-config", "--trt-activation-bytes",
           "--trtllm-backend")
_ENGINE_OWN_NAMES = {"--page-size": "sglang and trtllm's name", "--chunked-prefill-size":
                     "sglang's name", "--max-running-requests": "sglang's name",
                     "--max-batch-size": "trtllm's name", "--max-num-tokens": "trtllm's name",
                     "--max-seq-len": "trtllm's name", "--tokens-per-block": "trtllm's name",
                     "--free-gpu-memory-fraction": "trtllm's name"}
# each option alone on the ideal base: refused with this reason
_ALONE_REFUSED_RECORD: dict[str, str] = {
    "--ep": "expert parallelism applies to mixture-of-experts models; llama-3-8b has no experts",
    "--engine-version": "read only by an engine profile",
    "--max-num-batched-tokens": "read only by an engine profile",
    "--max-num-seqs": "the ideal profile never caps the sequences",
    "--kv-group-size": "only an int4 cache has groups of values sharing a scale",
    "--nodes": "a replica of 1 GPU(s) (tensor 1 x pipeline 1) cannot span 2 servers",
    "--limit-mm-per-prompt": "only vllm reads it, not ideal",
    **{f: "only vllm reads it, not ideal; add --engine vllm" for f in _VLLM},
    "--tp-transport": "only vllm reads it, not ideal: it books no tensor-parallel buffers; add "
                      "--engine vllm",
    **{f: "only sglang reads it, not ideal; add --engine sglang" for f in _SGLANG},
    **{f: "only trtllm reads it, not ideal; add --engine trtllm" for f in _TRTLLM},
    **{f: f"{f} is {why}" for f, why in _ENGINE_OWN_NAMES.items()},
}
_TRAFFIC_ALONE_REFUSED = {
    "--peak-to-mean": "it scales a mean arrival rate to the peak",
    "--risk": "an overflow risk needs a spread of lengths",
    **{f: "give mean, at least two of p50/p95/p99, or a sample file"
       for f in ("--context-p50", "--context-p95", "--context-p99")},
}
_MEASURE_ONLY = ("--device", "--tolerance", "--time-limit", "--layers")


# another value where the base already gives the option its VALUE
_ALT = {"--context-p95": ("7000",), "--avg-context": ("2500",)}


def _alone(command: str, refused: dict[str, str], options: list[str]) -> list[Case]:
    base = BASE[command]
    out = []
    for opt in options:
        argv = (*base, opt, *(_ALT[opt] if opt in base else VALUE[opt]))
        if opt in refused:
            out.append(Case(command, opt, argv, REFUSED, refused[opt]))
        else:
            out.append(Case(command, opt, argv, CHANGES))
    return out


def _pair(command: str, option: str, context: tuple[str, ...], *extra: str,
          base: tuple[str, ...] | None = None) -> Case:
    """The option on a base that makes it apply (`context`), against that base without it."""
    start = (*(base or BASE[command]), *context)
    return Case(command, option, (*start, *extra), CHANGES, ref=start)


def record_cases(command: str, options: list[str]) -> list[Case]:
    """size, fleet and explain: every record flag alone on the ideal base, and each one that
    is refused there again where it applies (its engine, an int4 cache, a MoE model, ...)."""
    refused = dict(_ALONE_REFUSED_RECORD)
    for f in _MEASURE_ONLY:
        refused[f] = f"{f} applies only with --measure"
    if command != "size":
        refused.update(_TRAFFIC_ALONE_REFUSED)
    if command == "fleet":
        refused["--search-gpus"] = "applies only with --search"
        for f in ("--arrival-rate", "--mean-duration-s"):
            refused[f] = "give peak_concurrent_users or an arrival rate, not both"
    if command == "explain":
        for f in ("--arrival-rate", "--mean-duration-s"):
            refused[f] = "arrival_rate_per_s and mean_duration_s go together"
        refused["--format"] = "explain prints a table or json; use --format table or --format json"
    walked = [o for o in options if o not in OWN_OPTIONS.get(command, ()) and o not in (
        "--output", "--save") and (o != "--format" or command == "explain")]
    cases = _alone(command, refused, walked)
    vllm, sglang, trtllm = ("--engine", "vllm"), ("--engine", "sglang"), ("--engine", "trtllm")
    pairs = [
        ("--engine-version", vllm, "--engine-version", "0.10.2"),
        ("--max-num-batched-tokens", vllm, "--max-num-batched-tokens", "2048"),
        ("--max-num-seqs", sglang, "--max-num-seqs", "8"),  # caps SGLang's users
        ("--kv-group-size", ("--kv-dtype", "int4"), "--kv-group-size", "32"),
        ("--nodes", ("--tp", "2"), "--nodes", "2"),
        ("--enforce-eager", vllm, "--enforce-eager"),
        ("--kv-cache-memory-bytes", vllm, "--kv-cache-memory-bytes", "10737418240"),
        ("--cpu-offload-gb", vllm, "--cpu-offload-gb", "2"),
        ("--speculative-model", vllm, "--speculative-model", "llama-3.2-1b",
         "--num-speculative-tokens", "4"),
        ("--num-speculative-tokens", (*vllm, "--speculative-model", "llama-3.2-1b",
                                      "--num-speculative-tokens", "2"),
         "--num-speculative-tokens", "6"),
        ("--speculative-config", vllm, "--speculative-config", VALUE["--speculative-config"][0]),
        # on the default H100 (SXM: the NVLink term by its label) at TP 2: host books the
        # one-GPU growth; --disable-custom-all-reduce takes custom all-reduce's 16 MiB off on a
        # release that snapshots before the TP set-up (0.10; from 0.11 its buffers precede the
        # snapshot and the term does not hold them, task h31tpterm)
        ("--tp-transport", (*vllm, "--tp", "2"), "--tp-transport", "host"),
        ("--disable-custom-all-reduce", (*vllm, "--tp", "2", "--engine-version", "0.10.2"),
         "--disable-custom-all-reduce"),
        # vLLM 0.10's profiling sampler: FlashInfer's 16 B a logit instead of the sort's 38 B
        # (256 rows x 128,256 x 22 B more pool on llama-3-8b; tests/engines/
        # test_topk_topp_sampler_setting.py)
        ("--topk-topp-sampler", (*vllm, "--engine-version", "0.10.0"), "--topk-topp-sampler",
         "flashinfer"),
        # the offline LLM class's 16,384 batched tokens on the H100 (serve: 8,192); the pool
        # keeps the sampler's peak on llama-3-8b, the plan names the defaults it applied
        # (tests/engines/test_vllm_entrypoint.py moves the pool on Llama-3.1-70B)
        ("--entrypoint", vllm, "--entrypoint", "offline"),
        # vLLM 0.34's extensible KV cache turned off: 0.33's sizing at 0.92 utilization (the on
        # spelling is the default release's own default)
        ("--enable-extensible-kv-cache", vllm, "--no-enable-extensible-kv-cache"),
        ("--page-size", sglang, "--page-size", "32"),
        ("--chunked-prefill-size", sglang, "--chunked-prefill-size", "4096"),
        ("--cuda-graph-max-bs", sglang, "--cuda-graph-max-bs", "256"),
        ("--max-running-requests", sglang, "--max-running-requests", "8"),
        ("--max-total-tokens", sglang, "--max-total-tokens", "100000"),
        ("--max-batch-size", trtllm, "--max-batch-size", "8"),
        ("--max-num-tokens", trtllm, "--max-num-tokens", "4096"),
        ("--max-seq-len", trtllm, "--max-seq-len", "4096"),
        ("--tokens-per-block", trtllm, "--tokens-per-block", "64"),
        ("--free-gpu-memory-fraction", trtllm, "--free-gpu-memory-fraction", "0.8"),
        ("--max-tokens-in-paged-kv-cache", trtllm, "--max-tokens-in-paged-kv-cache", "100000"),
        ("--trtllm-config", trtllm, "--trtllm-config", TRTCONFIG),
        # a TensorRT engine's setting: applied on the engine path (before 1.0); the default
        # 1.3.0 is the PyTorch backend, which refuses it (tests/engines/test_flag_effects.py)
        ("--trt-activation-bytes", (*trtllm, "--engine-version", "0.13.0"), "--trt-activation-bytes",
         "1811942912"),
        # the default 1.3.0 is the PyTorch backend (1.58 GiB outside torch); a TensorRT engine
        # books 0.75 GiB (tests/engines/test_trtllm_backend.py)
        ("--trtllm-backend", trtllm, "--trtllm-backend", "tensorrt"),
    ]
    for opt, context, *extra in pairs:
        if opt in options:
            cases.append(_pair(command, opt, tuple(context), *extra))
    moe = (command, "qwen3-30b-a3b", *BASE[command][2:])
    cases.append(_pair(command, "--ep", (), "--ep", "2", base=moe))  # 2 ranks beyond TP 1
    cases.append(Case(command, "--ep", (*moe, "--tp", "2", "--ep", "2"), REFUSED,
                      "up to the tensor-parallel size (2) the experts are split over the same "
                      "GPUs either way"))
    if "--attention-backend" in options:  # on ROCm, unstated is SGLang's default aiter, which
        # derates above 8,192 tokens; triton lifts the derate (1,237,743 vs 1,033,625 tokens:
        # tests/engines/test_attention_backend.py)
        cases.append(_pair(command, "--attention-backend",
                           (*sglang, "--gpu", "mi300x", "--context", "32768"),
                           "--attention-backend", "triton",
                           base=(command, "llama-3.1-8b", *BASE[command][2:])))
    mm = (command, "qwen2.5-vl-7b", *BASE[command][2:], "--engine", "vllm")
    if "--limit-mm-per-prompt" in options:
        cases.append(_pair(command, "--limit-mm-per-prompt", (), "--limit-mm-per-prompt", "0",
                           base=mm))
    if command != "size":  # the traffic flags where they apply
        spread = ("--avg-context", "2000")
        cases += [
            _pair(command, "--context-p50", spread, "--context-p50", "1200",
                  "--context-p95", "6000"),
            _pair(command, "--context-p95", spread, "--context-p95", "6000"),
            _pair(command, "--context-p99", spread, "--context-p99", "7000"),
            _pair(command, "--risk", (*spread, "--context-p95", "6000"), "--risk", "0.05"),
            Case(command, "--risk", (*BASE[command], *spread, "--context-p95", "6000",
                                     "--allocation", "reserved", "--risk", "0.05"), REFUSED,
                 "a reserved cache sets aside the full context for every conversation"),
        ]
        rate = (command, "llama-3-8b", "--arrival-rate", "10", "--mean-duration-s", "300",
                *BASE[command][-2:])
        cases += [Case(command, "--arrival-rate", rate, CHANGES),
                  Case(command, "--mean-duration-s", rate, CHANGES),
                  _pair(command, "--peak-to-mean", (), "--peak-to-mean", "1.5", base=rate)]
    if command == "explain":
        cases.append(Case(command, "--format", ("explain", "llama-3-8b", "-f", "table"),
                          CHANGES))
    return cases


def search_cases() -> list[Case]:
    """fleet --search with each option its help text pairs with it (or excludes)."""
    s = ("fleet", "llama-3-8b", "-n", "2000", "--search", "--search-gpus", "h100,h200,l40s",
         "-f", "json")
    return [
        Case("fleet", "--search", (*BASE["fleet"], "--search"), CHANGES),
        Case("fleet", "--search-gpus", (*BASE["fleet"], "--search", "--search-gpus", "h200"),
             CHANGES, ref=(*BASE["fleet"], "--search")),
        Case("fleet", "--search", (*s, "--gpu", "h200"), REFUSED,
             "--search tries every catalog GPU; limit it with --search-gpus", named="--gpu"),
        Case("fleet", "--search", (*s, "--tp", "2"), CHANGES, ref=s),
        Case("fleet", "--search", (*s, "--kv-dtype", "fp8"), CHANGES, ref=s),
        Case("fleet", "--search", (*s, "--kv-budget-gib", "40"), REFUSED,
             "states one GPU's KV pool; --search derives each GPU's own",
             named="--kv-budget-gib"),
        Case("fleet", "--search", (*s, "--price-per-hour", "3"), REFUSED,
             "with --search give prices per GPU: --price-per-hour GPU=USD",
             named="--price-per-hour"),
        Case("fleet", "--search", (*s, "--price-per-hour", "h200=3"), CHANGES, ref=s),
        Case("fleet", "--search", (*s, "--tp", "3"), REFUSED,
             "tensor parallelism 3 does not divide llama-3-8b's 32 attention heads", named="--tp"),
        Case("fleet", "--search", ("fleet", "llama-3.1-70b", "-n", "100000", "--search",
                                   "--search-gpus", "t4", "--save", SAVE), REFUSED,
             "no configuration carries the load, so there is no plan to save", named="--save"),
    ]


def output_cases(command: str, fmt_values: tuple[str, ...]) -> list[Case]:
    """-o alone writes what the base prints; --format's every value changes the output."""
    base = BASE[command]
    out = [Case(command, "--output", (*base, "-o", OUT), WRITES)]
    plain = tuple(a for i, a in enumerate(base) if a not in ("-f", "json")
                  and not (i and base[i - 1] == "-f"))
    for value in fmt_values:
        if value != "json":
            out.append(Case(command, "--format", (*plain, "-f", value), CHANGES))
    return out


def plot_cases(command: str, options: list[str]) -> list[Case]:
    """Each option alone (and on a deployment file, where it overrides the file's field)."""
    base = BASE[command]
    cases = _alone(command, {}, [o for o in options if o not in ("--output",)
                                 and o not in OWN_OPTIONS.get(command, ())])
    cases.append(Case(command, "--output", (*base, "-o", SVG), WRITES))
    cases.append(Case(command, "--output", (*base, "-o", OUT), REFUSED,
                      "--output writes a picture: name a .png or .svg file"))
    file_base = (*base[:2], DEPLOYMENT)
    for opt in options:
        if opt in ("--output", "--users", "--risk", "--kv-dtype", "--allocation") or \
                opt in OWN_OPTIONS.get(command, ()):
            continue
        value = VALUE[opt]
        if opt == "--context-sample":
            cases.append(_pair(command, opt, (), opt, *value, base=file_base))
        elif opt in ("--context-p50", "--context-p99"):  # the file states p95 7,000
            value = ("1000",) if opt == "--context-p50" else ("7500",)
            cases.append(_pair(command, opt, (), opt, *value, base=file_base))
        else:
            cases.append(_pair(command, opt, (), opt, *value, base=file_base))
    if command == "plot risk":
        cases[:] = [c for c in cases if not (c.option == "--context-sample" and c.ref is None)]
        cases.append(Case(command, "--context-sample", (*base, "--context-sample", SAMPLE),
                          REFUSED, "give a sample or percentiles, not both"))
        cases.append(Case(command, "--context-sample", ("plot", "risk", "llama-3-8b",
                                                         "--context-sample", SAMPLE), CHANGES))
        cases.append(Case(command, "--risk", (*base, "--users", "40", "--risk", "0.2"), REFUSED,
                          "it sets how many conversations are open when --users is not given"))
    return cases


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


def own_cases(command: str) -> list[Case]:
    return [Case(command, opt, (*BASE[command], opt), OWN, test)
            for opt, test in OWN_OPTIONS[command].items()]


def all_cases(options: dict[str, list[str]]) -> list[Case]:
    """Every case, given each command's options (long names) as the app declares them."""
    cases: list[Case] = []
    for command, opts in options.items():
        cases += own_cases(command)
        if command in ("size", "fleet", "explain"):
            cases += record_cases(command, opts)
            cases += output_cases(command, ("table", "json", "csv") if command != "explain"
                                  else ("table",))
            if command != "explain":
                cases.append(Case(command, "--save", (*BASE[command], "--save", SAVE), WRITES))
        elif command.startswith("plot "):
            cases += plot_cases(command, opts)
    cases += search_cases()
    cases += [
        Case("", "--version", ("--version",), CHANGES),
        Case("models", "--family", (*BASE["models"], "--family", "qwen"), CHANGES),
        Case("models", "--attention", (*BASE["models"], "--attention", "mla"), CHANGES),
        Case("models", "--attention", (*BASE["models"], "--attention", "flash"), REFUSED,
             "'flash' is not one of"),
        Case("gpus", "--vendor", (*BASE["gpus"], "--vendor", "amd"), CHANGES),
        Case("gpus", "--vendor", (*BASE["gpus"], "--vendor", "intel"), REFUSED,
             "unknown vendor 'intel'; the catalog has amd, nvidia"),
        # the name defaults to the -o file's stem (out.txt -> out)
        Case("import", "--output", (*BASE["import"], "-o", OUT), WRITES,
             ref=(*BASE["import"], "--name", "out")),
        Case("import", "--name", (*BASE["import"], "--name", "walked"), CHANGES),
        Case("import", "--hf-id", (*BASE["import"], "--hf-id", "org/walked"), CHANGES),
        Case("import", "--weight-dtype", (*BASE["import"], "--weight-dtype", "fp8"), CHANGES),
        Case("import", "--weight-dtype", (*BASE["import"], "--weight-dtype", "fp7"), REFUSED,
             "--weight-dtype: "),
        Case("check", "--gpu", (*BASE["check"], "--gpu", "h200"), CHANGES),
        Case("check", "--gpu", ("check", GPU_MANIFEST, "--gpu", "h200"), REFUSED,
             "every deployment checked names its own GPU, so it applied to none"),
        Case("check", "--gpu", (*BASE["check"], "--gpu", "h10x"), REFUSED, "unknown GPU"),
        Case("check", "--output", (*BASE["check"], "-o", OUT), WRITES),
        Case("check", "--format", (*BASE["check"], "-f", "csv"), REFUSED,
             "'csv' is not one of text, json, junit, github"),
    ]
    for fmt in ("text", "junit", "github"):
        cases.append(Case("check", "--format", ("check", NOGPU_MANIFEST, "-f", fmt), CHANGES))
    for command, values in (("models", ("table", "csv")), ("gpus", ("table", "csv")),
                            ("calibrate", ("table", "csv"))):
        cases += output_cases(command, values)
    return cases
