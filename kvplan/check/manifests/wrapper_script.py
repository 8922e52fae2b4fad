"""A server command handed to a wrapper script as that script's arguments.

Compose appends `command` to `entrypoint`, and Kubernetes appends `args` to `command`, so
`entrypoint: [/bin/bash, /scripts/entrypoint.sh]` with `command: python3 -m
sglang.launch_server ...` runs the script with the server's words as its arguments. kvplan reads
the server from those words, which is what such a wrapper does when it ends in `exec "$@"`
(NVIDIA's /opt/nvidia/nvidia_entrypoint.sh does); the script itself is not in the file, so the
assumption is said in a note (task h80corpus: java-alchemist/inference-stack's compose service
was planned with the script passed over in silence).
"""

from __future__ import annotations

from typing import Any

from kvplan.check.argv import Invocation
from kvplan.deploy.yamldoc import Doc, Key

SCRIPT_SUFFIXES = (".sh", ".bash")


def wrapper_note(c: dict[str, Any], doc: Doc, at: Key, inv: Invocation) -> str | None:
    """The note for a script run before the server's own words, or None."""
    if inv.implied:  # the image's own entrypoint: its words are the server's
        return None
    from kvplan.check.manifests.workload import container_words

    words, shell = container_words(c, doc, at)
    if shell:  # a `sh -c` script: only the server's command is kept
        return None
    before = [w.text for w in words[:len(words) - len(inv.words)]]
    script = next((w for w in before if w.endswith(SCRIPT_SUFFIXES)), None)
    if script is None:
        return None
    return (f"the server command is handed to {script} as its arguments; that script is not in "
            "this file: checked as if it runs them as given (as a wrapper ending in "
            "`exec \"$@\"` does)")
