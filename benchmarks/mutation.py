"""Mutation testing of kvplan's core packages with mutmut, one package at a time.

For each package the code, the spec catalogs and the tests are copied to a work directory, a
pyproject.toml there tells mutmut which files to mutate and which (fast, targeted) tests guard
them, and `mutmut run` tries every mutant against the tests that call the mutated function.
The score counts a mutant as caught when a test failed or timed out, when mypy (the CI's type
check) rejects it, or when benchmarks/results/equivalent_mutants.md documents it as an
equivalent mutant (a change no input can observe); everything else, "no tests" included, is a
survivor. One JSON line per package goes to benchmarks/results/mutation.jsonl (date, tool
version, counts, score, the survivors), and the survivors' diffs to
benchmarks/results/mutation-survivors-<package>.md.

    python benchmarks/mutation.py                  # kvplan/capacity
    python benchmarks/mutation.py traffic verdict  # others, slower
    python benchmarks/mutation.py capacity --min-score 0.9   # exit 1 below 90%
    python benchmarks/mutation.py capacity --sample '*[05]' --no-record --min-score 0.9  # CI

A kept work folder (--work DIR) is reused: the tests and code are copied over it again, mutants
not yet checked are run, and --rerun-survivors tries every survivor again (after a new test);
mutants already killed stay killed, since adding a test cannot revive one. --sample PATTERN
runs only the mutants whose names match the fnmatch pattern (e.g. '*[05]': numbers ending in 0
or 5, a fixed fifth of every function's mutants); given more than once, those matching any of
them (`--sample 'kvplan.engines.a.*' --sample 'kvplan.engines.b.*'`: two modules in one run).
"""

from __future__ import annotations

import argparse
import datetime as dt
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
EQUIVALENTS = RESULTS / "equivalent_mutants.md"
M = "tests/mutants/"
MUTMUT = Path(sys.executable).with_name("mutmut")  # the console script, not -m


@dataclass(frozen=True)
class Package:
    """What to mutate (globs relative to the root) and the tests that guard it."""

    mutate: tuple[str, ...]
    tests: tuple[str, ...]


