"""Find, read and validate spec files. YAML is read with a safe loader only."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic_core import ValidationError  # pydantic's model machinery is not imported here

from kvplan.errors import InputError, SpecError
from kvplan.plain import Plain
from kvplan.specs import index
from kvplan.specs.schema import HardwareSpec, ModelSpec

T = TypeVar("T", bound=Plain)

MODEL_DIR = "model_specs"
HARDWARE_DIR = "hardware_specs"
ENV_EXTRA = "KVPLAN_SPECS_PATH"  # extra folders, os.pathsep-separated, searched first


def _packaged(kind: str) -> Path | None:
    """The copy a wheel carries inside the package (kvplan/_specs/<kind>).

    A plain path next to this package: kvplan installs as files, never zipped, and
    importlib.resources would cost a tenth of the CLI's start-up time to say the same.
    """
    path = Path(__file__).resolve().parents[1] / "_specs" / kind
    return path if path.is_dir() else None


def _checkout(kind: str) -> Path | None:
    """The top-level folder of a source checkout or an editable install."""
    path = Path(__file__).resolve().parents[2] / kind
    return path if path.is_dir() else None


@cache
def spec_dirs(kind: str) -> tuple[Path, ...]:
    """Folders searched for specs of one kind, first match wins."""
    dirs: list[Path] = []
    for extra in os.environ.get(ENV_EXTRA, "").split(os.pathsep):
        if extra and (Path(extra) / kind).is_dir():
            dirs.append(Path(extra) / kind)
    for found in (_packaged(kind), _checkout(kind)):
        if found is not None and found not in dirs:
            dirs.append(found)
    if not dirs:
        raise InputError(
            f"cannot find the {kind}/ folder; reinstall kvplan or set {ENV_EXTRA} to a folder "
            f"that contains {kind}/"
        )
    return tuple(dirs)


def read_yaml(path: Path) -> Any:
    """Parse one YAML file through kvplan.inputs (size, encoding, aliases, duplicate keys,
    finite numbers); any problem becomes a SpecError naming the file and the line."""
    from kvplan.inputs import InputFileError, load_yaml

    try:
        return load_yaml(path)
    except InputFileError as err:
        where = f"line {err.line}: " if err.line is not None else ""
        raise SpecError(str(path), [f"{where}{err.problem}"]) from None


_BOUNDS = frozenset({"less_than_equal", "less_than", "greater_than_equal", "greater_than"})
_WHOLE = frozenset({"int_type", "int_parsing", "int_from_float"})
RANGE_HINT = "; give a value in range (kvplan's limits: docs/limits.md)"


def is_bound(kind: str) -> bool:
    """A pydantic error of a value outside a field's bounds (gt, ge, lt, le)."""
    return kind in _BOUNDS


def format_validation(err: ValidationError) -> list[str]:
    """One `field.path: message` line per pydantic problem."""
    out = []
    for item in err.errors():
        loc = ".".join(str(p) for p in item["loc"]) or "(top level)"
        msg = item["msg"]
        if item["type"] == "extra_forbidden":
            msg = "unknown field; remove it or check its spelling"
        elif item["type"] == "missing":
            msg = "required field is missing"
        elif is_bound(item["type"]):
            msg += RANGE_HINT
        elif item["type"] in _WHOLE:
            msg += "; give a whole number"
        out.append(f"{loc}: {msg}")
    return out


def validate(cls: type[T], data: Any, path: str) -> T:
    """Validate parsed YAML against a schema, reporting `file: field: message`."""
    if not isinstance(data, dict):
        raise SpecError(path, [f"expected a mapping of fields, got {type(data).__name__}"])
    try:
        return cls.model_validate(data)
    except ValidationError as err:
        raise SpecError(path, format_validation(err)) from None


def _load_file(cls: type[T], path: Path, data: Any = None, read: bool = True) -> T:
    """A catalog file's spec, from `data` already read from it when `read` is False."""
    spec = validate(cls, read_yaml(path) if read else data, str(path))
    name = getattr(spec, "name", None)
    if name is not None and name != path.stem:
        raise SpecError(str(path), [f"name: {name!r} must equal the file name {path.stem!r}"])
    return spec


def catalog(kind: str) -> dict[str, index.Entry]:
    """Catalog name -> its file and data, from the catalog index (kvplan.specs.index)."""
    return index.load(kind, spec_dirs(kind))


def _files(kind: str) -> dict[str, Path]:
    """Catalog name -> file, earlier folders shadowing later ones."""
    return {stem: entry.path for stem, entry in catalog(kind).items()}


def _class(kind: str) -> type[Plain]:
    return ModelSpec if kind == MODEL_DIR else HardwareSpec


def encoded_spec(kind: str, path: Path, data: Any) -> Any:
    """A catalog file's spec, validated from its data, as the index stores it (frozen.encode);
    None where it is invalid (it is validated again, and refused, where it is loaded)."""
    from kvplan.specs import frozen

    try:
        return frozen.encode(_load_file(_class(kind), path, data, read=False))
    except (SpecError, frozen.NotEncodable):
        return None


def load_entry(cls: type[T], entry: index.Entry) -> T:
    """The spec of one catalog entry: rebuilt from the index's validated spec, else validated
    from the index's data (or read from its file again, when the file did not read: it raises
    the same error as without an index)."""
    if entry.spec is not None:
        from kvplan.specs import frozen

        try:
            spec = frozen.decode(entry.spec)
        except (frozen.NotEncodable, ValueError, TypeError):  # a damaged index: validate
            spec = None
        if type(spec) is cls:
            return spec
    return _load_file(cls, entry.path, entry.data, read=not entry.ok)


