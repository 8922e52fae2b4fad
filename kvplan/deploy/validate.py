"""kvplan/v1 documents validated: one Problem per error, with its line and a 'did you mean'."""

from __future__ import annotations

import difflib
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_core import ValidationError  # pydantic's model machinery only on its path

from kvplan.deploy.problems import DeploymentError, Problem
from kvplan.deploy.schema import API_VERSION, Deployment
from kvplan.specs.loader import RANGE_HINT, is_bound

if TYPE_CHECKING:
    from kvplan.deploy.yamldoc import Doc

def is_deployment(path: Path) -> bool:
    """True when a YAML file declares `apiVersion: kvplan/v1`."""
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        return False
    from kvplan.deploy.yamldoc import read_docs

    try:
        docs = read_docs(path)
    except DeploymentError:
        return False
    return bool(docs) and isinstance(docs[0].data, dict) and "apiVersion" in docs[0].data


def _model_at(cls: Any, loc: tuple[Any, ...]) -> Any:
    """The validator class that holds the field at `loc` (for 'did you mean')."""
    from pydantic import BaseModel

    if not issubclass(cls, BaseModel):  # a plain record: its validator's fields
        cls = cls.validator()
    for part in loc:
        info = cls.model_fields.get(str(part))
        if info is None:
            return None
        candidates = [info.annotation, *typing.get_args(info.annotation)]
        nested = [c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)]
        if not nested:
            return None
        cls = nested[0]
    return cls


def _context_words(loc: tuple[Any, ...], value: Any, engine: Any = None) -> str | None:
    """What a kvplan/v1 engine.max_model_len written as vLLM's flag is (task h59maxlen): `auto`
    / -1 is vLLM's auto-fit, which `kvplan check` reads (kvplan.check.manifests.auto_context);
    32k is a command line's spelling, said in the words of `engine` (the document's
    engine.name: SGLang's parser spells lengths its own way). None for any other field or
    value."""
    from kvplan.engine_traits import traits

    if loc != ("engine", "max_model_len") or isinstance(value, bool) or value is None:
        return None
    text = str(value).strip()
    if text == "-1" or text.lower() == "auto":
        return (f"{text!r} is vLLM's automatic context (--max-model-len auto, vLLM 0.14.0 on), "
                "which `kvplan check` reads for engine.name vllm; this command plans a stated "
                "length: give a number of tokens, or leave the key out for the model's own "
                "context")
    if isinstance(value, str):
        spellings = traits(str(engine)).context_spellings if isinstance(engine, str) else \
            traits("vllm").context_spellings
        return f"{text!r} is not a whole number of tokens: kvplan/v1 takes digits ({spellings})"
    return None


def _engine_name(data: Any) -> Any:
    """A kvplan/v1 document's engine.name as written (None where it has none)."""
    engine = data.get("engine") if isinstance(data, dict) else None
    return engine.get("name") if isinstance(engine, dict) else None


def validation_problems(
    cls: Any, err: ValidationError, doc: Doc | None, prefix: tuple[Any, ...] = (),
    data: Any = None,
) -> list[Problem]:
    """One Problem per pydantic error, with the line, the field and a 'did you mean'."""
    from kvplan.deploy.yamldoc import dotted

    out = []
    for item in err.errors():
        loc = tuple(item["loc"])
        msg = item["msg"].removeprefix("Value error, ")
        kind = item["type"]
        if kind == "extra_forbidden":
            holder = _model_at(cls, loc[:-1])
            known = list(holder.model_fields) if holder else []
            close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}?" if close else f"known fields: {', '.join(known)}"
            msg = f"unknown field; {hint}"
        elif kind == "missing":
            msg = "required field is missing"
        elif kind == "less_than_equal" and isinstance(item.get("input"), (int, float)):
            limit = (item.get("ctx") or {}).get("le")
            msg = f"{item['input']:,} is beyond the limit of {limit:,} (docs/limits.md)"
        elif (said := _context_words(loc, item.get("input"), _engine_name(data))) is not None:
            msg = said
        elif kind == "literal_error" or "type" in kind or "parsing" in kind:
            msg = f"{msg} (got {item.get('input')!r})"
        elif is_bound(kind):  # the same hint a spec file's bounds give
            msg += RANGE_HINT
        line = doc.line(*prefix, *loc) if doc else None
        out.append(Problem(dotted(loc) or "(top level)", msg, line))
    return out


def parse_deployment(data: Any, source: str, doc: Doc | None = None) -> Deployment:
    """Validate one kvplan/v1 document; every problem names its field and line."""
    if not isinstance(data, dict):
        line = doc.start_line if doc else None
        kind = type(data).__name__
        raise DeploymentError(
            source, [Problem("", f"expected a mapping of fields, got {kind}", line)]
        )
    version = data.get("apiVersion")
    if version not in (None, API_VERSION):
        line = doc.line("apiVersion") if doc else None
        msg = f"{version!r} is not supported; use {API_VERSION}"
        raise DeploymentError(source, [Problem("apiVersion", msg, line)])
    from kvplan.deploy.fast import accept

    plainly = accept(data)  # a plainly valid document, without pydantic's machinery
    if plainly is not None:
        return plainly
    try:
        return Deployment.model_validate(data)
    except ValidationError as err:
        raise DeploymentError(source, validation_problems(Deployment, err, doc,
                                                          data=data)) from None