# Every package is also guarded by the whole tests/mutants/ folder (a test file added there joins
# the next run without resetting mutmut's cached results); mutmut runs, for each mutant, only the
# tests that call the mutated function.
PACKAGES = {
    "capacity": Package(
        ("kvplan/capacity/*",),
        ("tests/test_capacity.py", "tests/catalog/test_linear_quant.py",
         "tests/catalog/test_kimi_k25.py",
         # stop 27: ModelOpt NVFP4 weights (capacity/nvfp4.py), GGUF Q8_0 (linear_quant.py)
         "tests/catalog/test_nvfp4.py", "tests/engines/test_v1_misses_h27.py",
         # stop 43: SGLang's data-parallel attention in check_parallelism
         "tests/test_capacity_attention_dp.py",
         # stop 59: dense 8-bit weights (linear_quant.py), nodes that do not divide TP x PP
         # (parallel.uneven_nodes)
         "tests/catalog/test_dense_8bit.py", "tests/check/test_nodes_split.py",
         # stop 43: the reserve of a plan whose weights overflow (plan.size's breakdown)
         "tests/test_capacity_overflow_reserve.py")),
    "engines": Package(
        ("kvplan/engines/*",),
        ("tests/engines/test_engine_profiles.py", "tests/engines/test_engine_profiles_vllm.py",
         "tests/engines/test_engine_profiles_sglang.py", "tests/engines/test_calibration.py",
         "tests/engines/test_vision_tower_v011.py", "tests/engines/test_vllm_total_bound.py",
         "tests/engines/test_vllm_08_defaults.py", "tests/engines/test_mrv2_untouched_logits.py",
         "tests/engines/test_vllm_printed_tokens.py", "tests/engines/test_vllm_rotary.py",
         "tests/engines/test_vision_tower_llama4.py", "tests/engines/test_vllm_v0_mla.py",
         "tests/engines/test_mla_replicated.py", "tests/engines/test_router16_h38.py",
         "tests/engines/test_encoder_cache.py", "tests/engines/test_flag_effects.py",
         "tests/engines/test_cov_trtllm_config.py", "tests/engines/test_vllm_hybrid.py",
         "tests/engines/test_vllm_v0_early.py", "tests/engines/test_pipeline_stages_unified.py",
         "tests/engines/test_vllm_flag_versions.py", "tests/engines/test_trtllm_source.py",
         # stop 25's engine modules: sglang_defaults, vllm_tp_workspaces, the TP transport in
         # vllm_nontorch, trtllm_pytorch and the backend setting, sglang.fraction_choice
         "tests/engines/test_sglang_tiers.py", "tests/engines/test_sglang_rocm_breakdown.py",
         "tests/engines/test_tp_transport.py", "tests/engines/test_vllm_tp_workspaces.py",
         "tests/engines/test_trtllm_backend.py",
         # stop 26: TensorRT engines' max_num_tokens defaults before 0.11, Qwen2.5-VL's vision
         # tower, vLLM 0.10's sort sampler and its path setting
         "tests/engines/test_trtllm_build_defaults.py", "tests/engines/test_vision_tower.py",
         "tests/engines/test_vllm_sort_sampler.py",
         "tests/engines/test_topk_topp_sampler_setting.py",
         "tests/engines/test_sort_sampler_rules.py",
         # stop 27: vLLM 0.2.5-0.5.4's reserved bytes, the 0.11-0.16 sort, the 0.2x mrope table
         "tests/engines/test_vllm_v0_reserved.py", "tests/engines/test_v1_misses_h27.py",
         "tests/engines/test_trtllm_mrope_table.py",
         # stop 28 (h28offline): vLLM's entrypoint defaults (vllm_entrypoint, vllm_series)
         "tests/engines/test_vllm_entrypoint.py",
         # stop 28 (h30trt): TensorRT-LLM executor runtime buffers and decoder
         "tests/engines/test_trtllm_buffers.py",
         # stop 28 (h30v0): vLLM V0 0.7+ TP terms (vllm_v0_tp, vllm_nontorch)
         "tests/engines/test_vllm_v0_tp_h30.py",
         # stop 28 (h30v1miss): PP intermediate buffers, Model Runner V2's listed architectures
         "tests/engines/test_pp_intermediate.py", "tests/engines/test_mrv2_listed.py",
         # stop 28 (h31tpterm, h31fp8w): the TP term after init, the MoE router's bytes
         "tests/engines/test_vllm_tp_after_init.py", "tests/engines/test_quant_router_h31.py",
         # stop 28 (h32qwen3vl): Qwen3-VL's dummy video and held encoder output
         "tests/engines/test_vision_tower_qwen3.py",
         # stop 28 (h33moetp): vLLM's modular MoE workspaces
         "tests/engines/test_vllm_moe_workspace.py",
         # stop 28 (h33v08, h34sglang): V1's whole-device term before 0.9.1, SGLang 0.4.2-0.4.3
         "tests/engines/test_vllm_v1_whole_device.py", "tests/engines/test_sglang_tp_startup_old.py",
         # stop 29 (h39v066, h39trtmla): V0 0.6.5-0.6.6 growth, TensorRT-LLM's trimmed LLM Args
         "tests/engines/test_vllm_v0_065_growth.py", "tests/engines/test_trtllm_trimmed_args.py",
         "tests/engines/test_trtllm_mla.py",
         # stop 44 (h44review): the one release reader (kvplan/engines/release.py)
         "tests/engines/test_release.py",
         # stop 71 (h71mut): the module tests of the engine modules added since stop 44
         "tests/engines/test_sglang_req_map.py", "tests/engines/test_vllm_tp_setup.py",
         "tests/engines/test_vllm_default_util.py",
         "tests/engines/test_vllm_load_blocks.py", "tests/engines/test_mxfp4_hopper.py",
         "tests/engines/test_trtllm_settings.py", "tests/engines/test_trtllm_checkpoint_kv.py",
         "tests/engines/test_attention_backend.py", "tests/engines/test_sglang_0523.py",
         # task h81sglmm: SGLang's multimodal reservation (kvplan/engines/sglang_mm.py)
         "tests/engines/test_sglang_mm.py",
         # task h90sglspec: SGLang's speculative decoding (kvplan/engines/sglang_spec.py)
         "tests/engines/test_sglang_spec.py", "tests/engines/test_sglang_spec_units.py",
         # task h90dtype: the compute-dtype rules by compute capability (dtype_support, dtype_trtllm)
         "tests/engines/test_dtype_support.py",
         # task h91fp8block: block-fp8 shards (kvplan/engines/fp8_blocks.py) and vLLM's
         # --disable-hybrid-kv-cache-manager (the lead added them: the module's tests were not in
         # the selection, so the script's run left all its mutants alive)
         "tests/engines/test_fp8_blocks.py", "tests/check/test_check_fp8_blocks.py",
         "tests/engines/test_vllm_disable_hybrid.py",
         # task h100sgldp: SGLang's data-parallel attention shards (kvplan/engines/sglang_dp.py)
         "tests/engines/test_sglang_dp.py",
         # task h100vllmhyb: vLLM's own hybrid-manager switches, TensorRT-LLM's block-fp8 shards
         "tests/engines/test_vllm_hybrid_off.py",
         "tests/engines/test_fp8_blocks_trtllm.py",
         # task h100mut: the three modules' other direct tests: sglang_spec's running cap in size
         # and the traffic search, dtype_trtllm's refusals through check
         "tests/engines/test_size_cap_basis.py", "tests/traffic/test_spec_running_cap.py",
         "tests/check/test_check_gpu_dtype.py", "tests/check/test_compute_dtype_choices.py",
         # task mutnew: the integer KV caches' module tests (vllm_kv_int, trtllm_kv_int) and
         # vLLM's hybrid-manager switches through check (vllm_hybrid_off): not in the selection,
         # so their mutants met only the tests of other files
         "tests/engines/test_kv_int_engines.py", "tests/check/test_check_hybrid_off.py",
         # task kimivllm: Kimi-K2.5 under vLLM (vllm_rotary, vllm_model_releases, encoder_cache)
         "tests/engines/test_vllm_kimi_k25.py",
         # task mut2: the module tests of last stop's engine changes (vllm_kv_dtypes' release
         # tables, the vLLM draft-model releases, TensorRT-LLM's FlashMLA blocks and its engine's
         # cache dtype, SGLang's --kv-cache-dtype source): in no selection until now
         "tests/engines/test_vllm_kv_dtypes.py", "tests/engines/test_vllm_draft_releases.py",
         "tests/engines/test_trtllm_pytorch_blocks.py", "tests/engines/test_trtllm_engine_kv.py",
         "tests/engines/test_sglang_kv_dtype.py")),
    "traffic": Package(
        ("kvplan/traffic/*",),
        ("tests/traffic/test_risk.py", "tests/traffic/test_search.py", "tests/traffic/test_decode.py",
         "tests/traffic/test_lengths.py", "tests/traffic/test_cov_risk.py",
         "tests/traffic/test_cov_lengths.py",
         # task h90review: a mean alone with no pool stays "point-mass"
         "tests/traffic/test_no_fit_no_spread.py",
         "tests/traffic/test_sequence_cap_with_spread.py",
         # task h100review: fleet on public request-length files, hand-computed (the exact
         # risk over 1-token pages, the point-mass reasons)
         "tests/traffic/test_public_traffic_questions.py",
         # task h101left: the at-risk basis above the mean basis (traffic's risk over block
         # counts; task mutnew found it in no selection)
         "tests/traffic/test_at_risk_above_mean.py",
         # task srefirst: a request-length file's columns that disagree, or overflow its header
         "tests/traffic/test_sample_ambiguous_columns.py", "tests/traffic/test_sample_notes.py")),
    "verdict": Package(
        ("kvplan/check/verdict.py", "kvplan/check/numbers.py", "kvplan/check/fixes.py"),
        ("tests/check/test_check_cli.py", "tests/check/test_check_cli_inputs.py",
         "tests/check/test_check_cli_formats.py", "tests/check/test_check_deploy.py",
         "tests/check/test_check_traffic.py")),
    "deploy": Package(
        ("kvplan/deploy/*",),
        ("tests/check/test_check_deploy.py", "tests/check/test_check_cli.py",
         "tests/check/test_check_cli_inputs.py", "tests/check/test_check_cli_formats.py",
         "tests/check/test_cov_deploy.py")),
    "records": Package(  # the plain records and the fast acceptor (issue #14's start-up)
        ("kvplan/plain.py", "kvplan/deploy/fast.py"),
        ("tests/schema/test_plain.py", "tests/schema/test_fast.py")),
}
GUARDS = (M,)  # with every package
NOT_IN_MUTATION = (M + "test_mutations_killed.py",)  # runs pytest in subprocesses of its own

