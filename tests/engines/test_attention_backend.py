"""SGLang's --attention-backend end to end (issue #13): the CLI flag, the kvplan/v1 key and a
manifest's server argv set engine.attention_backend; aiter on a ROCm GPU scales
mem_fraction_static by 0.85 above 8,192 tokens of context (sglang PR #6564; 0.5.21
arg_groups/attention_hook.py), a name SGLang does not know is refused listing its choices, and
aiter on an NVIDIA GPU is refused (aiter is ROCm's kernel library). Pools by hand below."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from kvplan.check import check_paths, read_targets
from kvplan.cli import app
from tests.conftest import size_record, step_values

# Llama-3.1-8B on one MI300X, SGLang 0.5.21 (kvplan/engines/sglang.py):
#   GPU memory 206,141,652,992 B; start-up use 400 MiB = 419,430,400 B
#   free before weights = 206,141,652,992 - 419,430,400 = 205,722,222,592
#   weights = 8,030,261,248 x 2 B + 64 MiB of load-time buffers = 16,127,631,360
#   free after weights = 205,722,222,592 - 16,127,631,360 = 189,594,591,232
#   cell = 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 131,072 B per token
FREE_BEFORE = 205_722_222_592
FREE_AFTER = 189_594_591_232
CELL = 131_072


def tokens(fraction_thousandths: int, aiter: bool) -> int:
    """max_total_num_tokens: floor((free after - floor(free before x (1 - f))) / cell)."""
    num, den = fraction_thousandths * (85 if aiter else 100), 100_000
    held = FREE_BEFORE * (den - num) // den
    return (FREE_AFTER - held) // CELL


def test_cli_aiter_on_mi300x_derates_the_default_fraction() -> None:
    base = ("llama-3.1-8b", "--gpu", "mi300x", "--engine", "sglang", "--context", "32768")
    plain = size_record(*base)
    aiter = size_record(*base, "--attention-backend", "aiter")
    triton = size_record(*base, "--attention-backend", "triton")
    # default 0.867 on 196,592 MiB (0.5.3+ reserve formula):
    #   held = floor(205,722,222,592 x 0.133) = 27,361,055,604
    #   (189,594,591,232 - 27,361,055,604) // 131,072 = 1,237,743 tokens
    # aiter: 0.867 x 0.85 = 0.73695; held = floor(205,722,222,592 x 0.26305) = 54,115,230,652
    #   (189,594,591,232 - 54,115,230,652) // 131,072 = 1,033,625 tokens
    assert tokens(867, aiter=False) == 1_237_743 and tokens(867, aiter=True) == 1_033_625
    assert triton["kv_cache_tokens"] == 1_237_743
    # unstated on ROCm: SGLang's own default there is aiter for a model without MLA (0.4.7
    # model_runner.py, 0.5.17 server_args.py, 0.5.21 get_default_attn_backend; log 140, 0.5.17:
    # "Use aiter backend by default"), so the unstated pool is aiter's: 1,033,625 tokens
    assert plain["kv_cache_tokens"] == aiter["kv_cache_tokens"] == 1_033_625
    assert aiter["kv_cache_bytes"] == 1_033_625 * CELL == 135_479_296_000
    default_note = "attention backend aiter (unstated): SGLang's ROCm default"
    assert any(default_note in a for a in plain["assumptions"])
    assert not any(default_note in a for a in triton["assumptions"] + aiter["assumptions"])
    # at 8,192 tokens of context SGLang does not derate (context_len > 8192 only)
    short = ("llama-3.1-8b", "--gpu", "mi300x", "--engine", "sglang", "--context", "8192")
    assert size_record(*short, "--attention-backend", "aiter")["kv_cache_tokens"] == \
        size_record(*short)["kv_cache_tokens"] == 1_237_743
    # before 0.4.7 there is no derate (and kvplan names no default): 0.4.6's fraction above
    #   81,920 MiB is (g - 13 GiB) / g (the 0.4.6 wheel's server_args.py), 1 - f = 13,312 /
    #   196,592; held = floor(205,722,222,592 x 13,312 / 196,592) = 13,930,242,467
    #   (189,594,591,232 - 13,930,242,467) // 131,072 = 1,340,212 tokens, aiter or not
    old = size_record(*base, "--engine-version", "0.4.6")
    assert old["kv_cache_tokens"] == size_record(*base, "--engine-version", "0.4.6",
                                           "--attention-backend", "aiter")["kv_cache_tokens"]
    assert (FREE_AFTER - FREE_BEFORE * 13_312 // 196_592) // CELL == 1_340_212
    assert old["kv_cache_tokens"] == 1_340_212
    assert not any("attention backend" in a for a in old["assumptions"])
    # on an NVIDIA GPU the unstated backend is not aiter: no derate (H100: not this arithmetic)
    h100 = size_record("llama-3.1-8b", "--gpu", "h100", "--engine", "sglang", "--context", "32768")
    assert not any("attention backend" in a for a in h100["assumptions"])


def test_explain_names_the_default_backend_and_its_source() -> None:
    res = CliRunner().invoke(app, ["explain", "llama-3.1-8b", "--gpu", "mi300x", "--engine",
                                   "sglang", "--context", "32768", "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    record = {f["field"]: (f["value"], f["from"]) for f in row["record"]}
    value, origin = record["engine.attention_backend"]
    assert value == "aiter"
    assert origin.startswith("default: SGLang's ROCm default (get_default_attn_backend")
    assert origin.endswith("a model without MLA")
    steps = step_values(row)
    assert steps["mem_fraction_static (aiter)"] == 0.73695  # 0.867 x 0.85
    assert steps["max_total_num_tokens"] == 1_033_625
    res = CliRunner().invoke(app, ["explain", "llama-3.1-8b", "--gpu", "h100", "--engine",
                                   "sglang", "-f", "json"])
    [row] = json.loads(res.stdout)["results"]
    assert "engine.attention_backend" not in {f["field"] for f in row["record"]}


def test_mla_default_backend_follows_kv_heads_per_rank() -> None:
    # get_default_attn_backend, MLA on HIP: aiter when num_kv_heads // tp is 16 or 128, else
    # triton. DeepSeek-R1 (num_key_value_heads 128): tp 8 -> 16 (aiter); Kimi-K2
    # (num_key_value_heads 64): tp 8 -> 8 (triton, as log 118's server_args print, 0.5.8 on
    # MI355X); DeepSeek-V2-Lite (16): tp 1 -> 16 (aiter), tp 2 -> 8 (triton).
    from kvplan.capacity.plan import SizeRequest
    from kvplan.engines.sglang_backend import default_backend
    from kvplan.specs import load_hardware, load_model

    mi355x = load_hardware("mi355x")
    for model, tp, want in (("deepseek-r1", 8, "aiter"), ("deepseek-r1", 1, "aiter"),
                            ("deepseek-r1", 4, "triton"), ("kimi-k2", 8, "triton"),
                            ("deepseek-v2-lite", 1, "aiter"), ("deepseek-v2-lite", 2, "triton"),
                            ("llama-3.1-8b", 8, "aiter")):
        req = SizeRequest(model=load_model(model), gpu=mi355x, tp=tp, context_tokens=32768)
        picked = default_backend(req, "0.5.21")
        assert picked is not None and picked[0] == want, (model, tp, picked)
        assert default_backend(req, "0.4.6") is None
        assert default_backend(req, "0.4.7") == picked
    req = SizeRequest(model=load_model("deepseek-r1"), gpu=load_hardware("h200"), tp=8,
                      context_tokens=32768)
    assert default_backend(req, "0.5.21") is None


def test_kvplan_v1_key_derates_a_stated_fraction(tmp_path: Path) -> None:
    data = {"apiVersion": "kvplan/v1", "name": "rocm", "model": "llama-3.1-8b",
            "hardware": {"gpu": "mi300x"},
            "engine": {"name": "sglang", "max_model_len": 32768, "gpu_memory_utilization": 0.85,
                       "attention_backend": "aiter"},
            "traffic": {"peak_concurrent_users": 10, "context_tokens": {"mean": 4000}}}
    path = tmp_path / "rocm.yaml"
    path.write_text(yaml.safe_dump(data))
    # 0.85 x 0.85 = 0.7225; held = floor(205,722,222,592 x 0.2775) = 57,087,916,769
    #   (189,594,591,232 - 57,087,916,769) // 131,072 = 1,010,945 tokens
    assert tokens(850, aiter=True) == 1_010_945
    assert size_record(str(path))["kv_cache_tokens"] == 1_010_945
    # the flag overrides the file's key: triton leaves 0.85 whole
    #   held = floor(205,722,222,592 x 0.15) = 30,858,333,388
    #   (189,594,591,232 - 30,858,333,388) // 131,072 = 1,211,061 tokens
    assert tokens(850, aiter=False) == 1_211_061
    assert size_record(str(path), "--attention-backend", "triton")["kv_cache_tokens"] == 1_211_061
    res = CliRunner().invoke(app, ["explain", str(path), "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    record = {f["field"]: (f["value"], f["from"]) for f in row["record"]}
    assert record["engine.attention_backend"] == ("aiter", "file")
    steps = step_values(row)
    assert steps["mem_fraction_static (aiter)"] == 0.7225
    res = CliRunner().invoke(app, ["explain", str(path), "--attention-backend", "fa3",
                                   "-f", "json"])
    [row] = json.loads(res.stdout)["results"]
    record = {f["field"]: (f["value"], f["from"]) for f in row["record"]}
    assert record["engine.attention_backend"] == ("fa3", "--attention-backend")
    assert "mem_fraction_static (aiter)" not in {s["label"] for s in row["steps"]}


def test_unknown_backend_and_other_engines_are_refused() -> None:
    runner = CliRunner()
    for command in ("size", "fleet", "explain"):
        extra = ["--peak-users", "10"] if command == "fleet" else []
        res = runner.invoke(app, [command, "llama-3.1-8b", "--gpu", "mi300x", "--engine",
                                  "sglang", "--attention-backend", "flashattn", *extra])
        assert res.exit_code == 2, res.output
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1, res.output  # one line, listing SGLang's choices
        assert "engine.attention_backend (--attention-backend)" in lines[0]
        assert "'triton'" in lines[0] and "'aiter'" in lines[0] and "'flashattn'" in lines[0]
        res = runner.invoke(app, [command, "llama-3.1-8b", "--gpu", "h100", "--engine", "vllm",
                                  "--attention-backend", "triton", *extra])
        assert res.exit_code == 2, res.output
        assert "only sglang reads it, not vllm" in res.output
        res = runner.invoke(app, [command, "llama-3.1-8b", "--gpu", "h100", "--engine",
                                  "sglang", "--attention-backend", "aiter", *extra])
        assert res.exit_code == 2, res.output
        assert "aiter attention backend needs a ROCm (AMD) GPU" in res.output
        assert "Traceback" not in res.output


POD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang-rocm
  annotations:
    kvplan.io/peak-concurrent-users: "20"
    kvplan.io/context-tokens-mean: "4000"
spec:
  replicas: 1
  selector:
    matchLabels: {{app: x}}
  template:
    metadata:
      labels: {{app: x}}
    spec:
      nodeSelector:
        {label}
      containers:
        - name: server
          image: lmsysorg/sglang:v0.5.21-rocm700-mi30x
          command: ["python3", "-m", "sglang.launch_server"]
          args: {args}
          resources:
            limits:
              {resource}: 1
"""
MI300X = ("amd.com/gpu.product-name: AMD_Instinct_MI300X", "amd.com/gpu")
H100 = ("nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu")


