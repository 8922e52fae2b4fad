"""Round blind-2026-12-07-r6 (task h71corpus): 18 deployments users keep in their own
repositories (tests/assets/check/corpus, sources in its SOURCES.md), and the two reader fixes
the round found. Expected texts and numbers are worked out by hand from the file and the spec
named."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from tests.check.check_api import corpus_outcomes, score_blind_round

ASSETS = Path(__file__).parents[1] / "assets" / "check"
CORPUS = ASSETS / "corpus"
ROUND = "blind-2026-12-07-r6"
ZERO = ("replicas: 0 (scaled to zero: an autoscaler, an HPA, KEDA or Knative, sets the count, "
        "or the workload is parked): checked as the first replica it starts")


def test_a_deployment_scaled_to_zero_is_checked_as_its_first_replica() -> None:
    """DrOSAlchemist/keda-scale-zero-gpu-inference k8s/vllm-deployment.yaml: `replicas: 0`
    (KEDA scales it from zero), vllm/vllm-openai:v0.10.2 serving Qwen/Qwen2.5-1.5B-Instruct on
    one GPU. It was an ERROR "0 replicas hold no users", no start-up check at all, where KubeAI's
    and OME's minReplicas 0 are checked as the first replica they start; now the same."""
    [o] = corpus_outcomes("user-repos/keda-scale-zero-vllm-deployment.yaml")
    assert (o.verdict, o.model, o.engine, o.engine_version, o.gpu) == (
        "WARN", "qwen2.5-1.5b", "vllm", "0.10.2", None)
    assert ZERO in o.notes


def _zero(tmp_path: Path, replicas: int) -> Path:
    f = tmp_path / f"r{replicas}.yaml"
    f.write_text(
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: q}}\nspec:\n  replicas: "
        f"{replicas}\n  template:\n    spec:\n      nodeSelector: {{cloud.google.com/gke-accelerator: "
        "nvidia-l4}\n      containers:\n      - name: v\n        image: vllm/vllm-openai:v0.10.2\n"
        "        args: [--model, Qwen/Qwen2.5-1.5B-Instruct, --max-model-len, '4096']\n"
        "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    return f


def test_zero_replicas_plan_one_replicas_gpus(tmp_path: Path) -> None:
    """On a named L4: 3.09 GB of weights and a 4,096 x 28,672 B sequence start (PASS); the
    fleet is one replica's one GPU at replicas 0, two at replicas 2 (the count still read)."""
    [zero] = check_paths([str(_zero(tmp_path, 0))]).outcomes
    [two] = check_paths([str(_zero(tmp_path, 2))]).outcomes
    assert (zero.verdict, zero.gpu, zero.numbers.gpus) == ("PASS", "l4", 1)
    assert ZERO in zero.notes
    assert (two.verdict, two.numbers.gpus) == ("PASS", 2)
    assert not any("scaled to zero" in n for n in two.notes)


def test_a_kserve_predictor_at_min_replicas_0_names_that_field(tmp_path: Path) -> None:
    """KServe's `minReplicas: 0` (Knative scales the predictor from zero) was the same ERROR;
    it is checked as the first replica too, the note naming minReplicas, not `replicas`."""
    f = tmp_path / "isvc.yaml"
    f.write_text("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: q}"
                 "\nspec:\n  predictor:\n    minReplicas: 0\n    containers:\n    - name: c\n"
                 "      image: vllm/vllm-openai:v0.10.2\n      args: [--model, "
                 "Qwen/Qwen2.5-1.5B-Instruct, --max-model-len, '4096']\n"
                 "      resources: {limits: {nvidia.com/gpu: 1}}\n")
    [o] = check_paths([str(f)], default_gpu="l4").outcomes
    assert (o.verdict, o.numbers.gpus) == ("PASS", 1)
    assert ZERO.replace("replicas: 0", "minReplicas: 0", 1) in o.notes


def test_an_unrendered_image_naming_vllm_is_refused_not_skipped() -> None:
    """rakanbakir/vllm-gpu-cluster kubernetes/vllm-deployment.yaml: image
    `${ECR_REGISTRY}/mal-vllm-opt125m:${IMAGE_TAG}` (an envsubst template) running
    `/entrypoint.sh` with VLLM_* settings in env. A folder walk skipped it as running no engine
    (`check_paths` of the file alone: "nothing that runs vLLM ..."); now an ERROR at the image's
    line (62) that says render first."""
    [o] = corpus_outcomes("user-repos/vllm-gpu-cluster-vllm-deployment.yaml")
    assert (o.verdict, o.name, o.line) == ("ERROR", "vllm-opt125m", 62)
    assert [(p.field, p.line, p.message) for p in o.problems] == [(
        "image", 62, "image '${ECR_REGISTRY}/mal-vllm-opt125m:${IMAGE_TAG}' is an unrendered "
        "template naming vllm, and the server command is not in the file (its command runs no "
        "server kvplan reads): render first (helm template / kustomize build / envsubst), then "
        "write the server in `command:` or describe the deployment in a kvplan/v1 file")]


