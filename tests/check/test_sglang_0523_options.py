"""SGLang 0.5.23's own CUDA-graph and data-parallel-attention options (task h43sglopts), read in
the sglang 0.5.23 wheel (srt/arg_groups/fields/exec_.py, cuda_graph_hook.py, memory_hook.py,
fields/parallel.py, parallel_hook.py; the rules cited in kvplan/check/manifests/sglang_graphs.py
and dp_attention.py), and fixes whose TP honours the attention TP (kvplan/check/fixes.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from typer.testing import CliRunner

from kvplan.capacity import SizeRequest
from kvplan.check.discover import read_targets
from kvplan.check.fixes import _tp_options
from kvplan.check.manifests.sglang_graphs import prefill_sizes
from kvplan.check.startup import heads_refusals
from kvplan.check.verdict import Setup
from kvplan.engines.sglang_defaults import default_fraction
from kvplan.specs import load_hardware, load_model
from tests.check.test_check_engine_flags import POD
from tests.conftest import ASSETS, invoke

SGLOPTS = ASSETS / "check" / "sglopts"
IMAGE = "lmsysorg/sglang:v0.5.23"


def pod(tmp: Path, *args: str, gpus: int = 1, image: str = IMAGE,
        model: str = "meta-llama/Llama-3.1-8B-Instruct") -> Path:
    path = tmp / "sgl.yaml"
    command = ["python3", "-m", "sglang.launch_server", "--model-path", model, *args]
    path.write_text(POD.format(name="sgl", image=image, command=json.dumps(command), args="[]",
                               gpus=gpus))
    return path


def target(tmp: Path, *args: str, **kw: object):  # noqa: ANN201 - a kvplan.check.target.Target
    [one] = read_targets(pod(tmp, *args, **kw), {})  # type: ignore[arg-type]
    return one


def row(runner: CliRunner, path: Path) -> dict:
    [one] = json.loads(invoke(runner, "check", str(path), "-f", "json").output)["results"]
    return one


# --- 1. the CUDA-graph options -------------------------------------------------------------


def test_decode_list_is_its_largest_size(tmp_path: Path) -> None:
    """--cuda-graph-bs-decode 1 2 4 8 16 48 (exec_.py:640, nargs="+"): cuda_graph_hook.py:78-79
    sets decode.bs; memory_hook.py:201-207 then sets decode.max_bs = max(bs) = 48. Before: not
    read (the tier's 256 on an H100 was planned)."""
    t = target(tmp_path, "--cuda-graph-bs-decode", "1", "2", "4", "8", "16", "48")
    assert t.deployment is not None and t.deployment.engine.cuda_graph_max_bs == 48
    assert ("--cuda-graph-bs-decode: SGLang captures decode graphs at 6 batch size(s) and takes "
            "the largest, 48, as their max batch (sglang 0.5.23 memory_hook.py:201-207)"
            in t.notes)


def test_decode_list_wins_over_a_stated_max(tmp_path: Path) -> None:
    """--cuda-graph-max-bs-decode 64 sets decode.max_bs (cuda_graph_hook.py:72-73), but with a
    list memory_hook.py:207 overwrites it with max(8, 16) = 16, in either order on the line."""
    for args in (("--cuda-graph-max-bs-decode", "64", "--cuda-graph-bs-decode", "8", "16"),
                 ("--cuda-graph-bs-decode", "8", "16", "--cuda-graph-max-bs-decode", "64")):
        t = target(tmp_path, *args)
        assert t.deployment is not None and t.deployment.engine.cuda_graph_max_bs == 16
        assert any(n.endswith("; it replaces --cuda-graph-max-bs-decode 64") for n in t.notes)


def test_cuda_graph_config_json_wins(tmp_path: Path) -> None:
    """--cuda-graph-config's keys are set last (cuda_graph_hook.py:91-96): its decode.bs [4, 12]
    replaces the flag's list, so max_bs = 12; its decode.max_bs 40 alone replaces the flag's
    --cuda-graph-max-bs-decode 64 (no list anywhere: memory_hook.py:201-204 keeps max_bs)."""
    t = target(tmp_path, "--cuda-graph-config", '{"decode": {"bs": [4, 12]}}',
               "--cuda-graph-bs-decode", "8", "16")
    assert t.deployment is not None and t.deployment.engine.cuda_graph_max_bs == 12
    t = target(tmp_path, "--cuda-graph-config", '{"decode": {"max_bs": 40}}',
               "--cuda-graph-max-bs-decode", "64")
    assert t.deployment is not None and t.deployment.engine.cuda_graph_max_bs == 40


def test_decode_list_moves_the_default_fraction_as_sglang_does(runner: CliRunner,
                                                                tmp_path: Path) -> None:
    """H100 SXM (81,105 MiB in kvplan's catalog: 85,045,477,376 B), 0.5.23, TP 1, 60-90 GiB tier:
    chunk 8,192 and decode max_bs 256 (memory_hook.py:134-145). Reserve = 512 + 1.5 x 8,192 +
    2 x 256 + 1/8 x 1,024 + 8 x 58 prefill sizes (4..8,192) = 13,904 MiB -> round((81,105 -
    13,904) / 81,105, 3) = round(0.82857, 3) = 0.829. With the list's max 48: 2 x 48 = 96, 416
    MiB less: 13,488 -> round(0.83369, 3) = 0.834. The list and --cuda-graph-max-bs-decode 48 give
    the same pool; both hold more than the tier's default."""
    h100 = load_hardware("h100")
    g = h100.memory_bytes // 2**20
    assert g == 81_105
    assert float(default_fraction(1, "0.5.23", g, 1, None, 256, "tokens")) == 0.829
    assert float(default_fraction(1, "0.5.23", g, 1, None, 48, "tokens")) == 0.834
    listed = row(runner, pod(tmp_path, "--cuda-graph-bs-decode", "1", "2", "4", "8", "16", "48"))
    stated = row(runner, pod(tmp_path, "--cuda-graph-max-bs-decode", "48"))
    default = row(runner, pod(tmp_path))
    assert listed["kv_pool_bytes_per_gpu"] == stated["kv_pool_bytes_per_gpu"]
    assert listed["kv_pool_bytes_per_gpu"] > default["kv_pool_bytes_per_gpu"]


def test_prefill_sizes_are_derived_as_sglang_does() -> None:
    """generate_prefill_cuda_graph_batch_sizes (cuda_graph_hook.py:480-497) up to 512: 4..32 by 4
    (8) + 48..256 by 16 (14) + 288..512 by 32 (8) = 30; up to 8,192: 30 + 576..1,024 by 64 (8)
    + 1,280..4,096 by 256 (12) + 4,608..8,192 by 512 (8) = 58; up to 100: 8 + 48..96 (4) = 12."""
    assert len(prefill_sizes(512)) == 30
    assert len(prefill_sizes(8192)) == 58 and prefill_sizes(8192)[-1] == 8192
    assert len(prefill_sizes(100)) == 12


def test_prefill_max_is_noted_with_the_reserve_sglang_derives(tmp_path: Path) -> None:
    """--cuda-graph-max-bs-prefill 512 (exec_.py:632; cuda_graph_hook.py:74-75): 30 sizes
    (above), 30 x 8 = 240 MiB (memory_hook.py:384-386). It is no decode size: the decode max
    batch stays unstated (the tier's)."""
    t = target(tmp_path, "--cuda-graph-max-bs-prefill", "512")
    assert t.deployment is not None and t.deployment.engine.cuda_graph_max_bs is None
    assert any(n.startswith("--cuda-graph-max-bs-prefill 512: SGLang captures 30 prefill graph "
                            "size(s) (up to 512 tokens), 240 MiB of mem_fraction_static's "
                            "reserve") for n in t.notes)


def test_prefill_list_is_noted_with_its_own_count(tmp_path: Path) -> None:
    """--cuda-graph-bs-prefill 256 1024 4096 (exec_.py:644; cuda_graph_hook.py:80-81): SGLang
    captures those 3 sizes (memory_hook.py:265-268 generates none when a list is given):
    3 x 8 = 24 MiB."""
    t = target(tmp_path, "--cuda-graph-bs-prefill", "256", "1024", "4096")
    assert t.deployment is not None and t.deployment.engine.cuda_graph_max_bs is None
    assert any(n.startswith("--cuda-graph-bs-prefill: SGLang captures 3 prefill graph size(s) "
                            "(up to 4,096 tokens), 24 MiB") for n in t.notes)


def test_a_decode_list_that_is_not_integers_is_an_error(tmp_path: Path) -> None:
    """argparse parses each value with int (arg_utils.py:372-380, type=int for List[int])."""
    t = target(tmp_path, "--cuda-graph-bs-decode", "1", "two")
    assert [p.field for p in t.problems] == ["--cuda-graph-bs-decode"]


# --- 2. --attn-dp-size / --attention-data-parallel-size ------------------------------------


def test_attn_dp_size_is_read_as_dp_attention(tmp_path: Path) -> None:
    """qwen2.5-7b-base (Qwen/Qwen2.5-7B): 28 attention heads, 4 KV heads. TP 8 alone: 28 % 8 = 4,
    refused. With
    --attn-dp-size 2 attention runs at attn_tp = 8 // 2 = 4 (runtime_context.py:73-76): 28 % 4 = 0,
    4 KV heads % 4 = 0, it starts; the 2 ranks take no GPUs of their own (engines per pod 1).
    --attention-data-parallel-size is its alias (fields/parallel.py:87)."""
    model = load_model("qwen2.5-7b-base")
    assert (model.num_attention_heads, model.attention.num_kv_heads) == (28, 4)
    assert heads_refusals(model, 8) != []
    for flag in ("--attn-dp-size", "--attention-data-parallel-size"):
        t = target(tmp_path, "--tp-size", "8", flag, "2", gpus=8, model="Qwen/Qwen2.5-7B")
        assert (t.attention_dp, t.attention_flag, t.engines_per_pod) == (2, flag, 1)
        assert t.refusals == [] and t.problems == []
        assert heads_refusals(model, 8, t.attention_dp, t.attention_flag) == []


def test_attn_dp_size_that_does_not_divide_tp_fails(runner: CliRunner, tmp_path: Path) -> None:
    """parallel_hook.py:326 asserts tp_size % attn_dp_size == 0: 8 % 3 = 2."""
    out = row(runner, pod(tmp_path, "--tp-size", "8", "--attn-dp-size", "3", gpus=8))
    assert out["verdict"] == "FAIL"
    assert out["reasons"] == [
        "would not start: --attn-dp-size 3 does not divide tensor parallel size 8 (SGLang 0.5.23 "
        "asserts tp_size % attn_dp_size == 0, srt/arg_groups/parallel_hook.py:326)"]


def test_attn_dp_size_1_is_no_dp_attention(runner: CliRunner, tmp_path: Path) -> None:
    """--attn-dp-size 1 is the default (fields/parallel.py:90): attention at the whole TP, so
    qwen2.5-7b-base (Qwen/Qwen2.5-7B; 28 heads) at TP 8 is refused as without it: 28 % 8 = 4."""
    out = row(runner, pod(tmp_path, "--tp-size", "8", "--attn-dp-size", "1", gpus=8,
                          model="Qwen/Qwen2.5-7B"))
    assert out["verdict"] == "FAIL"
    assert out["reasons"][0] == ("would not start: tensor parallel size 8 does not divide "
                                 "qwen2.5-7b-base's 28 attention heads")


def test_what_sglang_refuses_of_attn_dp_size(tmp_path: Path) -> None:
    """handle_data_parallelism (parallel_hook.py:285-292): attn_dp_size below 1 is a ValueError;
    attn_dp_size above 1 with dp_size above 1 is a ValueError. The 0.5.21 wheel has no such
    option (fields/parallel.py lacks attn_dp_size; 0.5.22's has it, :81-87)."""
    t = target(tmp_path, "--tp-size", "8", "--attn-dp-size", "0", gpus=8)
    assert [r.message for r in t.refusals] == [
        'the engine refuses it: --attn-dp-size 0 (SGLang: "--attn-dp-size must be positive", '
        "handle_data_parallelism, sglang 0.5.23 srt/arg_groups/parallel_hook.py:285-286)"]
    t = target(tmp_path, "--tp-size", "8", "--dp-size", "2", "--attn-dp-size", "4", gpus=8)
    assert [r.message for r in t.refusals] == [
        'the engine refuses it: --dp-size 2 with --attn-dp-size 4 (SGLang: "data-parallel '
        'replicas combined with attention data parallelism are not supported", '
        "handle_data_parallelism, sglang 0.5.23 srt/arg_groups/parallel_hook.py:287-292)"]
    assert t.problems == []  # refused, so its dp x tp GPUs are not counted against the pod
    t = target(tmp_path, "--tp-size", "8", "--attn-dp-size", "2", gpus=8,
               image="lmsysorg/sglang:v0.5.21")
    assert [r.message for r in t.refusals] == [
        "the engine refuses it: SGLang 0.5.21 has no option --attn-dp-size (sglang/srt/"
        "server_args.py and srt/arg_groups/fields/*.py in "
        "sglang-0.5.21-cp311-cp311-manylinux_2_34_x86_64.whl); it came in SGLang 0.5.22; older "
        "releases spell it --enable-dp-attention --dp-size: drop it or serve SGLang 0.5.22 or "
        "newer"]
    assert target(tmp_path, "--tp-size", "8", "--attn-dp-size", "2", gpus=8,
                  image="lmsysorg/sglang:v0.5.22").refusals == []


def test_deprecated_spelling_resolves_as_0_5_23_does(tmp_path: Path) -> None:
    """handle_deprecated_dp_attention (parallel_hook.py:39-61): --enable-dp-attention with
    --attn-dp-size unset (1) moves --dp-size 4 to attn_dp_size 4 and dp_size 1; with
    --attn-dp-size 2 given too, dp_size 4 stays, and attn 2 with dp 4 is refused (:287-292)."""
    t = target(tmp_path, "--tp-size", "8", "--dp-size", "4", "--enable-dp-attention", gpus=8)
    assert (t.attention_dp, t.attention_flag, t.engines_per_pod, t.refusals) == (
        4, "--dp-size", 1, [])
    t = target(tmp_path, "--tp-size", "8", "--dp-size", "4", "--enable-dp-attention",
               "--attn-dp-size", "2", gpus=8)
    assert [r.message.split(" (SGLang")[0] for r in t.refusals] == [
        "the engine refuses it: --dp-size 4 with --attn-dp-size 2"]


def test_cookbook_deepseek_r1_attn_dp_line(tmp_path: Path) -> None:
    """The SGLang cookbook's DeepSeek-R1 page (tests/assets/check/sglopts/deepseek-r1-attn-dp.sh,
    source in its header): `--tp 8 --attn-dp-size 8`: attention at 8 // 8 = 1 GPU a rank, no
    engines beyond the one; --cuda-graph-max-bs-decode 512 read. Its model,
    deepseek-ai/DeepSeek-R1-0528, is not in kvplan's catalog (no spec from its config.json was
    added: an ERROR naming it), so only the options are asserted."""
    [t] = read_targets(SGLOPTS / "deepseek-r1-attn-dp.sh", {})
    assert (t.attention_dp, t.attention_flag, t.engines_per_pod) == (8, "--attn-dp-size", 1)
    assert t.refusals == []
    assert [p.field for p in t.problems] == ["--model-path"]


# --- 3. fixes whose TP honours the attention TP ---------------------------------------------


def _setup(model: str, tp: int, attention_dp: int) -> Setup:
    req = SizeRequest(model=load_model(model), gpu=load_hardware("h100"), context_tokens=8192)
    return Setup(tp, replace(req, tp=tp, attention_dp=attention_dp))


def test_fix_tps_take_a_tp_sglang_starts_at_tp_over_dp() -> None:
    """qwen2.5-7b (28 heads, 4 KV heads) at TP 2 with --attn-dp-size 2: the doublings 2, 4, 8
    give attention TPs 1, 2, 4, each dividing 28 and 4, so all three start. Before (the heads at
    the whole TP): 8 was left out (28 % 8 = 4), a TP SGLang starts."""
    assert _tp_options(_setup("qwen2.5-7b", 2, 2)) == [2, 4, 8]
    assert _tp_options(_setup("qwen2.5-7b", 2, 1)) == [2, 4]  # no DP attention: 8 refused


def test_fix_tps_leave_out_a_tp_whose_attention_tp_breaks_the_rule() -> None:
    """A 6-head, 3-KV-head model (qwen2.5-7b's spec with those counts) at TP 3 with
    --attn-dp-size 3: TP 6 shards the whole TP (6 % 6 = 0, 6 % 3 KV = 0), so the old rule
    suggested it; its attention TP is 6 // 3 = 2, and 3 KV heads % 2 = 1: SGLang refuses it
    (heads_refusals, the rule `check` refuses a command line by). Only TP 3 (attention TP 1)."""
    base = load_model("qwen2.5-7b")
    model = base.model_copy(update={
        "num_attention_heads": 6,
        "attention": base.attention.model_copy(update={"num_kv_heads": 3})})
    req = SizeRequest(model=model, gpu=load_hardware("h100"), context_tokens=8192)
    setup = Setup(3, replace(req, tp=3, attention_dp=3))
    assert heads_refusals(model, 6) == []  # the whole TP passes
    assert heads_refusals(model, 6, 3, "--attn-dp-size") == [
        "would not start: qwen2.5-7b's 3 KV heads and the attention tensor parallel size "
        "(tp 6 / --attn-dp-size 3) 2 do not divide one another"]
    assert _tp_options(setup) == [3]
