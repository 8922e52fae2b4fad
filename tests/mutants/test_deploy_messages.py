"""kvplan/v1 validation messages and the context-length distribution a deployment states, each
against the sentence or the defining property it must have."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kvplan.deploy import is_deployment, load_deployment, unused_reason
from kvplan.deploy.problems import DeploymentError
from kvplan.traffic.lengths import Empirical, LogNormal, normal_quantile

HEAD = "apiVersion: kvplan/v1\nname: t\nmodel: llama-3-8b\nhardware:\n  gpu: h100\n  count: {count}\n"
PEAK = "traffic:\n  peak_concurrent_users: 4\n"


def write(tmp_path: Path, body: str, count: object = 1, name: str = "dep.yaml") -> Path:
    path = tmp_path / name
    path.write_text(HEAD.format(count=count) + body)
    return path


@pytest.mark.parametrize(("count", "body", "where"), [
    (1, "traffic:\n  peak_concurent_users: 4\n",
     "line 8: traffic.peak_concurent_users: unknown field; did you mean 'peak_concurrent_users'?"),
    (1, PEAK + "zzz: 1\n", "line 9: zzz: unknown field; known fields: apiVersion, name, model, "
                           "hardware, parallel, engine, traffic, requirement"),
    (99999999, PEAK, "line 6: hardware.count: 99,999,999 is beyond the limit of 10,000,000 "
                     "(docs/limits.md)"),
    ("two", PEAK, "line 6: hardware.count: Input should be a valid integer, unable to parse "
                  "string as an integer (got 'two')"),
    (1, "engine:\n  name: bogus\n" + PEAK, "line 8: engine.name: Input should be 'ideal', 'vllm', "
                                           "'sglang', 'trtllm' or 'transformers' (got 'bogus')"),
    (1, "traffic:\n  arrival_rate_per_s: 1\n",
     "line 7: traffic: arrival_rate_per_s and mean_duration_s go together"),
    (1, PEAK + "  context_tokens:\n    sample: missing.csv\n", None),
])
def test_validation_messages(tmp_path: Path, count: object, body: str, where: str | None):
    path = write(tmp_path, body, count)
    with pytest.raises(DeploymentError) as err:
        load_deployment(path)
    if where is None:  # a sample that cannot be read, named by the field that states it
        where = (f"line 9: traffic.context_tokens: {tmp_path / 'missing.csv'}: cannot read file: "
                 "No such file or directory")
    assert str(err.value) == f"{path}: {where}"



def test_a_value_below_its_bound_says_what_to_do_as_a_spec_does(tmp_path: Path):
    # the deployment's and the spec's validation messages share the range hint
    path = write(tmp_path, "traffic:\n  peak_concurrent_users: -5\n")
    with pytest.raises(DeploymentError) as err:
        load_deployment(path)
    assert str(err.value) == (f"{path}: line 8: traffic.peak_concurrent_users: Input should be "
                              "greater than 0; give a value in range (kvplan's limits: "
                              "docs/limits.md)")

def test_a_yml_file_is_a_deployment(tmp_path: Path):
    assert is_deployment(write(tmp_path, PEAK, name="dep.yml"))


def test_a_sample_beside_the_deployment(tmp_path: Path):
    (tmp_path / "s.csv").write_text("tokens\n100\n200\n")
    planned = load_deployment(write(tmp_path, PEAK + "  context_tokens:\n    sample: s.csv\n"))
    assert planned.lengths == Empirical((100, 200), source="s.csv") and planned.notes == ()


def test_a_mean_and_a_p99_fit_a_capped_lognormal(tmp_path: Path):
    # mean 1,000 of lengths capped at max_model_len 8,192, p99 3,000: the lognormal whose capped
    # mean is 1,000 and whose 99th percentile is 3,000
    planned = load_deployment(write(tmp_path, PEAK + "  context_tokens:\n    p99: 3000\n"
                                                     "    mean: 1000\n"))
    d = planned.lengths
    assert isinstance(d, LogNormal)
    assert d.mean_tokens(8192) == pytest.approx(1000, rel=1e-9)
    assert math.exp(d.mu + d.sigma * normal_quantile(0.99)) == pytest.approx(3000, rel=1e-9)


def test_a_mean_and_percentile_no_lognormal_has(tmp_path: Path):
    # p95 5,000 with a mean of 1,000 under an 8,192 cap: no lognormal; sized by the mean, said so
    planned = load_deployment(write(tmp_path, PEAK + "  context_tokens:\n    mean: 1000\n"
                                                     "    p95: 5000\n"))
    assert planned.lengths is None
    (note,) = planned.notes
    assert note.startswith("traffic.context_tokens: no lognormal with p95 5,000 and lengths "
                           "capped at 8,192 has a mean of 1,000 (the nearest is ")
    assert note.endswith("; give two percentiles (p50 and p95) or a sample instead; sized by the "
                         "mean alone (no overflow risk computed)")


def test_a_model_spec_beside_the_deployment(tmp_path: Path):
    root = Path(__file__).resolve().parents[2]
    (tmp_path / "mine.yaml").write_text((root / "model_specs" / "llama-3-8b.yaml").read_text())
    path = tmp_path / "dep.yaml"
    path.write_text(HEAD.format(count=1).replace("model: llama-3-8b", "model: mine.yaml") + PEAK)
    assert load_deployment(path).request.model.name == "llama-3-8b"


def test_unused_reasons():
    assert unused_reason("ideal") == ("read only by an engine profile (vllm, sglang, trtllm, "
                                      "transformers)")
    assert unused_reason("sglang", "enforce_eager") == "only vllm reads it, not sglang"
    assert unused_reason("vllm") == ("the vllm profile sets this itself (activations, allocation, "
                                     "page size)")
