"""The planning paths never import heavy packages (torch, transformers, matplotlib, numpy, scipy)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

HEAVY = ("torch", "transformers", "matplotlib", "numpy", "scipy")


def _run(argv: list[str]) -> str:
    """A child script that runs `kvplan ARGV` in process, asserting it exits 0."""
    return ("import sys, io, contextlib, runpy\n"
            f"sys.argv = ['kvplan', *{argv!r}]\n"
            "try:\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        runpy.run_module('kvplan', run_name='__main__')\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n")


_SIZE_RUN = _run(["size", "llama-3-8b", "--gpu", "h100", "--format", "json"])


@pytest.mark.parametrize(
    "argv",
    [
        ["size", "llama-3-8b", "--gpu", "h100", "--format", "json"],
        ["fleet", "examples/support-chatbot.yaml", "--format", "csv"],
        ["models", "--format", "json"],
    ],
)
def test_no_heavy_imports(argv):
    code = _run(argv) + (
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported: {out.stdout.strip()}"


def test_size_loads_no_engine_deployment_or_traffic_code():
    """Start-up time: `kvplan size` without --engine needs none of these subpackages.

    (It plans from the kvplan/v1 record, so kvplan.deploy's schema and kvplan.plan load.)"""
    code = _SIZE_RUN + (
        "print(','.join(sorted(m for m in sys.modules if m.startswith(('kvplan.engines', "
        "'kvplan.traffic', 'kvplan.check', 'kvplan.calibrate', 'kvplan.measure')))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported: {out.stdout.strip()}"


def test_size_of_a_catalog_model_reads_no_yaml_and_renders_json_without_rich(tmp_path):
    """Start-up time: with the catalog index built (the second run), `size NAME --format json`
    neither parses YAML nor loads rich, and as a program it leaves pydantic's plugin scan
    (every installed distribution's metadata) alone."""
    code = _SIZE_RUN + (
        "import os\n"
        "print(','.join(sorted(m for m in ('yaml', 'rich', 'kvplan.inputs.yamlsafe') "
        "if m in sys.modules)), os.environ.get('PYDANTIC_DISABLE_PLUGINS'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env["KVPLAN_CACHE_DIR"] = str(tmp_path)
    for _ in range(2):  # the first run builds the index (and reads every spec)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env=env)
    assert out.stdout.split() == ["__all__"], out.stdout


def _after_size(tmp_path, probe: str) -> str:
    """What `probe` prints after a second program run of `size` (the first builds the index)."""
    env = {**os.environ, "KVPLAN_CACHE_DIR": str(tmp_path)}
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", _SIZE_RUN + probe], capture_output=True,
                             text=True, check=True, env=env)
    return out.stdout.strip()


def test_size_imports_no_pydantic_model_machinery(tmp_path):
    """Start-up time (issue #14): `size NAME` builds its record with the fast acceptor and reads
    the catalog's specs validated from the index, as plain records (kvplan.plain): pydantic's
    model machinery (pydantic.main) is never imported, nor any module of kvplan's pydantic
    validators (specs, deployments, manifest side files, the importer, the schema docs)."""
    probe = (
        "print(sorted(m for m in ('pydantic.main', 'pydantic.fields', 'kvplan.specs.validators',\n"
        "                         'kvplan.deploy.validators', 'kvplan.check.manifests.side',\n"
        "                         'kvplan.specs.hf_import', 'kvplan.render.schema_doc',\n"
        "                         'kvplan.check') if m in sys.modules))\n"
        "print(sorted(m for m in ('kvplan.plain', 'kvplan.deploy.fast', 'kvplan.specs.schema')\n"
        "             if m in sys.modules))\n"
    )
    others, plain = _after_size(tmp_path, probe).splitlines()
    assert others == "[]"
    assert plain == "['kvplan.deploy.fast', 'kvplan.plain', 'kvplan.specs.schema']"


def test_a_refused_flag_value_still_gets_pydantics_message():
    """The fast acceptor leaves what it cannot take to pydantic, whose message is the one
    printed (here a --max-model-len beyond docs/limits.md)."""
    from typer.testing import CliRunner

    from kvplan.cli import app

    res = CliRunner().invoke(app, ["size", "llama-3-8b", "--gpu", "h100",
                                   "--max-model-len", str(2**40)])
    assert res.exit_code == 2
    assert res.output.strip() == (
        "error: command line: engine.max_model_len (--max-model-len): 1,099,511,627,776 is "
        "beyond the limit of 17,179,869,184 (docs/limits.md)")


def test_a_program_skips_pydantics_plugin_loader_and_collects_less(tmp_path):
    """As a program: pydantic's plugin loader (which imports importlib.metadata) is the
    stand-in of kvplan.cli.startup, and the collector's thresholds are GC_THRESHOLD."""
    probe = (
        "import gc, os\n"
        "print(type(sys.modules['pydantic.plugin._loader']).__name__,\n"
        "      os.environ['PYDANTIC_DISABLE_PLUGINS'], gc.get_threshold())\n"
    )
    from kvplan.cli.startup import GC_THRESHOLD

    assert _after_size(tmp_path, probe).split(" ", 2) == [
        "_Stand", "__all__", str(GC_THRESHOLD)]


def test_imported_as_a_library_nothing_changes():
    code = (
        "import gc, os, sys\n"
        "import kvplan.cli\n"
        "from kvplan.cli import startup\n"
        "print(startup.PROGRAM, gc.get_threshold() == startup.GC_THRESHOLD,\n"
        "      isinstance(sys.modules.get('pydantic.plugin._loader'), startup._Stand),\n"
        "      os.environ.get('PYDANTIC_DISABLE_PLUGINS'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env)
    assert out.stdout.split() == ["False", "False", "False", "None"]


def test_the_plugin_stand_in_hands_over_where_plugins_are_not_disabled(monkeypatch):
    """With plugins enabled (or a list of names), get_plugins is pydantic's own, and any other
    name of the module is the real module's."""
    from kvplan.cli import startup

    real = __import__("pydantic.plugin._loader", fromlist=["get_plugins"])
    saved = sys.modules[startup.LOADER]
    stand = startup._Stand(startup.LOADER)
    try:
        sys.modules[startup.LOADER] = stand
        monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "1")
        assert stand.get_plugins() == ()
        assert sys.modules[startup.LOADER] is stand  # nothing imported for that
        monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "some_plugin")
        assert list(stand.get_plugins()) == list(real.get_plugins())
        sys.modules[startup.LOADER] = stand
        assert stand.PYDANTIC_ENTRY_POINT_GROUP == "pydantic"  # the real module's constant
        with pytest.raises(AttributeError):
            stand.__path__  # noqa: B018 - the import system's probe: a plain module
    finally:
        sys.modules[startup.LOADER] = saved


HELP_HEAVY = ("pydantic_core", "rich", "yaml", "numpy", "hypothesis", "kvplan.specs",
              "kvplan.capacity", "kvplan.plan", "kvplan.engines", "kvplan.traffic")


@pytest.mark.parametrize("argv", [["--help"], *([c, "--help"] for c in (
    "size", "fleet", "models", "gpus", "import", "check", "explain", "calibrate", "plot")),
    ["plot", "users-vs-context", "--help"]], ids=" ".join)
def test_help_loads_no_catalog_schema_or_planner(argv):
    """Start-up time: printing help needs typer and the command modules only. `kvplan --help`
    registers every command, and `models`/`gpus` (kvplan.render.catalog's AttentionKind) and
    `plot` (kvplan.capacity's Allocation) imported the catalog's specs, pydantic_core and the
    capacity arithmetic for it until task h42hygiene made those imports lazy."""
    code = ("import sys, io, contextlib, runpy\n"
            f"sys.argv = ['kvplan', *{argv!r}]\n"
            "try:\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        runpy.run_module('kvplan', run_name='__main__')\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            f"print(','.join(m for m in {HELP_HEAVY!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported: {out.stdout.strip()}"


@pytest.mark.parametrize("argv", [["models", "--format", "json"], ["gpus", "--format", "csv"]],
                         ids=" ".join)
def test_a_catalog_as_json_or_csv_builds_no_rich_table(argv):
    """`models`/`gpus` built the rich table before looking at --format, so json and csv loaded
    rich (46 modules) to throw the table away; the table is now built for the table format
    only (task h42hygiene)."""
    code = _run(argv) + "print(sorted(m for m in sys.modules if m.split('.')[0] == 'rich'))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
