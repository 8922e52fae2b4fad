"""A model's config.json from the Hugging Face hub, through huggingface_hub and its own cache.

Only imported for a hub id the catalog does not know. HF_HUB_OFFLINE, HF_TOKEN and HF_HOME
are huggingface_hub's own variables and are honoured by it; an offline miss fails at once.
"""

from __future__ import annotations

import os
from pathlib import Path

from kvplan.errors import InputError
from kvplan.specs.schema import ModelSpec

INSTALL_HINT = "pip install huggingface_hub"
ETAG_TIMEOUT_S = 5  # one short try before the cached copy is used


def offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def reachable(endpoint: str, timeout_s: float = 3.0) -> bool:
    """One TCP connection to the hub, so that an unreachable hub fails in seconds rather than
    after huggingface_hub's retries (about 24 s)."""
    import socket
    from urllib.parse import urlsplit

    url = urlsplit(endpoint)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname or "", port), timeout=timeout_s):
            return True
    except OSError:
        return False


def config_path(repo_id: str, revision: str | None = None) -> Path:
    """The local path of the repository's config.json, downloaded into the hub cache if needed."""
    try:
        import huggingface_hub as hub
        from huggingface_hub import constants, errors
        from huggingface_hub.utils import logging as hub_logging
    except ImportError:
        raise InputError(
            f"{repo_id!r} is not in kvplan's catalog; reading it from the Hugging Face hub needs "
            f"huggingface_hub: {INSTALL_HINT} (or pass a local config.json or snapshot folder)"
        ) from None
    try:  # `org/-awq`: the hub's own rule, before any cache or network call raises it
        from huggingface_hub.utils import validate_repo_id

        validate_repo_id(repo_id)
    except errors.HFValidationError:
        raise InputError(
            f"{repo_id!r} is not in kvplan's catalog, and not a Hugging Face repository id "
            "(letters, digits, '-', '_' and '.', no '--' or '..', not starting or ending "
            "with '-' or '.', 96 at most); check the name, or pass a local config.json "
            "(`kvplan models` lists the catalog)"
        ) from None
    if offline():
        cached = hub.try_to_load_from_cache(repo_id, "config.json", revision=revision)
        if isinstance(cached, str):
            return Path(cached)
        raise InputError(
            f"{repo_id!r}: not in kvplan's catalog and HF_HUB_OFFLINE is set, but the hub cache "
            f"({constants.HF_HUB_CACHE}) has no config.json for it; unset HF_HUB_OFFLINE, or "
            "pass a local config.json"
        )
    if not reachable(constants.ENDPOINT):
        cached = hub.try_to_load_from_cache(repo_id, "config.json", revision=revision)
        if isinstance(cached, str):
            return Path(cached)
        raise InputError(
            f"{repo_id!r}: not in kvplan's catalog, the Hugging Face hub ({constants.ENDPOINT}) "
            "cannot be reached and the hub cache has no copy; pass a local config.json or snapshot "
            "folder (`kvplan models` lists the catalog)"
        )
    hub_logging.set_verbosity_error()  # its retry warnings are not kvplan's one line
    try:
        return Path(
            hub.hf_hub_download(repo_id, "config.json", revision=revision, etag_timeout=ETAG_TIMEOUT_S)
        )
    except errors.GatedRepoError:
        raise InputError(
            f"{repo_id!r} is a gated repository: accept its licence on huggingface.co and set HF_TOKEN "
            "(or `hf auth login`), or pass a local config.json"
        ) from None
    except errors.RepositoryNotFoundError:
        raise InputError(
            f"{repo_id!r}: no such model in kvplan's catalog or on the Hugging Face hub (or it is "
            "private: set HF_TOKEN); `kvplan models` lists the catalog"
        ) from None
    except errors.LocalEntryNotFoundError:
        raise InputError(
            f"{repo_id!r}: not in kvplan's catalog, the Hugging Face hub cannot be reached and the "
            "hub cache has no copy; pass a local config.json, or set HF_HUB_OFFLINE=1 to skip the "
            "network"
        ) from None
    except errors.EntryNotFoundError:
        raise InputError(f"{repo_id!r}: the repository has no config.json; pass a spec file") from None
    except (OSError, errors.HfHubHTTPError) as err:
        raise InputError(f"{repo_id!r}: reading config.json from the hub failed: {err}") from None


QUANT_FILE = "hf_quant_config.json"  # ModelOpt's quantization, beside an unquantized-looking config


def quant_file_path(repo_id: str, revision: str | None = None) -> tuple[Path | None, str | None]:
    """The repository's hf_quant_config.json, if it has one, and a note when its absence could
    not be established (offline, unreachable, an error): (path or None, note or None)."""
    import huggingface_hub as hub
    from huggingface_hub import constants, errors

    if offline() or not reachable(constants.ENDPOINT):
        cached = hub.try_to_load_from_cache(repo_id, QUANT_FILE, revision=revision)
        if isinstance(cached, str):
            return Path(cached), None
        if cached is None:  # not known to be absent either
            return None, (f"the hub was not asked for {QUANT_FILE} (offline or unreachable) "
                          "and the cache has none")
        return None, None
    try:
        path = hub.hf_hub_download(repo_id, QUANT_FILE, revision=revision,
                                   etag_timeout=ETAG_TIMEOUT_S)
    except errors.LocalEntryNotFoundError:  # a subclass of EntryNotFoundError: a network miss
        return None, f"{QUANT_FILE} could not be fetched from the hub"
    except errors.EntryNotFoundError:
        return None, None
    except (OSError, errors.HfHubHTTPError) as err:
        return None, f"{QUANT_FILE} could not be fetched from the hub: {err}"
    return Path(path), None


def fetch_config(repo_id: str) -> ModelSpec:
    """The spec kvplan's importer makes of a hub repository's config.json."""
    from kvplan.specs.hf_import import import_model

    return import_model(repo_id, hf_id=repo_id)
