"""Reader gaps seen at stop 90 and closed in task h91readers2, each on public files gathered with
the search tools where the index held one (tests/assets/check/readers, SOURCES.md names each
source and what kvplan said before and after). Sections in the order of the commits."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from tests.conftest import ASSETS

HERE = ASSETS / "check" / "readers"

# `kvplan explain qwen2.5-7b --engine vllm --engine-version 0.6.3 -c 32768 --memory-utilization
# 0.9 -g l4`: KV cache memory 1,470,990,131 B, under one 32,768-token sequence (FAIL)
POOL_063_L4 = 1_470_990_131


# ---- 3. get_ipython().run_cell_magic('bash' | 'sh', '', BODY) read as its cell ----

AZURE = HERE / "azure-automl-setup-sh-cells.py"  # `#%%` cells of run_cell_magic('sh', ...)


def test_run_cell_magic_shell_cells_of_a_public_file_are_read() -> None:
    """Ten `#%%` cells, each one `get_ipython().run_cell_magic('sh', '', 'pip install ...')`
    (lines 6, 10, ..., 42): each is now a %%sh chunk on its line, its pip line kept for the pins
    (before: none read, each noted "its cell is not read")."""
    from kvplan.check.manifests.notebook_py import as_notebook

    book = as_notebook(AZURE.read_text())
    assert book is not None
    assert [(c.line, c.magic, c.on_line) for c in book.chunks][:2] == [(6, "%%sh", True),
                                                                        (10, "%%sh", True)]
    assert [c.line for c in book.chunks] == list(range(6, 43, 4))
    assert book.chunks[1].lines == ["pip install scikit-learn==0.20.3"]
    assert ("pip install shap==0.28.5", "the %%sh cell of line 18, its line 1") in book.shell
    assert book.pins() == ({}, [])  # no engine among its installs


def test_run_cell_magic_bash_pin_and_server(tmp_path: Path) -> None:
    """A %%bash cell nbconvert wrote as one call, its script `pip install vllm==0.6.3` then
    `vllm serve ...`: before, "mentions vLLM, but none of its commands starts a server" (line 1);
    now the server, on vLLM 0.6.3, FAIL on an L4 with explain's pool, said at the call's line
    (7) with the line of the cell (2) that starts it."""
    nb = tmp_path / "nb.py"
    nb.write_text("#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n\n\n"
                  "get_ipython().run_cell_magic('bash', '', 'pip install vllm==0.6.3\\n"
                  "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 &\\n')\n")
    [o] = check_paths([str(nb)], default_gpu="l4").outcomes
    assert (o.verdict, o.line, o.engine_version) == ("FAIL", 7, "0.6.3")
    assert o.numbers is not None and o.numbers.kv_pool_bytes == POOL_063_L4
    assert "the %%bash cell of line 7, its line 1 installs vllm==0.6.3: vllm 0.6.3" in o.notes
    assert ("the server starts on line 2 of that cell's script (the cell's lines are one string "
            "on line 7)") in o.notes
    # another cell magic stays noted, not read
    nb.write_text("# In[1]:\nget_ipython().run_cell_magic('writefile', 'x.sh', "
                  "'vllm serve Qwen/Qwen2.5-7B-Instruct\\n')\n")
    from kvplan.check.manifests.notebook_py import as_notebook

    book = as_notebook(nb.read_text())
    assert book is not None and book.chunks == []
    assert any("is a %%writefile cell nbconvert wrote as one call: its cell is not read" in n
               for n in book.notes)


# ---- 2. a `.py` with raw `!` / `%` lines and no cell markers (Colab's "Download .py") ----

CSE = HERE / "cse151b-colab-phase1.py"  # a Colab notebook saved as .py, its Phase 1 (verbatim)


def test_raw_ipython_lines_in_a_py_are_read_as_a_notebooks() -> None:
    """`!pip install vllm==0.8.5 sympy==1.13.1 ...` (line 34) and two `!cp {PROJECT}/...` lines
    (107, 108) with no cell markers, then `llm = LLM(model=MERGED_DIR, ...)` (line 167). Before:
    `ERROR line 34: not Python that parses (invalid syntax)`. Now the `!` lines are read as a
    notebook's (the pin: vLLM 0.8.5) and the rest as Python: the LLM's model is refused for
    what it is, `f'{PROJECT}/qlora_merged'` (a Drive folder the script computes), at line 168."""
    [o] = check_paths([str(CSE)], default_gpu="a100-80gb").outcomes
    assert (o.verdict, o.line, o.problems[0].field) == ("ERROR", 168, "model")
    assert o.problems[0].message.startswith("f'{PROJECT}/qlora_merged': a value computed when "
                                            "the script runs")
    assert "code cell 1, its line 34 installs vllm==0.8.5: vllm 0.8.5" in o.notes
    assert ("a Python file with IPython `!` / `%` lines and no cell markers (as Colab's "
            "\"Download .py\" writes a notebook): not Python that parses, so its 3 IPython "
            "line(s) (first: line 34) are read as a notebook's `!` / `%` lines, and the rest as "
            "Python") in o.notes


def test_raw_vllm_serve_line_is_planned_on_its_pin(tmp_path: Path) -> None:
    """A Colab export's `!pip install vllm==0.6.3` and `!vllm serve Qwen/Qwen2.5-7B-Instruct
    --max-model-len 32768 &` (line 12): before `ERROR line 12: not Python that parses`; now the
    server, FAIL on an L4 on vLLM 0.6.3 with explain's pool. A plain script that parses, or
    one whose only `!` line is inside a string, is read as before."""
    colab = tmp_path / "untitled0.py"
    colab.write_text('# -*- coding: utf-8 -*-\n"""Untitled0.ipynb\n\nAutomatically generated '
                     'by Colab.\n"""\n\n!pip install vllm==0.6.3\n\nimport os\nprint("hi")\n\n'
                     "!vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 &\n")
    [o] = check_paths([str(colab)], default_gpu="l4").outcomes
    assert (o.verdict, o.line, o.engine_version) == ("FAIL", 12, "0.6.3")
    assert ("a Python file with IPython `!` / `%` lines and no cell markers (as Colab's "
            "\"Download .py\" writes a notebook): not Python that parses, so its 2 IPython "
            "line(s) (first: line 7) are read as a notebook's `!` / `%` lines, and the rest as "
            "Python") in o.notes
    assert o.numbers is not None and o.numbers.kv_pool_bytes == POOL_063_L4
    from kvplan.check.manifests.notebook_py import as_notebook

    assert as_notebook('x = """\n!vllm serve m\n"""\nprint(x)\n') is None
    assert as_notebook('x = """\n!vllm serve m\n"""\nprint(x\n') is None  # no IPython line


# ---- 1. a notebook's own Python cells running pip pin the release (python_pins) ----


def _notebook(path: Path, *cells: str) -> Path:
    import json

    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": c} for c in cells]}))
    return path


SERVE = "!vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768\n"


def test_notebook_python_pip_pins_its_servers(tmp_path: Path) -> None:
    """`os.system("pip install vllm==0.6.3")` in a code cell, then `!vllm serve ...`: before,
    PASS on the profile's default release ("the one installed, which the notebook does not
    name"); now vLLM 0.6.3, FAIL on an L4 with explain's 1,470,990,131 B pool. The list form
    through subprocess.run pins a server the notebook's Python starts, the same way."""
    nb = _notebook(tmp_path / "a.ipynb", 'import os\nos.system("pip install vllm==0.6.3")\n',
                   SERVE)
    [o] = check_paths([str(nb)], default_gpu="l4").outcomes
    assert (o.verdict, o.line, o.engine_version) == ("FAIL", 3, "0.6.3")
    assert o.numbers is not None and o.numbers.kv_pool_bytes == POOL_063_L4
    assert "os.system(...) (code cell 1, its line 2) installs vllm==0.6.3: vllm 0.6.3" in o.notes
    nb = _notebook(tmp_path / "b.ipynb",
                   'import subprocess\nsubprocess.run(["pip", "install", "vllm==0.6.3"])\n',
                   'subprocess.run(["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", '
                   '"--max-model-len", "32768"])\n')
    [o] = check_paths([str(nb)], default_gpu="l4").outcomes
    assert (o.verdict, o.engine_version) == ("FAIL", "0.6.3")
    assert ("subprocess.run(...) (code cell 1, its line 2) installs vllm==0.6.3: vllm 0.6.3"
            in o.notes)


def test_notebook_pins_are_read_in_line_order(tmp_path: Path) -> None:
    """A `!pip install` and the Python's pip are one sequence in the notebook's line order: the
    last exact pin is the release, whichever reader found it."""
    from kvplan.check.manifests.notebook import read_notebook

    first = "!pip install vllm==0.5.4\n"
    second = 'import os\nos.system("pip install vllm==0.6.3")\n'
    book = read_notebook(_notebook(tmp_path / "c.ipynb", first, second, SERVE).read_text())
    assert book.pins()[0]["vllm"][0] == "0.6.3"
    book = read_notebook(_notebook(tmp_path / "d.ipynb", second, first, SERVE).read_text())
    assert book.pins()[0]["vllm"][0] == "0.5.4"


# ---- 4. Kubernetes `$$(VAR)` in command / args (kvplan.check.k8s_expansion) ----

CASES = HERE / "k8s-expansion-cases.tsv"  # kubernetes expand_test.go's 37 cases


def _go(text: str) -> str:
    return text.replace("\\n", "\n").replace("\\\\", "\\")


def test_kubelet_expansion_cases_all_hold() -> None:
    """Every case of the kubelet's own expansion test (escape & expand, odd and even runs of
    `$`, nested and unterminated references, values not expanded again) gives its expected
    text."""
    from kvplan.check.k8s_expansion import kubernetes_expand

    env = {"VAR_A": "A", "VAR_B": "B", "VAR_C": "C", "VAR_REF": "$(VAR_A)", "VAR_EMPTY": ""}
    rows = [line.split("\t") for line in CASES.read_text().splitlines()
            if line and not line.startswith("#")][1:]
    assert len(rows) == 37
    wrong = [(name, kubernetes_expand(_go(given), env), _go(want))
             for name, given, want in rows if kubernetes_expand(_go(given), env) != _go(want)]
    assert wrong == []


DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  replicas: 1
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.6.3
        env:
        - {name: MODEL, value: Qwen/Qwen2.5-7B-Instruct}
        - {name: LEN, value: "32768"}
        ARGS
        resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_escaped_reference_is_the_text_the_container_gets(tmp_path: Path) -> None:
    """`--max-model-len $$(LEN)` with LEN set: before "'$32768' is not a number" (the `$(LEN)`
    inside the escape expanded); the container gets the text `$(LEN)`, said so. In a `sh -c`
    script `$$LEN` is the shell's `$LEN` once the kubelet has made `$$` one `$`: the server
    with the env's values (before, the same '$32768' ERROR), FAIL on vLLM 0.6.3 on an L4 with
    explain's pool."""
    yaml = tmp_path / "d.yaml"
    yaml.write_text(DEPLOYMENT.replace("ARGS", 'args: ["--model", "$(MODEL)", "--max-model-len",'
                                               ' "$$(LEN)"]'))
    [o] = check_paths([str(yaml)]).outcomes
    assert (o.verdict, o.problems[0].field, o.problems[0].message) == (
        "ERROR", "--max-model-len", "'$(LEN)' is not a number")
    assert any(n.startswith("`$$(LEN)` (line 15): `$$` is Kubernetes' escape for one `$`")
               and n.endswith("the container receives the text `$(LEN)`, not a variable's value")
               for n in o.notes)
    yaml.write_text(DEPLOYMENT.replace("ARGS", 'command: ["sh", "-c", "vllm serve $$MODEL '
                                               '--max-model-len $$LEN"]'))
    [o] = check_paths([str(yaml)]).outcomes
    assert (o.verdict, o.engine_version) == ("FAIL", "0.6.3")
    assert o.numbers is not None and o.numbers.kv_pool_bytes == POOL_063_L4


def test_escapes_are_kubernetes_only() -> None:
    """A shell script's `$$` is its PID, not the kubelet's escape: argv.expand keeps the old
    reading unless told the words are Kubernetes'."""
    from kvplan.check.argv import expand
    from kvplan.check.k8s_expansion import escaped_references

    assert expand("$$(LEN)", {"LEN": "1"}) == "$1"  # a script's words, as before
    assert expand("$$(LEN)", {"LEN": "1"}, kubernetes=True) == "$(LEN)"
    assert expand("$$$(LEN)", {"LEN": "1"}, kubernetes=True) == "$1"
    assert escaped_references("--x=$$(A)-$$$(B)-$$$$(C)") == ["$(A)", "$(C)"]


# ---- 5. GPU labels in node affinity (kvplan.check.manifests.node_affinity) ----

LWS = ASSETS / "check" / "corpus" / "lws" / "vllm-dp-lws.yaml"  # tlrmchlsmth/vllm-dp-lws lws.yaml

AFFINITY = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  replicas: 1
  template:
    spec:
      NODESELECTOR
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: KEY, operator: In, values: [VALUES]}
              - {key: team.example.com/gpu-pool, operator: In, values: [inference]}
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 50
            preference:
              matchExpressions:
              - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-A100-SXM4-80GB]}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.6.3
        args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "32768"]
        resources: {limits: {nvidia.com/gpu: 1}}
"""


def _affinity(tmp_path: Path, key: str, values: str, selector: str = "") -> Path:
    path = tmp_path / "aff.yaml"
    path.write_text(AFFINITY.replace("KEY", key).replace("VALUES", values)
                    .replace("NODESELECTOR", selector or "nodeSelector: {}"))
    return path


def test_several_gpus_in_required_affinity_are_checked_on_the_smallest(tmp_path: Path) -> None:
    """nvidia.com/gpu.product In [NVIDIA-H100-80GB-HBM3, NVIDIA-L4]: the pod may land on either.
    Before: checked on the first listed, a PASS on the H100 (990,480 tokens); now on the L4, the
    GPU with the least memory, where vLLM 0.6.3 holds no 32,768-token sequence (explain's
    1,470,990,131 B pool): FAIL, said why. GKE's accelerator label reads alike. The preferred
    term's A100 is named as a preference."""
    for key, values in (("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3, NVIDIA-L4"),
                        ("cloud.google.com/gke-accelerator", "nvidia-h100-80gb, nvidia-l4")):
        [o] = check_paths([str(_affinity(tmp_path, key, values))]).outcomes
        assert (o.verdict, o.gpu) == ("FAIL", "l4")
        assert o.numbers is not None and o.numbers.kv_pool_bytes == POOL_063_L4
        assert ("node affinity allows h100-sxm-80gb, l4: the scheduler may place the pod on any "
                "of them, so it is checked on l4, the one with the least memory (21.95 GiB); give "
                "kvplan.io/gpu to check another") in o.notes
        assert ("node affinity preferred (weight 50) nvidia.com/gpu.product In "
                "[NVIDIA-A100-SXM4-80GB] (line 20): a preference, the scheduler may place the pod "
                "on a node without it (preferredDuringSchedulingIgnoredDuringExecution), so it "
                "does not name the GPU") in o.notes


def test_nodeselector_gpu_is_required_over_the_affinitys_others(tmp_path: Path) -> None:
    """With nodeSelector nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3 too, every node has the
    H100 (both must hold): checked on it, PASS, said so."""
    path = _affinity(tmp_path, "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3, NVIDIA-L4",
                     "nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}")
    [o] = check_paths([str(path)]).outcomes
    assert (o.verdict, o.gpu) == ("PASS", "h100-sxm-80gb")
    assert ("node affinity allows h100-sxm-80gb, l4; the nodeSelector requires h100-sxm-80gb: "
            "checked on it") in o.notes


def test_other_operators_and_user_labels_are_named(tmp_path: Path) -> None:
    """A GPU label under NotIn names no GPU the pod runs on: noted, not read (before: passed
    over in silence), and the verdict is over the catalog; the required term's own label
    (team.example.com/gpu-pool) is named, as a nodeSelector's is. The public vllm-dp-lws
    LeaderWorkerSet's `gpu.nvidia.com/model In [H200]` (line 18) is named so too (before:
    nothing said of it)."""
    path = _affinity(tmp_path, "nvidia.com/gpu.product", "NVIDIA-L4").read_text()
    (tmp_path / "aff.yaml").write_text(path.replace("operator: In, values: [NVIDIA-L4]",
                                                    "operator: NotIn, values: [NVIDIA-L4]"))
    [o] = check_paths([str(tmp_path / "aff.yaml")]).outcomes
    assert (o.verdict, o.gpu) == ("WARN", None)  # judged over the catalog
    assert ("node affinity nvidia.com/gpu.product NotIn [NVIDIA-L4] (line 14): NotIn names no "
            "GPU the pod runs on (only a required `In` does), so kvplan does not read it as the "
            "GPU") in o.notes
    assert ("node affinity team.example.com/gpu-pool In [inference] (line 15): not a GPU label "
            "kvplan reads (docs/check.md, \"GPU labels\"), so no GPU is named by it") in o.notes
    [o] = check_paths([str(LWS)]).outcomes
    assert ("node affinity gpu.nvidia.com/model In [H200] (line 18): not a GPU label kvplan "
            "reads (docs/check.md, \"GPU labels\"), so no GPU is named by it") in o.notes
