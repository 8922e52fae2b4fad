"""The planning paths never import heavy packages (torch, transformers, matplotlib, numpy, scipy)."""

from __future__ import annotations

import os
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


def test_size_of_a_catalog_model_reads_no_yaml_and_renders_json_without_rich(tmp_path):
    """Start-up time: with the catalog index built (the second run), `size NAME --format json`
    neither parses YAML nor loads rich, and as a program it leaves pydantic's plugin scan
    (every installed distribution's metadata) alone."""
    code = (
        "import os, sys, io, contextlib, runpy\n"
        "sys.argv = ['kvplan', 'size', 'llama-3-8b', '--gpu', 'h100', '--format', 'json']\n"
        "try:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        runpy.run_module('kvplan', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "print(','.join(sorted(m for m in ('yaml', 'rich', 'kvplan.inputs.yamlsafe') "
        "if m in sys.modules)), os.environ.get('PYDANTIC_DISABLE_PLUGINS'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env["KVPLAN_CACHE_DIR"] = str(tmp_path)
    for _ in range(2):  # the first run builds the index (and reads every spec)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env=env)
    assert out.stdout.split() == ["__all__"], out.stdout
