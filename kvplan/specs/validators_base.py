"""The spec validators' shared base: strict parsing and the bounded integer types (every count
has a ceiling far above any real model, docs/limits.md). Split from kvplan.specs.validators."""

# No `from __future__ import annotations`: pydantic would evaluate every string annotation again
# when each class is made (see kvplan.specs.validators).
from typing import Annotated

from pydantic import ConfigDict, Field

from kvplan.inputs import limits as lim
from kvplan.inputs.nobool import NoBoolFloats

PositiveInt = Annotated[int, Field(gt=0, strict=True)]
Layers = Annotated[int, Field(gt=0, le=lim.MAX_LAYERS, strict=True)]
Heads = Annotated[int, Field(gt=0, le=lim.MAX_HEADS, strict=True)]
HeadDim = Annotated[int, Field(gt=0, le=lim.MAX_HEAD_DIM, strict=True)]
Width = Annotated[int, Field(gt=0, le=lim.MAX_HIDDEN, strict=True)]
Tokens = Annotated[int, Field(gt=0, le=lim.MAX_CONTEXT_TOKENS, strict=True)]
Experts = Annotated[int, Field(gt=0, le=lim.MAX_EXPERTS, strict=True)]
Params = Annotated[int, Field(gt=0, le=lim.MAX_PARAMS, strict=True)]
MemBytes = Annotated[int, Field(gt=0, le=lim.MAX_MEMORY_BYTES, strict=True)]
SmiMib = Annotated[int, Field(gt=0, le=lim.MAX_NVIDIA_SMI_MIB, strict=True)]


class Strict(NoBoolFloats):
    """Base for every spec: unknown keys are errors, values are not coerced silently (a float
    field refuses true/false: kvplan.inputs.nobool)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, defer_build=True)
