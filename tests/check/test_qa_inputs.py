"""Public deployment files and model ids as people write them (task h29qa), run through the CLI
as a new user would. tests/assets/check/qa/SOURCES.md names each file's repository, path and
commit; the expected values are read off the files by hand. Here compose files (commands,
variables, GPUs and vendors); Kubernetes manifests and chart values are in
test_qa_inputs_k8s.py, scripts, pasted logs and model names typed on the command line in
test_qa_inputs_scripts.py."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.check.qa_inputs import QA, check, check_json
from tests.conftest import ASSETS, invoke

# ---- a command of server options passed to an image whose entrypoint kvplan cannot see ----

def test_compose_options_to_a_custom_vllm_image_name_the_image_and_the_fix(
        runner: CliRunner) -> None:
    # Cloud-Linuxer/gpt-oss: image vllm-rtx5090:latest (built from a Dockerfile), `command: >`
    # of options only; it used to read "nothing that runs vLLM, SGLang or TensorRT-LLM".
    code, out = check(runner, "gpt-oss-vllm-compose.yml")
    assert code == 2
    assert "gpt-oss-vllm-compose.yml:22: command: passes server options (--model ...) to image " \
           "'vllm-rtx5090:latest', whose entrypoint kvplan cannot see" in out
    assert 'state the server in `entrypoint:` (`["vllm", "serve"]`' in out
    assert "nothing that runs" not in out


def test_compose_list_command_to_a_rocm_build_is_read_the_same_way(runner: CliRunner) -> None:
    # JoshLipps/llm-testing: `command:` a YAML list starting `- --model`, image built locally
    code, out = check(runner, "gemma4-rocm-compose.yaml")
    assert code == 2
    assert "gemma4-rocm-compose.yaml:65: command: passes server options (--model ...) to image " \
           "'vllm-rocm-strixhalo:local'" in out


# ---- compose `command` appended to vllm/vllm-openai's entrypoint ----

def test_vllm_serve_repeated_in_compose_command_is_the_error(runner: CliRunner) -> None:
    # chulucninh09/llm_serving: `command: [vllm, serve, /root/...gguf, ...]` under
    # vllm/vllm-openai with no `entrypoint:`: compose appends it to the image's entrypoint.
    # It used to read the model as 'vllm'.
    code, out = check(runner, "qwen3-coder-gguf-compose.yaml")
    assert code == 2
    assert ("qwen3-coder-gguf-compose.yaml:10: command: the vllm/vllm-openai image's "
            "entrypoint already starts the server, and compose appends `command` to it: "
            "`vllm ...` reaches vLLM as arguments") in out
    assert "'vllm' is not in the catalog" not in out
    assert out.count("ERROR") == 2  # the one problem and the summary


# ---- an image named by a variable ----

def test_an_image_variable_leaves_the_release_unknown(runner: CliRunner) -> None:
    # AMD-melliott/ai-infra-summit: eight vLLM services on MI300X-class GPUs, `image: $IMAGE`
    # (set in .env, not in the file), YAML merge keys for /dev/kfd + /dev/dri, `-tp 2` / `-tp 4`,
    # and --enable-reasoning, which vLLM 0.8-0.9 took and the 0.33.0 option table lacks. It
    # FAILed all eight as "the engine refuses it".
    data = check_json(runner, "amd-multi-model-compose.yaml", "--gpu", "mi300x")
    assert data["summary"]["fail"] == 0
    rows = {r["name"]: r for r in data["results"]}
    assert len(rows) == 8  # the litellm proxy is not a server
    assert [(rows[n]["model"], rows[n]["gpus"]) for n in ("vllm-model0", "vllm-model4",
                                                          "vllm-model6")] == [
        ("qwen3-4b", 1), ("qwen3-8b", 2), ("qwen3-14b", 4)]  # -tp 1, 2, 4
    assert all(r["verdict"] == "PASS" for r in rows.values())
    notes = rows["vllm-model4"]["notes"]
    assert any("image '$IMAGE' is a variable this file does not set" in n for n in notes)
    assert any("--enable-reasoning" in n and "not checked" in n for n in notes)


# ---- a model named by a variable the file leaves unset ----

def test_unrendered_compose_variable_still_says_render_first(runner: CliRunner) -> None:
    # jin-li/selfhost: `command: > ${MODEL} ${MODEL_PARAMETERS}` with no default
    code, out = check(runner, "selfhost-vllm-compose.yml")
    assert code == 2
    # in compose's words: the variable is set in .env beside the file (or rendered first with
    # `docker compose config`), not by helm template / kustomize build
    assert ("selfhost-vllm-compose.yml:26: '${MODEL}' is an unrendered template: set it in .env "
            "beside the compose file (compose reads that file), or render first (docker compose "
            "config)") in out


def test_gpu_given_to_files_that_all_stop_early_shows_their_errors(runner: CliRunner) -> None:
    # jin-li/selfhost with --gpu: nothing reaches the GPU (its model is an unset ${MODEL}); it
    # answered with a usage error ("every deployment checked names its own GPU, so it applied
    # to none") and hid the real ERROR
    code, out = check(runner, "selfhost-vllm-compose.yml", "--gpu", "h100")
    assert code == 2
    # in compose's words: the variable is set in .env beside the file (or rendered first with
    # `docker compose config`), not by helm template / kustomize build
    assert ("selfhost-vllm-compose.yml:26: '${MODEL}' is an unrendered template: set it in .env "
            "beside the compose file (compose reads that file), or render first (docker compose "
            "config)") in out
    assert "applied to none" not in out
    # a manifest that names its own GPU (examples/manifests: an H100 node label) still gets it
    result = invoke(runner, "check", str(ASSETS.parents[1] / "examples" / "manifests" /
                                          "llama31-8b-h100-job.yaml"), "--gpu", "l4")
    assert result.exit_code == 2
    assert "every deployment checked names its own GPU, so it applied to none" in \
        " ".join(result.output.split())


# ---- GPUs as compose files give them ----

def test_compose_gpus_all_is_a_gpu_reservation(runner: CliRunner, tmp_path: Path) -> None:
    # 911-mickie/llm-serving-benchmark: `gpus: all` (the Compose Specification's service-level
    # attribute), no deploy: section; it read "the service reserves no GPU". The model comes from
    # ${MODEL_NAME}, which the author sets in .env: here a .env beside the copy names Qwen2.5-7B.
    (tmp_path / "compose.yml").write_bytes((QA / "sglang-gpus-all-compose.yml").read_bytes())
    (tmp_path / ".env").write_text("MODEL_NAME=Qwen/Qwen2.5-7B-Instruct\n")
    result = invoke(runner, "check", str(tmp_path / "compose.yml"), "--gpu", "l4", "-f", "json")
    (row,) = json.loads(result.output)["results"]
    assert (row["verdict"], row["model"], row["engine"], row["gpus"]) == (
        "PASS", "qwen2.5-7b", "sglang", 1)
    assert row["max_model_len_tokens"] == 2048  # ${SGLANG_CONTEXT_LENGTH:-2048}
    assert "count: all reserves every GPU of the host; the engine uses 1" in row["notes"]


def test_rocm_devices_are_amd_gpus_not_a_missing_reservation(runner: CliRunner) -> None:
    # java-alchemist/inference-stack: AMD GPUs as devices /dev/kfd and /dev/dri (ROCm's way),
    # the server started after an entrypoint script; it read "reserves no GPU; add ... nvidia"
    code, out = check(runner, "sglang-rocm-entrypoint-compose.yml")
    assert code == 0
    # a ROCm container runs on AMD GPUs only: the NVIDIA entries used to be listed (task h30qa)
    assert ("sglang: no GPU named; starts on: mi210, mi250x, mi300x, mi325x, mi355x; would not "
            "start on: none") in out
    # compose hands AMD GPUs over as devices, not an amd.com/gpu resource: said in its words
    assert "starts on lists AMD GPUs only: the container is a ROCm build or is handed /dev/kfd " \
           "and /dev/dri" in out
    assert "reserves no GPU" not in out
    assert "count: all reserves every GPU of the host; the engine uses 1" in out


# ---- catalog gaps (task h30qa) ----

def test_mistral_7b_v03_base_resolves_to_the_v03_shapes(runner: CliRunner) -> None:
    # sachinsshetty/warehouse: `--model mistralai/Mistral-7B-v0.3` (the base model); it was refused
    # as unknown. Its re-saved config (aliases/mistralai--Mistral-7B-v0.3.json) has the v0.3 Instruct
    # shapes: 32 layers x 8 KV heads x 128 x 2 (K and V) x 2 B = 131,072 B per token
    data = check_json(runner, "warehouse-mistral-compose.yml", "--gpu", "l4")
    (row,) = data["results"]
    assert (row["verdict"], row["model"], row["max_model_len_tokens"]) == (
        "PASS", "mistral-7b-instruct-v0.3", 32_768)
    assert row["max_sequence_bytes_per_gpu"] == 32_768 * 131_072
    assert "model mistralai/Mistral-7B-v0.3 → mistral-7b-instruct-v0.3 (alias)" in row["notes"]


# ---- GPUs handed over by the nvidia runtime (task h30qa) ----

def test_runtime_nvidia_without_visible_devices_says_why_no_count(runner: CliRunner) -> None:
    # Dstack-TEE/dstack README "Deploy your own": `runtime: nvidia`, no deploy: and no
    # NVIDIA_VISIBLE_DEVICES; the GPUs are then whatever the image's environment says
    code, out = check(runner, "dstack-readme-compose.yaml", "--gpu", "h100")
    assert code == 2
    assert ("dstack-readme-compose.yaml:3: deploy: the service reserves no GPU (runtime: nvidia "
            "without NVIDIA_VISIBLE_DEVICES leaves the GPUs to the image's environment, which "
            "this file does not show); add deploy.resources.reservations.devices (driver: "
            "nvidia, count: 1, capabilities: [gpu]), or runtime: nvidia with "
            "NVIDIA_VISIBLE_DEVICES naming 1 GPU(s)") in out


def _with_visible_devices(tmp_path: Path, value: str, tp: int) -> Path:
    # the README's service with the variable it leaves to the image, and a tensor size (ours)
    text = (QA / "dstack-readme-compose.yaml").read_text()
    text = text.replace("    runtime: nvidia\n", "    runtime: nvidia\n    environment:\n"
                        f"      - NVIDIA_VISIBLE_DEVICES={value}\n")
    text = text.replace("Qwen2.5-7B-Instruct", f"Qwen2.5-7B-Instruct --tensor-parallel-size {tp}")
    path = tmp_path / "compose.yaml"
    path.write_text(text)
    return path


def test_nvidia_visible_devices_is_counted(runner: CliRunner, tmp_path: Path) -> None:
    # NVIDIA Container Toolkit GPU enumeration: a list of indexes is that many GPUs
    result = invoke(runner, "check", str(_with_visible_devices(tmp_path, "0,1", 2)), "--gpu",
                    "l4", "-f", "json")
    (row,) = json.loads(result.output)["results"]
    assert (row["verdict"], row["gpus"], row["gpus_per_replica"]) == ("PASS", 2, 2)
    assert "NVIDIA_VISIBLE_DEVICES=0,1 (runtime: nvidia): 2 GPU(s) handed to the container" in \
        row["notes"]
    # one GPU named, tensor size 2: the engine has too few
    short = invoke(runner, "check", str(_with_visible_devices(tmp_path, "3", 2)), "--gpu", "l4")
    assert "tensor 2 needs 2 GPUs but the engine has 1" in " ".join(short.output.split())


def test_nvidia_visible_devices_all_is_an_unknown_count(runner: CliRunner,
                                                        tmp_path: Path) -> None:
    result = invoke(runner, "check", str(_with_visible_devices(tmp_path, "all", 2)), "--gpu",
                    "l4", "-f", "json")
    (row,) = json.loads(result.output)["results"]
    assert (row["verdict"], row["gpus"]) == ("PASS", 2)
    assert ("NVIDIA_VISIBLE_DEVICES=all (runtime: nvidia) hands the container every GPU of the "
            "host, how many this file does not say; the engine uses 2") in row["notes"]
    none = invoke(runner, "check", str(_with_visible_devices(tmp_path, "none", 1)), "--gpu", "l4")
    assert "NVIDIA_VISIBLE_DEVICES=none (runtime: nvidia) hands the container no GPU" in \
        " ".join(none.output.split())


# ---- the vendor a container runs on (task h30qa) ----

def test_rocm_devices_behind_an_image_variable_list_amd_gpus_only(runner: CliRunner) -> None:
    # AMD-melliott/ai-infra-summit: image $IMAGE (unset), /dev/kfd + /dev/dri by merge keys; the
    # "starts on" line listed every NVIDIA GPU of the catalog
    code, out = check(runner, "amd-multi-model-compose.yaml")
    assert code == 0
    assert out.count("starts on: mi210, mi250x, mi300x, mi325x, mi355x; would not start on: "
                     "none") == 8
    # the checked file's path is printed and a checkout's folder may name anything (a worktree
    # /work/wt/h100x); only the "starts on" lines must be free of NVIDIA GPUs
    lists = [line for line in out.splitlines() if "starts on:" in line]
    assert len(lists) == 8
    assert not any("h100" in line or "l4," in line for line in lists)


def test_a_named_gpu_of_the_other_vendor_is_noted(runner: CliRunner) -> None:
    # the ROCm SGLang service checked on an H100, as a user might by habit: checked, and said
    data = check_json(runner, "sglang-rocm-entrypoint-compose.yml", "--gpu", "h100")
    (row,) = data["results"]
    assert row["verdict"] == "PASS"
    assert ("h100-sxm-80gb is an NVIDIA GPU, but the container runs on AMD GPUs (its image or "
            "GPU resource): checked as asked") in row["notes"]


def test_an_nvidia_reservation_lists_nvidia_gpus_only(runner: CliRunner) -> None:
    # sachinsshetty/warehouse reserves NVIDIA devices (driver: nvidia) and names no GPU: no AMD
    # entry may be offered
    code, out = check(runner, "warehouse-mistral-compose.yml")
    assert code == 0
    assert "vllm: no GPU named; starts on: a10, a100-40gb," in out
    assert "mi300x" not in out and "starts on lists NVIDIA GPUs only" in out


def test_rocm_vllm_services_pinned_by_hip_visible_devices(runner: CliRunner) -> None:
    # alexhegit/Playing-with-ROCm compose_ex1.yaml: two rocm/vllm services, /dev/kfd + /dev/dri,
    # HIP_VISIBLE_DEVICES "0,1" and "6,7", `vllm serve models--meta-llama--Llama-3.1-8B-Instruct
    # -tp 2` from working_dir /ws/models. It read "not in the catalog" for the cache folder name
    # and would have listed NVIDIA GPUs; the rocm/vllm tag names vLLM 0.6.6.
    code, out = check(runner, "rocm-vllm-two-services-compose.yaml")
    assert code == 0
    assert out.count("starts on: mi210, mi250x, mi300x, mi325x, mi355x; would not start on: "
                     "none") == 2
    assert "(llama-3.1-8b, vllm 0.6.6)" in out
    data = check_json(runner, "rocm-vllm-two-services-compose.yaml", "--gpu", "mi300x")
    rows = {r["name"]: r for r in data["results"]}
    assert [(rows[n]["verdict"], rows[n]["gpus"], rows[n]["engine_version"])
            for n in ("vllm-s1", "vllm-s2")] == [("PASS", 2, "0.6.6")] * 2
    notes = rows["vllm-s2"]["notes"]
    assert "HIP_VISIBLE_DEVICES=6,7 (/dev/kfd devices): 2 GPU(s) handed to the container" in notes
    assert ("model models--meta-llama--Llama-3.1-8B-Instruct → llama-3.1-8b (hf_id); "
            "models--meta-llama--Llama-3.1-8B-Instruct is huggingface_hub's cache folder of "
            "meta-llama/Llama-3.1-8B-Instruct") in notes
    assert rows["vllm-s1"]["max_model_len_tokens"] == 131_072


def test_a_cache_folder_of_a_quantized_copy_names_repository_and_base(runner: CliRunner) -> None:
    # alexhegit/Playing-with-ROCm mvllm_compose_ex2.yaml (CRLF): `vllm serve
    # models--amd--Llama-3.1-70B-Instruct-FP8-KV`. It said "add it with `kvplan import
    # models--amd--...`", an id the hub does not have; now the repository and its base entry
    code, out = check(runner, "rocm-vllm-fp8-kv-compose.yaml")
    assert code == 2
    assert ("rocm-vllm-fp8-kv-compose.yaml:12: the served model: "
            "'models--amd--Llama-3.1-70B-Instruct-FP8-KV' (models--amd--Llama-3.1-70B-Instruct-"
            "FP8-KV is huggingface_hub's cache folder of amd/Llama-3.1-70B-Instruct-FP8-KV) is not "
            "in the catalog") in out
    assert "plan `llama-3.1-70b --weight-dtype fp8`" in out
    assert "add it with `kvplan import amd/Llama-3.1-70B-Instruct-FP8-KV`" in out


def test_an_ollama_quantization_tag_in_a_manifest_keeps_its_refusal(runner: CliRunner,
                                                                    tmp_path: Path) -> None:
    # the Dstack-TEE/dstack README service with an Ollama tag as the model (ours): the spelling's
    # own refusal, not "not in the catalog"
    text = (QA / "dstack-readme-compose.yaml").read_text()
    path = tmp_path / "compose.yaml"
    path.write_text(text.replace("Qwen/Qwen2.5-7B-Instruct", "qwen2.5:7b-instruct-q4_K_M"))
    out = " ".join(invoke(runner, "check", str(path), "--gpu", "l4").output.split())
    assert ("qwen2.5:7b-instruct-q4_K_M: Ollama's q4_K_M GGUF build of Qwen/Qwen2.5-7B-Instruct: "
            "kvplan does not price GGUF weights from a name") in out
    assert "not in the catalog" not in out


def test_qwen3_14b_fp8_left_out_names_its_base(runner: CliRunner) -> None:
    # hyposcaler/simple-llm: `--model Qwen/Qwen3-14B-FP8`. No copy of Qwen's own config.json for
    # the FP8 release was found (task h30qa), so no spec; the line names the catalog base
    code, out = check(runner, "qwen3-14b-fp8-vllm-compose.yml")
    assert code == 2
    assert ("it names a quantized copy of Qwen3-14B, whose catalog entry qwen3-14b has the same "
            "attention shape (the KV cache is the base's): plan `qwen3-14b --weight-dtype fp8`"
            in out)
