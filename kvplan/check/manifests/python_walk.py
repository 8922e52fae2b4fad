"""Which Python files a folder walk reads (kvplan.check.discover): a `.py` / `.ipynb` that starts
an engine, in-process (kvplan.check.manifests.python_constructions) or as a server it launches
(its Python's calls, kvplan.check.manifests.python_servers; a notebook's shell lines and cells,
kvplan.check.manifests.notebook_shell), or that imports one but cannot be read (refused then,
not skipped without a word). A folder's other Python is not read: it would only be ERRORs."""

from __future__ import annotations

from pathlib import Path

from kvplan.check.manifests.python_constructions import constructions, read_imports, references
from kvplan.check.manifests.python_script import MAX_CODE_BYTES, _notebook, parse
from kvplan.engines.python_api import APIS


def starts_engine(path: Path) -> bool:
    """Whether a .py / .ipynb file under a folder is read: it constructs an engine, or it
    imports one but cannot be read (refused then, not skipped without a word). A folder's other
    Python is not read: it would only be ERRORs."""
    import re

    from kvplan.errors import InputError
    from kvplan.inputs.text import read_text

    try:
        text = read_text(path)
    except InputError:
        return False
    if not any(api.package in text for api in APIS) and "trtllm" not in text:
        return False
    book = _notebook(path, text)
    if book is not None and not book.problem:
        from kvplan.check.manifests.notebook_shell import starts_server

        if starts_server(path, book):
            return True
    packages = "|".join(re.escape(api.package) for api in APIS)
    imports_engine = re.search(rf"(^|\\n|[\n;\"'])\s*(from|import)\s+({packages})\b", text,
                               re.MULTILINE) is not None
    if book is not None:
        if book.problem:
            return imports_engine
        text = book.code
    if len(text.encode()) > MAX_CODE_BYTES:
        return True  # read, to be refused with its size
    tree = parse(path, text)
    if tree is None:
        return imports_engine
    try:
        from kvplan.check.manifests.python_servers import any_start

        imports = read_imports(tree)
        return bool(constructions(tree, imports)) or bool(references(tree, imports)) or \
            any_start(path, tree, imports)
    except (RecursionError, MemoryError):
        return True  # read, to be refused as nested too deep
