"""What each engine is, declared once (task h49engines): how it is started and how it spells its
options, what its start-up logs print, which of its quirks kvplan reproduces.

The rest of kvplan asks `traits(engine)` instead of branching on the engine's name: a new engine
(or a new fact about one) is a row here, not a hunt for `== "vllm"` across check, deploy, plan and
calibrate (tests/engines/test_engine_traits.py fails on a new engine-name comparison outside
kvplan/engines). The engine profiles themselves (what each allocates) stay in their modules;
this table is only what other packages need to know. It sits beside kvplan/engines, not in it,
and imports nothing: kvplan.deploy and kvplan.plan read it on every plan, and `kvplan size`
without --engine loads no kvplan.engines module (tests/test_imports.py). The quirks that need
code name a function in their engine's module, imported when it is called (`hook`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

# AMD's rocm/vllm images name the vLLM release inside a longer tag:
# `rocm6.4.1_vllm_0.9.1_20250715` (kvplan.check.manifests.image_tag)
_ROCM_VLLM = re.compile(r"(?:^|_)vllm_v?(\d+\.\d+\.\d+)(?=_|$)")


@dataclass(frozen=True)
class EngineTraits:
    """One engine's facts. Defaults are "no": an engine states what it has."""

    name: str  # the engine's name in records, flags and log headers
    # how a message names it (`SGLang starts, and refuses longer requests`); "" is `name`. The
    # only place the display names are written (task h55gaps: check kept four tables of them)
    title: str = ""
    # words that name it in an image, service or container name (a compose service kvplan cannot
    # read is said to run it: kvplan.check.manifests.compose.unread_services)
    name_words: tuple[str, ...] = ()
    # image repositories that carry its releases in their tags without one of name_words
    # (kvplan.check.manifests.pods.tag_not_release): AMD's rocm/sgl-dev SGLang builds
    # (`rocm/sgl-dev:v0.5.10.post1-rocm720-mi30x-20260427`, corpus round 5)
    image_words: tuple[str, ...] = ()
    # a serving engine whose start-up logs kvplan calibrates on (a log header's first word, the
    # `# kvplan: engine=` directive) and which serves a float32 checkpoint in 16 bits when no
    # dtype is stated (`--dtype auto`: vLLM _resolve_auto_dtype, SGLang ModelConfig;
    # TensorRT-LLM builds 16-bit engines), its KV cache too
    serving: bool = False
    # the values of its start-up log that measure the pool (kvplan.calibrate.parse's names)
    log_measures: tuple[str, ...] = ()

    # -- how a command line starts it (kvplan.check.argv.server_start)
    command: str | None = None  # the program: `vllm serve`, `trtllm-serve`
    serve_word_optional: bool = False  # `trtllm-serve` and `trtllm-serve serve` alike
    modules: tuple[str, ...] = ()  # `python -m MODULE`, the whole name
    module_prefixes: tuple[str, ...] = ()  # `python -m MODULE...`, any name starting so
    dynamo_module: str | None = None  # `python -m dynamo.ENGINE`: Dynamo adds its options
    # `python -m MODULE serve`: the module behind the `command` console script, read as it
    cli_module: str | None = None
    # the pip package whose exact pin (`pip install vllm==0.6.6`) names the release installed
    # (a SkyPilot task's setup, kvplan.check.manifests.skypilot)
    pip_package: str | None = None
    # where its source keeps a quantized (fp8) checkpoint's weights as stored whatever --dtype
    # says (kvplan.check.compute_dtype's note); "" where kvplan has not read it
    stored_weights_source: str = ""
    # the values its `--dtype` (the compute dtype) takes, and where the source lists them; a
    # manifest's other value is refused as the engine refuses it (kvplan.check.compute_dtype)
    compute_dtypes: tuple[str, ...] = ()
    compute_dtypes_source: str = ""
    # its rules for the compute dtype by the GPU's compute capability were read
    # (kvplan.engines.dtype_support): kvplan.plan.gpu_dtype.rule_on applies them
    gpu_dtype_rules: bool = False
    # `python -m MODULE` of a demo server that builds the same engine from the same engine
    # arguments, read as the server is, with its note (kvplan.check.manifests.engine)
    demo_modules: tuple[str, ...] = ()
    demo_note: str = ""
    # `python -m MODULE` of a launcher that starts --dp-size servers of the engine, each with
    # the same options, behind a router whose own options carry `router_prefix`: the servers
    # are read as the engine's data-parallel replicas, the router's options noted (they do not
    # move the KV pool), with where the source says so (kvplan.check.manifests.engine)
    router_modules: tuple[str, ...] = ()
    router_prefix: str = ""
    router_source: str = ""

    # -- how its parser reads options (kvplan.check.argv)
    # vLLM's FlexibleArgumentParser: `_` and `-` alike in a long option's name
    dash_is_underscore: bool = False
    # vLLM's `--json-arg.key value` (one key of a JSON option) and `-O3` / `-O.KEY=V`
    dotted_options: bool = False
    short_o: bool = False
    # click (trtllm-serve): exact names only; argparse takes a unique prefix of a long option
    exact_options: bool = False
    # positional words `python -m MODULE` takes (kvplan.check.manifests.stray_words): vLLM's
    # OpenAI server one (model_tag, entrypoints/openai/cli_args.py:346 in 0.25.1), SGLang's
    # launch_server none (srt/server_args.py prepare_server_args in 0.5.23)
    module_positionals: int = 1
    # the first release whose `python -m MODULE` takes that word (vLLM: model_tag joined
    # make_arg_parser in 0.10.0, entrypoints/openai/cli_args.py:214; 0.8.5 and 0.9.2 add it on
    # `vllm serve`'s sub-parser only, cli/serve.py:40 / :68); None: every release
    module_positional_since: str | None = None
    # the module takes the word but never reads it (vLLM: only `vllm serve` copies model_tag to
    # --model, cli/serve.py:47-48 in 0.11.0; api_server.py's __main__ does not): the server
    # loads --model's model, else ModelConfig.model's default
    module_positional_unread: bool = False
    # `vllm serve --model M` (the word `--model`): refused by the releases in [first, second)
    # (FlexibleArgumentParser.parse_args raises ValueError: vllm/utils.py:1246 in 0.8.3, :1340
    # in 0.8.5, vllm/utils/__init__.py:1475 in 0.9.2, :1776 in 0.10.1, :1858 in 0.11.0; read in
    # 0.8.4 and 0.10.0 too), warned about and moved to the model's place from the second
    # (utils/argparse_utils.py:199-229 in 0.11.1, :324-354 in 0.34.0); before the first the
    # model is a required positional word (model_tag without nargs: vllm/scripts.py in 0.5.4,
    # 0.5.5, 0.6.6.post1, 0.7.1 (:158), entrypoints/cli/serve.py:46 in 0.7.3), so argparse stops
    # without it; None: the option is the model's
    serve_model_option: tuple[str, str] | None = None
    # the first release whose context option takes `auto` / `-1` and fits the context to the KV
    # pool (vLLM's --max-model-len, kvplan.check.manifests.auto_context)
    auto_context_since: str | None = None
    # how its context option spells a length on a command line, for a kvplan/v1 file that
    # writes one (kvplan.deploy.validate; the parsers: kvplan.check.manifests.context_spellings)
    context_spellings: str = ("vLLM's spellings such as 32k = 32,000 and 32K = 32,768 are read "
                              "from command lines, by the engine's release")
    # the option that names the served model (None: none in its option table)
    served_name_flag: str | None = None
    # SGLang's --enable-dp-attention (kvplan.check.manifests.dp_attention)
    dp_attention_flag: str | None = None

    # -- its --config file (kvplan.check.manifests.config_file)
    # a false key is `--no-KEY` from this release (vLLM 0.12.0; 0.11.0 vllm/utils/__init__.py
    # line 2111 and older drop it); None: the engine never writes one
    config_no_key_since: str | None = None
    # from this release a bool key of an option that is no store_true switch is `--KEY true` /
    # `--KEY false` (SGLang 0.5.8: ConfigArgumentMerger._add_boolean_arg; 0.5.3-0.5.7 dropped a
    # false key whatever the option, as their boolean_actions list was always empty); None: never
    config_bool_value_since: str | None = None
    # the engine stops on an empty file (vLLM: load_config_file calls .items() on None)
    config_refuses_empty: bool = False
    # where the engine drops a list key whose list is empty (no `--key` word at all, so the
    # option keeps its default; task h90hostile); "" where not read
    config_empty_list_source: str = ""
    # the pool's options a --config file may set, named when the file cannot be read
    config_pool_options: str = ("gpu-memory-utilization, max-model-len, max-num-seqs, "
                                "kv-cache-dtype")
    # before this release the API server entry point (`python -m vllm.entrypoints...`, no sub
    # command) puts the file's options between its first word and that word's value (vLLM
    # 0.6.0-0.10.1; 0.10.2 vllm/utils/__init__.py line 1993 puts them first)
    config_wedged_before: str | None = None
    # its parser stops on a --limit-mm-per-prompt that is neither JSON nor MODALITY=N pairs
    # (kvplan.check.manifests.engine.vllm_rejects_mm)
    mm_limit_strict: bool = False
    # an image tag that names its release inside a longer tag (AMD's rocm/vllm)
    rocm_release_tag: re.Pattern[str] | None = None

    # -- its settings (kvplan.deploy, kvplan.calibrate.resolve)
    # its max_num_seqs default moved across releases and GPUs: a log that states none is read
    # with the default its release and batch imply (kvplan.calibrate.resolve, vLLM)
    default_seqs_by_release: bool = False
    # cache dtype auto keeps the checkpoint's KV quantization (TensorRT-LLM: the model spec's
    # kv_cache_quant_algo; kvplan.engines.trtllm_settings.checkpoint_kv)
    kv_auto_from_checkpoint: bool = False
    # its expert-parallel size divides its tensor-parallel size (no ranks beyond --tp)
    expert_within_tensor: bool = False
    # it starts with a pool too small for one max_model_len request (SGLang: only
    # `max_total_num_tokens > 0` is required; kvplan.check.startup.short_pool)
    starts_short: bool = False
    # what it says when its node count (`--nnodes N`) does not divide the GPUs of one engine
    # (kvplan.check.manifests.node_options.uneven_refusal); "" where kvplan has not read it
    nnodes_rule: str = ""
    # "module:function" hooks, imported when called (`hook`): the engine block's own refusals
    # (field, why) and the record's options this plan never reads (kvplan.plan.moot)
    block_refusals: str | None = None
    moot_refusals: str | None = None
    # the 8-bit --kv-cache-dtype value a fix offers on a release, where the engine's releases
    # are not read one by one (kvplan.check.fix_flags; task h71sglfix): (release) -> (the value
    # or None, the first release taking the usual one)
    kv_fp8_value: str | None = None
    # the values its --kv-cache-dtype takes in a release, where read: (release) -> (the release
    # named, the values, where read, whether they are that release's own); a fix names them
    # for a value kvplan cannot read (kvplan.check.kv_dtype_fix; task h90hostile). SGLang's are
    # its option history's choices (kvplan.check.engine_flags.history)
    kv_dtype_values: str | None = None

    @property
    def said(self) -> str:
        """The engine as a message names it: its title, else its name."""
        return self.title or self.name

    def hook(self, which: str) -> Callable[..., Any] | None:
        """The function a hook field names, imported now; None where the engine has none."""
        ref = getattr(self, which)
        if ref is None:
            return None
        module, _, func = ref.partition(":")
        fn: Callable[..., Any] = getattr(import_module(module), func)
        return fn


