"""Model references as people type them (tests/assets/model_ids/typed.tsv, tuned rows only),
through `kvplan check` on a one-line launch script (task h53checkgaps): check now names the
catalog entry the resolver's hints (kvplan.specs.name_hints) name, where it named none. The
held-out rows are not used here (measured once, after: 31 of 33 as before, the same two
without their entry)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from kvplan.check import check_paths

TSV = Path(__file__).parents[1] / "assets" / "model_ids" / "typed.tsv"
TUNED = {r["typed"]: r for r in csv.DictReader(TSV.open(encoding="utf-8", newline=""),
                                               delimiter="\t") if r["held_out"] == "false"}


def _error(tmp_path: Path, line: str) -> str:
    script = tmp_path / "serve.sh"
    script.write_text(line + "\n")
    (out,) = check_paths([str(script)], default_gpu="h100").outcomes
    assert out.verdict == "ERROR"
    return " ".join(p.message for p in out.problems)


QUANT = ("it names a quantized copy of {base}, whose catalog entry {stem} has the same attention "
         "shape (the KV cache is the base's): plan `{stem} --weight-dtype int4` (kvplan's "
         "generic pricing of that width), or pass the copy's config.json for its exact weights")


@pytest.mark.parametrize(("typed", "said"), [
    # a folder inside the container (or on the machine) named after a quantized copy: only an
    # exact repository name was read, so these named nothing
    ("/mnt/tongyan.zjy/openlm/model/Qwen2.5-72B-Instruct-GPTQ-Int4",
     "is a path on the machine; name the model with --served-model-name <hf id>, `model:` in a "
     "side file serve.kvplan.yaml (a catalog name or spec file) ("
     + QUANT.format(base="Qwen2.5-72B-Instruct", stem="qwen2.5-72b") + "), or a config.json "
     "beside the script"),
    ("/mnt/models/vllm_models/Qwen3-30B-A3B-quantized.w4a16/",
     QUANT.format(base="Qwen3-30B-A3B", stem="qwen3-30b-a3b")),
    ("/home/Models/Qwen2.5-7B-Instruct-GPTQ-Int4/",
     QUANT.format(base="Qwen2.5-7B-Instruct", stem="qwen2.5-7b")),
    # a relative folder read as "no such spec file"
    ("./Qwen3-VL-2B-Instruct-unsloth-bnb-4bit/",
     "'./Qwen3-VL-2B-Instruct-unsloth-bnb-4bit/' is a folder kvplan does not find here; name "
     "the model with --served-model-name <hf id>, `model:` in a side file serve.kvplan.yaml (a "
     "catalog name or spec file) (" + QUANT.format(base="Qwen3-VL-2B-Instruct",
                                                    stem="qwen3-vl-2b") + ")"),
    ("./Models/llama3.1-8b-instruct",
     "'./Models/llama3.1-8b-instruct' is a folder kvplan does not find here; name the model with "
     "--served-model-name <hf id>, `model:` in a side file serve.kvplan.yaml (a catalog name or "
     "spec file) (its last part 'llama3.1-8b-instruct' reads as Llama-3.1-8B-Instruct, the "
     "repository name of the catalog's llama-3.1-8b: if the folder holds that checkpoint, plan "
     "`llama-3.1-8b` (or pass the folder's config.json)), or a config.json beside the script"),
    # an unset variable before the folder: its written-out name was never read
    ("${PROJECT_ROOT}/models/Qwen2.5-32B-Instruct-GPTQ-Int4",
     "'${PROJECT_ROOT}/models/Qwen2.5-32B-Instruct-GPTQ-Int4': the script does not set "
     "PROJECT_ROOT; set it in the script, or render it first (envsubst); the folder's own name "
     "is written out (" + QUANT.format(base="Qwen2.5-32B-Instruct", stem="qwen2.5-32b-instruct") + ")"),
    ("$HOME/models/DeepSeek-R1-Distill-Qwen-1.5B",
     "'$HOME/models/DeepSeek-R1-Distill-Qwen-1.5B': the script does not set HOME; set it in the "
     "script, or render it first (envsubst); the folder's own name is written out (its folder "
     "name is the hub repository of the catalog's deepseek-r1-distill-qwen-1.5b: model: "
     "deepseek-r1-distill-qwen-1.5b if it holds that checkpoint)"),
    # a served label in another spelling, as the model
    ("qwen-2.5-7b-instruct",
     "it is another spelling of the repository name of Qwen/Qwen2.5-7B-Instruct (the catalog's "
     "qwen2.5-7b): write the full id, `Qwen/Qwen2.5-7B-Instruct`"),
])
def test_check_names_the_entry_of_a_typed_reference(tmp_path: Path, typed: str,
                                                    said: str) -> None:
    row = TUNED[typed]  # a tuned row: its did_you_mean is the entry the line must name
    assert row["did_you_mean"] in said
    assert said in _error(tmp_path, f"vllm serve {typed}")


def test_a_served_name_beside_mnt_models_names_its_entry(tmp_path: Path) -> None:
    """vllm-project/vllm-ascend PR 4636's --served-model-name qwen-2.5-7b-instruct, beside
    KServe's /mnt/models (a folder name that names nothing): the served name's reading is the
    hint, where there was none."""
    assert TUNED["qwen-2.5-7b-instruct"]["form"] == "served"
    msg = _error(tmp_path, "vllm serve /mnt/models --served-model-name qwen-2.5-7b-instruct")
    assert msg == (
        "'/mnt/models' is a path on the machine, and its served name 'qwen-2.5-7b-instruct' is "
        "not in the catalog (no spec has this name, hf_id or alias); set `model:` in a side "
        "file serve.kvplan.yaml to a catalog name or a spec file (its served name is another "
        "spelling of the repository name of Qwen/Qwen2.5-7B-Instruct (the catalog's "
        "qwen2.5-7b): write the full id, `Qwen/Qwen2.5-7B-Instruct`), or add the model under "
        "model_specs/")


def test_a_spec_file_and_a_served_name_beside_a_relative_folder(tmp_path: Path) -> None:
    """A missing YAML is still "no such spec file"; a relative folder with a catalog served name
    is planned from the served name, as a container's path is."""
    assert _error(tmp_path, "vllm serve ./specs/foo.yaml").endswith("'./specs/foo.yaml': no such "
                                                                     "spec file")
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve ./Models/x --served-model-name Qwen/Qwen2.5-7B-Instruct\n")
    (out,) = check_paths([str(script)], default_gpu="h100").outcomes
    assert out.model == "qwen2.5-7b"
