"""Issue #13 part 3 in manifests: the engine flags that move the pool are read from the argv as
each engine takes them, mapped onto the kvplan/v1 record, and a value the engine would refuse
FAILs naming it. Expected values are read off the manifests below by hand."""

from __future__ import annotations

import json
from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.argv import Invocation, Word, parse
from tests.check.check_api import one_target

POD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  annotations:
    kvplan.io/peak-concurrent-users: "20"
    kvplan.io/context-tokens-mean: "2000"
spec:
  replicas: 1
  selector:
    matchLabels: {{app: x}}
  template:
    metadata:
      labels: {{app: x}}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: server
          image: {image}
          command: {command}
          args: {args}
          resources:
            limits:
              nvidia.com/gpu: {gpus}
"""


def manifest(tmp: Path, name: str, image: str, command: list[str], args: list[str],
             gpus: int = 1) -> Path:
    path = tmp / f"{name}.yaml"
    path.write_text(POD.format(name=name, image=image, command=json.dumps(command),
                               args=json.dumps(args), gpus=gpus))
    return path


def vllm(tmp: Path, *args: str, gpus: int = 1, model: str = "meta-llama/Llama-3.1-8B-Instruct",
         ) -> Path:
    return manifest(tmp, "vllm", "vllm/vllm-openai:v0.28.0", ["vllm", "serve", model],
                    list(args), gpus)


def test_argv_keeps_the_key_of_a_dotted_json_flag() -> None:
    inv = Invocation("vllm", "vllm serve", [Word(w, 1) for w in (
        "m", "--speculative-config.model", "llama-3.2-1b",
        "--speculative_config.num_speculative_tokens", "3")])
    parsed = parse(inv)
    assert parsed.options["--speculative-config.model"][0] == "llama-3.2-1b"
    assert parsed.options["--speculative-config.num_speculative_tokens"][0] == "3"


def test_vllm_flags_are_read_into_the_record(tmp_path: Path) -> None:
    path = vllm(tmp_path, "--max-model-len", "8192", "--enforce-eager", "--cpu-offload-gb", "2",
                "--kv-cache-memory-bytes", "8G", "--speculative-config",
                '{"model": "llama-3.2-1b", "num_speculative_tokens": 5}')
    t = one_target(path)
    e = t.deployment.engine
    assert e.enforce_eager is True and e.cpu_offload_gb == 2.0
    assert e.kv_cache_memory_bytes == 8 * 2**30  # G: powers of 1024, as vLLM reads it
    assert (e.speculative_model, e.num_speculative_tokens) == ("llama-3.2-1b", 5)
    assert t.field_name("engine.speculative_model") == "--speculative-config model"
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "PASS", o.reasons


def test_dotted_speculative_config_and_unmodelled_methods(tmp_path: Path) -> None:
    dotted = vllm(tmp_path, "--speculative-config.model", "llama-3.2-1b",
                  "--speculative-config.num_speculative_tokens", "3")
    e = one_target(dotted).deployment.engine
    assert (e.speculative_model, e.num_speculative_tokens) == ("llama-3.2-1b", 3)
    ngram = vllm(tmp_path, "--speculative-config",
                 '{"method": "ngram", "num_speculative_tokens": 3}')
    [o] = check_paths([str(ngram)]).outcomes
    assert o.verdict == "FAIL"
    assert "speculative decoding method 'ngram' without a draft model is not modelled" \
        in o.reasons[0]


def test_a_draft_the_catalog_lacks_is_an_error_naming_it(tmp_path: Path) -> None:
    path = vllm(tmp_path, "--speculative-config",
                '{"model": "org/no-such-draft", "num_speculative_tokens": 2}')
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "ERROR"
    assert "no-such-draft" in o.problems[0].message
    assert "kvplan import" in o.problems[0].message


def test_limit_mm_per_prompt_on_a_text_model_fails_naming_it(tmp_path: Path) -> None:
    path = vllm(tmp_path, "--limit-mm-per-prompt", '{"image": 0}')
    assert one_target(path).deployment.engine.limit_mm_per_prompt == 0
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "FAIL"
    assert "vLLM refuses --limit-mm-per-prompt for a text-only model" in o.reasons[0]
    assert o.line == 22  # the args line


def test_expert_parallel_is_tp_times_dp(tmp_path: Path) -> None:
    # Mixtral-8x7B, TP 2 x DP 2 in one pod of 4 GPUs with --enable-expert-parallel: EP 4
    path = vllm(tmp_path, "--tensor-parallel-size", "2", "--data-parallel-size", "2",
                "--enable-expert-parallel", gpus=4, model="mistralai/Mixtral-8x7B-v0.1")
    t = one_target(path)
    assert t.deployment.parallel.expert == 4
    assert t.field_name("parallel.expert") == "--enable-expert-parallel (tp 2 x dp 2)"
    one_dp = vllm(tmp_path, "--tensor-parallel-size", "2", "--enable-expert-parallel", gpus=2,
                  model="mistralai/Mixtral-8x7B-v0.1")
    t1 = one_target(one_dp)
    # EP = TP: the same bytes as without it, each expert whole (task h91fp8block: a block-fp8
    # checkpoint's experts then split no block, kvplan.engines.fp8_blocks)
    assert t1.deployment.parallel.expert == 2
    assert any("one data-parallel rank" in n for n in t1.notes)


def test_sglang_flags(tmp_path: Path) -> None:
    path = manifest(tmp_path, "sglang", "lmsysorg/sglang:v0.5.2",
                    ["python3", "-m", "sglang.launch_server"],
                    ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--page-size", "32",
                     "--cuda-graph-max-bs", "128", "--max-running-requests", "64",
                     "--chunked-prefill-size", "4096", "--max-total-tokens", "200000"])
    e = one_target(path).deployment.engine
    assert (e.block_size, e.cuda_graph_max_bs, e.max_num_seqs) == (32, 128, 64)
    assert (e.max_num_batched_tokens, e.max_total_tokens) == (4096, 200_000)
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "PASS", o.reasons
    # SGLang 0.5.23 (the option table) split --cuda-graph-max-bs into -decode and -prefill:
    # the older image's flag is read, and since task h70sglkw taken without a note (0.5.2's own
    # options, read in its wheel, have it); on the table's release it is refused
    assert not any("--cuda-graph-max-bs" in n for n in o.notes)
    newer = path.read_text().replace("sglang:v0.5.2", "sglang:v0.5.23")
    path.write_text(newer)
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "FAIL" and "--cuda-graph-max-bs" in o.reasons[0]


def test_sglang_ep_must_divide_the_experts(tmp_path: Path) -> None:
    path = manifest(tmp_path, "sglang-ep", "lmsysorg/sglang:v0.5.2",
                    ["python3", "-m", "sglang.launch_server"],
                    ["--model-path", "mistralai/Mixtral-8x7B-v0.1", "--tp-size", "4",
                     "--ep-size", "3"], gpus=4)
    assert one_target(path).deployment.parallel.expert == 3
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "FAIL"
    assert "expert parallelism 3 does not divide mixtral-8x7b's 8 experts" in o.reasons[0]


def test_trtllm_flags_and_an_options_file_beside_the_manifest(tmp_path: Path) -> None:
    (tmp_path / "extra.yaml").write_text(
        "max_batch_size: 24\nkv_cache_config:\n  tokens_per_block: 64\n  max_tokens: 100000\n")
    path = manifest(tmp_path, "trt", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0",
                    ["trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct"],
                    ["--max_batch_size", "32", "--max_num_tokens", "4096", "--max_seq_len",
                     "8192", "--kv_cache_free_gpu_memory_fraction", "0.8",
                     "--extra_llm_api_options", "/config/extra.yaml"])
    t = one_target(path)
    e = t.deployment.engine
    # the options file wins over the flags, as trtllm-serve applies it: max_batch_size 24
    assert (e.max_num_seqs, e.max_num_batched_tokens, e.max_model_len) == (24, 4096, 8192)
    assert (e.block_size, e.max_tokens_in_paged_kv_cache) == (64, 100_000)
    assert e.gpu_memory_utilization == 0.8
    assert any("extra.yaml's max_batch_size 24 overrides --max_batch_size 32" in n
               for n in t.notes)
    assert t.field_name("engine.block_size") == \
        "--extra_llm_api_options extra.yaml: kv_cache_config.tokens_per_block"
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "PASS", o.reasons


def test_trtllm_options_from_a_configmap_in_the_manifest(tmp_path: Path) -> None:
    pod = manifest(tmp_path, "trt-cm", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0",
                   ["trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct"],
                   ["--extra_llm_api_options", "/config/llm.yaml"]).read_text()
    cm = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: trt-options\ndata:\n"
          "  llm.yaml: |\n    max_seq_len: 4096\n    kv_cache_config:\n"
          "      free_gpu_memory_fraction: 0.5\n")
    path = tmp_path / "both.yaml"
    path.write_text(cm + "---\n" + pod)
    t = one_target(path)
    e = t.deployment.engine
    assert (e.max_model_len, e.gpu_memory_utilization) == (4096, 0.5)
    assert any("limits read from ConfigMap trt-options llm.yaml" in n for n in t.notes)


def test_a_trtllm_options_file_only_the_container_has_is_noted(tmp_path: Path) -> None:
    path = manifest(tmp_path, "trt2", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0",
                    ["trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct"],
                    ["--extra_llm_api_options", "/config/missing.yaml"])
    t = one_target(path)
    assert t.deployment.engine.trtllm_config is None
    assert any("a file inside the container" in n and "not read" in n for n in t.notes)


def test_a_sequence_cap_from_the_argv_is_named_with_its_fix(tmp_path: Path) -> None:
    # SGLang --max-running-requests 8 for 20 users: the cap binds, not the pool
    path = manifest(tmp_path, "sg-cap", "lmsysorg/sglang:v0.5.2",
                    ["python3", "-m", "sglang.launch_server"],
                    ["--model-path", "meta-llama/Llama-3.1-8B-Instruct",
                     "--max-running-requests", "8", "--context-length", "8192"])
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "FAIL"
    assert o.numbers is not None and o.numbers.limited_by == "max_num_seqs"
    assert o.numbers.users_per_replica == 8
    assert o.fixes[0].change == "max_num_seqs"
    assert "--max-running-requests 8 -> 20" in o.fix_text[0]


def test_flag_values_as_vllm_reads_them() -> None:
    from kvplan.check.manifests.engine import convert
    from kvplan.check.manifests.pool_flags import mm_items

    # human_readable_int: upper case binary, lower case decimal (fractions allowed), digits
    assert convert("bytes", "8G") == 8 * 2**30 and convert("bytes", "1.5g") == 1_500_000_000
    assert convert("bytes", "1000") == 1000
    # --limit-mm-per-prompt: JSON counts, {"count": n} objects, the older k=v form: summed
    assert mm_items('{"image": 2, "video": 1}') == 3
    assert mm_items('{"image": {"count": 4, "width": 512}}') == 4
    assert mm_items("image=2,video=0") == 2 and mm_items("0") == 0


def test_a_misspelled_flag_fails_even_on_an_image_older_than_the_option_table(
        tmp_path: Path) -> None:
    # issue #11's example: --gpu-memory-utilisation (British spelling) on vllm 0.10.0. The flag
    # table is vLLM 0.34.0's, so an unknown option on an older image is only a note (it may be
    # one that release still had), but one or two letters from a current option is a misspelling
    # no release accepts: FAIL. A removed option (--swap-space) stays a note.
    from kvplan.check.argv import misspelling_of

    assert misspelling_of("vllm", "--gpu-memory-utilisation") == "--gpu-memory-utilization"
    assert misspelling_of("vllm", "--swap-space") is None
    assert misspelling_of("vllm", "--max-num-seqz") == "--max-num-seqs"
    manifest = tmp_path / "x.yaml"
    manifest.write_text("""apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  template:
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.0
        command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
        args: [--gpu-memory-utilisation=0.5, --swap-space, "4", --max-model-len, "8192"]
        resources: {limits: {nvidia.com/gpu: 1}}
