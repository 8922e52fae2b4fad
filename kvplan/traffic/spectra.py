"""The pmf transforms of conversation-size lattices, kept a while in one bounded LRU.

A fix search asks the same lattice for its transform again and again (each GPU, each pool);
a run over many files asks each lattice once. So transforms are kept per lattice object,
most recent last, and the oldest go once all of them hold more than SPECTRA_BUDGET values.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from kvplan.traffic.risk import SequenceLattice

# Transforms kept, most recent last: {(id(lattice), size): (lattice, array)}; -size holds
# ln |phi|. The lattice is held with its arrays (so its id is not reused while they are
# kept). A fix search asks the same lattice again and again; a run over many files asks
# each once, so the oldest go past SPECTRA_BUDGET values in all.
_SPECTRA: OrderedDict[tuple[int, int], tuple[SequenceLattice, np.ndarray]] = OrderedDict()
SPECTRA_BUDGET = 1 << 23  # array values (at most ~100 MiB)
_held = [0]


def recall(lat: SequenceLattice, size: int) -> np.ndarray | None:
    hit = _SPECTRA.get((id(lat), size))
    if hit is None:
        return None
    _SPECTRA.move_to_end((id(lat), size))
    return hit[1]


def keep(lat: SequenceLattice, size: int, arr: np.ndarray) -> np.ndarray:
    _SPECTRA[(id(lat), size)] = (lat, arr)
    _held[0] += arr.size
    while _held[0] > SPECTRA_BUDGET and len(_SPECTRA) > 1:
        _, (_, old) = _SPECTRA.popitem(last=False)
        _held[0] -= old.size
    return arr
