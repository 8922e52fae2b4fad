"""Options that take several values, SGLang's renamed `--cuda-graph-bs`, ambiguous prefixes on
older images, and data-parallel attention's heads rule (task h43nargs). The tables of
multi-value options were read from the sglang 0.5.23 and vllm 0.34.0 wheels
(kvplan/check/engine_flags/*.py MULTI_VALUE, benchmarks/extract_multi_value.py)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check.argv import Invocation, Word, parse
from kvplan.check.discover import read_targets
from kvplan.check.startup import shape_refusals
from kvplan.deploy import resolve_model
from tests.check.test_check_engine_flags import POD
from tests.conftest import ASSETS, invoke

NARGS = ASSETS / "check" / "nargs"
OME = ASSETS / "check" / "corpus" / "ome"


def rows(runner: CliRunner, *args: str) -> list[dict]:
    result = invoke(runner, "check", *args, "-f", "json")
    return json.loads(result.output)["results"]


def words(*text: str) -> list[Word]:
    return [Word(w, 1) for w in text]


def sglang_pod(tmp: Path, image: str, *args: str) -> Path:
    path = tmp / f"{image.rsplit(':', 1)[-1]}.yaml"
    command = ["python3", "-m", "sglang.launch_server", "--model-path",
               "meta-llama/Llama-3.1-8B-Instruct", *args]
    path.write_text(POD.format(name="sgl", image=image, command=json.dumps(command),
                               args="[]", gpus=1))
    return path


def test_a_multi_value_option_takes_every_word_up_to_the_next_option() -> None:
    """SGLang 0.5.23 fields/exec_.py:640: cuda_graph_bs_decode is Optional[List[int]], which
    add_cli_args_from_dataclass registers with nargs="+"; vLLM 0.34.0's served_model_name is
    `str | list[str] | None` (config/model.py:343), nargs="+" by _compute_kwargs. The values are
    the words up to the next one starting with "-"; nothing is left over as a positional."""
    parsed = parse(Invocation("sglang", "python -m sglang.launch_server", words(
        "--model-path", "m", "--cuda-graph-bs-decode", "1", "2", "4", "8", "--tp-size", "2")))
    assert parsed.several["--cuda-graph-bs-decode"] == ["1", "2", "4", "8"]
    assert parsed.options["--tp-size"][0] == "2"
    assert parsed.positional == []
    parsed = parse(Invocation("vllm", "vllm serve", words(
        "--served-model-name", "qwen", "qwen-7b", "--model", "Qwen/Qwen2.5-7B-Instruct")))
    assert parsed.several["--served-model-name"] == ["qwen", "qwen-7b"]
    assert parsed.options["--served-model-name"][0] == "qwen"  # the first is the served name
    assert parsed.positional == []  # before: ["qwen-7b"], a model of its own


def test_a_single_value_option_still_takes_one_word() -> None:
    """--max-model-len is an int (one value): a second word after it is a positional."""
    parsed = parse(Invocation("vllm", "vllm serve", words("--max-model-len", "8192", "m")))
    assert parsed.options["--max-model-len"][0] == "8192"
    assert [w.text for w in parsed.positional] == ["m"]


def test_specforge_cuda_graph_bs_list_is_read_as_sglang_takes_it(runner: CliRunner) -> None:
    """sgl-project/SpecForge docs/basic_usage/data_preparation.md (2cece767): `--cuda-graph-bs 1 2
    4 8 16 32 64 128` on a pip-installed SGLang (no release named). SGLang 0.5.5 server_args.py:3170
    (type=int, nargs="+"; 0.5.19 keeps it as a deprecated alias, 0.5.20 drops it) and
    __post_init__ (:775-778): cuda_graph_max_bs = max(cuda_graph_bs) = 128. Before: FAIL,
    "ambiguous option: could match --cuda-graph-bs-decode, --cuda-graph-bs-prefill"."""
    path = NARGS / "specforge-data-preparation.sh"
    [target] = read_targets(path, {})
    assert target.deployment is not None, target.problems
    assert target.deployment.engine.cuda_graph_max_bs == max([1, 2, 4, 8, 16, 32, 64, 128]) == 128
    assert target.deployment.model == "llama-3.1-8b"  # --model meta-llama/Llama-3.1-8B-Instruct
    [row] = rows(runner, str(path))
    assert row["verdict"] == "WARN"  # no GPU named
    assert ("SGLang 0.5.23 has no option --cuda-graph-bs (older releases have it); read as the "
            "image's release takes it (gone from 0.5.20)") in row["notes"]


def test_cuda_graph_bs_is_noted_on_0_5_19_and_refused_from_0_5_20(tmp_path: Path) -> None:
    """First release without `--cuda-graph-bs`: 0.5.20 (absent from its server_args.py and
    srt/arg_groups/fields/; 0.5.19 server_args.py:3937 still registers it)."""
    old = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.5.19", "--cuda-graph-bs", "8",
                                  "16"), {})[0]
    assert old.refusals == []
    assert old.deployment is not None and old.deployment.engine.cuda_graph_max_bs == 16
    new = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.5.20", "--cuda-graph-bs", "8",
                                  "16"), {})[0]
    # since task h70sglkw the refusal names 0.5.20's own option set (read in its wheel)
    assert [r.message for r in new.refusals] == [
        "the engine refuses it: SGLang 0.5.20 has no option --cuda-graph-bs (sglang/srt/"
        "server_args.py and srt/arg_groups/fields/*.py in "
        "sglang-0.5.20-cp311-cp311-manylinux_2_34_x86_64.whl); SGLang 0.5.19 had it, 0.5.20 "
        "removed it"]


def test_an_ambiguous_prefix_is_read_as_the_older_release_does_and_refused_at_the_table(
        tmp_path: Path) -> None:
    """`--cuda-graph-max` is a prefix of three 0.5.23 options (argparse refuses it there). Since
    task h70sglkw an older image's command line is parsed with its own release's options: 0.5.5's
    wheel has one option it prefixes, --cuda-graph-max-bs (srt/server_args.py), so argparse
    takes it for that, and so does kvplan (a graph batch of 8); an unnamed release is noted."""
    old = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.5.5", "--cuda-graph-max", "8"),
                       {})[0]
    assert old.refusals == []
    assert old.deployment is not None and old.deployment.engine.cuda_graph_max_bs == 8
    new = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.5.23", "--cuda-graph-max", "8"),
                       {})[0]
    assert [r.message for r in new.refusals] == [
        "ambiguous option: --cuda-graph-max could match --cuda-graph-max-bs-decode, "
        "--cuda-graph-max-bs-prefill, --cuda-graph-max-seq-len-prefill in SGLang 0.5.23 "
        "(sglang/srt/server_args.py and srt/arg_groups/fields/*.py in "
        "sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl)"]


def test_dp_attention_checks_the_heads_at_tp_over_dp() -> None:
    """kimi-k2: 64 attention heads. TP 96 alone does not divide them; with --enable-dp-attention
    --dp-size 96 attention runs at attn_tp_size = 96 // 96 = 1 (sglang srt/layers/dp_attention.py
    compute_dp_attention_world_info, 0.5.5 :231), which does; a dp of 7 does not divide tp 96
    (0.5.5 server_args.py:1381 asserts tp_size % dp_size == 0)."""
    model = resolve_model("kimi-k2", None)
    assert model.num_attention_heads == 64
    assert shape_refusals(model, 96, None) != []
    assert shape_refusals(model, 96, None, attention_dp=96) == []
    assert shape_refusals(model, 96, None, attention_dp=7) == [
        "would not start: --dp-size 7 with --enable-dp-attention does not divide tensor parallel "
        "size 96 (SGLang asserts tp_size % dp_size == 0)"]
    # 96 / 2 = 48 attention ranks: 64 % 48 = 16, still refused
    assert shape_refusals(model, 96, None, attention_dp=2)[0].startswith(
        "would not start: the attention tensor parallel size (tp 96 / --dp-size 2, "
        "--enable-dp-attention) 48 does not divide kimi-k2's 64 attention heads")


def test_ome_kimi_k2_decode_with_dp_attention_is_planned(runner: CliRunner) -> None:
    """sgl-project/ome kimi-k2-pd-rt (17b77eda): the decode engine, TP 96 = 8 GPUs x 12 pods,
    --dp-size 96 --enable-dp-attention, `--cuda-graph-bs 480`. Before: FAIL (the ambiguous
    prefix, and TP 96 over 64 heads); the hand's WARN (corpus-expected.yaml) now: an 80 GB part
    starts (0.6 x 85.0 = 51.0 GB - 10.7 GB of weights = 40 GB of pool), an L4 does not
    (0.6 x 23.57 = 14.1 - 10.7 = 3.4 GB < one 9.2 GB sequence).
    Task h52checkround (blind round blind-2026-12-06-r4): SGLang starts whenever one token fits
    and refuses longer requests, which on a named L4 is this same WARN ("starts, but a
    131,072-token request cannot be served"), so the no-GPU listing now counts the L4 among the
    GPUs it starts on and names it in a note; a T4 still does not start (0.6 x 15.64 = 9.4 GB <
    10.7 GB of weights).
    Task h100sgldp: with data-parallel attention each GPU holds what SGLang builds whole or over
    the attention's tp / dp = 1 GPU (kvplan.engines.sglang_dp; hand values in
    tests/engines/test_sglang_dp.py): attention 5,244,977,152 B, the embedding and (with
    --enable-dp-lm-head) the LM head 2,348,810,240 B each (SGLang 0.5.23: over the attention's
    one GPU), the dense layer 396,361,728 B (--moe-dense-tp-size 1) and the shared experts
    2,642,411,520 B (DeepEP), less the 1/96 the even split booked: 12,846,148,268 B more than
    the 12,262,735,675 B planned before (the 10.7 GB above is the parameters alone), 25.1 GB a
    GPU. So an L4 no longer starts (14.1 GB < 25.1 GB of weights), an A40 does (0.6 x 47.6 =
    28.6 - 25.1 = 3.5 GB of pool) but cannot serve one 131,072-token sequence (9.2 GB), and an
    80 GB part starts."""
    decoder = [r for r in rows(runner, str(OME / "srt-kimi-k2-pd-rt.yaml"))
               if r["name"] == "decoder"]
    assert [r["verdict"] for r in decoder] == ["WARN"]
    starts, fails = decoder[0]["summary"].split("; would not start on: ")
    assert "h100-sxm-80gb" in starts.split(", ") and "a40" in starts.split(", ")
    assert "l4" in fails.split(", ") and "t4" in fails.split(", ")
    short = [n for n in decoder[0]["notes"] if "request cannot be served" in n]
    on = short[0].removeprefix("on ").split(" a 131,072-token")[0].split(", ")
    assert len(short) == 1 and "a40" in on
    assert "h100-sxm-80gb" not in short[0]