""")
    report = check_paths([str(manifest)])
    (out,) = report.outcomes
    assert out.verdict == "FAIL"
    assert out.reasons == [
        "the engine refuses it: vLLM has no option --gpu-memory-utilisation; did you mean "
        "--gpu-memory-utilization? (a letter or two from it: no release accepts that spelling)"]
    assert any("--swap-space" in n and "not checked" in n for n in out.notes)


def test_a_trt_engine_activation_memory_from_an_annotation(tmp_path: Path) -> None:
    # no trtllm-serve flag carries a TensorRT engine's execution-context memory (trtllm-build
    # prints it as "[TRT] Total Activation Memory: N bytes"); the annotation states it
    text = manifest(tmp_path, "trt-act", "nvcr.io/nvidia/tritonserver:24.09-trtllm-python-py3",
                    ["trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct"],
                    ["--backend", "tensorrt"]).read_text()
    path = tmp_path / "trt-act.yaml"
    path.write_text(text.replace("  annotations:\n",
                                 "  annotations:\n    kvplan.io/trt-activation-bytes: \"1811942912\"\n"))
    t = one_target(path)
    assert t.deployment.engine.trt_activation_bytes == 1_811_942_912
    assert t.field_name("engine.trt_activation_bytes") == "kvplan.io/trt-activation-bytes"


def test_a_trt_engine_activation_on_the_pytorch_backend_is_an_error(tmp_path: Path, runner) -> None:
    # TensorRT-LLM 1.0 on is modelled as the PyTorch backend (no TensorRT engine): the annotation
    # does not apply, and the deployment is an ERROR naming it, not a silent price or a FAIL
    from tests.conftest import invoke

    text = manifest(tmp_path, "trt-act", "nvcr.io/nvidia/tensorrt-llm/release:1.0.0",
                    ["trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct"], []).read_text()
    path = tmp_path / "trt-act.yaml"
    path.write_text(text.replace("  annotations:\n",
                                 "  annotations:\n    kvplan.io/trt-activation-bytes: \"1811942912\"\n"))
    out = invoke(runner, "check", str(path))
    assert out.exit_code == 2, out.output
    assert "ERROR" in out.output and "kvplan.io/trt-activation-bytes" in out.output
    assert "modelled as the PyTorch backend" in " ".join(out.output.split())


def test_an_engine_setting_kvplan_cannot_model_is_an_error_with_its_reason(tmp_path: Path,
                                                                           runner) -> None:
    # vLLM's profile refuses a draft beside a sliding-window target (its KV cache groups are not
    # modelled); check used to read that refusal in its trials as "holds 0 users; starts: no",
    # a FAIL without the reason
    from tests.conftest import invoke

    doc = tmp_path / "draft.yaml"
    doc.write_text("apiVersion: kvplan/v1\nname: gemma-with-draft\nmodel: gemma-2-9b\n"
                   "hardware:\n  gpu: h100\n  count: 1\nengine:\n  name: vllm\n"
                   "  max_model_len: 4096\n  speculative_model: llama-3.2-1b\n"
                   "  num_speculative_tokens: 4\ntraffic:\n  peak_concurrent_users: 10\n")
    out = invoke(runner, "check", str(doc))
    assert out.exit_code == 2, out.output
    text = " ".join(out.output.split())
    assert "ERROR line 7: engine.name: a draft model beside gemma-2-9b's sliding-window" in text
    assert "0 PASS, 0 FAIL, 1 ERROR" in text


def test_sglang_all_reduce_flags_are_noted_not_modelled(tmp_path: Path) -> None:
    # --disable-custom-all-reduce / --enable-p2p-check only decide whether SGLang builds its
    # custom all-reduce workspace (tens of MiB per GPU, before the free memory is measured);
    # kvplan does not move the pool for them and says so
    args = ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp-size", "2"]
    plain = manifest(tmp_path, "sglang-plain", "lmsysorg/sglang:v0.5.21",
                     ["python3", "-m", "sglang.launch_server"], args, gpus=2)
    flagged = manifest(tmp_path, "sglang-ar", "lmsysorg/sglang:v0.5.21",
                       ["python3", "-m", "sglang.launch_server"],
                       [*args, "--disable-custom-all-reduce", "--enable-p2p-check"], gpus=2)
    t = one_target(flagged)
    assert t.deployment.engine == one_target(plain).deployment.engine
    notes = [n for n in t.notes if n.startswith(("--disable-custom-all-reduce:",
                                                  "--enable-p2p-check:"))]
    assert len(notes) == 2
    assert "the pool would grow by at most mem_fraction_static x that workspace" in notes[0]
    assert "(not modelled" in notes[1]
    [o] = check_paths([str(flagged)]).outcomes
    [p] = check_paths([str(plain)]).outcomes
    assert o.verdict == p.verdict
    assert any(n.startswith("--disable-custom-all-reduce:") for n in o.notes)
