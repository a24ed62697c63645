"""Paths within folders, compared as text."""

from __future__ import annotations

from tooldeck._utils.pathnames import is_within, relative_to


def test_a_path_is_within_its_folder_and_what_lies_below_it_but_not_a_sibling_sharing_a_prefix() -> None:
    assert is_within("/a/b", "/a/b") and is_within("/a/b/c", "/a/b") and is_within("/a/b/c", "/a/b/")
    assert is_within("/a/b", "/a/b/")
    assert not is_within("/a/bc", "/a/b") and not is_within("/a", "/a/b")
    assert is_within("/anything", "/") and is_within("/", "/")
    assert is_within(".ssh/id_rsa", ".ssh") and not is_within(".sshd", ".ssh")


def test_relative_to_gives_the_rest_of_the_path_empty_for_the_folder_none_elsewhere() -> None:
    assert relative_to("/w", "/w") == "" and relative_to("/w/x/y", "/w") == "x/y"
    assert relative_to("/w/x", "/w/") == "x" and relative_to("/x/y", "/") == "x/y"
    assert relative_to("/wx", "/w") is None and relative_to("/", "/w") is None