# vllm/entrypoints/api_server.py (vllm-project/vllm at 03f86117): "used only for demonstrating
# usage of AsyncEngine"; its parser adds AsyncEngineArgs.add_cli_args to host / port / SSL /
# root-path / log-level, and init_app builds AsyncLLMEngine.from_engine_args(
# AsyncEngineArgs.from_cli_args(args), usage_context=UsageContext.API_SERVER): the engine and
# its arguments are the OpenAI server's. The usage context is not: V1's batch defaults
# (EngineArgs.get_batch_defaults, vllm_entrypoint.py's table) list LLM_CLASS and
# OPENAI_API_SERVER only, so unstated batched tokens / sequences fall to SchedulerConfig's
# defaults (2,048 / 128), never above serve's.
_VLLM_DEMO = (
    "python -m vllm.entrypoints.api_server is vLLM's demo server (not for production, says its "
    "source): it builds the same engine from the same engine arguments, read as `vllm serve`; "
    "on V1 releases an unstated --max-num-batched-tokens / --max-num-seqs takes the scheduler's "
    "own defaults (2,048 / 128), at most serve's, so the pool kvplan books with serve's is at "
    "most the engine's; options are checked against the OpenAI server's table, which also "
    "holds options the demo server does not take (--api-key, --chat-template, ...)")

