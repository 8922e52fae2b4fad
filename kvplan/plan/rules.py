"""The combining rules every layer shares, with no imports of their own (no cycles)."""

from __future__ import annotations

import math
from fractions import Fraction


def required_users(peak: int, headroom: Fraction | int, min_users: int | None = None) -> int:
    """What a fleet must hold: max(ceil(peak x (1 + headroom)), min_users).

    The one implementation: capacity (`FleetResult`), traffic (`Traffic`), deployments and
    `kvplan check` all call it. Rounded up: a fraction of a user is a whole user to serve.
    """
    return max(math.ceil(peak * (1 + Fraction(headroom))), min_users or 0)
