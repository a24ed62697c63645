"""Turning names, descriptions and queries into search terms.

Identifiers are split where a human sees word boundaries: `snake_case`, `kebab-case`,
`dotted.names`, `camelCase`, `HTTPServer` (an acronym before a capitalised word) and
letter-digit changes (`ipv4` -> `ipv 4`). Words are lowercased, English function words are
dropped (they match nearly every description and only add noise), and Latin words are reduced
to their Snowball stem so "forecasts" finds "forecast". Runs of CJK ideographs, which have no
spaces, become overlapping character pairs, the usual way to index such text.

Every function here takes any string, including empty ones, control characters and lone
surrogates, and never raises.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_DIGIT = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")
_WORD = re.compile(r"[^\W_]+")
_NEEDS_SPLIT = re.compile(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|[^\W\d_]\d|\d[^\W\d_]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")
_LATIN = re.compile(r"[a-z\u00c0-\u024f]+")

# Function words and the courtesy verbs of requests ("could you please ..."): they carry no
# hint of which tool is meant.
_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can cannot could did do does doing down during each either else
    etc few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself no nor not of off on once only or
    other our ours ourselves out over own please same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until up
    us very was we were what when where which while who whom why will with would you your yours
    yourself yourselves e g eg ie
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def split_identifier(text: str) -> str:
    """Spaces at camelCase, acronym and letter-digit boundaries (case kept)."""
    return _DIGIT.sub(" ", _CAMEL.sub(" ", text))


def words(text: str) -> list[str]:
    """Lowercased words of `text` with identifiers split; punctuation and `_` separate words."""
    return _WORD.findall(split_identifier(text).lower())


def _cjk_pairs(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


class Analyzer:
    """Words -> search terms: stopwords dropped, Latin words stemmed, CJK runs paired.

    Terms are cached per word as written (bounded); `default_analyzer()` shares one cache
    between every index of the process.
    """

    def __init__(self, *, stem: bool = True, stopwords: frozenset[str] = STOPWORDS) -> None:
        self.stopwords = stopwords
        self._stem_word: Callable[[str], str] | None = _load_stemmer() if stem else None
        self._cache: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def _raw_terms(self, raw: str) -> tuple[str, ...]:
        """Terms of one run of letters and digits as written (`getHTTPStatus2`), cached."""
        cached = self._cache.get(raw)
        if cached is not None:
            return cached
        parts = _WORD.findall(split_identifier(raw).lower()) if _NEEDS_SPLIT.search(raw) else [raw.lower()]
        terms: list[str] = []
        for word in parts:
            terms.extend(self._word_terms(word))
        result = tuple(terms)
        with self._lock:
            if len(self._cache) > 500_000:
                self._cache.clear()
            self._cache[raw] = result
        return result

    def _word_terms(self, word: str) -> tuple[str, ...]:
        if word in self.stopwords:
            return ()
        if _CJK.search(word):
            return tuple(self._mixed(word))
        if self._stem_word is not None and _LATIN.fullmatch(word):
            return (self._stem_word(word),)
        return (word,)

    def _mixed(self, word: str) -> list[str]:
        out: list[str] = []
        pos = 0
        for m in _CJK.finditer(word):
            if m.start() > pos:
                out.extend(self._word_terms(word[pos : m.start()]))
            out.extend(_cjk_pairs(m.group()))
            pos = m.end()
        if pos < len(word):
            out.extend(self._word_terms(word[pos:]))
        return out

    def terms(self, text: str) -> list[str]:
        """The search terms of `text`, in order, repeats kept."""
        cache = self._cache
        out: list[str] = []
        for raw in _WORD.findall(text):
            found = cache.get(raw)
            out.extend(found if found is not None else self._raw_terms(raw))
        return out


_DEFAULT: Analyzer | None = None
_DEFAULT_LOCK = threading.Lock()


def default_analyzer() -> Analyzer:
    """The process-wide analyzer with the default settings, so every index shares its cache."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = Analyzer()
        return _DEFAULT


def _load_stemmer() -> Callable[[str], str] | None:
    try:
        import snowballstemmer
    except ImportError:  # stemming is an improvement, not a requirement
        return None
    stemmer = snowballstemmer.stemmer("english")
    stem: Callable[[str], str] = stemmer.stemWord
    return stem


def bigrams(terms: list[str]) -> list[str]:
    """Adjacent term pairs, joined by a space (which no single term contains)."""
    return [f"{a} {b}" for a, b in itertools.pairwise(terms)]
