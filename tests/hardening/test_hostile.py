"""The audit's hostile inputs (issue #17), one fixture per failure mode under tests/assets/hostile.

Each runs `python -m kvplan` in a child process with its address space capped at 500 MB
(RLIMIT_AS) and must end in under 5 CPU seconds with the expected exit code, one error line
and no traceback. CPU seconds, not wall time: two cores are shared, and a loaded machine must
not fail a test the code passes; an alias bomb or a 300M-layer spec burns seconds of CPU.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.hardening.limited import (
    assert_bounded,
    one_error_line,
    run_limited,
)

HOSTILE = Path(__file__).resolve().parents[1] / "assets" / "hostile"
H = str(HOSTILE)
FLEET = ("fleet", "llama-3-8b", "--gpu", "h100", "-n", "100")

# (id, argv, exit code, text the one error line must hold)
CASES: list[tuple[str, tuple[str, ...], int, str]] = [
    # denial of service
    ("alias-bomb-deployment", ("fleet", f"{H}/alias-bomb-deployment.yaml"), 2,
     "expands to more than 200,000 values"),
    ("layers-300m", ("size", f"{H}/layers-300m.yaml", "--gpu", "h100"), 2,
     "num_layers: Input should be less than or equal to 10000"),
    ("layers-1e30", ("size", f"{H}/layers-1e30.yaml", "--gpu", "h100"), 2,
     "num_layers: Input should be less than or equal to 10000"),
    ("deep-nesting", ("size", f"{H}/deep-nesting.yaml", "--gpu", "h100"), 2, "nest"),
    # non-UTF-8 files, for every command that reads one
    ("binary-size", ("size", f"{H}/binary.yaml", "--gpu", "h100"), 2, "binary data"),
    ("binary-fleet", ("fleet", f"{H}/binary.yaml", "--gpu", "h100", "-n", "10"), 2, "binary data"),
    ("binary-plot", ("plot", "memory", f"{H}/binary.yaml", "--gpu", "h100"), 2, "binary data"),
    ("binary-explain", ("explain", f"{H}/binary.yaml", "--gpu", "h100"), 2, "binary data"),
    ("binary-import", ("import", f"{H}/binary.yaml"), 2, "binary data"),
    ("binary-gpu-file", ("size", "llama-3-8b", "--gpu", f"{H}/binary.yaml"), 2, "binary data"),
    ("utf16-no-bom", ("size", f"{H}/utf16-no-bom.yaml", "--gpu", "h100"), 2,
     "looks like UTF-16 without a byte-order mark"),
    ("prices-binary", (*FLEET, "--prices", f"{H}/binary.yaml"), 2, "binary data"),
    ("sample-binary", (*FLEET, "--context-sample", f"{H}/sample-binary.csv"), 2, "binary data"),
    ("log-binary", ("calibrate", f"{H}/binary.yaml"), 2, "not UTF-8 text"),
    # nan / inf options
    ("kv-budget-nan", ("size", "llama-3-8b", "--gpu", "h100", "--kv-budget-gib", "nan"), 2,
     "must be a finite number, got nan"),
    ("reserve-inf", ("size", "llama-3-8b", "--gpu", "h100", "--reserve-gib", "inf"), 2,
     "must be a finite number, got inf"),
    ("headroom-nan", (*FLEET, "--headroom", "nan"), 2, "must be a finite number, got nan"),
    ("price-nan", (*FLEET, "--price-per-hour", "nan"), 2, "finite"),
    ("prices-file-nan", (*FLEET, "--prices", f"{H}/prices-nan.yaml"), 2,
     "'.nan' is not a finite number"),
    # -o that cannot be written
    ("output-folder", ("size", "llama-3-8b", "--gpu", "h100", "-o", H), 2, "is a folder"),
    ("output-unwritable", ("size", "llama-3-8b", "--gpu", "h100", "-o", "/proc/kvplan.json"), 2,
     "cannot write"),
    ("output-no-folder", ("size", "llama-3-8b", "--gpu", "h100", "-o", "/nonexistent/x.json"), 2,
     "does not exist"),
    # calibrate
    ("log-zero-gib", ("calibrate", f"{H}/log-zero-gib.log"), 2, "total memory as 0.0 GiB"),
    ("log-empty", ("calibrate", f"{H}/log-empty.log"), 2, "the file is empty"),
    # import
    ("import-layers-1e30", ("import", f"{H}/config-layers-1e30.json"), 2,
     "'num_hidden_layers' is 1,000,000,000,000,000,000,000,000,000,000, above kvplan's limit"),
    ("import-kv-above-heads", ("import", f"{H}/config-kv-heads-above-heads.json"), 2,
     "num_kv_heads (64) must divide num_attention_heads (32)"),
    ("import-nan", ("import", f"{H}/config-nan.json"), 2, "NaN is not a finite number"),
    ("import-duplicate", ("import", f"{H}/config-duplicate-key.json"), 2,
     "duplicate key 'model_type'"),
    # accepted before, wrongly
    ("tp-3", ("size", "llama-3-8b", "--gpu", "h100", "--tp", "3"), 2,
     # 32 heads, 8 KV heads: TP in {1,2,4,8} divides both; 16 and 32 are multiples of 8
     "valid --tp values: 1, 2, 4, 8, 16, 32"),
    ("tp-million", ("size", "llama-3-8b", "--gpu", "h100", "--tp", "1000000"), 2,
     "beyond the limit of 4,096"),
    ("phi-4-tp-4", ("size", "phi-4", "--gpu", "h100", "--tp", "4"), 2,
     # 40 heads, 10 KV heads: 4 divides 40 but not 10, and 10 is not a multiple of 4
     "tensor parallelism 4 does not divide phi-4's 10 KV heads"),
    ("tp-16-one-node", ("size", "llama-3-8b", "--gpu", "h100", "--tp", "16"), 2,
     "spans more than one node of 8 GPUs"),
    ("kv-heads-above-heads", ("size", f"{H}/kv-heads-above-heads.yaml", "--gpu", "h100"), 2,
     "num_kv_heads (64) must divide num_attention_heads (32)"),
    ("layers-true", ("size", f"{H}/layers-true.yaml", "--gpu", "h100"), 2,
     "num_layers: Input should be a valid integer"),
    ("layers-nan", ("size", f"{H}/layers-nan.yaml", "--gpu", "h100"), 2,
     "line 11: '.nan' is not a finite number"),
    ("duplicate-key", ("size", f"{H}/duplicate-key.yaml", "--gpu", "h100"), 2,
     "line 12: duplicate key 'num_layers' (first on line 11)"),
]


@pytest.mark.parametrize(("argv", "code", "text"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hostile_input_is_refused_in_one_line(argv: tuple[str, ...], code: int, text: str) -> None:
    out = run_limited(*argv)
    assert out.code == code, out.stderr
    line = one_error_line(out)
    assert line.lower().startswith("error"), line
    assert text in line, line
    assert_bounded(out)


def test_alias_bomb_in_a_manifest_is_refused_and_named_under_check() -> None:
    """The bomb sits in a ConfigMap beside a workload: it is never expanded, it is named on its
    own line, and the StatefulSet beside it is still judged (each document on its own)."""
    out = run_limited("check", f"{H}/alias-bomb-manifest.yaml")
    assert out.code == 0, out.stdout + out.stderr
    ignored = [ln for ln in out.stdout.splitlines() if ln.startswith("ignored:")]
    # the bomb's ConfigMap document begins on line 5 (after two comments, `---` and a comment)
    assert ignored == [f"ignored: {H}/alias-bomb-manifest.yaml:5: expands to more than 200,000 "
                       "values (aliases repeated inside aliases); write the values out"]
    assert any(ln.startswith("PASS") for ln in out.stdout.splitlines())
    assert_bounded(out)


def test_a_huge_spec_on_the_search_path_does_not_hide_the_catalog(tmp_path: Path) -> None:
    (tmp_path / "model_specs").mkdir()
    shutil.copy(HOSTILE / "layers-1e30.yaml", tmp_path / "model_specs" / "layers-1e30.yaml")
    out = run_limited("models", "--format", "json", env={"KVPLAN_SPECS_PATH": str(tmp_path)})
    assert_bounded(out)
    assert '"llama-3-8b"' in out.stdout  # the catalog is still listed
    assert "layers-1e30.yaml: num_layers: Input should be less than or equal to 10000" in out.stderr


def test_a_binary_spec_on_the_search_path_is_named_by_models_and_gpus(tmp_path: Path) -> None:
    for kind in ("model_specs", "hardware_specs"):
        (tmp_path / kind).mkdir()
        shutil.copy(HOSTILE / "binary.yaml", tmp_path / kind / "junk.yaml")
    for command, listed in (("models", '"llama-3-8b"'), ("gpus", '"h100-sxm-80gb"')):
        out = run_limited(command, "--format", "json", env={"KVPLAN_SPECS_PATH": str(tmp_path)})
        assert_bounded(out)
        assert listed in out.stdout
        assert "junk.yaml: binary data (a NUL byte at offset 0)" in out.stderr


def test_utf16_with_a_bom_is_read() -> None:
    out = run_limited("size", f"{H}/utf16-bom.yaml", "--gpu", "h100", "--format", "json")
    assert out.code == 0, out.stderr
    data = json.loads(out.stdout)["results"][0]  # one record: {"results": [...]}
    # llama-3-8b's shapes: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes = 131,072 B/token;
    # pool = floor(85,045,477,376 x 0.9) - 16,060,522,496 weights - 2 GiB reserve
    #      = 58,332,923,494 B; one 8,192-token sequence = 1,073,741,824 B; floor(54.3) = 54
    assert data["model"] == "utf16-bom"
    assert data["kv_bytes_per_token"] == 131072
    assert data["users_per_gpu"] == 54
    assert_bounded(out)


def test_a_manifest_whose_metadata_is_not_a_mapping_is_judged_not_crashed() -> None:
    """Found by tests/fuzz: the old k8s.py read `metadata: -1` with .get() (exit 3). It was
    then read as no metadata in silence (a WARN on the container); since task h46silent the
    metadata (where kvplan.io/ annotations live) of the wrong type is named: one ERROR with
    its line (4), exit 2, never an internal error."""
    out = run_limited("check", f"{H}/manifest-metadata-not-mapping.yaml")
    assert out.code == 2, out.stdout + out.stderr
    assert ("ERROR line 4: metadata: must be a mapping (Kubernetes ObjectMeta), got a number "
            "('-1'); write it as a mapping, or remove it") in out.stdout
    assert "Traceback" not in out.stderr
    assert_bounded(out)
