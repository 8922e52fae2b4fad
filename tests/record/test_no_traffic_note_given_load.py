"""A manifest that declares no traffic is noted so only while no load is given on the command line.

Found by task h90review: `kvplan fleet tests/assets/check/corpus/gke/vllm-2-9b-it.yaml
--peak-users 20` printed "note: ...: the manifest declares no traffic (kvplan.io annotations);
give --peak-users for a fleet" beside "--peak-users sets traffic.peak_concurrent_users (the file
does not state it)": told to give the flag it had just given. The GPU's note already worked
this way (said unless --gpu names one)."""

from __future__ import annotations

from typer.testing import CliRunner

from kvplan.cli import app

GKE = "tests/assets/check/corpus/gke/vllm-2-9b-it.yaml"
NOTE = ("note: tests/assets/check/corpus/gke/vllm-2-9b-it.yaml: the manifest declares no traffic "
        "(kvplan.io annotations); give --peak-users for a fleet")


def _notes(*args: str) -> list[str]:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return [line for line in res.stderr.splitlines() if line.startswith("note:")]


def test_peak_users_given_drops_the_note():
    notes = _notes("fleet", GKE, "--peak-users", "20", "-f", "json")
    assert NOTE not in notes
    assert ("note: tests/assets/check/corpus/gke/vllm-2-9b-it.yaml: --peak-users sets "
            "traffic.peak_concurrent_users (the file does not state it)") in notes


def test_arrival_rate_given_drops_the_note():
    notes = _notes("fleet", GKE, "--arrival-rate", "2", "--mean-duration-s", "10", "-f", "json")
    assert NOTE not in notes


def test_no_load_keeps_the_note():
    assert NOTE in _notes("explain", GKE, "-f", "json")
    assert NOTE in _notes("size", GKE, "-f", "json")