CAUGHT = {"killed", "timeout", "caught by type check"}
# what mypy (run by CI) would reject in a mutated file: the JSON lines mutmut reads
# ("mypy" must be an item of its own: mutmut picks its parser by it)
TYPE_CHECK = [sys.executable, "-m", "mypy", "--output", "json", "--no-incremental"]
COPY = ("kvplan", "model_specs", "hardware_specs", "tests", "examples")
IGNORE = shutil.ignore_patterns("__pycache__", ".hypothesis", "*.pyc")


def documented_equivalents() -> dict[str, tuple[str | None, str]]:
    """Mutant name -> (fragment, reason), from the lines "- `name` (`fragment`): reason" of
    equivalent_mutants.md. The fragment, a piece of the mutated line, guards against a
    renumbering: mutmut numbers a function's mutants in order, so an edit to the function can
    give a documented name to another mutant; an entry whose fragment is not in its mutant's
    diff is stale and does not count."""
    if not EQUIVALENTS.exists():
        return {}
    found = re.findall(r"^- `([^`]+)`(?: \(`([^`]+)`\))?: (.+)$", EQUIVALENTS.read_text(), re.M)
    return {name: (fragment or None, reason) for name, fragment, reason in found}


def mutated_lines(diff: str) -> str:
    return "\n".join(line[1:] for line in diff.splitlines()
                     if line.startswith("+") and not line.startswith("+++"))


