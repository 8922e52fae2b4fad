"""The arithmetic trail of an engine profile: `Step`s, the `Steps` builder that computes each
value from its operation, and `verify_steps`, which re-does them for `kvplan explain`.

Split from kvplan.engines.interface (which re-exports these names).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

# Arithmetic a step may claim. Arguments are labels of earlier steps or numbers.
Arg = str | int | Fraction


@dataclass(frozen=True)
class Step:
    """One line of `explain`: a labelled number, its unit, and how it follows from earlier lines.

    op: given (an input or a modelled estimate), sum (args added; a label starting with '-' is
    subtracted), mul (product, floored to an integer when unit is bytes/tokens/blocks),
    div (floor of a / b), ceildiv, min, max, ratio (a / b, not rounded).
    """

    label: str
    value: Fraction | int
    unit: str
    formula: str
    op: str = "given"
    args: tuple[Arg, ...] = ()


def _arg(values: dict[str, Fraction], a: Arg) -> Fraction:
    if isinstance(a, str):
        neg = a.startswith("-")
        key = a[1:] if neg else a
        if key not in values:
            raise KeyError(f"step refers to unknown or later step {key!r}")
        return -values[key] if neg else values[key]
    return Fraction(a)


def evaluate(step: Step, values: dict[str, Fraction]) -> Fraction:
    """What a step's operation gives from the earlier steps' values."""
    args = [_arg(values, a) for a in step.args]
    if step.op == "sum":
        return sum(args, Fraction(0))
    if step.op == "mul":
        out = math.prod(args, start=Fraction(1))
        return Fraction(math.floor(out)) if step.unit != "ratio" else out
    if step.op == "div":
        return Fraction(math.floor(args[0] / args[1]))
    if step.op == "ceildiv":
        return Fraction(math.ceil(args[0] / args[1]))
    if step.op == "min":
        return min(args)
    if step.op == "max":
        return max(args)
    if step.op == "ratio":
        return args[0] / args[1]
    raise ValueError(f"unknown op {step.op!r}")


def verify_steps(steps: Sequence[Step]) -> list[str]:
    """Re-do every step's arithmetic; returns the mismatches (empty when all add up)."""
    values: dict[str, Fraction] = {}
    problems = []
    for s in steps:
        if s.label in values:
            problems.append(f"duplicate step {s.label!r}")
        if s.op != "given":
            try:
                expect = evaluate(s, values)
            except (KeyError, ZeroDivisionError, ValueError) as err:
                problems.append(f"{s.label}: {err}")
                expect = Fraction(s.value)
            if expect != Fraction(s.value):
                problems.append(f"{s.label}: claims {s.value} but {s.op}{s.args} = {expect}")
        values[s.label] = Fraction(s.value)
    return problems


class Steps:
    """A small builder that computes each value from its operation, so steps cannot drift."""

    def __init__(self) -> None:
        self.items: list[Step] = []
        self.values: dict[str, Fraction] = {}

    def given(self, label: str, value: int | Fraction, unit: str, formula: str) -> Fraction:
        return self._add(Step(label, value, unit, formula))

    def op(self, label: str, op: str, args: Sequence[Arg], unit: str, formula: str) -> Fraction:
        probe = Step(label, 0, unit, formula, op, tuple(args))
        value = evaluate(probe, self.values)
        if value.denominator == 1:
            return self._add(replace(probe, value=int(value)))
        return self._add(replace(probe, value=value))

    def _add(self, step: Step) -> Fraction:
        self.items.append(step)
        self.values[step.label] = Fraction(step.value)
        return Fraction(step.value)

    def int(self, label: str) -> int:
        v = self.values[label]
        return math.floor(v)