def _manifest(tmp: Path, backend: str, gpu: tuple[str, str] = MI300X) -> Path:
    args = ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--context-length", "32768",
            "--mem-fraction-static", "0.85", "--attention-backend", backend]
    path = tmp / f"{backend}-{gpu[1].split('.')[0]}.yaml"
    path.write_text(POD.format(label=gpu[0], resource=gpu[1], args=json.dumps(args)))
    return path


def test_manifest_attention_backend_is_read_and_moves_the_pool(tmp_path: Path) -> None:
    aiter, triton = _manifest(tmp_path, "aiter"), _manifest(tmp_path, "triton")
    [target] = read_targets(aiter, {})
    assert target.deployment is not None, target.problems
    assert target.deployment.engine.attention_backend == "aiter"
    assert target.field_name("engine.attention_backend") == "--attention-backend"
    got = {}
    for path in (aiter, triton):
        [o] = check_paths([str(path)]).outcomes
        assert o.verdict == "PASS", (o.reasons, o.problems)
        assert o.gpu == "mi300x"
        got[path] = o.numbers.kv_pool_bytes
    # --mem-fraction-static 0.85: aiter 1,010,945 tokens, triton 1,211,061 (by hand above)
    assert got[aiter] == 1_010_945 * CELL
    assert got[triton] == 1_211_061 * CELL


def test_manifest_refusals(tmp_path: Path) -> None:
    [o] = check_paths([str(_manifest(tmp_path, "aiter", H100))]).outcomes
    assert o.verdict == "FAIL"
    assert "aiter attention backend needs a ROCm (AMD) GPU" in o.reasons[0]
    assert o.line is not None
    [o] = check_paths([str(_manifest(tmp_path, "flashattn"))]).outcomes
    assert o.verdict == "ERROR"
    assert "'flashattn'" in o.problems[0].message and "'aiter'" in o.problems[0].message
