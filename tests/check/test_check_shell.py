"""`kvplan check` on launch scripts and `docker run` lines (kvplan/check/manifests/shell.py,
task h41shell). Real public scripts live in tests/assets/check/scripts/ with their source in a
header line, and their expected verdicts were written in EXPECTED.md before the reader ran;
the synthetic cases in scripts/synthetic/ hold one behaviour each. Token figures are
`kvplan explain` of the equivalent flags, worked in each docstring."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.check.check_cli_run import check_flat
from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import ASSETS, invoke

SCRIPTS = ASSETS / "check" / "scripts"
SYN = SCRIPTS / "synthetic"
GOLDEN = ASSETS / "check" / "golden" / "check-shell-two-servers.txt"


def errors(out: str) -> int:
    return sum(line.startswith("ERROR") for line in out.splitlines())


def rows(runner: CliRunner, path: Path, *args: str) -> list[dict]:
    result = invoke(runner, "check", str(path), "-f", "json", *args)
    return json.loads(result.output)["results"]


# ---- real public scripts: the verdicts EXPECTED.md wrote before the reader ran -------------

def test_nohup_vllm_serve_with_redirections_is_read_and_sized(runner: CliRunner) -> None:
    """jyngjeon/multiagentsdebate vllm-serve.sh: `nohup vllm serve Qwen/Qwen2.5-14B-Instruct
    --tensor-parallel-size 4 ... --max-model-len 16384 > log 2>&1 &`. No CUDA_VISIBLE_DEVICES:
    the GPUs are TP 4 x PP 1 = 4 (noted). On an H100: `kvplan explain qwen2.5-14b-instruct
    --engine vllm --tp 4 -c 16384 --memory-utilization 0.9 -g h100` gives a 1,281,568-token pool
    (1,286,704 before task h43graphs booked 102 graphs x 48 layers x 235,929 B = 1,155,108,384 B
    of CUDA graphs for 0.5 GiB: 618,237,472 B less, 786 blocks of 786,432 B, 12,576 tokens;
    1,274,128 until task h44graphbase booked 358,612,992 + 100 later graphs x 48 x 89,653 B =
    788,947,392 B: 366,160,992 B more, 465 blocks, 7,440 tokens; then task h51blocks booked
    torch's whole blocks from vLLM 0.21: at TP 4 gate_up 6,912 x 5,120 x 2 B = 67.5 MiB -> 68 and
    down 5,120 x 3,456 x 2 B = 33.75 MiB -> 34 in 48 layers, 36 MiB, and the embeddings and LM
    head, 38,016 rows x 5,120 x 2 B = 371.25 MiB -> 372 each, 1.5 MiB: 39,321,600 B = 50 blocks,
    800 tokens: 1,280,768), 1,280,768 / 16,384 = 78.17, so 78 sequences."""
    code, out = check_flat(runner, SCRIPTS / "multiagentsdebate-vllm-serve.sh")
    assert code == 0
    assert "multiagentsdebate-vllm-serve.sh:4  multiagentsdebate-vllm-serve.sh: no GPU named" in out
    assert ("no CUDA_VISIBLE_DEVICES in the script: every GPU of the machine is visible; the "
            "engine uses 4 GPU(s), its tensor x pipeline x data-parallel size") in out
    assert "starts on lists" not in out  # a pip install names no GPU vendor
    code, out = check_flat(runner, SCRIPTS / "multiagentsdebate-vllm-serve.sh", "--gpu", "h100")
    assert code == 0
    assert ("multiagentsdebate-vllm-serve.sh:4  multiagentsdebate-vllm-serve.sh: starts; "
            "holds 78 sequences of 16,384 tokens per replica (1,280,768 tokens in the pool)") in out


def test_script_argument_is_render_first(runner: CliRunner) -> None:
    """zaidalyafeai/OpenTutorGym start_server.sh: `CUDA_VISIBLE_DEVICES=0,1 vllm serve $1 ...`:
    the model is the script's first argument, which kvplan cannot know."""
    code, out = check_flat(runner, SCRIPTS / "opentutorgym-start-server.sh")
    assert code == 2
    assert ("opentutorgym-start-server.sh:3: '$1': $1 is an argument of the script, which "
            "kvplan does not know; write the value in the script, or render it first") in out


