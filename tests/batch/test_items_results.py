"""Batch input lines and the append-only results file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tooldeck.batch.items import BatchItem, InputError, parse_item, read_items
from tooldeck.batch.results import ItemResult, ResultWriter, Status, ToolCallRecord, finished_ids
from tooldeck.batch.run import BatchInputError, BatchOptions, plan_batch


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_valid_items_are_read_and_bad_lines_are_reported_with_their_numbers(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "in.jsonl",
        [
            json.dumps({"id": "a", "prompt": "one", "system": "be brief", "metadata": {"k": 1}}),
            "{not json",
            "",
            json.dumps(["a list"]),
            json.dumps({"id": "b"}),
            json.dumps({"id": True, "prompt": "x"}),
            json.dumps({"id": "c", "prompt": "x", "promt": "typo"}),
            json.dumps({"id": "a", "prompt": "again"}),
            json.dumps({"id": 7, "prompt": "seven", "tools": ["read_file", "read_file"]}),
            json.dumps({"id": "d", "prompt": "x", "tools": "read_file"}),
            json.dumps({"id": "e", "prompt": "x", "metadata": [1]}),
        ],
    )
    items, problems = read_items(path)
    assert [i.id for i in items] == ["a", 7]
    assert items[0] == BatchItem("a", "one", system="be brief", metadata={"k": 1}, line=1)
    assert items[1].tools == ("read_file",)  # repeats dropped, order kept
    by_line = {p.line: p.message for p in problems}
    assert sorted(by_line) == [2, 4, 5, 6, 7, 8, 10, 11]  # the blank line 3 is not a problem
    assert "not valid JSON" in by_line[2]
    assert "expected a JSON object" in by_line[4]
    assert "'prompt' must be a non-empty string" in by_line[5]
    assert "'id' must be" in by_line[6]
    assert "'promt'" in by_line[7] and "metadata" in by_line[7]
    assert "duplicate id 'a' (first on line 1)" in by_line[8]
    assert "'tools' must be a list" in by_line[10]
    assert "'metadata' must be an object" in by_line[11]


def test_an_integer_id_and_its_string_are_different_items(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "in.jsonl", [json.dumps({"id": 1, "prompt": "x"}), json.dumps({"id": "1", "prompt": "y"})]
    )
    items, problems = read_items(path)
    assert [i.id for i in items] == [1, "1"] and not problems


def result(item_id: str | int, status: Status = "ok") -> ItemResult:
    return ItemResult(item_id, status, text="t", tool_calls=(ToolCallRecord("read_file", "denied"),))


def test_writer_appends_one_line_per_result_and_cuts_a_torn_last_line(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with ResultWriter(out) as writer:
        writer.write(result("a"))
    with open(out, "a", encoding="utf-8") as fh:
        fh.write('{"id": "b", "stat')  # a crash in the middle of a write
    assert finished_ids(out) == ({'"a"'}, 1)
    with ResultWriter(out) as writer:
        writer.write(result(2, "timeout"))
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["id"] == "a"
    last = json.loads(lines[1])
    assert last["id"] == 2 and last["status"] == "timeout"
    assert last["tool_calls"] == [{"name": "read_file", "error": "denied"}]
    assert finished_ids(out) == ({'"a"', "2"}, 0)


def test_a_whole_last_line_without_its_newline_counts_and_gets_one(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps(result("a").to_json()), encoding="utf-8")
    assert finished_ids(out) == ({'"a"'}, 0)
    with ResultWriter(out) as writer:
        writer.write(result("b"))
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["a", "b"]


@pytest.mark.parametrize(
    "text",
    [
        "victim\n" + json.dumps(result("s0").to_json()) + "\n",  # a foreign first line
        json.dumps(result("s0").to_json()) + '\n{"id": "b", "stat\n',  # a cut line that is not the last
        json.dumps({"id": "x", "prompt": "an input line, not a result"}) + "\n",
        "\n",
        "just some notes",  # a last line without newline that is no result's start
    ],
)
def test_a_file_that_is_not_a_results_file_is_refused_and_left_alone(tmp_path: Path, text: str) -> None:
    src = write_lines(tmp_path / "in.jsonl", [json.dumps({"id": "s0", "prompt": "p"})])
    out = tmp_path / "victim.txt"
    out.write_text(text, encoding="utf-8")
    for resume in (False, True):
        with pytest.raises(BatchInputError, match=r"is not a tooldeck results file.*line"):
            plan_batch(BatchOptions(src, out, resume=resume))
    assert out.read_text(encoding="utf-8") == text


def test_the_writer_refuses_to_append_after_a_foreign_last_line(tmp_path: Path) -> None:
    out = tmp_path / "notes.txt"
    out.write_text("just some notes", encoding="utf-8")
    with pytest.raises(OSError, match="not a tooldeck results file"):
        ResultWriter(out)
    assert out.read_text(encoding="utf-8") == "just some notes"


def test_plan_refuses_an_output_that_is_a_link_or_not_a_regular_file(tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [json.dumps({"id": 1, "prompt": "p"})])
    dangling = tmp_path / "dangle.jsonl"
    dangling.symlink_to(tmp_path / "nowhere.jsonl")
    real = tmp_path / "real.jsonl"
    real.write_text("")
    linked = tmp_path / "link.jsonl"
    linked.symlink_to(real)
    for link in (dangling, linked):
        with pytest.raises(BatchInputError, match="is a symbolic link"):
            plan_batch(BatchOptions(src, link, resume=True))
    with pytest.raises(BatchInputError, match="is not a regular file"):
        plan_batch(BatchOptions(src, Path("/dev/null"), resume=True))
    assert not (tmp_path / "nowhere.jsonl").exists()
    with pytest.raises(OSError):
        ResultWriter(dangling)  # the writer never follows a link either
    assert not (tmp_path / "nowhere.jsonl").exists()


def test_plan_refuses_a_full_output_without_resume_and_skips_done_ids_with_it(tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [json.dumps({"id": i, "prompt": f"p{i}"}) for i in range(4)])
    out = tmp_path / "out.jsonl"
    with ResultWriter(out) as writer:
        writer.write(result(1))
        writer.write(result(3, "error"))
    with pytest.raises(BatchInputError, match="already holds 2 result"):
        plan_batch(BatchOptions(src, out))
    plan = plan_batch(BatchOptions(src, out, resume=True))
    assert [i.id for i in plan.items] == [0, 2] and plan.skipped == 2 and plan.total == 4
    with pytest.raises(BatchInputError, match="is a folder"):
        plan_batch(BatchOptions(src, tmp_path))
    with pytest.raises(BatchInputError, match="is not a file"):
        plan_batch(BatchOptions(tmp_path / "missing.jsonl", out))
    with pytest.raises(BatchInputError, match="must not be the input"):
        plan_batch(BatchOptions(src, src, resume=True))
    with pytest.raises(BatchInputError, match="--workers"):
        BatchOptions(src, out, workers=0)


@given(st.text(max_size=200))
def test_any_line_is_an_item_or_a_named_problem(text: str) -> None:
    try:
        item = parse_item(text, 1)
    except InputError as exc:
        assert str(exc)
    else:
        assert item.prompt.strip() and item.line == 1


ids = st.one_of(st.text(min_size=1, max_size=20), st.integers())
items = st.fixed_dictionaries(
    {"id": ids, "prompt": st.text(min_size=1, max_size=40).filter(str.strip)},
    optional={
        "system": st.text(max_size=20),
        "metadata": st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
        "tools": st.lists(st.text(min_size=1, max_size=10), max_size=3),
    },
)


@given(items)
def test_valid_objects_parse_to_the_same_fields(data: dict[str, object]) -> None:
    item = parse_item(json.dumps(data), 3)
    assert item.id == data["id"] and item.prompt == data["prompt"]
    assert item.system == data.get("system") and item.metadata == data.get("metadata")
    tools = data.get("tools")
    assert item.tools == (tuple(dict.fromkeys(tools)) if isinstance(tools, list) else None)
