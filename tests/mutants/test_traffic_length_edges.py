"""The traffic package's length distributions, each against a value worked by hand or a
reference the module itself names: the lognormal fits' defining properties, sample files line by
line, percentiles and their description. Split from test_traffic_edges.py (476 lines) by task
h42hygiene; the curves, Little's law, block probabilities, the SLO batch, the Poisson mixture and
the sum's pmf stay there.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kvplan.errors import InputError
from kvplan.traffic.lengths import (
    Empirical,
    LogNormal,
    fit_lognormal_mean,
    load_sample,
    normal_cdf,
    normal_quantile,
)

Z95 = 1.6448536269514722


# --- lognormal fits by their defining properties


def test_mean_and_percentile_fits_at_the_bounds():
    assert fit_lognormal_mean(1, 0.95, 2).sigma == pytest.approx(Z95 - math.sqrt(
        Z95**2 - 2 * math.log(2)))  # a mean of 1 token is a mean
    assert fit_lognormal_mean(1, 0.95, 1).sigma == 0.0  # a percentile of 1 token too
    assert fit_lognormal_mean(1000, 0.5, 1000).sigma == 0.0  # median = mean: no spread
    # p95 = 3 x mean: disc = z^2 - 2 ln 3 = 0.508 (below 1, above 0): sigma = z - sqrt(disc)
    d = fit_lognormal_mean(1000, 0.95, 3000)
    assert d.sigma == pytest.approx(Z95 - math.sqrt(Z95**2 - 2 * math.log(3)))
    with pytest.raises(InputError, match="^the mean and the percentile must be positive$"):
        fit_lognormal_mean(1000, 0.95, 0)


@pytest.mark.parametrize(("mean", "level", "tokens", "cap"), [
    (1000, 0.95, 2000, 8192), (1000, 0.95, 2000, 1500), (3000, 0.95, 8000, 8192),
    (1000, 0.5, 800, 8192), (1500, 0.5, 900, 4096),
])
def test_capped_fits_have_the_stated_mean_and_percentile(mean, level, tokens, cap):
    # the fit is the lognormal whose capped mean E[min(X, cap)] is the stated mean and whose
    # quantile at `level` is the stated tokens; a percentile above the median takes the
    # smaller-spread root (sigma <= z)
    d = fit_lognormal_mean(mean, level, tokens, cap)
    assert d.mean_tokens(cap) == pytest.approx(mean, rel=1e-9)
    assert math.exp(d.mu + d.sigma * normal_quantile(level)) == pytest.approx(tokens, rel=1e-9)
    if level > 0.5:
        assert 0 <= d.sigma <= normal_quantile(level)


def test_a_capped_fit_without_spread_for_a_large_mean():
    # exp(ln 123,457) misses 123,457 by more than 1e-9 / 123,457: the rounding tolerance is
    # relative to the mean
    assert math.exp(math.log(123457)) != 123457
    d = fit_lognormal_mean(123457, 0.95, 123457, cap=200000)
    assert d.sigma == 0.0


def test_a_capped_mean_below_the_least_reachable_is_refused():
    # with p95 2,000 held, the capped mean is smallest at sigma = z; half a token below it no
    # lognormal fits, and the message says so in full
    least = LogNormal(mu=math.log(2000) - Z95 * Z95, sigma=Z95).mean_tokens(8192)
    with pytest.raises(InputError) as err:
        fit_lognormal_mean(least - 0.5, 0.95, 2000, cap=8192)
    assert str(err.value).startswith("no lognormal with p95 2,000 and lengths capped at 8,192 "
                                     "has a mean of ")
    assert str(err.value).endswith("; give two percentiles (p50 and p95) or a sample instead")


def test_the_uncapped_refusal_in_full():
    with pytest.raises(InputError) as err:
        fit_lognormal_mean(1000, 0.95, 5000)
    assert str(err.value) == ("p95 5,000 is 5.00x the mean 1,000: no lognormal has that mean and "
                              "p95 (at most 3.87x); give two percentiles (p50 and p95) or a "
                              "sample instead")


def test_a_one_token_percentile_fits():
    from kvplan.traffic.lengths import fit_lognormal

    d = fit_lognormal({0.5: 1, 0.95: 10})
    assert d.mu == pytest.approx(0.0, abs=1e-12) and d.sigma == pytest.approx(math.log(10) / Z95)


def test_a_stated_mean_just_below_the_percentile():
    # capped, p95 half a token above the mean: sigma = 0 gives a mean 0.5 too high, sigma = z a
    # mean far too low: a fit exists between them
    d = fit_lognormal_mean(1000, 0.95, 1000.5, cap=8192)
    assert d.mean_tokens(8192) == pytest.approx(1000, rel=1e-9) and 0 < d.sigma < Z95


def test_the_nearest_mean_in_the_refusal():
    # below the least capped mean (at sigma = z) the message names that least mean
    least = LogNormal(mu=math.log(2000) - Z95 * Z95, sigma=Z95).mean_tokens(8192)
    with pytest.raises(InputError) as err:
        fit_lognormal_mean(least - 30, 0.95, 2000, cap=8192)
    assert f"has a mean of {least - 30:,.0f} (the nearest is {least:,.0f});" in str(err.value)


def test_lognormal_samples():
    from kvplan.traffic.lengths import sample_lengths

    d = LogNormal(mu=math.log(1000), sigma=0.5)
    draws = sample_lengths(d, 4001)
    assert draws == sample_lengths(d, 4001, seed=0) != sample_lengths(d, 4001, seed=1)
    assert all(isinstance(t, int) and t >= 1 for t in draws)
    assert 950 <= sorted(draws)[2000] <= 1050  # the median of ln N(ln 1000, 0.5)
    tiny = sample_lengths(LogNormal(mu=math.log(0.01), sigma=0.1), 50)
    assert tiny == [1] * 50  # lengths below one token count as one


def test_lognormal_cdf_at_one_token_and_with_spread():
    assert LogNormal(mu=0.0, sigma=1.0).cdf(1) == 0.5  # ln 1 = mu: the median
    assert LogNormal(mu=0.0, sigma=2.0).cdf(math.e**2) == pytest.approx(normal_cdf(1.0))
    assert normal_cdf(1.0) == pytest.approx(0.8413447460685429)


# --- sample files


def test_sample_rows(tmp_path: Path):
    path = tmp_path / "lengths.csv"
    # an underscore-grouped number; a zero (kept out); an empty total falls back to prompt +
    # output; an empty output adds nothing; no output column counts the prompt alone
    path.write_text("total_tokens,prompt_tokens,output_tokens\n1_000,,\n0,,\n,100,20\n,50,\n")
    s = load_sample(path)
    assert s.tokens == (1000, 120, 50) and s.source == "lengths.csv"
    prompt_only = tmp_path / "prompts.csv"
    prompt_only.write_text("prompt_tokens\n100\n1\n")
    assert load_sample(prompt_only).tokens == (100, 1)  # 1 token is a length


def test_sample_refusals(tmp_path: Path):
    none = tmp_path / "none.csv"
    none.write_text("name\nx\n")
    with pytest.raises(InputError) as err:
        load_sample(none)
    assert str(err.value) == (f"{none}: line 2: no token count; give a column/key named tokens, "
                              "total_tokens, context_tokens, or prompt_tokens + output_tokens "
                              "(also read: BurstGPT's Request/Response/Total tokens, Azure's "
                              "ContextTokens + GeneratedTokens, Mooncake's input_length + "
                              "output_length, splitwise's prompt_size + token_size, vLLM/SGLang "
                              "input_lens + output_lens lists)")
    zeros = tmp_path / "zeros.csv"
    zeros.write_text("tokens\n0\n")
    with pytest.raises(InputError) as err:
        load_sample(zeros)
    assert str(err.value) == f"{zeros}: no positive token counts found"
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(InputError) as err:
        load_sample(empty)
    assert str(err.value) == f"{empty}: empty CSV; the first line must name the columns"


def test_a_sample_larger_than_a_spec_file(tmp_path: Path):
    # samples may be up to 256 MiB (MAX_LOG_BYTES), not the 16 MiB of a spec or manifest:
    # 180 rows padded to 100,000 characters each (csv's field limit is 131,072)
    path = tmp_path / "big.csv"
    pad = "x" * 100_000
    path.write_text("tokens,pad\n" + "".join(f"100,{pad}\n" for _ in range(180)))
    assert path.stat().st_size > 16 * 2**20
    assert load_sample(path).tokens == (100,) * 180


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson", ".json", ".NDJSON"])
def test_json_lines_samples(tmp_path: Path, suffix: str):
    path = tmp_path / f"lengths{suffix}"
    path.write_text('300\n\n{"prompt_tokens": 10, "output_tokens": 5}\n')
    s = load_sample(path)
    assert s.tokens == (300, 15) and s.source == path.name


def test_json_lines_errors_name_the_line(tmp_path: Path):
    path = tmp_path / "bad.jsonl"
    path.write_text('300\n"text"\n')
    with pytest.raises(InputError) as err:
        load_sample(path)
    assert str(err.value) == f"{path}: line 2: expected an object or a whole number"
    broken = tmp_path / "broken.jsonl"
    broken.write_text('300\n{"tokens": \n')
    with pytest.raises(InputError) as err:
        load_sample(broken)
    assert str(err.value).startswith(f"{broken}: line 2")


def test_percentiles_and_description():
    s = Empirical(tuple(range(1, 101)))  # 1 .. 100
    assert [s.percentile(q) for q in (0.005, 0.01, 0.5, 0.95, 0.99, 1.0)] == [1, 1, 50, 95, 99, 100]
    assert s.describe() == "100 lengths from sample: p50 50, p95 95, p99 99 tokens"
    three = Empirical((30, 10, 20), source="x.csv")
    assert (three.percentile(0.34), three.percentile(0.67)) == (20, 30)  # ceil(1.02) = 2nd