def test_docker_run_vllm_openai_with_underscore_options(runner: CliRunner) -> None:
    """dagnaputra/nlp serve_7b_model.sh: `docker run --gpus all vllm/vllm-openai:latest --model
    Qwen/Qwen2.5-7B-Instruct --max_model_len 1024 --gpu_memory_utilization 0.7` (vLLM reads `_`
    as `-`). `--gpus all`: the engine uses TP 1. `explain qwen2.5-7b --engine vllm -c 1024
    --memory-utilization 0.7`: on an H100 a 708,784-token pool (708,784 / 1,024 = 692.17; 710,592
    before task h51blocks booked torch's whole blocks from vLLM 0.21, 103,809,024 B = 28 layers x
    3.5 MiB + 2 x 0.5 MiB, 113.1 blocks of 917,504 B: 113 fewer; 711,872
    before task h43graphs booked 102 graphs x 28 layers x 235,929 B = 673,813,224 B of CUDA
    graphs for 536,870,912, 709,472 after; task h44graphbase's 358,612,992 + 100 later x 28 x
    89,653 = 609,641,392 B, 64,171,832 B less, gives back 70 blocks of 917,504 B); on an L4,
    0.7 x 21.95 GiB = 15.37 GiB less 14.29 GiB of weights (14.19 before task h51blocks' 0.097
    GiB of torch blocks), 0.51 GiB of activations and the other overheads (86 graphs: 358,612,992
    + 84 x 28 x 89,653 = 569,476,848 B = 0.53 GiB of them, as 86 x 28 x 235,929 was) leaves -0.19
    GiB (-0.09 before task h51blocks; -0.06 with the flat 0.5 GiB): vLLM does not start."""
    code, out = check_flat(runner, SCRIPTS / "dagnaputra-serve-7b-model.sh", "--gpu", "h100")
    assert code == 0
    assert "holds 692 sequences of 1,024 tokens per replica (708,784 tokens in the pool)" in out
    assert "--gpus all; the engine uses 1 GPU(s)" in out
    code, out = check_flat(runner, SCRIPTS / "dagnaputra-serve-7b-model.sh", "--gpu", "l4")
    assert code == 1
    assert "no memory for the KV cache (-0.19 GiB after weights 14.29 GiB" in out


def test_held_out_options_to_an_image_kvplan_cannot_see(runner: CliRunner) -> None:
    """Held out (EXPECTED.md): DoanNgocCuong/... vllm.sh, `docker run --gpus '"device=1"'
    vastai/vllm:v0.7.0-... --model /workspace/... --max-model-len 1024 ...`: options only,
    after an image that is not vllm/vllm-openai; ERROR on the line of --model (9)."""
    code, out = check_flat(runner, SCRIPTS / "doanngoccuong-vllm.sh")
    assert code == 2
    assert ("doanngoccuong-vllm.sh:9: command: passes server options (--model ...) to image "
            "'vastai/vllm:v0.7.0-cuda-12.1-pytorch-2.5.1-py312', whose entrypoint kvplan cannot "
            "see") in out


def test_pip_install_names_no_release_so_gone_options_are_noted(runner: CliRunner) -> None:
    """infinityreader/RARE deploy_llama31_8b.sh: `export CUDA_VISIBLE_DEVICES=5`, `python3 -m
    vllm.entrypoints.openai.api_server --model meta-llama/Meta-Llama-3.1-8B-Instruct
    --max-model-len 32000 --block-size 32 --tokenizer-pool-size 128 --swap-space 8`. 1 GPU;
    `explain llama-3.1-8b --engine vllm -c 32000 --block-size 32 -g h100`: 437,248 tokens
    (438,080 before task h43graphs booked 102 graphs x 32 layers x 235,929 B = 770,072,256 B of
    CUDA graphs for 536,870,912: 56 blocks of 4 MiB less; 436,288 until task h44graphbase's
    645,502,592 B, 124,569,664 B less, gave back 30 blocks), 437,248 / 32,000 = 13.66, so 13."""
    code, out = check_flat(runner, SCRIPTS / "rare-deploy-llama31-8b.sh", "--gpu", "h100")
    assert code == 0
    assert "holds 13 sequences of 32,000 tokens per replica (437,248 tokens in the pool)" in out
    assert "vLLM 0.34.0 has no option --tokenizer-pool-size" in out
    assert "CUDA_VISIBLE_DEVICES=5: 1 GPU(s)" in out
    assert "model meta-llama/Meta-Llama-3.1-8B-Instruct → llama-3.1-8b (alias)" in out


