"""How `patch` finds old_string and fits new_string (`tools/editing.py`), case by case.

The cases follow what users of Hermes's fuzzy `patch` rely on (each strategy, uniqueness at
every step, re-indentation, typographic characters kept) and the places where Hermes 0.19.0
writes a wrong edit, which tooldeck refuses with a reason.
"""

from __future__ import annotations

import ast

import pytest

from tooldeck.tools.editing import Edited, EditError, replace


def refused(content: str, old: str, new: str, *, replace_all: bool = False) -> str:
    with pytest.raises(EditError) as caught:
        replace(content, old, new, replace_all=replace_all)
    return str(caught.value)


# -- exact, uniqueness, empty input ---------------------------------------------------------


def test_exact_single_and_multiline() -> None:
    done = replace("hello world", "hello", "hi")
    assert (done.text, done.count, done.strategy) == ("hi world", 1, "exact")
    assert replace("one\ntwo\nthree", "one\ntwo", "1+2").text == "1+2\nthree"


def test_several_matches_need_replace_all_and_count_without_overlap() -> None:
    message = refused("x = 1\ny = 2\nx = 1\n", "x = 1", "x = 3")
    assert "found 2 matches" in message and "lines 1, 3" in message and "replace_all" in message
    everywhere = replace("x = 1\ny = 2\nx = 1\n", "x = 1", "x = 3", replace_all=True)
    assert everywhere.text == "x = 3\ny = 2\nx = 3\n" and everywhere.count == 2
    assert replace("abababab", "abab", "Z", replace_all=True).text == "ZZ"
    assert "found 2 matches" in refused("abababab", "abab", "Z")


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [("", "x", "empty"), ("same", "same", "identical"), ("  \n\t", "x", "whitespace")],
)
def test_meaningless_requests_are_refused(old: str, new: str, why: str) -> None:
    assert why in refused("same  \n\tthing", old, new)


# -- normalising strategies -----------------------------------------------------------------


def test_trimmed_lines_match_and_the_replacement_is_reindented() -> None:
    content = "class Shop:\n    def total(self, items):\n        cost = sum(items)\n        return cost\n"
    done = replace(content, "cost = sum(items)\nreturn cost", "cost = sum(items)\ncost *= 1.2\nreturn cost")
    assert done.strategy == "line_trimmed"
    assert done.text.splitlines()[2:] == [
        "        cost = sum(items)",
        "        cost *= 1.2",
        "        return cost",
    ]
    ast.parse(done.text)


def test_an_unindented_first_line_does_not_shift_the_rest() -> None:
    # The model copied the first line from its middle (no indent) but the body with its indent.
    content = "def run():\n    if ready:\n        go(1)\n        log()\n    stop()\n"
    done = replace(
        content, "if ready:\n        go(1)\n        log()", "if ready:\n        go(2)\n        log()"
    )
    assert done.text == "def run():\n    if ready:\n        go(2)\n        log()\n    stop()\n"


def test_blank_lines_in_the_replacement_stay_blank() -> None:
    done = replace("    a = 1\n    b = 2\n", "a = 1\nb = 2", "a = 1\n\nb = 3")
    assert done.text == "    a = 1\n\n    b = 3\n"


def test_whitespace_runs_inside_a_line() -> None:
    done = replace("total = price(a,   b) + tax", "price(a, b)", "price(a, b, c)")
    assert (done.text, done.strategy) == ("total = price(a, b, c) + tax", "whitespace_normalized")
    assert replace("left   right after", "left right", "LR").text == "LR after"


def test_escapes_typed_as_text() -> None:
    content = 'def greet():\n\tprint("hi")\n'
    done = replace(content, 'def greet():\\n\\tprint("hi")', 'def greet():\\n\\tprint("hello")')
    assert done.strategy == "escape_normalized" and done.text == 'def greet():\n\tprint("hello")\n'
    # `\n` typed in new_string alone (an exact match) stays text: it may be a string literal.
    assert replace("a\nb\n", "a\nb", "x\\ny").text == "x\\ny\n"


