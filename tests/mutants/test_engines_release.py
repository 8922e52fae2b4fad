"""Mutation tests of kvplan/engines/release.py (task h80mut), from PEP 440 as packaging.version
reads it: an implicit post- or dev-release number is 0 ("1.0.post" is 1.0.post0); trailing
zeros of the release segment do not count (1.0 == 1.0.0, 1.2.0 == 1.2); a dev release of a
final release sorts before its pre-releases; a post-release's dev release before that
post-release (1.0.post1.dev2 < 1.0.post1)."""

from __future__ import annotations

from kvplan.engines.release import Release, read_release


def test_implicit_numbers_are_zero() -> None:
    post, dev = read_release("1.0.post"), read_release("1.0.dev")
    assert post is not None and post.post == 0 and str(post) == "1.0.post0"
    assert dev is not None and dev.dev == 0 and str(dev) == "1.0.dev0"


def test_trailing_zeros_do_not_count() -> None:
    assert Release("1.0").key() == Release("1").key() == Release("1.0.0").key()
    assert Release("1.2.0").key() == Release("1.2").key()
    assert Release("1.2.0").key() < Release("1.2.1").key()


def test_dev_releases_order() -> None:
    assert Release("1.0", dev=0).key() < Release("1.0", pre=("a", 1)).key()
    assert Release("1.0", post=1, dev=2).key() < Release("1.0", post=1).key()


def test_a_release_sorts_before_its_first_post_release() -> None:
    """No post number sorts before every real one, .post0 and .post1 included (PEP 440; vLLM
    0.5.3.post1 and SGLang 0.4.3.post4 are releases kvplan's tables compare against)."""
    final = Release("0.5.3").key()
    assert final < Release("0.5.3", post=0).key() < Release("0.5.3", post=1).key()
    assert final != Release("0.5.3", post=1).key()