def test_held_out_sglang_equals_forms_and_a_served_name(runner: CliRunner) -> None:
    """Held out: tutu329/server-install ds-v3-671b-8.sh, `--served-model-name=ds-v3
    --model-path=/home/tutu/models/DeepSeek-V3-0324 ... --tp=8` (`=` forms)."""
    code, out = check_flat(runner, SCRIPTS / "tutu329-ds-v3-671b-8.sh")
    assert code == 2
    assert ("tutu329-ds-v3-671b-8.sh:6: --model-path: '/home/tutu/models/DeepSeek-V3-0324' is a "
            "path on the machine, and its served name 'ds-v3' is not in the catalog") in out


def test_trtllm_serve_model_not_in_the_catalog(runner: CliRunner) -> None:
    code, out = check_flat(runner, SCRIPTS / "phatvo9-trtllm-start-config1.sh")
    assert code == 2
    assert "add it with `kvplan import nvidia/DeepSeek-R1-FP4`" in out


def test_a_device_that_is_not_a_gpu_is_named_in_a_script(runner: CliRunner) -> None:
    """sgl-project/sglang ms_example/start_server.sh: `--device npu` (Ascend). A script's GPU
    count is not a limit, so the device is checked even though one is given."""
    code, out = check_flat(runner, SCRIPTS / "sglang-ms-example-start-server.sh")
    assert code == 2
    # in SGLang's terms (task h42mend; it gave vLLM's VLLM_CPU_KVCACHE_SPACE): sglang 0.5.23
    # srt/utils/common.py get_available_gpu_memory reads torch.npu.mem_get_info on an NPU and a
    # NUMA node's free memory on a CPU, and --mem-fraction-static takes the static part
    assert ("sglang-ms-example-start-server.sh:6: --device: the server runs on 'npu', not a GPU: "
            "kvplan plans GPU memory; SGLang sizes an NPU's or a CPU's KV cache from "
            "--mem-fraction-static and that device's free memory (what torch.npu.mem_get_info "
            "reports, or a NUMA node's free memory on a CPU), which kvplan does not model") in out
    assert "VLLM_CPU_KVCACHE_SPACE" not in out


# ---- synthetic cases -----------------------------------------------------------------------

def test_variables_defaults_export_and_continuations(runner: CliRunner) -> None:
    """MODEL="${MODEL:-meta-llama/Llama-3.1-8B-Instruct}", TP=2, CONTEXT=16k, `export
    CUDA_VISIBLE_DEVICES=0,1`, `exec vllm serve "$MODEL" --tensor_parallel_size=${TP}
    --max-model-len $CONTEXT ... | tee`: 16k is 16,000 (vLLM's k). `explain llama-3.1-8b
    --engine vllm --tp 2 -c 16000 --memory-utilization 0.85 -g h100`: 899,168 tokens (900,864
    before task h43graphs booked 770,072,256 B of CUDA graphs for 536,870,912: 223 blocks of
    1 MiB less; 897,296 until task h44graphbase's 645,502,592 B gave back 119 blocks; 899,200
    until task h51blocks booked torch's whole blocks from vLLM 0.21: the embeddings and LM head
    at TP 2, 64,128 rows x 4,096 x 2 B = 501 MiB each -> 502, 2 blocks), 899,168 / 16,000 = 56.2."""
    data = rows(runner, SYN / "variables.sh", "--gpu", "h100")
    (row,) = data
    assert (row["line"], row["verdict"], row["model"], row["gpus"]) == (11, "PASS",
                                                                         "llama-3.1-8b", 2)
    assert (row["max_model_len_tokens"], row["users_per_replica"]) == (16000, 56)
    assert "CUDA_VISIBLE_DEVICES=0,1: 2 GPU(s)" in row["notes"]


