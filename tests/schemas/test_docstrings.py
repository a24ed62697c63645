"""The docstring reader agrees with docstring_parser (a library made for this) on generated
Google, Sphinx and NumPy docstrings: same summary, same parameter descriptions, same returns."""

from __future__ import annotations

from typing import Any

import docstring_parser
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck._core.schemas.docstrings import read_docstring

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
WORDS = st.lists(st.from_regex(r"[A-Za-z][a-z]{0,7}", fullmatch=True), min_size=1, max_size=6).map(" ".join)
TYPES = st.sampled_from(["int", "str", "list[int]", "float"])


@st.composite
def docstrings(draw: st.DrawFn) -> tuple[str, str, dict[str, str], tuple[str, str] | None]:
    style = draw(st.sampled_from(["google", "sphinx", "numpy"]))
    summary = draw(WORDS) + "."
    names = draw(st.lists(NAMES, min_size=0, max_size=4, unique=True))
    params = {n: draw(WORDS) + "." for n in names}
    returns = draw(st.none() | st.tuples(TYPES, WORDS.map(lambda w: w + ".")))
    typed = draw(st.booleans())
    lines = [summary, ""]
    if style == "google":
        if params:
            lines += (
                ["Args:"]
                + [f"    {n}{f' ({draw(TYPES)})' if typed else ''}: {d}" for n, d in params.items()]
                + [""]
            )
        if returns:
            lines += ["Returns:", f"    {returns[0]}: {returns[1]}"]
    elif style == "sphinx":
        lines += [f":param {draw(TYPES) + ' ' if typed else ''}{n}: {d}" for n, d in params.items()]
        if returns:
            lines += [f":return: {returns[1]}", f":rtype: {returns[0]}"]
    else:
        if params:
            lines += ["Parameters", "----------"]
            for n, d in params.items():
                lines += [f"{n} : {draw(TYPES)}" if typed else n, f"    {d}"]
            lines.append("")
        if returns:
            lines += ["Returns", "-------", returns[0], f"    {returns[1]}"]
    return "\n".join(lines), summary, params, returns


@settings(max_examples=150, deadline=None)
@given(docstrings())
def test_reader_agrees_with_docstring_parser(case: tuple[str, str, dict[str, str], Any]) -> None:
    text, summary, params, returns = case
    ours = read_docstring(text)
    theirs = docstring_parser.parse(text)
    assert ours.summary == summary == theirs.short_description
    assert ours.params == params == {p.arg_name: p.description for p in theirs.params}
    if returns is None:
        assert not ours.returns and theirs.returns is None
    else:
        assert (ours.returns_type, ours.returns) == returns
        assert theirs.returns is not None and theirs.returns.description == returns[1]


def test_continuation_lines_join_and_other_sections_are_left_out() -> None:
    text = (
        "Summary line.\n\nMore detail.\n\nArgs:\n    a (int): First.\n        Still first.\n    *rest: Others.\n\n"
        "Raises:\n    ValueError: when.\n\nExamples:\n    >>> f(1)\n    2\n"
    )
    parsed = read_docstring(text)
    assert parsed.summary == "Summary line.\n\nMore detail."
    assert parsed.params == {"a": "First. Still first.", "rest": "Others."}
    assert parsed.description() == "Summary line.\n\nMore detail.\n\nExamples:\n    >>> f(1)\n    2"