def pyproject(pkg: Package, type_check: bool) -> str:
    def toml_list(items: tuple[str, ...] | list[str]) -> str:
        return "[" + ", ".join(json.dumps(i) for i in items) + "]"

    ignore = [f"--ignore={t}" for t in NOT_IN_MUTATION]
    mypy = (ROOT / "pyproject.toml").read_text().split("[tool.mypy]", 1)[1].split("\n[", 1)[0]
    mutated = [m.rstrip("*") for m in pkg.mutate]
    return "\n".join([
        "[tool.pytest.ini_options]",
        'addopts = "--strict-markers -q"',
        'markers = ["slow: tests that take more than a few seconds"]',
        "",
        "[tool.mutmut]",
        'source_paths = ["kvplan"]',
        f"only_mutate = {toml_list(pkg.mutate)}",
        'also_copy = ["model_specs", "hardware_specs", "examples"]',
        f'pytest_add_cli_args = {toml_list(["-p", "no:cacheprovider", "-m", "not slow", *ignore])}',
        f"pytest_add_cli_args_test_selection = {toml_list(pkg.tests + GUARDS)}",
        f"type_check_command = {toml_list(TYPE_CHECK + mutated)}" if type_check else "",
        "",
        # mutmut's own lines carry a `type: ignore` mypy may find unused
        "[tool.mypy]" + mypy.replace('packages = ["kvplan"]', "").replace(
            "warn_unused_ignores = true", "warn_unused_ignores = false"),
    ])


def prepare(name: str, pkg: Package, work: Path, type_check: bool, keep: bool) -> tuple[Path, bool]:
    """The package's work folder: made afresh, or (keep) the code and tests copied over a kept
    one so that mutmut reuses what it checked before. Returns the folder and whether it was kept."""
    root = work / name
    kept = keep and (root / "mutants").is_dir()
    if root.exists() and not kept:
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    for part in COPY:
        shutil.copytree(ROOT / part, root / part, ignore=IGNORE, dirs_exist_ok=True)
    (root / "pyproject.toml").write_text(pyproject(pkg, type_check))
    return root, kept