def test_two_servers_give_two_outcomes_whole_output(runner: CliRunner) -> None:
    """Two background servers: SGLang on GPU 0 (`explain qwen2.5-7b --engine sglang -c 8192
    --memory-utilization 0.8`: max_total_num_tokens 913,827, / 8,192 = 111.5) and vLLM on GPUs
    1,2 (`explain llama-3.1-8b --engine vllm --tp 2 -c 8192`, the default 0.34.0 with its TP
    set-up booked (task h42v034) and, since task h43graphs, 102 graphs of CUDA graphs, since task
    h44graphbase 358,612,992 + 100 later x 32 layers x 89,653 B = 645,502,592 B (770,072,256 =
    102 x 32 x 235,929 until then, 536,870,912 before), since task h51blocks torch's whole blocks
    (the embeddings and LM head at TP 2, 501 MiB -> 502 each: 2 blocks of 1 MiB): 1,064,928
    (1,064,960 until task h51blocks, 1,063,072 until task h44graphbase, 1,066,624 before task
    h43graphs), / 8,192 = 129.996, so 129)."""
    result = invoke(runner, "check", "tests/assets/check/scripts/synthetic/two-servers.sh",
                    "--gpu", "h100")
    assert result.exit_code == 0
    if os.environ.get("KVPLAN_UPDATE_GOLDEN"):
        GOLDEN.write_text(result.output)
    assert result.output == GOLDEN.read_text()
    assert "holds 111 sequences of 8,192 tokens per replica (913,827 tokens in the pool)" in \
        result.output
    assert "holds 129 sequences of 8,192 tokens per replica (1,064,928 tokens in the pool)" in \
        result.output


def test_docker_run_device_list_env_and_release(runner: CliRunner) -> None:
    """`--gpus '"device=0,1"'` is 2 GPUs; `-e VLLM_USE_V1=0` under vllm-openai:v0.8.5 is the
    V0 engine of 0.8.5. `explain qwen2.5-7b --engine vllm --engine-version 0.8.5-v0 --tp 2
    -c 8192 -g h100`: 2,269,376 tokens, / 8,192 = 277.03."""
    (row,) = rows(runner, SYN / "docker-devices.sh", "--gpu", "h100")
    assert (row["verdict"], row["gpus"], row["users_per_replica"]) == ("PASS", 2, 277)
    assert '--gpus "device=0,1": 2 GPU(s)' in row["notes"]
    assert "VLLM_USE_V1=0: the V0 engine of vLLM 0.8.5 (vllm/envs.py)" in row["notes"]


def test_unresolved_variable_is_named_once(runner: CliRunner) -> None:
    code, out = check_flat(runner, SYN / "unresolved.sh")
    assert code == 2
    assert ("unresolved.sh:3: '${MODEL}': the script does not set MODEL; set it in the script, "
            "or render it first (envsubst)") in out
    assert "unrendered template" not in out
    assert errors(out) == 1


def test_loops_and_function_bodies_are_refused_with_the_reason(runner: CliRunner) -> None:
    code, out = check_flat(runner, SYN / "loop-and-function.sh")
    assert code == 2
    assert ("loop-and-function.sh:5: this `vllm serve` is inside the `for` loop of line 4: its "
            "words come from the loop's variables at each pass") in out
    assert ("loop-and-function.sh:9: this `docker run` is inside the function `start` (line 8): "
            "its words come from the function's arguments at each call") in out


def test_a_misspelled_option_fails_as_in_a_manifest_of_the_same_image(runner: CliRunner) -> None:
    code, out = check_flat(runner, SYN / "misspelled.sh", "--gpu", "h100")
    assert code == 1
    assert out.startswith("FAIL")
    assert ("misspelled.sh:4  misspelled.sh: the engine refuses it: vLLM has no option "
            "--gpu-memory-utilisation; did you mean --gpu-memory-utilization?") in out


def test_a_program_after_the_vllm_openai_image_is_an_error(runner: CliRunner) -> None:
    code, out = check_flat(runner, SYN / "program-after-image.sh")
    assert code == 2
    assert "docker run appends the arguments after the image to it: `vllm ...` reaches vLLM" in out


