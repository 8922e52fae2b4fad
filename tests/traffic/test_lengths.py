"""Length distributions: the lognormal fit, capped means, block probabilities, sample files."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from kvplan.errors import InputError
from kvplan.traffic import Empirical, PointMass, concurrency, fit_lognormal, load_sample
from kvplan.traffic.lengths import normal_quantile


def test_normal_quantiles():
    assert normal_quantile(0.5) == pytest.approx(0.0, abs=1e-12)
    assert normal_quantile(0.95) == pytest.approx(1.6448536269514722, abs=1e-12)
    assert normal_quantile(0.99) == pytest.approx(2.3263478740408408, abs=1e-12)


def test_two_percentiles_are_fitted_exactly():
    d = fit_lognormal({0.5: 1200, 0.95: 6000})
    assert d.mu == pytest.approx(math.log(1200))
    assert d.sigma == pytest.approx(math.log(5) / 1.6448536269514722)
    assert d.quantile(0.5) == pytest.approx(1200)
    assert d.quantile(0.95) == pytest.approx(6000)


def test_three_consistent_percentiles_recover_the_lognormal():
    mu, sigma = math.log(900), 0.8
    pts = {q: math.exp(mu + sigma * normal_quantile(q)) for q in (0.5, 0.95, 0.99)}
    d = fit_lognormal(pts)
    assert (d.mu, d.sigma) == (pytest.approx(mu), pytest.approx(sigma))


def test_fit_needs_two_increasing_percentiles():
    with pytest.raises(InputError, match="two percentiles"):
        fit_lognormal({0.5: 1000})
    with pytest.raises(InputError, match="increase"):
        fit_lognormal({0.5: 1000, 0.95: 900})


def test_capped_mean_matches_monte_carlo():
    d = fit_lognormal({0.5: 1200, 0.95: 6000})
    rng = random.Random(7)
    draws = [min(rng.lognormvariate(d.mu, d.sigma), 8192) for _ in range(200_000)]
    assert d.mean_tokens(8192) == pytest.approx(sum(draws) / len(draws), rel=0.01)
    assert d.mean_tokens(10**9) == pytest.approx(math.exp(d.mu + d.sigma**2 / 2))


def test_block_pmf_sums_to_one_and_caps():
    d = fit_lognormal({0.5: 1200, 0.95: 6000})
    pmf = d.block_pmf(16, 8192)
    assert sum(pmf.values()) == pytest.approx(1.0)
    assert max(pmf) == 512
    assert pmf[512] == pytest.approx(d.share_above(8192 - 16), rel=1e-9)
    assert PointMass(2000).block_pmf(16, 8192) == {125: 1.0}
    assert PointMass(2001).block_pmf(16, 8192) == {126: 1.0}


def test_empirical_distribution():
    e = Empirical(tokens=(10, 20, 20, 40, 9000), source="t")
    assert e.block_pmf(16, 8192) == {1: 0.2, 2: 0.4, 3: 0.2, 512: 0.2}
    assert e.mean_tokens(8192) == (10 + 20 + 20 + 40 + 8192) / 5
    assert e.share_above(8192) == pytest.approx(0.2)


def test_csv_sample_with_prompt_and_output(tmp_path: Path):
    f = tmp_path / "requests.csv"
    f.write_text("request_id,prompt_tokens,output_tokens\na,100,20\nb,1000,200\n")
    assert load_sample(f).tokens == (120, 1200)


def test_jsonl_sample_with_totals_and_numbers(tmp_path: Path):
    f = tmp_path / "requests.jsonl"
    f.write_text('{"tokens": 50}\n\n{"prompt_tokens": 10, "completion_tokens": 5}\n300\n')
    assert load_sample(f).tokens == (50, 15, 300)


def test_bad_sample_names_file_and_line(tmp_path: Path):
    f = tmp_path / "bad.csv"
    f.write_text("tokens\n12\nlots\n")
    with pytest.raises(InputError, match=r"bad.csv: line 3: tokens: 'lots'"):
        load_sample(f)
    g = tmp_path / "cols.csv"
    g.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="no token count"):
        load_sample(g)


def test_littles_law():
    assert concurrency(10, 120) == 1200
    assert concurrency("2.5", 60, "1.5") == 225
    assert concurrency("0.1", 7) == 1  # 0.7 rounds up
    with pytest.raises(InputError):
        concurrency(1, 1, "0.5")


def test_a_sample_request_at_the_context_limit_is_read_and_one_above_is_refused(tmp_path: Path):
    # docs/limits.md: a request length is bounded by MAX_CONTEXT_TOKENS = 2**34 = 17,179,869,184
    at = tmp_path / "at.jsonl"
    at.write_text("17179869184\n100\n")
    assert load_sample(at).tokens == (17_179_869_184, 100)
    above = tmp_path / "above.jsonl"
    above.write_text("100\n17179869185\n")
    with pytest.raises(InputError) as err:
        load_sample(above)
    assert str(err.value) == (f"{above}: a request of 17,179,869,185 tokens is beyond the limit "
                              "of 17,179,869,184 (docs/limits.md); is the column right?")
