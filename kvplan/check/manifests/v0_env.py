"""VLLM_USE_V1=0 in a container's environment: the V0 engine, in the releases that shipped both.

vllm/envs.py reads `"VLLM_USE_V1": bool(int(os.getenv("VLLM_USE_V1", "1")))` from 0.8 (V1 the
default), and V0 was removed in 0.11 (kvplan.engines.vllm_series BOTH_ENGINES, the releases
calibrate also reads start-up logs by). The vLLM profile takes the V0 engine from a version
suffix `-v0` (kvplan.engines.vllm_series.flavour), so 0 there turns `0.8.5` into `0.8.5-v0`.
"""

from __future__ import annotations

from typing import Any

ENV = "VLLM_USE_V1"


def read_v0(found: Any, env: dict[str, str], notes: list[str]) -> None:
    """Set the V0 engine when the container asks for it in a release that has it."""
    from kvplan.engines.interface import parse_version
    from kvplan.engines.vllm_series import BOTH_ENGINES, forces_v0
    from kvplan.errors import InputError

    raw = env.get(ENV)
    if raw is None:
        return
    try:
        use_v1 = int(raw.strip())
    except ValueError:
        notes.append(f"{ENV}={raw!r} is not an integer (vllm/envs.py reads int()): not read")
        return
    if use_v1 != 0:
        return
    version = found.values.get("engine.version")
    first, gone = (".".join(map(str, v)) for v in BOTH_ENGINES)
    try:
        ver = parse_version(str(version)) if version is not None else None
    except InputError:
        ver = None
    if ver is None:
        notes.append(f"{ENV}=0 selects the V0 engine only in vLLM {first}-{gone} (removed in "
                     f"{gone}); no release is named (an image tag without one, or a server started "
                     "outside a container), so the default version's engine is planned")
    elif BOTH_ENGINES[0] <= ver < BOTH_ENGINES[1]:
        if not forces_v0(str(version)):
            found.values["engine.version"] = f"{version}-v0"
        notes.append(f"{ENV}=0: the V0 engine of vLLM {version} (vllm/envs.py)")
    elif ver >= BOTH_ENGINES[1]:
        notes.append(f"{ENV}=0: vLLM {version} has no V0 engine (removed in {gone}); not used")
