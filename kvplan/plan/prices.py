"""Prices per GPU-hour: --price-per-hour GPU=USD or USD, and --prices FILE (`-`: stdin)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvplan.errors import InputError


@dataclass(frozen=True)
class PriceTable:
    """Prices by GPU name or alias, and one flat price for the record's GPU (or None)."""

    by_gpu: dict[str, float] = field(default_factory=dict)
    flat: float | None = None
    origin: str = "--price-per-hour"
    given: str = "--price-per-hour"  # the options that gave the table, as a note names them

    def __bool__(self) -> bool:
        return bool(self.by_gpu) or self.flat is not None

    def apply(self, data: dict[str, Any], origins: dict[str, str]) -> list[str]:
        """Set hardware.price_per_hour_usd of one record for its GPU (flat price first).

        Returns a note when the table has no row for the record's GPU: the price then comes
        from the record's file or the catalog (or there is none), and the table the user gave
        did not apply, which is said rather than passed over (task h90review)."""
        from kvplan.plan.record import get_field, set_field

        price = self.flat
        if price is None and self.by_gpu:
            from kvplan.specs import load_hardware

            try:
                gpu = load_hardware(str(get_field(data, "hardware.gpu")))
            except InputError:
                return []  # the record names the bad GPU when it is validated
            price = next((self.by_gpu[k] for k in (gpu.name, *gpu.aliases) if k in self.by_gpu),
                         None)
            if price is None:
                return [self._not_priced(gpu.name, get_field(data, "hardware.price_per_hour_usd"),
                                         gpu.price_per_hour_usd)]
        if price is not None:
            set_field(data, "hardware.price_per_hour_usd", price)
            origins["hardware.price_per_hour_usd"] = self.origin
        return []

    def _not_priced(self, gpu: str, stated: object, catalog: float | None) -> str:
        head = f"{self.given} has no price for {gpu}"
        if stated is not None:
            return (f"{head}; priced at the file's hardware.price_per_hour_usd "
                    f"${float(str(stated)):.2f} per GPU-hour")
        if catalog is not None:
            return f"{head}; priced at the catalog's ${catalog:.2f} per GPU-hour (hardware_specs)"
        return f"{head}, nor has the catalog: no cost is shown"


def _usd(value: object, where: str) -> float:
    try:
        usd = float(str(value).strip().lstrip("$"))
    except ValueError:
        raise InputError(f"{where}: {value!r} is not a price in USD per GPU-hour") from None
    import math

    if not math.isfinite(usd) or usd <= 0:
        raise InputError(f"{where}: price must be a positive, finite number of USD, got {usd:g}")
    return usd


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    from kvplan.inputs import read_text  # size and encoding checked

    return read_text(Path(path))


def parse_prices(items: list[str], prices_file: str | None) -> PriceTable:
    """Per-GPU prices from a file and GPU=USD items; a bare USD applies to the record's GPU."""
    prices: dict[str, float] = {}
    if prices_file is not None:
        text = _read(prices_file)
        if prices_file.lower().endswith(".csv") or text.lstrip().startswith("gpu,"):
            import csv

            reader = csv.DictReader(text.splitlines())
            try:
                for i, row in enumerate(reader, start=2):
                    gpu, usd = row.get("gpu"), row.get("price_per_hour_usd")
                    if not gpu or not usd:
                        raise InputError(f"{prices_file}: line {i}: need columns gpu and "
                                         "price_per_hour_usd")
                    prices[gpu.strip()] = _usd(usd, f"{prices_file}: line {i}")
            except csv.Error as err:  # a field past csv's 131,072 characters
                raise InputError(f"{prices_file}: line {reader.line_num + 1}: not a CSV kvplan "
                                 f"reads ({err}); give columns gpu,price_per_hour_usd") from None
        else:
            from kvplan.inputs.yamlsafe import load_yaml_text  # bounded, no duplicate keys

            data = load_yaml_text(text, prices_file)  # YAML or JSON: {gpu: usd}
            if not isinstance(data, dict):
                raise InputError(f"{prices_file}: expected a mapping of GPU name to USD per hour")
            for gpu, usd in data.items():
                prices[str(gpu)] = _usd(usd, f"{prices_file}: {gpu}")
    flat = None
    for item in items:
        if "=" in item:
            gpu, _, usd = item.partition("=")
            prices[gpu.strip()] = _usd(usd, f"--price-per-hour {item}")
        else:
            flat = _usd(item, f"--price-per-hour {item}")
    prices = _known_gpus(prices, prices_file)
    origin = "--prices" if prices_file is not None and not items else "--price-per-hour"
    given = " and ".join(([f"--prices {prices_file}"] if prices_file is not None else [])
                         + (["--price-per-hour"] if any("=" in i for i in items) else []))
    return PriceTable(prices, flat, origin, given or "--price-per-hour")


def _known_gpus(prices: dict[str, float], prices_file: str | None) -> dict[str, float]:
    """The prices keyed by catalog name. A GPU the catalog does not know is refused, never
    silently unused; so are two prices for one GPU under two of its names ("h100=2" and
    "H100-SXM=3"). Before task freshuser a key was matched as typed, so `H100=2` or
    `"NVIDIA L4=1"` was set aside with a note and the catalog's price used."""
    from kvplan.specs import load_hardware

    where = prices_file or "--price-per-hour"
    by_name: dict[str, tuple[str, float]] = {}
    for gpu, usd in prices.items():
        try:
            name = load_hardware(gpu).name
        except InputError as err:
            raise InputError(f"{where}: {err}") from None
        first = by_name.setdefault(name, (gpu, usd))
        if first[1] != usd:
            raise InputError(f"{where}: {first[0]}={first[1]:g} and {gpu}={usd:g} both price "
                             f"{name}; give one price for it")
    return {name: usd for name, (_, usd) in by_name.items()}
