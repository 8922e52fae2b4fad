"""Every link between the docs pages lands, and every section a message names is on its page.

Task h61docsplit split docs/engines.md into the reference and two record pages
(docs/engines-findings.md, docs/engines-calibration.md); a link or a citation left pointing at the
old page would send a reader to a heading that is no longer there. Two checks:

- every markdown link in README.md and docs/*.md to a relative file (outside fenced code) names a
  file that exists, and a `#anchor` on a markdown page is one of that page's headings as GitHub
  spells it (lower case, punctuation dropped, spaces to '-', repeats numbered -1, -2, ...);
- every `docs/X.md` that kvplan/ and benchmarks/ cite (not another project's: "Ollama's
  docs/api.md") names a page that exists, and the section quoted right after it (`docs/X.md,
  "Section"` or `docs/X.md, task hNN`) is a heading, a bold lead-in (`**...`) or a table row's
  first cell on that page: a section named on one page and moved to another fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCED = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.M)
# docs/X.md, then an optional section: "quoted", or task <id> (a comment's leading '#' and the
# line breaks are folded away first)
CITE = re.compile(r"(?<![\w/.-])docs/([\w.-]+\.md)(?:,|:)?\s*(?:\"([^\"]+)\"|(task h\w+))?")


def _prose(text: str) -> str:
    return FENCED.sub("", text)


def slug(title: str) -> str:
    """GitHub's anchor for a heading."""
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link in a heading keeps its text
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for title in HEADING.findall(_prose(page.read_text(encoding="utf-8"))):
        base = slug(title)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def _fold(text: str) -> str:
    return " ".join(text.replace("`", "").lower().split())


def sections(page: Path) -> list[str]:
    """What a citation may name on a page: its headings, its bold lead-ins, its table rows' first
    cells (folded: lower case, backticks and line breaks dropped)."""
    text = _prose(page.read_text(encoding="utf-8"))
    found = HEADING.findall(text)
    found += re.findall(r"^\*\*(.+?)\*\*", text, re.M | re.S)
    found += re.findall(r"^\| ([^|]+?) \|", text, re.M)
    return [_fold(s) for s in found]


def test_slug_is_github_s() -> None:
    assert slug("vLLM: cold and warm torch.compile caches (task h43cold)") == \
        "vllm-cold-and-warm-torchcompile-caches-task-h43cold"
    assert slug("SGLang 0.5.21 -> 0.5.23 (read for task h41sgl523)") == \
        "sglang-0521---0523-read-for-task-h41sgl523"
    assert slug("transformers (`--measure`)") == "transformers---measure"


def _links() -> list[tuple[str, Path, str]]:
    found = []
    for page in PAGES:
        for target in LINK.findall(_prose(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target) or target.startswith("mailto"):
                continue  # http(s) and other schemes: not a page here
            found.append((f"{page.relative_to(ROOT)} -> {target}", page, target))
    return found


LINKS = _links()


def test_the_docs_link_to_each_other() -> None:
    """The pages link to the split pages and within them (a floor, so the scan cannot find none)."""
    targets = {t for _, _, t in LINKS}
    assert "engines-calibration.md#calibration-set" in targets
    assert any(t.startswith("engines-findings.md#") for t in targets)
    assert any(t.startswith("#") for t in targets)


@pytest.mark.parametrize("where, page, target", LINKS, ids=[w for w, _, _ in LINKS])
def test_link_resolves(where: str, page: Path, target: str) -> None:
    path, _, anchor = target.partition("#")
    dest = (page.parent / path).resolve() if path else page
    assert dest.exists(), f"{where}: no such file"
    if anchor and dest.suffix == ".md":
        assert anchor in anchors(dest), f"{where}: {dest.name} has no heading #{anchor}"


def _citations() -> list[tuple[str, str, str]]:
    found = []
    for source in sorted([*(ROOT / "kvplan").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]):
        lines = source.read_text(encoding="utf-8").splitlines()
        text = " ".join(re.sub(r"^\s*#\s?", "", ln).strip() for ln in lines)
        for m in CITE.finditer(text):
            if text[:m.start()].endswith("'s "):
                continue  # another project's docs ("Ollama's docs/api.md")
            section = m.group(2) or m.group(3) or ""
            found.append((f"{source.relative_to(ROOT)}: docs/{m.group(1)} {section!r}",
                          m.group(1), section))
    return found


CITATIONS = _citations()


def test_kvplan_cites_the_split_pages() -> None:
    pages = {page for _, page, _ in CITATIONS}
    assert {"engines.md", "engines-findings.md", "engines-calibration.md"} <= pages


@pytest.mark.parametrize("where, page, section", CITATIONS, ids=[w for w, _, _ in CITATIONS])
def test_citation_resolves(where: str, page: str, section: str) -> None:
    dest = ROOT / "docs" / page
    assert dest.exists(), f"{where}: no such page"
    if section:
        assert any(_fold(section) in s for s in sections(dest)), \
            f"{where}: no heading, bold lead-in or table row on {page} names it"


def test_a_moved_section_fails() -> None:
    """The checks can fail: a section cited on the page it left, and an anchor on the wrong page."""
    engines = ROOT / "docs" / "engines.md"
    assert not any("cold and warm torch.compile caches" in s for s in sections(engines))
    assert "vllm-cold-and-warm-torchcompile-caches-task-h43cold" not in anchors(engines)
    assert "calibration-set" not in anchors(engines)