def mutmut(root: Path, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run mutmut in its own process group, so that a timeout ends its forked workers too."""
    env = {**os.environ, "HYPOTHESIS_PROFILE": "ci", "PYTHONPATH": str(root)}
    env.pop("PYTEST_ADDOPTS", None)
    cmd = [str(MUTMUT)] if MUTMUT.exists() else [sys.executable, "-m", "mutmut"]
    proc = subprocess.Popen([*cmd, *args], cwd=root, env=env, text=True, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise subprocess.TimeoutExpired(proc.args, timeout or 0, out, err) from None
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


DIFFS = """
import json, sys
from mutmut.__main__ import find_mutant
from mutmut.mutation.diff_apply import get_diff_for_mutant
print(json.dumps({n: get_diff_for_mutant(n, path=find_mutant(n).path) for n in json.load(sys.stdin)}))
"""


def diffs_of(root: Path, names: list[str]) -> dict[str, str]:
    """Each mutant's diff, from one process (`mutmut show` would start one for each)."""
    if not names:
        return {}
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", DIFFS], cwd=root, env=env, text=True,
                          input=json.dumps(names), capture_output=True, check=True)
    found: dict[str, str] = json.loads(done.stdout)
    return found


def statuses(root: Path) -> dict[str, str]:
    out = mutmut(root, "results", "--all", "true").stdout
    return dict(re.findall(r"^\s+(\S+): (.+)$", out, re.M))


def matches(name: str, sample: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in sample)


def run_package(name: str, work: Path, children: int, limit_s: float, *,
                sample: list[str] | None, rerun: bool, keep: bool,
                type_check: bool) -> dict[str, object]:
    pkg = PACKAGES[name]
    root, kept = prepare(name, pkg, work, type_check, keep)
    start = time.monotonic()
    stopped = None  # why the run did not finish
    passes = [list(sample) if sample else []]
    if rerun and kept:
        equivalents = documented_equivalents()
        again = sorted(k for k, s in statuses(root).items()
                       if s not in CAUGHT and s != "not checked" and k not in equivalents
                       and (sample is None or matches(k, sample)))
        if again:
            passes.append(again)
    for names in passes:
        left = limit_s - (time.monotonic() - start)
        try:
            done = mutmut(root, "run", "--max-children", str(children), *names, timeout=left)
        except subprocess.TimeoutExpired:
            stopped = f"stopped at the {limit_s:g} s limit"
            break
        if done.returncode != 0:
            stopped = f"mutmut run exited {done.returncode}"
            print(f"{name}: mutmut run exited {done.returncode}:\n{done.stdout[-2000:]}"
                  f"{done.stderr[-3000:]}", file=sys.stderr)
            break
    seconds = round(time.monotonic() - start, 1)
    found = statuses(root)
    if sample:
        found = {k: s for k, s in found.items() if matches(k, sample)}
    equivalents = documented_equivalents()
    counts: dict[str, int] = {}
    for status in found.values():
        counts[status] = counts.get(status, 0) + 1
    checked = {k: s for k, s in found.items() if s != "not checked"}
    caught = sum(1 for s in checked.values() if s in CAUGHT)
    uncaught = sorted(k for k, s in checked.items() if s not in CAUGHT)
    diffs = diffs_of(root, uncaught)
    stale = sorted(k for k in uncaught
                   if k in equivalents and (equivalents[k][0] or "") not in mutated_lines(diffs[k]))
    equivalent = sum(1 for k in uncaught if k in equivalents and k not in stale)
    survivors = [k for k in uncaught if k not in equivalents or k in stale]
    score = (caught + equivalent) / len(checked) if checked else 0.0
    typed = sum(1 for s in checked.values() if s == "caught by type check")
    by_tests = len(checked) - typed  # the mutants mypy accepts: what the tests alone face
    tests_score = (caught - typed + equivalent) / by_tests if by_tests else 0.0
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool": "mutmut",
        "tool_version": version("mutmut"),
        "python": sys.version.split()[0],
        "package": name,
        "mutated": list(pkg.mutate),
        "tests": list(pkg.tests + GUARDS),
        "type_check": "mypy" if type_check else None,
        # one pattern as a string (as before), several as a list
        "sample": sample[0] if sample and len(sample) == 1 else sample,
        "resumed": kept,
        "survivors_rerun": rerun and kept,
        "finished": stopped is None,
        "stopped": stopped,
        "seconds": seconds,
        "max_children": children,
        "mutants": len(found),
        "checked": len(checked),
        "caught": caught,
        "equivalent_documented": equivalent,
        "survived": len(survivors),
        "counts": counts,
        "score": round(score, 4),
        "mypy_accepted": by_tests,
        "score_mypy_accepted": round(tests_score, 4),
        "survivors": survivors,
        "stale_equivalents": stale,
        "_diffs": diffs,
    }


