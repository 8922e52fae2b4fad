"""The planning paths never import heavy packages (torch, transformers, matplotlib, numpy, scipy)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("torch", "transformers", "matplotlib", "numpy", "scipy")


@pytest.mark.parametrize(
    "argv",
    [
        ["size", "llama-3-8b", "--gpu", "h100", "--format", "json"],
        ["fleet", "examples/support-chatbot.yaml", "--format", "csv"],
        ["models", "--format", "json"],
    ],
)
def test_no_heavy_imports(argv):
    code = (
        "import sys, io, contextlib, runpy\n"
        f"sys.argv = ['kvplan', *{argv!r}]\n"
        "try:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        runpy.run_module('kvplan', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported: {out.stdout.strip()}"


def test_size_loads_no_engine_deployment_or_traffic_code():
    """Start-up time: `kvplan size` without --engine needs none of these subpackages.

    (It plans from the kvplan/v1 record, so kvplan.deploy's schema and kvplan.plan load.)"""
    code = (
        "import sys, io, contextlib, runpy\n"
        "sys.argv = ['kvplan', 'size', 'llama-3-8b', '--gpu', 'h100', '--format', 'json']\n"
        "try:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        runpy.run_module('kvplan', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith(('kvplan.engines', "
        "'kvplan.traffic', 'kvplan.check', 'kvplan.calibrate', 'kvplan.measure')))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported: {out.stdout.strip()}"
