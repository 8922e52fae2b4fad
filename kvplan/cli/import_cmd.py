"""`kvplan import`: write a spec YAML from a Hugging Face config.json, snapshot folder or hub id."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kvplan.cli.common import cli_errors, emit
from kvplan.errors import InputError
from kvplan.units import parse_dtype

SourceArg = Annotated[
    str,
    typer.Argument(metavar="SOURCE",
                   help="a config.json, a Hugging Face snapshot folder, or a hub id (org/name)"),
]
SpecOutOpt = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="write the spec to FILE, e.g. model_specs/NAME.yaml"),
]
NameOpt = Annotated[
    str | None,
    typer.Option("--name", help="catalog name [default: the -o file stem, else from SOURCE]"),
]
HfIdOpt = Annotated[
    str | None,
    typer.Option("--hf-id", help="Hugging Face id to record [default: from SOURCE or config]"),
]
WeightOpt = Annotated[
    str | None,
    typer.Option(
        "--weight-dtype",
        metavar="DTYPE",
        help="weight dtype, where config.json has no torch_dtype (bf16, fp16, fp8, ...)",
    ),
]


@cli_errors
def import_command(
    source: SourceArg,
    output: SpecOutOpt = None,
    name: NameOpt = None,
    hf_id: HfIdOpt = None,
    weight_dtype: WeightOpt = None,
) -> None:
    """Read a model's config.json and write a spec YAML that `kvplan size` accepts.

    Refuses, with the reason, any architecture whose cache it cannot account for exactly.
    """
    from kvplan.specs.hf_import import import_model, spec_yaml

    dtype = None
    if weight_dtype is not None:
        try:
            dtype = parse_dtype(weight_dtype)
        except ValueError as err:
            raise InputError(f"--weight-dtype: {err}") from None
    if name is None and output is not None:
        name = output.stem
    from kvplan.cli.progress import StatusLine

    where = (f"reading {source}" if Path(source).expanduser().exists()
             else f"fetching {source}'s config.json from the Hugging Face hub")
    with StatusLine("kvplan import", where):  # shown only if it takes over 2 s, on a terminal
        spec = import_model(source, name=name, hf_id=hf_id, weight=dtype)
    emit(spec_yaml(spec), output)
