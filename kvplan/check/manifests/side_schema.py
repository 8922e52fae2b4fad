"""The side file's schema (`<manifest>.kvplan.yaml`), validated by pydantic: imported only when
a side file is read, so a check of manifests without one never loads pydantic's models."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kvplan.deploy.validators import Requirement, Traffic


class SideEntry(BaseModel):
    """What a side file may give for one workload."""

    # defer_build: the validator is built for the first side file read, not by every check
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    traffic: Traffic | None = None
    requirement: Requirement | None = None
    model: str | None = None
    gpu: str | None = None
    engine: str | None = None


class SideFile(SideEntry):
    """`<manifest>.kvplan.yaml`: traffic for every workload, or per workload name."""

    workloads: dict[str, SideEntry] = {}
