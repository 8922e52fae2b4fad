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

    def __bool__(self) -> bool:
        return bool(self.by_gpu) or self.flat is not None

    def apply(self, data: dict[str, Any], origins: dict[str, str]) -> None:
        """Set hardware.price_per_hour_usd of one record for its GPU (flat price first)."""
        from kvplan.plan.record import get_field, set_field

        price = self.flat
        if price is None and self.by_gpu:
            from kvplan.specs import load_hardware

            try:
                gpu = load_hardware(str(get_field(data, "hardware.gpu")))
            except InputError:
                return  # the record names the bad GPU when it is validated
            price = next((self.by_gpu[k] for k in (gpu.name, *gpu.aliases) if k in self.by_gpu),
                         None)
        if price is not None:
            set_field(data, "hardware.price_per_hour_usd", price)
            origins["hardware.price_per_hour_usd"] = self.origin


def _usd(value: object, where: str) -> float:
    try:
        usd = float(str(value).strip().lstrip("$"))
    except ValueError:
        raise InputError(f"{where}: {value!r} is not a price in USD per GPU-hour") from None
    if usd <= 0:
        raise InputError(f"{where}: price must be positive, got {usd:g}")
    return usd


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(f"{path}: cannot read file: {err.strerror}") from None


def parse_prices(items: list[str], prices_file: str | None) -> PriceTable:
    """Per-GPU prices from a file and GPU=USD items; a bare USD applies to the record's GPU."""
    prices: dict[str, float] = {}
    if prices_file is not None:
        text = _read(prices_file)
        if prices_file.lower().endswith(".csv") or text.lstrip().startswith("gpu,"):
            import csv

            for i, row in enumerate(csv.DictReader(text.splitlines()), start=2):
                gpu, usd = row.get("gpu"), row.get("price_per_hour_usd")
                if not gpu or not usd:
                    raise InputError(f"{prices_file}: line {i}: need columns gpu and "
                                     "price_per_hour_usd")
                prices[gpu.strip()] = _usd(usd, f"{prices_file}: line {i}")
        else:
            import yaml

            try:
                data = yaml.safe_load(text)  # YAML or JSON: {gpu: usd}
            except yaml.YAMLError as err:
                raise InputError(f"{prices_file}: malformed YAML: {err}") from None
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
    origin = "--prices" if prices_file is not None and not items else "--price-per-hour"
    return PriceTable(prices, flat, origin)
