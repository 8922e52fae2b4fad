"""Safe YAML: plain data only, checked as events and as a node graph before anything is built.

A document is refused, with its line, when it nests deeper than MAX_YAML_DEPTH, uses more than
MAX_YAML_ALIASES aliases, refers to an anchor from inside itself, would expand to more than
MAX_YAML_NODES values, repeats a key, carries a tag other than the plain ones, or holds a
number that is not finite or has more than MAX_NUMBER_DIGITS digits. The checks walk the
event stream and the composed graph (where an alias is a shared node, never a copy), so an
alias bomb is refused in time linear in the file's size.

A stream is split at its `---` / `...` lines first, so each document gets its own result: a
broken document does not take the good ones beside it down.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import yaml

from kvplan.inputs.errors import InputFileError
from kvplan.inputs.limits import MAX_NUMBER_DIGITS, MAX_YAML_ALIASES, MAX_YAML_DEPTH, MAX_YAML_NODES

try:  # the C parser is much faster and just as safe
    _SafeLoader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _SafeLoader = yaml.SafeLoader

_CORE = "tag:yaml.org,2002:"
PLAIN_TAGS = frozenset(_CORE + t for t in ("str", "int", "float", "bool", "null", "seq", "map"))
_MERGE = _CORE + "merge"
_MARKER = re.compile(r"^(---|\.\.\.)(?:[ \t]|$)")
_PREAMBLE = re.compile(r"^\s*(?:[#%].*)?$")  # blank, comment or directive lines


@dataclass(frozen=True)
class YamlDoc:
    """One document: its data and node graph, or the error that refused it."""

    start_line: int  # 1-based line where the document begins
    node: yaml.Node | None = None
    data: Any = None
    error: InputFileError | None = None


def split_documents(text: str) -> list[tuple[int, str]]:
    """(0-based first line, text) of each document: a new one at each `---`, an end at `...`.

    Lines holding only comments or directives are kept with the document that follows."""
    chunks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for i, line in enumerate(text.splitlines(keepends=True)):
        marker = _MARKER.match(line)
        if marker and marker.group(1) == "---" and any(not _PREAMBLE.match(x) for x in current):
            chunks.append((start, current))
            current, start = [], i
        current.append(line)
        if marker and marker.group(1) == "...":
            chunks.append((start, current))
            current, start = [], i + 1
    chunks.append((start, current))
    return [(s, "".join(lines)) for s, lines in chunks if any(not _PREAMBLE.match(x) for x in lines)]


def _line(mark: Any) -> int | None:
    return mark.line + 1 if mark is not None else None


# Compose's merge tags (docs.docker.com/reference/compose-file/merge/, "Reset value" / "Replace
# value": `!reset` and `!override`, Compose 2.24.4 and later) act on the file this one is merged
# onto with `docker compose -f base -f this`; TimeTreker/chromie's docker-compose.sglang.yml sets
# `ports: !override` (round blind-2026-12-07-r10), which was called an unrendered template
COMPOSE_MERGE_TAGS = ("!reset", "!override")


def _tag_problem(tag: str) -> str:
    plain = "(only plain YAML is accepted; tags such as !!python/... are refused)"
    if tag in COMPOSE_MERGE_TAGS:
        return (f"the compose merge tag {tag} acts on another compose file this one is merged "
                "onto (docker compose -f BASE -f THIS), which kvplan does not merge: check the "
                "merged file instead (docker compose -f BASE -f THIS config > merged.yaml)")
    if tag not in yaml.SafeLoader.yaml_constructors:
        return f"malformed YAML: could not determine a constructor for the tag {tag!r} {plain}"
    shown = "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag
    return f"malformed YAML: the tag {shown} is refused {plain}"


def _check_events(text: str, source: str) -> None:
    """Depth, alias count, recursive aliases and tags, from the event stream alone."""
    loader = _SafeLoader(text)
    depth = aliases = 0
    open_anchors: list[str | None] = []
    try:
        while loader.check_event():
            event = loader.get_event()
            line = _line(event.start_mark)
            if isinstance(event, yaml.DocumentStartEvent):
                aliases = 0
            tag = getattr(event, "tag", None)
            if tag is not None and tag not in PLAIN_TAGS and not isinstance(event, yaml.AliasEvent):
                raise InputFileError(source, _tag_problem(tag), line)
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                open_anchors.append(event.anchor)
                if depth > MAX_YAML_DEPTH:
                    raise InputFileError(source, f"nested more than {MAX_YAML_DEPTH} levels deep; "
                                         "flatten the file", line)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                open_anchors.pop()
            elif isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_YAML_ALIASES:
                    raise InputFileError(source, f"more than {MAX_YAML_ALIASES} aliases (*name) in one "
                                         "document; write the values out", line)
                if event.anchor in open_anchors:
                    raise InputFileError(source, f"the alias *{event.anchor} refers to a value that "
                                         "contains it (a loop); write the value out", line)
    finally:
        loader.dispose()


def _check_number(node: yaml.ScalarNode, source: str) -> None:
    text = str(node.value).replace("_", "").strip().lower()
    if node.tag == _CORE + "int":
        digits = sum(c.isdigit() for c in text)
        if digits > MAX_NUMBER_DIGITS:
            raise InputFileError(source, f"a number with {digits} digits; no count kvplan reads "
                                 f"has more than {MAX_NUMBER_DIGITS}", _line(node.start_mark))
    elif node.tag == _CORE + "float":
        try:
            finite = not text.lstrip("+-").startswith(".") and math.isfinite(float(text))
        except ValueError:
            finite = True  # a YAML 1.1 sexagesimal float such as 1:30.5; finite by construction
        if text.lstrip("+-") in (".inf", ".nan") or not finite:
            raise InputFileError(source, f"{node.value!r} is not a finite number; give a finite "
                                 "value", _line(node.start_mark))


def _check_nodes(root: yaml.Node, source: str) -> None:
    """Duplicate keys, numbers, and the size and depth the document would have once aliases
    expand (an alias may place a deep value deeper still)."""
    seen_nodes: dict[int, tuple[int, int]] = {}  # id -> (expanded size, expanded height)

    def too_deep(node: yaml.Node) -> InputFileError:
        return InputFileError(source, f"nested more than {MAX_YAML_DEPTH} levels deep once "
                              "aliases are expanded; flatten the file", _line(node.start_mark))

    def walk(node: yaml.Node, level: int) -> tuple[int, int]:
        if id(node) in seen_nodes:  # a shared node (an alias): checked once, counted each time
            size, height = seen_nodes[id(node)]
            if level + height > MAX_YAML_DEPTH:
                raise too_deep(node)
            return size, height
        if level > MAX_YAML_DEPTH:
            raise too_deep(node)
        size, height = 1, 0
        children: list[yaml.Node] = []
        if isinstance(node, yaml.ScalarNode):
            _check_number(node, source)
        elif isinstance(node, yaml.MappingNode):
            keys: dict[tuple[str, str], int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != _MERGE:
                    ident = (key.tag, str(key.value))
                    if ident in keys:
                        raise InputFileError(
                            source, f"duplicate key {key.value!r} (first on line {keys[ident]}); "
                            "keep one", _line(key.start_mark))
                    keys[ident] = _line(key.start_mark) or 0
                children += (key, value)
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        for child in children:
            child_size, child_height = walk(child, level + 1)
            size += child_size
            height = max(height, child_height + 1)
        seen_nodes[id(node)] = (size, height)
        if size > MAX_YAML_NODES:
            raise InputFileError(source, f"expands to more than {MAX_YAML_NODES:,} values "
                                 "(aliases repeated inside aliases); write the values out",
                                 _line(root.start_mark))
        return size, height

    walk(root, 1)


# a line that is nothing but a variable: a placeholder an envsubst-style renderer replaces with
# YAML lines (inferplane/llm-benchmark deploy/vllm.yaml's `$EXTRA_VLLM_ARGS_YAML` at column 0
# inside an args list, "rendered via envsubst"; round blind-2026-12-07-r10)
_PLACEHOLDER_LINE = re.compile(r"\s*\$(?:\{\w+\}|\w+)\s*")


def _yaml_problem(err: yaml.YAMLError, text: str = "") -> tuple[str, int | None]:
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    line = _line(mark)
    lines = text.splitlines()
    for at in ((line - 1, line) if line else ()):  # the line the parser stopped on, or the one before
        if 0 < at <= len(lines) and _PLACEHOLDER_LINE.fullmatch(lines[at - 1]):
            return (f"malformed YAML: {problem}; line {at} is only {lines[at - 1].strip()}, a "
                    "placeholder a template renderer (envsubst) replaces: render the file first "
                    "and check its output"), at
    return f"malformed YAML: {problem}", line


def _parse_chunk(text: str, first_line: int, source: str) -> list[YamlDoc]:
    padded = "\n" * first_line + text  # marks then count lines of the whole file
    try:
        _check_events(padded, source)
        loader = _SafeLoader(padded)
        docs: list[YamlDoc] = []
        try:
            while loader.check_node():
                node = loader.get_node()
                if node is None:  # pragma: no cover - check_node said there is one
                    break
                _check_nodes(node, source)
                data = loader.construct_document(node)
                docs.append(YamlDoc(start_line=node.start_mark.line + 1, node=node, data=data))
        finally:
            loader.dispose()
        return docs
    except InputFileError as err:
        return [YamlDoc(start_line=first_line + 1, error=err)]
    except yaml.YAMLError as err:
        problem, line = _yaml_problem(err, padded)
        return [YamlDoc(start_line=first_line + 1, error=InputFileError(source, problem, line))]
    except (ValueError, TypeError, OverflowError, RecursionError) as err:
        error = InputFileError(source, f"malformed YAML: {err}", first_line + 1)
        return [YamlDoc(start_line=first_line + 1, error=error)]


def yaml_documents(text: str, source: str) -> list[YamlDoc]:
    """Every document of a YAML stream, each checked and built on its own."""
    docs: list[YamlDoc] = []
    for first_line, chunk in split_documents(text):
        docs.extend(_parse_chunk(chunk, first_line, source))
    return docs


def load_yaml_text(text: str, source: str) -> Any:
    """The one document of a YAML text (None when empty); several documents are refused."""
    docs = yaml_documents(text, source)
    for doc in docs:
        if doc.error is not None:
            raise doc.error
    if len(docs) > 1:
        raise InputFileError(source, f"holds {len(docs)} YAML documents; this file takes one",
                             docs[1].start_line)
    return docs[0].data if docs else None
