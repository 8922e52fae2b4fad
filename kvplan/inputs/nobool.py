"""true/false where a real number goes, refused by the pydantic validators' bases.

pydantic's lax mode reads `true` as 1.0 in a float field: `headroom_pct: true` planned for 1%
more users and a GPU spec's `price_per_hour_usd: true` priced it at $1 an hour, in silence
(task h51sweep). Whole-number fields refuse true/false already (strict ints, NoBool)."""

# No `from __future__ import annotations`: pydantic reads the validator's signature.
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationInfo, field_validator


def _types(annotation: Any) -> set[Any]:
    """The plain types a field's annotation admits (through Annotated, unions, Optional)."""
    args = get_args(annotation)
    if get_origin(annotation) is Annotated:
        return _types(args[0])
    if get_origin(annotation) in (Union, UnionType):
        return set().union(*(_types(a) for a in args))
    return {annotation}


def float_only(annotation: Any) -> bool:
    """A field of real numbers that does not also take true/false."""
    kinds = _types(annotation)
    return float in kinds and bool not in kinds


class NoBoolFloats(BaseModel):
    """A base whose float fields refuse true/false, with the field's own path in the error."""

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_number(cls, value: Any, info: ValidationInfo) -> Any:
        name = info.field_name
        if isinstance(value, bool) and name is not None and float_only(
                cls.model_fields[name].annotation):
            raise ValueError("expected a number, not true/false")
        return value
