"""Length distributions at their edges, against worked values: quantile levels, the abstract
base, a zero-spread lognormal, each refusal of the lognormal fits, samples."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from kvplan.errors import InputError
from kvplan.traffic.lengths import (
    Empirical,
    LengthDistribution,
    LogNormal,
    PointMass,
    fit_lognormal,
    fit_lognormal_mean,
    load_sample,
    normal_quantile,
    sample_lengths,
)

Z95 = 1.6448536269514722  # the standard normal's 95th percentile (published tables: 1.64485)


def test_normal_quantile_levels():
    assert normal_quantile(0.975) == pytest.approx(1.959963984540054, abs=1e-12)
    assert normal_quantile(0.95) == pytest.approx(Z95, abs=1e-12)
    for bad in (0.0, 1.0):
        with pytest.raises(ValueError, match=r"quantile level must be in \(0, 1\)"):
            normal_quantile(bad)


def test_the_base_distribution_is_abstract():
    base = LengthDistribution()
    for call in (lambda: base.cdf(1), lambda: base.mean_tokens(1),
                 lambda: base.sample(random.Random(0)), base.describe):
        with pytest.raises(NotImplementedError):
            call()


def test_point_mass_and_its_samples():
    d = PointMass(300)
    assert d.sample(random.Random(1)) == 300
    assert sample_lengths(d, 3) == [300, 300, 300]
    assert d.describe() == "every conversation 300 tokens (mean only, no spread)"
    assert (d.cdf(299), d.cdf(300), d.mean_tokens(200)) == (0.0, 1.0, 200.0)


def test_a_lognormal_without_spread_is_a_step():
    d = LogNormal(mu=math.log(1000), sigma=0.0)
    assert (d.cdf(999), d.cdf(1000), d.cdf(0)) == (0.0, 1.0, 0.0)
    assert d.mean_tokens(800) == 800 and d.mean_tokens(4000) == pytest.approx(1000)


def test_two_percentiles_fit_exactly():
    # ln p50 = mu, ln p95 = mu + z95 sigma: sigma = ln 4 / z95
    d = fit_lognormal({0.5: 1000, 0.95: 4000})
    assert d.mu == pytest.approx(math.log(1000)) and d.sigma == pytest.approx(math.log(4) / Z95)


@pytest.mark.parametrize(("percentiles", "message"), [
    ({0.5: 1000}, "a lognormal needs at least two percentiles"),
    ({0.5: 0, 0.95: 4000}, "p50 must be positive, got 0"),
    ({0.5: 4000, 0.95: 4000}, "percentiles must increase: p50 < p95 < p99"),
])
def test_percentile_fits_refused(percentiles: dict, message: str):
    with pytest.raises(InputError, match=f"^{message}"):
        fit_lognormal(percentiles)


def test_mean_and_a_percentile_fit():
    # uncapped, median below the mean: sigma = sqrt(2 ln(mean / p50)) = sqrt(2 ln 2)
    d = fit_lognormal_mean(1000, 0.5, 500)
    assert d.sigma == pytest.approx(math.sqrt(2 * math.log(2))) and d.mu == pytest.approx(
        math.log(500))
    # uncapped p95 = 2 x mean: sigma^2 / 2 - z sigma + ln 2 = 0, the smaller root
    d = fit_lognormal_mean(1000, 0.95, 2000)
    assert d.sigma == pytest.approx(Z95 - math.sqrt(Z95**2 - 2 * math.log(2)))
    assert math.exp(d.mu + d.sigma**2 / 2) == pytest.approx(1000)
    # capped, the percentile equal to the mean: no spread at all (exp(ln 1000) is
    # 999.9999999999998: this was refused as "no lognormal ... has a mean of 1,000 (the
    # nearest is 1,000)" until the comparison allowed for rounding)
    for tokens in (1000, 1024):
        d = fit_lognormal_mean(tokens, 0.95, tokens, cap=8192)
        assert d.sigma == 0.0 and d.mu == pytest.approx(math.log(tokens))


@pytest.mark.parametrize(("args", "message"), [
    ((0, 0.95, 1000), "the mean and the percentile must be positive"),
    ((1000, 0.5, 2000), "p50 2,000 is above the mean 1,000: a lognormal's median never is"),
    ((1000, 0.95, 900), "p95 900 is below the mean 1,000; give two percentiles"),
    # exp(z95^2 / 2) = 3.87: no lognormal has a p95 five times its mean
    ((1000, 0.95, 5000), r"p95 5,000 is 5.00x the mean 1,000: no lognormal has that mean and "
                         r"p95 \(at most 3.87x\)"),
    # capped at 1,200 no mean is above 1,200
    ((1300, 0.95, 5000, 1200), r"no lognormal with p95 5,000 and lengths capped at 1,200 has a "
                               r"mean of 1,300 \(the nearest is 1,200\)"),
])
def test_mean_fits_refused(args: tuple, message: str):
    with pytest.raises(InputError, match=f"^{message}"):
        fit_lognormal_mean(*args)


def test_an_empty_sample_is_refused():
    with pytest.raises(InputError, match="^sample: no lengths in the sample$"):
        Empirical(())


def test_empirical_samples_come_from_the_sample():
    d = Empirical((100, 200, 300))
    rng = random.Random(7)
    assert {d.sample(rng) for _ in range(50)} == {100, 200, 300}


def test_a_negative_count_is_refused(tmp_path: Path):
    path = tmp_path / "lengths.csv"
    path.write_text("prompt_tokens,output_tokens\n100,-5\n")
    with pytest.raises(InputError, match=f"^{path}: line 2: output_tokens: must not be "
                                         "negative, got -5; a request holds 0 tokens or more: "
                                         "correct the value or drop the row$"):
        load_sample(path)
