"""Reader gaps left at the last stop and closed in task h90readers, each on public files gathered
with the search tools (tests/assets/check/readers, SOURCES.md names each source, what kvplan said
before and after, and which files are held out): 1. a Kubernetes container's envFrom /
configMapKeyRef ConfigMaps; 2. notebooks exported by nbconvert; 3. a plain script's own pip
commands as the release pin; 4. pip commands that install nothing; 5. a plain script's `set --`
followed into `"$@"`. Sections below in reverse order (the order of the commits)."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.manifests import shell
from kvplan.check.manifests.shell_lex import read_script
from tests.conftest import ASSETS

HERE = ASSETS / "check" / "readers"


def _outcomes(path: Path) -> list:  # noqa: ANN201
    return check_paths([str(path)]).outcomes


# ---- 5. `set --` then `"$@"` in a plain script (kvplan.check.manifests.shell_set) ----

ENTRY = HERE / "ctxcost-entrypoint.sh"  # Pedro105/contextExtension deploy/docker/entrypoint.sh
# the variables its image's ENV and the sweep's `docker run -e` give (deploy/docker/serve.Dockerfile)
GIVEN = {"MODEL": "Qwen/Qwen2.5-7B-Instruct", "ENABLE_PREFIX_CACHING": "true",
         "VLLM_CPU_BACKEND": "false"}


def test_set_args_are_followed_into_exec_in_a_plain_script() -> None:
    """`set -- vllm serve "$MODEL" --max-model-len "$MAX_MODEL_LEN" ...` (line 14), two `if`s
    appending to it (`set -- "$@" --enable-prefix-caching`, line 23; the else's `set -- "$@"
    --gpu-memory-utilization "$GPU_MEMORY_UTILIZATION"`, line 45), then `exec "$@"` (line 47).
    Before: `set -- vllm serve ...` itself was read as the server start (line 14, the words
    after `if`s lost) and a plain `"$@"` refused as "an argument of the script". With the
    variables the image gives, each `if` is decided and the server is the words set so far:
    the defaults the script writes (`${MAX_MODEL_LEN:-4096}`, `${MAX_NUM_SEQS:-256}`,
    `${GPU_MEMORY_UTILIZATION:-0.9}`), each at the line that wrote it."""
    [target] = shell.targets(ENTRY, ENTRY.read_text(), {}, "h100", GIVEN)
    assert target.problems == []
    engine = target.deployment.engine
    assert (target.deployment.model, engine.max_model_len, engine.max_num_seqs,
            engine.gpu_memory_utilization, engine.enable_prefix_caching) == \
        ("qwen2.5-7b", 4096, 256, 0.9, True)
    lines = target.doc.lines
    assert (lines[("model",)], lines[("engine", "max_model_len")],
            lines[("engine", "max_num_seqs")], lines[("engine", "enable_prefix_caching")],
            lines[("engine", "gpu_memory_utilization")]) == (14, 15, 16, 23, 45)


def test_set_args_from_undecided_alternatives_are_refused() -> None:
    """Without those variables, the `if`s of lines 22 and 34 are undecided and have an else:
    `"$@"` holds one branch's words or the other's, and the server is refused for it, as a
    server started inside such a branch is (before: `set -- vllm serve` read as the start)."""
    [o] = _outcomes(ENTRY)
    assert (o.verdict, o.line) == ("ERROR", 14)
    assert o.problems[0].message.startswith(
        'this `vllm serve` runs the words `"$@"` holds, and a `set --` in the `if` of line 22 '
        "gives some of them: its branches are alternatives")


def test_set_args_shift_and_function_arguments() -> None:
    """`shift` drops the first parameter; `"$@"` inside a function is the function's own
    arguments (kept as written); `set -- "$@" --x` appends; before any `set --`, `"$@"` stays
    the script's arguments."""
    script = read_script('echo "$@"\nset -- serve m --max-model-len 8192\nshift\n'
                         'f() { echo "$@"; }\nset -- "$@" -tp 2\nexec vllm serve "$@"\n')
    words = [c.words for c, _, _ in script.commands]
    assert words[0] == ["echo", "$@"]
    assert ["echo", "$@"] in words[1:]  # the function body's
    assert words[-1] == ["vllm", "serve", "m", "--max-model-len", "8192", "-tp", "2"]
    assert script.commands[-1][0].lines == [6, 6, 2, 2, 2, 5, 5]


# ---- 4. a pip command that installs nothing is no release pin (pip_commands.inert) ----

VAST = HERE / "qwenpy-vast-vllm-steps.sh"  # thinkinglee0/qwen.py env/vastai/vast-evn-build.md


def _pins(text: str) -> tuple[dict, list[str]]:
    return shell._pins(text, read_script(text))


def test_a_dry_run_is_no_pin_and_the_install_after_it_is() -> None:
    """The runbook's steps: `"$VLLM_VENV/bin/pip" install --no-cache-dir --dry-run
    vllm=="$VLLM_PIN"` (line 21) then the same without --dry-run (line 28), VLLM_PIN="v0.30.0".
    Before: neither was read (the quoted `"$VLLM_VENV/bin/pip"`), the release 'the one
    installed, which the script does not name'. Now line 28 is vLLM 0.30.0 (PEP 440 drops the
    leading v) and line 21 is named as installing nothing."""
    releases, notes = _pins(VAST.read_text())
    assert releases == {"vllm": ("0.30.0", "line 28 installs vllm==v0.30.0: vllm 0.30.0")}
    assert notes == ["line 21 runs `/workspace/vllm-venv/bin/pip install --no-cache-dir --dry...`: "
                     "its --dry-run installs nothing (pip install --help: \"Don't actually "
                     "install anything, just print what would be\"); kvplan takes no vllm "
                     "release from it"]


def test_the_dry_run_alone_pins_nothing() -> None:
    """The runbook's check step alone (its first 22 lines: the dry run, not the install):
    no release, and the dry run named (before: when read, a dry run was an install)."""
    text = "\n".join(VAST.read_text().splitlines()[:22])
    releases, notes = _pins(text)
    assert releases == {}
    assert len(notes) == 1 and "its --dry-run installs nothing" in notes[0]


def test_download_wheel_and_other_folders_install_nothing_here() -> None:
    """`pip download` / `pip wheel` fetch or build files; `-t DIR`, `--target=DIR`, `--root`,
    `--prefix` install elsewhere; `--user` installs into the user site the interpreter imports
    from (a pin); a later inert command does not replace the pin before it."""
    releases, notes = _pins("pip install vllm==0.6.3\npip download vllm==0.8.3 --no-deps\n"
                            "pip wheel vllm==0.8.4\npip install -t /opt/x vllm==0.8.5\n"
                            "pip install --target=/opt/y vllm==0.8.6\n"
                            "uv pip install --root /r vllm==0.8.7\npip install --prefix /p "
                            "vllm==0.8.8\n")
    assert releases["vllm"][0] == "0.6.3"
    assert [n.split(":", 1)[0] for n in notes] == [
        "line 2 runs `pip download vllm==0.8.3 --no-deps`", "line 3 runs `pip wheel vllm==0.8.4`",
        "line 4 runs `pip install -t /opt/x vllm==0.8.5`",
        "line 5 runs `pip install --target=/opt/y vllm==0.8.6`",
        "line 6 runs `pip install --root /r vllm==0.8.7`",
        "line 7 runs `pip install --prefix /p vllm==0.8.8`"]
    assert "its --target /opt/y installs into that folder" in notes[3]
    releases, _ = _pins('python -m pip install --user "sglang[all]==0.4.6"\n')
    assert releases["sglang"][0] == "0.4.6"


# ---- 3. a plain script's own pip commands pin the release (python_pins.script_pins) ----

EAGLE = HERE / "optimeagle-chat-template-test.py"  # ebubekir-pulat/OptimEAGLE


def test_a_plain_scripts_subprocess_pip_is_read_as_a_notebooks() -> None:
    """`subprocess.run(["uv", "pip", "install", "sglang[all]>=0.5.3rc0"], check=True)` (line 14)
    before two launch_server_cmd(...) servers (lines 71, 106): a range, noted on each as a
    notebook's `!uv pip install "sglang[all]>=0.5.3rc0"` is (before: not a word of it)."""
    said = ("subprocess.run(...) (line 14) installs sglang[all]>=0.5.3rc0: a range, not a "
            "release; the sglang profile's default version is used")
    outcomes = _outcomes(EAGLE)
    assert [o.line for o in outcomes] == [71, 106]
    assert all(said in o.notes for o in outcomes)


def test_os_system_pip_pins_the_server_and_the_engine(tmp_path: Path) -> None:
    """`os.system("pip install vllm==0.6.3")` then a `subprocess.run(["vllm", "serve", ...])`:
    the server is planned on vLLM 0.6.3 (before: the profile's default release, a PASS on an
    A10G). `kvplan explain qwen2.5-7b --engine vllm --engine-version 0.6.3 -c 32768
    --memory-utilization 0.9 -g a10g`: KV cache memory 1,573,560,524 B, GPU KV cache size 27,440
    tokens, under one 32,768-token sequence: FAIL. The list form through sys.executable pins an
    in-process LLM(...) the same way."""
    script = tmp_path / "serve.py"
    script.write_text('import os, subprocess\nos.system("pip install vllm==0.6.3")\n'
                      'subprocess.run(["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", '
                      '"--max-model-len", "32768"])\n')
    [o] = check_paths([str(script)], default_gpu="a10g").outcomes
    assert (o.verdict, o.engine_version) == ("FAIL", "0.6.3")
    assert o.numbers is not None
    assert (o.numbers.kv_pool_bytes, o.numbers.longest_context_tokens) == (1_573_560_524, 27_440)
    assert "os.system(...) (line 2) installs vllm==0.6.3: vllm 0.6.3" in o.notes
    script.write_text('import subprocess, sys\nsubprocess.check_call([sys.executable, "-m", '
                      '"pip", "install", "vllm==0.6.3"])\nfrom vllm import LLM\n'
                      'llm = LLM(model="Qwen/Qwen2.5-7B-Instruct", max_model_len=8192)\n')
    [o] = check_paths([str(script)], default_gpu="a10g").outcomes
    assert (o.line, o.engine_version) == (4, "0.6.3")
    assert "subprocess.check_call(...) (line 2) installs vllm==0.6.3: vllm 0.6.3" in o.notes


# ---- 2. a notebook exported as Python by nbconvert (notebook_export) ----

GEMMA = HERE / "unsloth-gemma3n-2b-inference.py"  # unslothai/notebooks, development
KAGGLE = HERE / "unsloth-kaggle-gemma3n-2b-inference.py"  # its Kaggle twin, held out


def test_nbconvert_cells_and_system_calls_are_read_as_the_notebook() -> None:
    """`# In[2]:` then `get_ipython().system('nohup python -m sglang.launch_server --model-path
    unsloth/gemma-3n-E2B-it --attention-backend fa3 --port 8000 > sglang.log &')` (line 46).
    Before: "this file mentions SGLang, but none of its commands starts a server" (line 1).
    Now the `!` line is read: the server is refused for its model, which the catalog lacks, at
    its line; the held-out Kaggle export (not looked at while writing the reader) reads the same."""
    for path in (GEMMA, KAGGLE):
        [o] = check_paths([str(path)], default_gpu="l4").outcomes
        assert (o.verdict, o.line, o.problems[0].field) == ("ERROR", 46, "--model-path")
        assert o.problems[0].message.startswith("'unsloth/gemma-3n-E2B-it' is not in the catalog")
        assert o.notes[0] == ("a notebook exported as Python by nbconvert: the `!` line of code "
                              "cell 1, its line 5 (line 46 of the file), which IPython runs in a "
                              "shell of its own (a variable another `!` line sets does not "
                              "reach it)")


def test_ipython_calls_give_the_pin_and_the_server(tmp_path: Path) -> None:
    """The calls nbconvert writes: run_line_magic('pip', ...) is `%pip` (the pin),
    system('vllm serve ...') the server: vLLM 0.6.3 on an L4 (`kvplan explain qwen2.5-7b --engine
    vllm --engine-version 0.6.3 -c 32768 --memory-utilization 0.9 -g l4`: KV cache memory
    1,470,990,131 B) holds no 32,768-token sequence. A cell magic's one-line call and a call
    with a name for its argument are named, not read; the same calls under `# %%` are read."""
    script = tmp_path / "nb.py"
    body = ("#!/usr/bin/env python\n# coding: utf-8\n\n# In[ ]:\n\n\n"
            "get_ipython().run_line_magic('pip', 'install vllm==0.6.3')\n"
            "cmd = 'vllm serve x'\nget_ipython().system(cmd)\n"
            "get_ipython().run_cell_magic('bash', '', 'nvidia-smi\\n')\n\n\n# In[ ]:\n\n\n"
            "get_ipython().system('vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 &')\n")
    for text in (body, body.replace("# In[ ]:", "# %%")):
        script.write_text(text)
        [o] = check_paths([str(script)], default_gpu="l4").outcomes
        assert (o.verdict, o.line, o.engine_version) == ("FAIL", 16, "0.6.3")
        assert o.numbers is not None and o.numbers.kv_pool_bytes == 1_470_990_131
    from kvplan.check.manifests.notebook_py import as_notebook

    book = as_notebook(body)
    assert book is not None and book.kind == "notebook exported as Python by nbconvert"
    assert any(n.startswith("line 9: `get_ipython().system(cmd)` calls IPython with an argument "
                            "kvplan does not read as a literal string") for n in book.notes)
    assert any(n.startswith("line 10: `get_ipython().run_cell_magic('bash', '', 'nvidia-smi\\n')"
                            "` is a %%bash cell nbconvert wrote as one call: its script (1 "
                            "line(s), all on line 10) is read as that cell's")
               for n in book.notes)  # task h91readers2: read (before: "its cell is not read")


# ---- 1. Kubernetes envFrom / configMapKeyRef from ConfigMaps of the run (env_from) ----

SANDBOX = HERE / "llm-ops-sandbox"  # QuentinHamonic/llm-ops-sandbox k8s/vllm, development
RAG = HERE / "llm-rag-infra-platform"  # SecureCloudOps/llm-rag-infra-platform k8s/vllm, held out


def test_envfrom_configmap_in_the_folder_gives_the_args() -> None:
    """`args: ["--model", "$(VLLM_MODEL)", ...]` with `envFrom: [{configMapRef: {name:
    vllm-openai-config}}]`, the ConfigMap in configmap.yaml beside it. Before: "--model:
    '$(VLLM_MODEL)' is not in the catalog" and the ConfigMap file itself an ERROR ("kind:
    ConfigMap runs vLLM, but kvplan cannot read a ConfigMap yet"). Now the model is
    TinyLlama/TinyLlama-1.1B-Chat-v1.0 and the ConfigMap is no deployment of its own: on an L4
    the pool holds 854,416 tokens, 417 sequences of its 2,048 (`kvplan explain tinyllama-1.1b
    --engine vllm -c 2048 -g l4`: GPU KV cache size 854,416 tokens)."""
    report = check_paths([str(SANDBOX)], default_gpu="l4")
    [o] = report.outcomes
    assert (o.verdict, o.model, Path(o.file).name) == ("PASS", "tinyllama-1.1b", "deployment.yaml")
    assert o.numbers is not None
    assert (o.numbers.max_model_len, o.numbers.users_per_replica) == (2048, 417)
    assert ("envFrom ConfigMap vllm-openai-config (configmap.yaml): its data gives the container "
            "VLLM_MODEL, VLLM_HOST, VLLM_PORT") in o.notes


def test_envfrom_configmap_not_given_is_named() -> None:
    """The deployment alone: the reference is unresolved because its ConfigMap is not among the
    files, said so, at the word's line (before: not in the catalog, as the text itself)."""
    [o] = _outcomes(SANDBOX / "deployment.yaml")
    assert (o.verdict, o.line) == ("ERROR", 25)
    assert o.problems[0].message == (
        "'$(VLLM_MODEL)': $(VLLM_MODEL) is set by none of the container's env entries; "
        "ConfigMap vllm-openai-config (envFrom), which is not among the files checked (give its "
        "file too), may set it")


def test_envfrom_held_out_reads_the_configmaps_model() -> None:
    """Held out (not looked at while writing the reader): the model is the ConfigMap's own
    MODEL_NAME, 'placeholder-local-model', which the catalog lacks (before: '$(MODEL_NAME)');
    its missing nvidia.com/gpu limit is an ERROR as before."""
    [o] = check_paths([str(RAG)], default_gpu="l4").outcomes
    assert o.verdict == "ERROR"
    assert [p.message.split(" is not", 1)[0] for p in o.problems if p.field == "--model"] == \
        ["'placeholder-local-model'"]


def test_envfrom_order_prefix_key_refs_and_refusals(tmp_path: Path) -> None:
    """The kubelet's order: a later envFrom source over an earlier one, `env` over both; a
    prefix; a configMapKeyRef. Refused: a data value that is not a string (the API server's
    ConfigMap.data is map[string]string), a Secret's key in the model or an option kvplan
    reads; a Secret's variable in an option it does not read is passed over."""
    head = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: base}\ndata:\n"
            "  LEN: \"32768\"\n  MODEL: Qwen/Qwen2.5-7B-Instruct\n---\n"
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: over}\ndata: {LEN: \"16384\", "
            "UTIL: \"0.8\"}\n---\n")
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: s\n"
           "    image: vllm/vllm-openai:v0.6.3\n    args: [\"--model\", \"$(MODEL)\", "
           "\"--max-model-len\", \"$(LEN)\", \"--gpu-memory-utilization\", \"$(C_UTIL)\", "
           "\"--api-key\", \"$(KEY)\"]\n    envFrom:\n    - configMapRef: {name: base}\n"
           "    - configMapRef: {name: over}\n    - {prefix: C_, configMapRef: {name: over}}\n"
           "    - secretRef: {name: s}\n    env:\n    - {name: LEN, valueFrom: {configMapKeyRef: "
           "{name: over, key: LEN}}}\n    resources: {limits: {nvidia.com/gpu: 1}}\n")
    path = tmp_path / "pod.yaml"
    path.write_text(head + pod)
    [o] = check_paths([str(path)], default_gpu="h100").outcomes
    assert o.verdict == "PASS" and o.numbers is not None and o.numbers.max_model_len == 16384
    assert "env LEN: ConfigMap over (this file) key LEN = '16384'" in o.notes
    path.write_text(head.replace('UTIL: "0.8"', "UTIL: 0.8") + pod)
    [o] = check_paths([str(path)], default_gpu="h100").outcomes
    assert o.problems[0].message.startswith("ConfigMap over (this file) data.UTIL is 0.8, not a "
                                            "string: the API server refuses")
    path.write_text(head + pod.replace("{name: LEN, valueFrom: {configMapKeyRef: {name: over, "
                                       "key: LEN}}}", "{name: LEN, valueFrom: {secretKeyRef: "
                                       "{name: s, key: len}}}"))
    [o] = check_paths([str(path)], default_gpu="h100").outcomes
    assert o.problems[0].message.startswith("'$(LEN)': $(LEN) is a Secret's key")