def test_a_script_with_nothing_readable_keeps_the_one_line_error(runner: CliRunner) -> None:
    code, out = check_flat(runner, SYN / "nothing-read.sh")
    assert code == 2
    assert "nothing-read.sh:1: this file mentions vLLM, but none of its commands starts a " \
           "server kvplan reads" in out
    assert errors(out) == 1


def test_side_file_names_the_model_of_a_folder(runner: CliRunner) -> None:
    """container-path.kvplan.yaml gives `model: llama-3.1-8b` for `vllm serve /data/models/llama
    --max-model-len 8192` on GPU 0: 489,376 tokens on an H100 (`explain llama-3.1-8b --engine
    vllm -c 8192`, the default 0.34.0; 488,432 until task h44graphbase, 490,208 before task h43graphs),
    489,376 / 8,192 = 59.7."""
    (row,) = rows(runner, SYN / "container-path.sh", "--gpu", "h100")
    assert (row["verdict"], row["model"], row["users_per_replica"]) == ("PASS", "llama-3.1-8b", 59)


def test_explain_reads_a_script_as_check_does(runner: CliRunner) -> None:
    result = invoke(runner, "explain", str(SYN / "variables.sh"), "--gpu", "h100")
    assert result.exit_code == 0, result.output
    assert "GPU KV cache size: 899,168 tokens" in result.output


@pytest.mark.parametrize("text", ["services:\n  a:\n    image: x\n", "- a\n- b\n"])
def test_a_yaml_file_without_a_suffix_is_not_a_script(tmp_path: Path, text: str) -> None:
    from kvplan.check.manifests.shell import is_script

    path = tmp_path / "deploy"
    assert not is_script(path, text)
    assert is_script(path, "vllm serve x --port 8000\n")
    assert is_script(tmp_path / "x.sh", text)  # a shell suffix decides


def test_docker_gpus_values() -> None:
    from kvplan.check.manifests.shell_docker import _gpus

    assert [_gpus(v) for v in ("all", "2", '"device=0,1"', "device=3", "count=4",
                               '"capabilities=compute,count=2"')] == ["all", 2, 2, 1, 4, 2]


def test_redirections_and_comments_end_where_a_shell_ends_them() -> None:
    """`cmd \\` then a comment line: the comment ends the command (its backslash continues
    nothing), so the next line is a command of its own; `> log 2>&1` is not an argument."""
    from kvplan.check.manifests.shell_lex import read_script

    script = read_script("vllm serve m \\\n  --port 1 > log 2>&1 \\\n  # --x 2 \\\n  --tp 2\n")
    words = [c.words for c, _, _ in script.commands]
    assert words == [["vllm", "serve", "m", "--port", "1"], ["--tp", "2"]]
    lines = [c.lines for c, _, _ in script.commands]
    assert lines == [[1, 1, 1, 2, 2], [4, 4]]


def test_branches_are_alternatives_and_a_guarded_start_is_read(runner: CliRunner) -> None:
    """The two `case` branches (lines 5, 6), the if/else pair (10, 12) and the one-line function
    (15) are refused; the `if` of line 17, which has no else, is read as if it runs: llama-3.1-8b
    at 8,192 tokens on an H100, 489,376 tokens (`explain llama-3.1-8b --engine vllm -c 8192`,
    the default 0.34.0: 59 sequences; 488,432 until task h44graphbase)."""
    code, out = check_flat(runner, SYN / "branches.sh", "--gpu", "h100")
    assert code == 2
    refused = [line for line in out.splitlines() if line.startswith("ERROR")]
    assert [r.split(".sh:", 1)[1].split(":", 1)[0] for r in refused] == ["5", "6", "10", "12",
                                                                        "15"]
    assert "inside the `case` of line 4, whose branches are alternatives" in out
    assert "inside the `if` of line 9, whose branches are alternatives" in out
    assert "inside the function `serve` (line 15)" in out
    assert "branches.sh:18  branches.sh: starts; holds 59 sequences of 8,192 tokens per " \
           "replica (489,376 tokens in the pool)" in out
    assert "inside the `if` of line 17: read as if it runs" in out
