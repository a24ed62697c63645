"""The peers of the search benchmark, written from the definitions in the data README.

  * plain BM25 (k1 = 1.2, b = 0.75) over name + description + every parameter name and
    parameter description, nested ones too; tokens: camelCase split, lowercased, split on
    anything not a letter or digit; no stemming, no stopwords; each query term once.
  * DeerFlow's `tool_search` keyword mode: the whole query is one case-insensitive regular
    expression (literal text if it does not compile) searched in "name description"; tools
    whose name matches come first, then catalog order; at most five results.

Both are deliberately plain Python, as their originals are.
"""

from __future__ import annotations

import heapq
import math
import re
import warnings
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

DEERFLOW_MAX_RESULTS = 5
_CAMEL_LOWER = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_UPPER = re.compile(r"([A-Z]+)([A-Z][a-z])")
_TOKEN = re.compile(r"[^\W_]+")


def plain_tokens(text: str) -> list[str]:
    spaced = _CAMEL_UPPER.sub(r"\1 \2", _CAMEL_LOWER.sub(r"\1 \2", text))
    return _TOKEN.findall(spaced.lower())


def _schema_words(node: Any, out: list[str]) -> None:
    if isinstance(node, Mapping):
        if isinstance(node.get("description"), str):
            out.append(node["description"])
        props = node.get("properties")
        if isinstance(props, Mapping):
            for key, sub in props.items():
                out.append(str(key))
                _schema_words(sub, out)
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), Mapping):
                _schema_words(node[key], out)
        for key in ("anyOf", "oneOf", "allOf"):
            if isinstance(node.get(key), list):
                for sub in node[key]:
                    _schema_words(sub, out)
    elif isinstance(node, list):
        for sub in node:
            _schema_words(sub, out)


class PlainBM25:
    """BM25 as the reference scorer's baseline defines it."""

    def __init__(self, tools: Sequence[Mapping[str, Any]], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.names = [str(t["name"]) for t in tools]
        docs = []
        for t in tools:
            parts = [str(t["name"]), str(t.get("description") or "")]
            schema = t.get("parameters") if t.get("parameters") is not None else t.get("inputSchema")
            if schema is not None:
                _schema_words(schema, parts)
            docs.append(Counter(plain_tokens(" ".join(parts))))
        lengths = [sum(d.values()) for d in docs]
        avg = sum(lengths) / len(lengths) if lengths else 1.0
        df = Counter(term for d in docs for term in d)
        n = len(docs)
        self.postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for i, doc in enumerate(docs):
            norm = k1 * (1 - b + b * lengths[i] / avg)
            for term, f in doc.items():
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                self.postings[term].append((i, idf * f * (k1 + 1) / (f + norm)))

    def rank(self, query: str, k: int = 10) -> list[str]:
        acc: dict[int, float] = defaultdict(float)
        for term in set(plain_tokens(query)):
            for i, w in self.postings.get(term, ()):
                acc[i] += w
        best = heapq.nsmallest(k, acc.items(), key=lambda item: (-item[1], item[0]))
        return [self.names[i] for i, _ in best]


class DeerFlowRegex:
    """DeerFlow's keyword search: the query as one regex over "name description"."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.tools = [(str(t["name"]), f"{t['name']} {t.get('description') or ''}") for t in tools]

    def rank(self, query: str, k: int = 10) -> list[str]:
        query = query.strip()
        if not query:
            return []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pattern = re.compile(query, re.IGNORECASE)
        except re.error:
            pattern = re.compile(re.escape(query), re.IGNORECASE)
        found = [
            (2 if pattern.search(name) else 1, name) for name, text in self.tools if pattern.search(text)
        ]
        found.sort(key=lambda item: item[0], reverse=True)  # stable: catalog order within a level
        return [name for _, name in found][: min(k, DEERFLOW_MAX_RESULTS)]