def test_tab_escapes_for_indentation_become_tabs_only_where_the_file_uses_tabs() -> None:
    assert replace("if x:\n\tgo()\n", "\tgo()", "\\tstop()").text == "if x:\n\tstop()\n"
    assert replace('sep = "\\t"\n', 'sep = "\\t"', 'sep = "\\t|"').text == 'sep = "\\t|"\n'
    assert replace(
        'path = "C:\\temp"\n\tx\n', 'path = "C:\\temp"\n\tx', 'path = "C:\\tmp"\n\tx'
    ).text.startswith('path = "C:\\tmp"')


@pytest.mark.parametrize(
    ("content", "old", "new", "expected"),
    [
        ("a \u2014 b", "a -- b", "a -- c", "a \u2014 c"),
        ("wait\u2026 done", "wait... done", "wait... over", "wait\u2026 over"),
        ("say \u201chi\u201d now", 'say "hi" now', 'say "hi" later', "say \u201chi\u201d later"),
        ("x = n \u2212 1", "x = n - 1", "y = n - 1", "y = n \u2212 1"),
        ("price:\u00a010", "price: 10", "price: 12", "price:\u00a012"),
        ("第一\u3000章", "第一 章", "第二 章", "第二\u3000章"),
    ],
)
def test_typographic_characters_match_their_ascii_look_alikes_and_survive(
    content: str, old: str, new: str, expected: str
) -> None:
    done = replace(content, old, new)
    assert (done.text, done.strategy) == (expected, "unicode_normalized")


# -- line endings ---------------------------------------------------------------------------


def test_crlf_files_match_lf_old_strings_and_keep_crlf() -> None:
    content = "def f():\r\n    a = 1\r\n    return a\r\n"
    done = replace(content, "a = 1\n    return a", "a = 2\n    b = a\n    return b")
    assert done.strategy == "line_endings"
    assert done.text == "def f():\r\n    a = 2\r\n    b = a\r\n    return b\r\n"


def test_mixed_line_endings_keep_each_lines_own() -> None:
    content = "unix one\nunix two\ndos one\r\ndos two\r\n"
    assert replace(content, "dos one\ndos two", "X\nY").text == "unix one\nunix two\nX\r\nY\r\n"
    assert replace(content, "unix two", "A\nB").text == "unix one\nA\nB\ndos one\r\ndos two\r\n"
    assert replace(content, "dos two", "C\nD").text == "unix one\nunix two\ndos one\r\nC\r\nD\r\n"


def test_crlf_with_a_body_indented_deeper_than_its_first_line() -> None:
    # Hermes 0.19.0 doubles this body's indentation on a CRLF file (its issue 88264).
    content = (
        "def outer():\r\n    x = 1\r\n    if x:\r\n        y = 2\r\n        print(y)\r\n    return x\r\n"
    )
    done = replace(
        content, "if x:\n        y = 2\n        print(y)", "if x:\n        y = 9\n        print(y * 2)"
    )
    assert (
        done.text
        == "def outer():\r\n    x = 1\r\n    if x:\r\n        y = 9\r\n        print(y * 2)\r\n    return x\r\n"
    )


# -- similarity, and the mis-edits refused ----------------------------------------------------


def test_a_block_anchored_by_its_first_and_last_lines() -> None:
    content = "def area(r):\n    pi = 3.14\n    sq = r * r\n    return pi * sq\n"
    done = replace(
        content,
        "def area(r):\n    pi = 3.14\n    sq = r ** 2\n    return pi * sq",
        "def area(r):\n    return 3.14159 * r * r",
    )
    assert done.strategy == "block_anchor" and done.text == "def area(r):\n    return 3.14159 * r * r\n"
    assert any("differed from the file" in note and "sq = r * r" in note for note in done.notes)


def test_lines_the_edit_keeps_keep_the_files_own_text() -> None:
    content = "alpha = 1\nbeta = compute(x, y)\ngamma = 3\n"
    done = replace(
        content, "alpha = 1\nbeta = compute(x,y)\ngamma = 3", "alpha = 1\nbeta = compute(x,y)\ngamma = 4"
    )
    assert (
        done.text == "alpha = 1\nbeta = compute(x, y)\ngamma = 4\n"
    )  # line 2 not rewritten to the model's copy


def test_a_block_whose_middle_is_something_else_is_not_taken() -> None:
    content = "class A:\n    colour = 'red'\n    size = 'big'\n    pass\n"
    message = refused(content, "class A:\n    x = 1\n    y = 2\n    pass", "class A:\n    pass")
    assert "Could not find a match" in message