def write_survivors(name: str, record: dict[str, object], sample: list[str] | None = None) -> None:
    """The survivors' diffs, to mutation-survivors-<package>.md; a sampled run (--sample) writes
    mutation-survivors-<package>-sample.md instead, so it never replaces a whole run's list."""
    survivors: list[str] = record["survivors"]  # type: ignore[assignment]
    diffs: dict[str, str] = record["_diffs"]  # type: ignore[assignment]
    statuses = ", ".join(f"{v} {k}" for k, v in sorted(record["counts"].items()))  # type: ignore[attr-defined]
    lines = [f"# Surviving mutants: {name}", "",
             f"mutmut {record['tool_version']}, {record['date']}: score {record['score']:.1%} "
             f"({record['caught']} caught + {record['equivalent_documented']} documented "
             f"equivalent of {record['checked']} checked; {statuses}).", "",
             "Each is either a missing test or an equivalent mutant to document in "
             "equivalent_mutants.md. Regenerated by benchmarks/mutation.py"
             + (f" (the mutants matching {' or '.join(map(repr, sample))} only)." if sample
                else "."), ""]
    for k in survivors:
        diff = "\n".join(line for line in diffs[k].splitlines()
                         if line.startswith(("+", "-")) and not line.startswith(("+++", "---")))
        lines += [f"## `{k}`", "", "```diff", diff, "```", ""]
    suffix = "-sample" if sample else ""
    (RESULTS / f"mutation-survivors-{name}{suffix}.md").write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", help=f"of {', '.join(PACKAGES)} (default: capacity)")
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--limit-s", type=float, default=3600.0, help="per package")
    parser.add_argument("--work", type=Path, default=None,
                        help="work folder, kept and reused (default: a temporary one)")
    parser.add_argument("--rerun-survivors", action="store_true",
                        help="with a kept --work folder: try every survivor again")
    parser.add_argument("--sample", default=None, metavar="PATTERN", action="append",
                        help="only mutants whose names match this fnmatch pattern (repeat: any)")
    parser.add_argument("--no-type-check", action="store_true",
                        help="do not count mutants that mypy rejects as caught")
    parser.add_argument("--no-record", action="store_true",
                        help="print the score only; leave benchmarks/results/ alone")
    parser.add_argument("--min-score", type=float, default=None, help="exit 1 below this")
    args = parser.parse_args(argv)
    unknown = [p for p in args.packages if p not in PACKAGES]
    if unknown:
        parser.error(f"unknown package {unknown[0]}; use one of {', '.join(PACKAGES)}")
    work = args.work or Path(tempfile.mkdtemp(prefix="kvplan-mutation-"))
    worst = 1.0
    for name in args.packages or ["capacity"]:
        record = run_package(name, work, args.max_children, args.limit_s, sample=args.sample,
                             rerun=args.rerun_survivors, keep=args.work is not None,
                             type_check=not args.no_type_check)
        if not args.no_record:
            write_survivors(name, record, args.sample)
            with (RESULTS / "mutation.jsonl").open("a") as f:
                f.write(json.dumps({k: v for k, v in record.items() if k != "_diffs"}) + "\n")
        print(f"{name}: score {record['score']:.1%} ({record['caught']} caught + "
              f"{record['equivalent_documented']} documented equivalent of {record['checked']} "
              f"checked; {record['survived']} survived) in {record['seconds']} s")
        print(f"{name}: of the {record['mypy_accepted']} mutants mypy accepts "
              f"{record['score_mypy_accepted']:.1%} are caught by the tests or documented")
        for k in record["survivors"]:  # type: ignore[attr-defined]
            print(f"  survived: {k}")
        for k in record["stale_equivalents"]:  # type: ignore[attr-defined]
            print(f"  stale entry in equivalent_mutants.md (its diff changed): {k}")
        worst = min(worst, float(record["score"]))  # type: ignore[arg-type]
        if not record["finished"]:
            print(f"{name}: {record['stopped']}; the score covers the mutants checked")
            worst = 0.0 if record["checked"] == 0 else worst
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if args.min_score is not None and worst < args.min_score else 0


if __name__ == "__main__":
    sys.exit(main())