def suggest(name: str, choices: Iterable[str]) -> str:
    """' (did you mean: a, b?)' or an empty string."""
    import difflib  # only on the error path

    close = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.5)
    return f" (did you mean: {', '.join(close)}?)" if close else ""


def _is_path(ref: str) -> bool:
    return ref.endswith((".yaml", ".yml", ".json")) or os.sep in ref or "/" in ref


def load_model(ref: str, base: Path | None = None) -> ModelSpec:
    """A model by path, catalog name (any case), hf_id, alias or hub id: kvplan.specs.resolve."""
    from kvplan.specs.resolve import resolve_model

    return resolve_model(ref, base=base).spec


def load_model_file(path: Path) -> ModelSpec:
    """A model from an explicit spec YAML, Hugging Face config.json or snapshot folder."""
    if path.suffix == ".json" or path.is_dir():
        from kvplan.specs.hf_import import import_model  # a config.json or a snapshot folder

        return import_model(str(path))
    return validate(ModelSpec, read_yaml(path), str(path))


def aliases_of(data: dict[str, Any]) -> list[Any]:
    """A spec's aliases when a list: a spec on the search path with another type is refused
    when it is loaded (its own error), and must not stop every other name's lookup (a TypeError,
    exit 3, for any model before task h51sweep)."""
    found = data.get("aliases")
    return found if isinstance(found, list) else []


def spelled(name: str) -> str:
    """A GPU name as people type it, in the catalog's spelling: lower case, runs of spaces,
    underscores and hyphens as one hyphen ("NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3",
    "rtx 4090" -> "rtx-4090")."""
    return "-".join(w for w in re.split(r"[\s_-]+", name.strip().lower()) if w)


_VENDORS = ("nvidia-", "amd-")


def _unbranded(name: str) -> str:
    """`name` without the vendor word nvidia-smi and rocm-smi put first ("nvidia-a10" -> "a10")."""
    for vendor in _VENDORS:
        if name.startswith(vendor):
            return name[len(vendor):]
    return name


@lru_cache(maxsize=1)
def _hardware_index() -> tuple[dict[str, Path], dict[str, str]]:
    entries = catalog(HARDWARE_DIR)
    files = {stem: entry.path for stem, entry in entries.items()}
    aliases: dict[str, str] = {}
    for stem, entry in entries.items():
        data = entry.data if entry.ok else read_yaml(entry.path)
        if isinstance(data, dict):
            for alias in aliases_of(data):
                aliases.setdefault(str(alias).lower(), stem)
    return files, aliases


@lru_cache(maxsize=1)
def _device_index() -> dict[str, str]:
    """The names the runtimes print for a GPU (a spec's `device_names`: nvidia-smi, rocm-smi,
    torch, e.g. "NVIDIA H100 80GB HBM3"), `spelled`, with and without the vendor word, to the
    catalog name. Looked up after the catalog names and aliases, which keep their meaning."""
    found: dict[str, str] = {}
    for stem, entry in catalog(HARDWARE_DIR).items():
        data = entry.data if entry.ok else read_yaml(entry.path)
        names = data.get("device_names") if isinstance(data, dict) else None
        for device in names if isinstance(names, list) else []:
            for name in (spelled(str(device)), _unbranded(spelled(str(device)))):
                found.setdefault(name, stem)
    return found


def load_hardware(ref: str) -> HardwareSpec:
    """A GPU by catalog name or alias (case-insensitive), or from a spec file path; then by
    the same in `spelled` form, with or without the vendor word, or by the name the runtime
    prints (a spec's `device_names`): "NVIDIA L4", "rtx 4090", "NVIDIA A100-SXM4-80GB"."""
    if _is_path(ref) and Path(ref).exists():
        return validate(HardwareSpec, read_yaml(Path(ref)), ref)
    key = ref.strip().lower()
    files = catalog(HARDWARE_DIR)
    if key in files:
        return load_entry(HardwareSpec, files[key])
    _, aliases = _hardware_index()
    if key in aliases:
        return load_entry(HardwareSpec, files[aliases[key]])
    for name in (spelled(key), _unbranded(spelled(key))):  # "NVIDIA L4", "rtx 4090"
        stem = name if name in files else aliases.get(name) or _device_index().get(name)
        if stem is not None:
            return load_entry(HardwareSpec, files[stem])
    raise InputError(
        f"unknown GPU {ref!r}{suggest(_unbranded(spelled(key)), [*files, *aliases])}; `kvplan gpus` lists "
        "the catalog"
    )


def load_all(kind: str) -> tuple[list[Any], list[SpecError]]:
    """Every spec of one kind. A broken file is reported, never hides the others."""
    cls = _class(kind)
    specs: list[Any] = []
    errors: list[SpecError] = []
    for entry in catalog(kind).values():
        try:
            specs.append(load_entry(cls, entry))
        except SpecError as err:
            errors.append(err)
    return specs, errors


def all_models() -> tuple[list[ModelSpec], list[SpecError]]:
    return load_all(MODEL_DIR)


def all_hardware() -> tuple[list[HardwareSpec], list[SpecError]]:
    return load_all(HARDWARE_DIR)