def test_an_unrendered_image_naming_no_engine_stays_skipped(tmp_path: Path) -> None:
    """`${REGISTRY}/billing-api:${TAG}` names no engine: a folder of such apps is not made an
    ERROR (the gate then says nothing was checked, as before)."""
    f = tmp_path / "app.yaml"
    f.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  template:\n"
                 "    spec:\n      containers:\n      - name: a\n        image: "
                 "${REGISTRY}/billing-api:${TAG}\n        command: [/entrypoint.sh]\n"
                 "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    report = check_paths([str(tmp_path)])
    assert (report.outcomes, report.skipped) == ([], [str(f)])


def test_a_dynamo_frontend_on_a_templated_runtime_image_is_not_refused() -> None:
    """The narrowing: dynamo/disagg.yaml's Frontend runs `python3 -m dynamo.frontend` on the
    workers' `nvcr.io/nvidia/ai-dynamo/vllm-runtime:${VERSION}` image; a first try of the fix
    gave it an ERROR of its own. Only a document that gives no result otherwise is refused."""
    assert [(o.verdict, o.name) for o in corpus_outcomes("dynamo/disagg.yaml")] == [
        ("WARN", "VllmDecodeWorker"), ("WARN", "VllmPrefillWorker")]



def test_blind_round_6_is_scored_on_its_own() -> None:
    """The 18 files of round blind-2026-12-07-r6, verdicts and key fields committed (be45135)
    before kvplan ran on them; 6 held out (every third row of SOURCES.md). First measured:
    development verdicts 11 of 12 (keda-scale-zero: replicas 0 an ERROR), fields 20 of 24;
    held out verdicts 5 of 6 (gpu-autoscale-inference: replicas 0 an ERROR, the same defect),
    fields 13 of 16. After the two fixes above: development 12 of 12, fields 24 of 24; held out
    6 of 6, fields 15 of 16 (the held-out match is not out-of-sample: the fix came from the
    development file). The field miss left is the hand's: lws-usage-sglang's leader container
    has `volumeMounts` twice, a duplicate key kvplan refuses first, before the `/bin/boot.sh`
    the hand named."""
    blind, misses, field_misses = score_blind_round(ROUND)
    assert len(blind) == 18 and sum(bool(e.get("held_out")) for e in blind.values()) == 6
    assert misses == {}
    assert field_misses == [("lws/lws-usage-sglang.yaml", "error")]


def _scripted(tmp_path: Path, image: str) -> Path:
    f = tmp_path / "scripted.yaml"
    f.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: s}\nspec:\n  template:\n"
        f"    spec:\n      containers:\n      - name: s\n        image: {image}\n"
        "        command: [bash, -c, /bin/boot.sh]\n"
        "        env: [{name: UPSTREAM, value: 'http://vllm:8000'},"
        " {name: BUILT_FROM, value: 'vllm-project/vllm@0035bdf'}]\n"
        "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    return f


def test_a_mirrored_engine_image_running_a_script_is_refused_not_skipped(tmp_path: Path) -> None:
    """Seen on the held-out zhaotyer/lws_usage sglang.yaml (its verdict matched for another
    reason: a duplicate key): `harbor.transwarp.io/aip-amd/sglang:v0.5.6` running `bash -c
    /bin/boot.sh` (a script from the host) was skipped as running no engine, where
    `lmsysorg/sglang` with the same script is an ERROR naming SGLang. An image whose repository
    is `sglang` or `vllm` on any registry now names its engine (no figure of the round moves)."""
    for image, engine in (("harbor.example.io/aip-amd/sglang:v0.5.6", "SGLang"),
                          ("rocm/vllm:rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6", "vLLM")):
        [o] = check_paths([str(_scripted(tmp_path, image))]).outcomes
        assert (o.verdict, [p.field for p in o.problems]) == ("ERROR", ["command"])
        assert o.problems[0].message.startswith(
            f"this Deployment runs {engine}, but not through a server command kvplan reads")


def test_a_urls_host_or_a_git_ref_named_vllm_runs_no_engine(tmp_path: Path) -> None:
    """`http://vllm:8000` (a client's upstream) and `vllm-project/vllm@0035bdf` (a commit) in
    the env of an app image are not images of vLLM: the folder walk still skips the file."""
    f = _scripted(tmp_path, "registry.example.io/team/app:1.0")
    report = check_paths([str(tmp_path)])
    assert (report.outcomes, report.skipped) == ([], [str(f)])