# the compute dtypes vLLM and SGLang take for --dtype (the same six in both sources)
_COMPUTE_DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")

_TRAITS = (
    EngineTraits(name="ideal"),
    EngineTraits(
        name="vllm", title="vLLM", serving=True, name_words=("vllm",),
        log_measures=("kv_gib", "kv_in_use_gib", "activation_gib", "peak_torch_gib"),
        command="vllm", module_prefixes=("vllm.entrypoints.openai.api_server",), pip_package="vllm",
        stored_weights_source="vLLM quantization/fp8.py Fp8LinearMethod.create_weights",
        compute_dtypes=_COMPUTE_DTYPES,
        compute_dtypes_source="vLLM's ModelDType, vllm/config/model.py:100 in 0.29.0",
        gpu_dtype_rules=True,
        demo_modules=("vllm.entrypoints.api_server",), demo_note=_VLLM_DEMO,
        # the `vllm` console script is vllm.entrypoints.cli.main:main (vllm-0.11.0 wheel,
        # entry_points.txt); `python -m` runs the same main() (entrypoints/cli/main.py:59-60),
        # whose subcommand `serve` is vllm.entrypoints.cli.serve (main.py:17, 23): `vllm serve`
        cli_module="vllm.entrypoints.cli.main",
        dynamo_module="dynamo.vllm", dash_is_underscore=True, dotted_options=True,
        module_positional_since="0.10.0", module_positional_unread=True,
        serve_model_option=("0.8.3", "0.11.1"),
        short_o=True, served_name_flag="--served-model-name", config_no_key_since="0.12.0",
        auto_context_since="0.14.0",
        config_refuses_empty=True, config_wedged_before="0.10.2", mm_limit_strict=True,
        config_empty_list_source=("vllm 0.34.0 vllm/utils/argparse_utils.py:659-663, "
                                  "load_config_file: `if value:`"),
        rocm_release_tag=_ROCM_VLLM,
        default_seqs_by_release=True, moot_refusals="kvplan.engines.vllm_moot:moot_refusals",
        kv_fp8_value="kvplan.engines.vllm_flag_versions:kv_fp8_value",
        kv_dtype_values="kvplan.engines.vllm_kv_dtypes:kv_dtype_values",
        nnodes_rule=("vLLM refuses it: `--nnodes` must evenly divide the total world size, "
                     "data x pipeline x tensor parallel (vllm/engine/arg_utils.py:2179 in 0.29.0)"),
    ),
    EngineTraits(
        name="sglang", title="SGLang", serving=True, log_measures=("before_gib", "after_gib"),
        name_words=("sglang",), image_words=("sgl-dev",),
        command="sglang", modules=("sglang.launch_server", "sglang_router.launch_server"),
        dynamo_module="dynamo.sglang",
        router_modules=("sglang_router.launch_server",), router_prefix="--router-",
        router_source=(
            "sgl-router/py_src/sglang_router/launch_server.py at sgl-project/sglang 0e6ed14d: "
            "main() puts ServerArgs.add_cli_args and RouterArgs.add_cli_args(use_router_prefix="
            "True) on one parser and starts one server per --dp-size, each with dp_size = 1 and "
            "base_gpu_id = dp_id x tp_size (launch_server_process, :78-89)"),
        pip_package="sglang",
        stored_weights_source=("SGLang srt/layers/quantization/fp8.py Fp8LinearMethod."
                               "create_weights, :277 in 0.5.2"),
        compute_dtypes=_COMPUTE_DTYPES,
        compute_dtypes_source=("SGLang's --dtype choices, srt/arg_groups/fields/model.py:173 in "
                               "0.5.23"),
        gpu_dtype_rules=True,
        served_name_flag="--served-model-name", dp_attention_flag="--enable-dp-attention",
        config_pool_options="mem-fraction-static, context-length, max-running-requests",
        config_bool_value_since="0.5.8",
        config_empty_list_source=(
            "sglang 0.5.23 srt/utils/server_args_config_parser.py:202-206, _add_list_arg: "
            "\"Only add if list is not empty\""),
        expert_within_tensor=True, starts_short=True, module_positionals=0,
        moot_refusals="kvplan.engines.sglang_dp:moot_refusals",
        context_spellings=(
            "SGLang's --context-length spellings, from 0.5.10, are read from command lines: SI "
            "suffixes k, M, G, T (powers of 1000: 32k = 32,000) and IEC Ki, Mi, Gi, Ti (powers of "
            "1024: 32Ki = 32,768), case-sensitive, so 32K is no SGLang spelling "
            "(human_readable_int, srt/utils/common.py:2229 in 0.5.10)"),
        nnodes_rule=("SGLang asserts (tp_size * pp_size) % nnodes == 0, 'tp_size must be "
                     "divisible by number of nodes' (srt/arg_groups/validation_hook.py:179 in "
                     "0.5.23)"),
    ),
    EngineTraits(
        name="trtllm", title="TensorRT-LLM", serving=True, log_measures=("available_gib", "peak_gib"),
        name_words=("trtllm", "tensorrt"),
        command="trtllm-serve", serve_word_optional=True, exact_options=True,
        kv_auto_from_checkpoint=True, expert_within_tensor=True, pip_package="tensorrt_llm",
        gpu_dtype_rules=True,
        block_refusals="kvplan.engines.trtllm_settings:block_refusals",
    ),
    EngineTraits(name="transformers",
                 moot_refusals="kvplan.engines.transformers_moot:moot_refusals"),
)
TRAITS: dict[str, EngineTraits] = {t.name: t for t in _TRAITS}
# the serving engines, in the order messages name them: vllm, sglang, trtllm
SERVING: tuple[str, ...] = tuple(t.name for t in _TRAITS if t.serving)


