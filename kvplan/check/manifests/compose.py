"""docker-compose services that run an engine: `command` (after `entrypoint`), the GPUs of
deploy.resources.reservations.devices, one replica unless deploy.replicas says more."""

from __future__ import annotations

import shlex
from typing import Any

from kvplan.check.manifests.pods import PodSite


def is_compose(data: dict[str, Any]) -> bool:
    services = data.get("services")
    return isinstance(services, dict) and all(isinstance(s, dict) for s in services.values())


def _words(value: Any) -> list[str]:
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError:
            return value.split()
    return [str(v) for v in value] if isinstance(value, list) else []


def sites(data: dict[str, Any]) -> list[tuple[PodSite, str]]:
    out = []
    for name, svc in data["services"].items():
        at = ("services", str(name))
        deploy = svc.get("deploy") if isinstance(svc.get("deploy"), dict) else {}
        devices = (((deploy.get("resources") or {}).get("reservations") or {}).get("devices")
                   or [])
        count: Any = 0
        for dev in devices if isinstance(devices, list) else []:
            if isinstance(dev, dict) and "gpu" in (dev.get("capabilities") or []):
                count = dev.get("count", len(dev.get("device_ids") or []) or "all")
        env = svc.get("environment")
        if isinstance(env, list):
            env = dict(str(e).partition("=")[::2] for e in env)
        container = {
            "image": svc.get("image", ""),
            "command": _words(svc.get("entrypoint")) + _words(svc.get("command")),
            "env": [{"name": k, "value": str(v)} for k, v in (env or {}).items()],
            "resources": {"limits": {"nvidia.com/gpu": count}} if count else {},
        }
        if not svc.get("entrypoint") and "vllm-openai" in str(svc.get("image", "")):
            container["command"] = ["vllm", "serve", *container["command"]]
        site = PodSite("compose service", {"containers": [container]}, at, [(container, at)],
                       deploy.get("replicas", 1), (*at, "deploy", "replicas"))
        out.append((site, str(name)))
    return out
