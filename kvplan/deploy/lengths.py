"""The conversation lengths a deployment file states: a sample file, or a lognormal fitted to
percentiles or to the mean and one percentile."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvplan.deploy.schema import ContextTokens
from kvplan.errors import InputError

if TYPE_CHECKING:
    from kvplan.traffic.lengths import LengthDistribution

def context_distribution(
    ctx: ContextTokens, max_tokens: int, base_dir: Path | None, fail: Any, note: Any
) -> LengthDistribution | None:
    """The conversation lengths the file states: a sample, a lognormal fitted to two or more
    percentiles, or to the mean and one percentile; None for a mean alone (no spread)."""
    from kvplan.traffic.lengths import fit_lognormal, fit_lognormal_mean, load_sample

    pairs = ((0.5, ctx.p50), (0.95, ctx.p95), (0.99, ctx.p99))
    given = {q: float(v) for q, v in pairs if v is not None}
    try:
        if ctx.sample is not None:
            sample = Path(ctx.sample)
            if not sample.is_absolute() and base_dir is not None:
                sample = base_dir / sample
            def said(text: str) -> None:
                note(f"traffic.context_tokens.sample {text}")

            lengths = load_sample(sample, said)
            longer = sum(n > max_tokens for n in lengths.tokens)
            if longer:  # task srefirst: said only in the JSON's assumptions until then
                said(f"{sample.name}: {longer:,} of {len(lengths.tokens):,} requests "
                     f"({longer / len(lengths.tokens):.1%}) are longer than max_model_len "
                     f"{max_tokens:,}: planned at {max_tokens:,} tokens; raise the context "
                     "(--context, engine.max_model_len) if they must be served whole")
            return lengths
        if len(given) >= 2:
            fitted = fit_lognormal(given)
            if ctx.mean is not None:  # the percentiles decide; say so when the mean disagrees
                fit_mean = fitted.mean_tokens(max_tokens)
                if abs(fit_mean - ctx.mean) > 0.05 * ctx.mean:
                    note(f"traffic.context_tokens: the lognormal fitted to the percentiles has "
                         f"a mean of {fit_mean:,.0f} tokens (capped at {max_tokens:,}), not the "
                         f"stated {ctx.mean:,}; sized by the percentiles")
            return fitted
        if given and ctx.mean is not None:
            ((level, tokens),) = given.items()
            # the stated mean is of served lengths, which max_model_len caps
            try:
                return fit_lognormal_mean(float(ctx.mean), level, tokens, max_tokens)
            except InputError as err:  # a tail heavier than a lognormal's: size by the mean
                note(f"traffic.context_tokens: {err}; sized by the mean alone (no overflow "
                     "risk computed)")
                return None
    except (InputError, ValueError, OSError) as err:
        fail("traffic.context_tokens", str(err))
    return None
