"""kvplan.engines.release: the one reader of engine releases (task h44review).

Hand-written cases for the three spellings the engines tag (vLLM 0.22.1, SGLang 0.5.4.post1,
TensorRT-LLM 1.1.0rc2) and an image tag (v0.30.0-cu129), then hypothesis properties with
packaging.version.Version as the oracle (packaging is in the test venv; kvplan does not depend
on it, so the oracle is skipped where it is absent).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvplan.check.engine_flags.trtllm import release_key
from kvplan.engines.release import Release, leading_numbers, parse_version, read_release
from kvplan.errors import InputError

version = pytest.importorskip("packaging.version")


@pytest.mark.parametrize(("text", "release", "numbers", "suffix"), [
    ("0.22.1", "0.22.1", (0, 22, 1), ""),
    ("0.5.4.post1", "0.5.4.post1", (0, 5, 4), ""),
    ("1.1.0rc2", "1.1.0rc2", (1, 1, 0), ""),
    ("v0.30.0-cu129", "0.30.0", (0, 30, 0), "-cu129"),
    ("0.8.5.dev169+gce17db808", "0.8.5.dev169", (0, 8, 5), "+gce17db808"),
    ("25.09-py3", "25.09", (25, 9), "-py3"),  # the numbers as written: an NGC month keeps its 0
])
def test_the_engines_spellings(text: str, release: str, numbers: tuple[int, ...],
                               suffix: str) -> None:
    read = read_release(text)
    assert read is not None
    assert (str(read), read.numbers, read.suffix) == (release, numbers, suffix)
    assert parse_version(text) == numbers


def test_the_lenient_numbers_and_what_is_refused() -> None:
    """parse_version keeps what a release text starts with ('0.10x' -> (0, 10), which
    read_release refuses: a number run into letters is no PEP 440 release); a text with no
    number first is refused, None stays None."""
    assert parse_version("0.10x") == (0, 10) and read_release("0.10x") is None
    assert leading_numbers("vv01.2.x") == "01.2"
    assert read_release("7") is None and parse_version("7") == (7,)
    assert parse_version(None) is None
    with pytest.raises(InputError, match="cannot read engine version 'latest'"):
        parse_version("latest")


def test_trtllm_ranks_post_and_dev_with_what_they_follow() -> None:
    """The TensorRT-LLM option table's key: 1.3.0rc6 < 1.3.0rc7 < 1.3.0 < 1.3.1; a `.postN`
    or `.devN` is the release it follows (1.2.0rc6.post3 == 1.2.0rc6), where PEP 440 puts
    1.2.0rc6 < 1.2.0rc6.post3."""
    keys = [release_key(t) for t in ("1.3.0rc6", "1.3.0rc7", "1.3.0", "1.3.1")]
    assert keys == sorted(keys) and len(set(keys)) == 4
    assert release_key("1.2.0rc6.post3") == release_key("1.2.0rc6") == \
        release_key("1.2.0rc6.dev1")
    rc6, post3 = read_release("1.2.0rc6"), read_release("1.2.0rc6.post3")
    assert rc6 is not None and post3 is not None and rc6.key() < post3.key()
    assert release_key("latest") is None


_SEP = st.sampled_from(["", ".", "-", "_"])
_WHOLE_SEP = st.sampled_from([".", "-", "_"])  # a segment after a number needs one
_PRE = st.sampled_from(["a", "alpha", "b", "beta", "c", "rc", "pre", "preview", "RC"])


@st.composite
def releases(draw: st.DrawFn) -> str:
    """A PEP 440 release in the spellings engines and their images use (no local version, no
    implicit `-N` post-release, no epoch: none is read)."""
    text = draw(st.sampled_from(["", "v"]))
    text += ".".join(str(n) for n in draw(st.lists(st.integers(0, 40), min_size=2, max_size=4)))
    if draw(st.booleans()):
        text += draw(_SEP) + draw(_PRE) + draw(_SEP) + draw(st.sampled_from(["", "0", "1", "7"]))
        if text[-1].isalpha():
            text += "0"  # `1.0rc-` is no release; `1.0rc` is rc0 and stands alone
    for word in ("post", "dev"):
        if draw(st.booleans()):
            text += draw(_WHOLE_SEP) + word + str(draw(st.integers(0, 12)))
    return text


@settings(max_examples=120, deadline=None)
@given(releases(), st.sampled_from(["", "-cu129", "-rocm630-srt", "+g1234"]))
def test_reads_what_packaging_reads(text: str, suffix: str) -> None:
    """The normal form is packaging's, the suffix is kept, and parse_version's numbers are
    the release's."""
    read = read_release(text + suffix)
    assert read is not None
    assert str(read) == str(version.Version(text)) and read.suffix == suffix
    assert parse_version(text + suffix) == read.numbers == version.Version(text).release


@settings(max_examples=120, deadline=None)
@given(releases(), releases())
def test_orders_as_packaging_orders(a: str, b: str) -> None:
    ra, rb = read_release(a), read_release(b)
    va, vb = version.Version(a), version.Version(b)
    assert ra is not None and rb is not None
    assert (ra.key() < rb.key(), ra.key() == rb.key()) == (va < vb, va == vb)
    # the TensorRT-LLM key coarsens PEP 440's order and reverses it only where a dev release
    # of a final release (0.0.dev0, before 0.0a0 in PEP 440) ranks as that final release
    if va < vb and not (ra.pre is None and ra.dev is not None):
        assert release_key(a) <= release_key(b)  # type: ignore[operator]


def test_a_release_built_by_hand_prints_pep_440() -> None:
    assert str(Release("1.2.0", ("rc", 2), 1, 3)) == "1.2.0rc2.post1.dev3"