def traits(engine: object) -> EngineTraits:
    """The facts of `engine` (a name or an Engine); an unknown name has none of them (an engine
    a manifest names that kvplan does not model is refused elsewhere, with its reason)."""
    name = str(getattr(engine, "value", engine))
    return TRAITS.get(name) or EngineTraits(name=name)


def serving_list() -> str:
    """`vllm, sglang or trtllm`: the serving engines as a message names them."""
    return ", ".join(SERVING[:-1]) + " or " + SERVING[-1]


def serving_title(name: str) -> str | None:
    """A serving engine's display name (`vllm` -> `vLLM`), None for a name that is no serving
    engine (a KubeAI `engine: OLlama`, ideal, transformers)."""
    found = TRAITS.get(name)
    return found.said if found is not None and found.serving else None


def engine_words() -> tuple[tuple[str, str], ...]:
    """(word, display name) for each word that names a serving engine in an image or service
    name, in the order messages name the engines: vllm, sglang, trtllm, tensorrt."""
    return tuple((w, TRAITS[n].said) for n in SERVING for w in TRAITS[n].name_words)


def pip_packages() -> dict[str, str]:
    """pip package -> serving engine, for the packages whose pin kvplan reads as a release."""
    return {TRAITS[n].pip_package or "": n for n in SERVING if TRAITS[n].pip_package}