def test_a_half_garbage_block_is_refused() -> None:
    # Hermes 0.19.0 applies this (half the lines similar) and deletes `limit = 200`.
    content = "setting = 100\nlimit = 200\n"
    message = refused(
        content,
        "setting = 999\ncompletely_unrelated_text_here",
        "setting = 5\ncompletely_unrelated_text_here",
    )
    assert "Could not find a match" in message


def test_replace_all_is_refused_for_similar_blocks() -> None:
    content = "start()\nstep(1)\nfinish()\n" * 3
    message = refused(content, "start()\nstep(2)\nfinish()", "run()", replace_all=True)
    assert "replace_all is refused for similar blocks" in message
    assert "found 3 matches" in refused(content, "start()\nstep(2)\nfinish()", "run()")


def test_a_rogue_indentation_on_a_crlf_file_is_refused() -> None:
    # Hermes 0.19.0 writes the 16-space lines verbatim into this CRLF file.
    content = "if (a) return;\r\n        if (b) skip();\r\n        done = true;\r\n"
    old = "if (a) return;\n        if (b) skip();\n        done = true;"
    rogue = (
        "if (a) return;\n                const c = b;\n                if (c) skip();\n        done = true;"
    )
    assert "Suspicious indentation" in refused(content, old, rogue)
    fine = "if (a) return;\n        const c = b;\n        if (c) skip();\n        done = true;"
    assert "\r\n        const c = b;\r\n" in replace(content, old, fine).text


def test_a_new_nested_block_is_not_mistaken_for_rogue_indentation() -> None:
    done = replace("def f():\r\n    a = 1\r\n    b = 2\r\n", "a = 1\nb = 2", "a = 1\nif a:\n    b = 2")
    assert done.text == "def f():\r\n    a = 1\r\n    if a:\r\n        b = 2\r\n"


def test_quote_escapes_added_by_the_transport_are_refused() -> None:
    content = "msg = 'it is'\nend\n"
    message = refused(content, "msg = \\'it is\\'\nend", "msg = \\'it was\\'\nend")
    assert "Escape-drift" in message
    kept = replace("s = \\'a\\'\n", "s = \\'a\\'", "s = \\'b\\'")  # the file really has them
    assert kept.text == "s = \\'b\\'\n"


# -- the no-match message -------------------------------------------------------------------


def test_no_match_names_the_closest_lines_and_what_differs() -> None:
    content = "".join(f"value_{i} = {i}\n" for i in range(50))
    message = refused(content, "value_20 = 20\nnumber_21 = 99", "x")
    assert "Did you mean" in message and "lines 21-22" in message
    assert "line 22: the file has 'value_21 = 21', old_string has 'number_21 = 99'" in message
    assert "whitespace" not in message.split("Did you mean")[1]


def test_no_whitespace_claim_when_only_the_first_line_matches() -> None:
    content = "def f():\n    return compute(1)\n"
    message = refused(content, "def   f():\n    return compute(2)", "x")
    hint = message.split("Did you mean")[1]
    assert "only whitespace inside the line differs" in hint  # true of line 1 ...
    assert "the file has 'return compute(1)'" in hint  # ... and line 2 is named as different


def test_a_blank_line_difference_is_named() -> None:
    content = "alpha\nbeta\ngamma\n"
    message = refused(content, "alpha\n\nbeta", "x")
    assert "differ in their blank lines" in message


def test_nothing_similar_says_so() -> None:
    assert "nothing in the file resembles it" in refused("a\nb\n", "zzz_qqq_xxx", "y")


def test_result_records_lines_and_strategy() -> None:
    done = replace("a\nb\nc\nb\n", "b", "B", replace_all=True)
    assert isinstance(done, Edited) and done.lines == (2, 4) and done.strategy == "exact"


def test_overlapping_places_are_ambiguous_and_replace_all_takes_them_without_overlap() -> None:
    content = "  a\n  a\n  a\n"
    assert "found 2 matches" in refused(content, "a\na", "z")  # lines 1-2 or lines 2-3?
    assert replace(content, "a\na", "z", replace_all=True).text == "  z\n  a\n"
