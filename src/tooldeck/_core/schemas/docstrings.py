"""Reading a function's docstring into a tool description and parameter descriptions.

Google (`Args:`), Sphinx (`:param x:`) and NumPy (`Parameters` over a dashed line) styles are
read, in any mix. The tool description is the summary; a `Returns` section is kept for the
model in the tagged form pydantic-ai uses (`<summary>...</summary>` then `<returns>` with the
type and description), and an `Examples` section is kept after the summary. `Raises`, `Notes`
and the like are for human readers and are left out.

This is a small line-based reader rather than a docstring library: docstring_parser costs
18 ms to import and about 100 us per docstring, griffe more, and every built-in tool's
docstring is read when tooldeck starts.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_GOOGLE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z ]*):\s*$")
_GOOGLE_ITEM = re.compile(r"^(?P<name>\*{0,2}\w+)\s*(?:\((?P<type>[^)]*)\))?\s*:\s*(?P<text>.*)$")
_SPHINX = re.compile(
    r"^:(?P<kind>param|parameter|arg|argument|key|keyword|returns?|rtype)(?:\s+(?P<rest>[^:]*))?:\s*(?P<text>.*)$"
)
_SPHINX_OTHER = re.compile(r"^:\w+[^:]*:")
_NUMPY_RULE = re.compile(r"^-{3,}\s*$")
_NUMPY_ITEM = re.compile(r"^(?P<name>\*{0,2}\w+)\s*(?::\s*(?P<type>.*))?$")

_PARAMS = {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments", "other parameters",
           "other params", "other args", "other arguments"}  # fmt: skip
_RETURNS = {"returns", "return"}
_EXAMPLES = {"example", "examples"}
_KNOWN = _PARAMS | _RETURNS | _EXAMPLES | {
    "raises", "raise", "yields", "yield", "note", "notes", "warning", "warnings", "see also", "todo",
    "attributes", "references", "methods", "receives", "warns",
}  # fmt: skip


@dataclass
class Docstring:
    """What a docstring says, by part."""

    summary: str = ""
    params: dict[str, str] = field(default_factory=dict)
    returns: str = ""
    returns_type: str = ""
    examples: str = ""

    def description(self) -> str:
        """The tool description: the summary, the examples, then what the tool returns."""
        main = self.summary
        if self.examples:
            block = "Examples:\n" + "\n".join(
                f"    {line}" if line.strip() else line for line in self.examples.splitlines()
            )
            main = f"{main}\n\n{block}" if main else block
        if not (self.returns or self.returns_type):
            return main
        type_tag = f"<type>{self.returns_type}</type>\n" if self.returns_type else ""
        returns = f"<returns>\n{type_tag}<description>{self.returns}</description>\n</returns>"
        return f"<summary>{main}</summary>\n{returns}" if main else returns


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The tool description and the per-parameter descriptions of a docstring."""
    parsed = read_docstring(doc)
    return parsed.description(), parsed.params


def read_docstring(doc: str) -> Docstring:
    """Split a docstring (raw `__doc__` or cleaned by `inspect.getdoc`) into its parts."""
    reader = _Reader(inspect.cleandoc(doc).splitlines())
    reader.run()
    out = reader.out
    out.summary = "\n".join(reader.summary).strip()
    out.examples = inspect.cleandoc("\n".join(reader.examples)) if reader.examples else ""
    out.returns = " ".join(out.returns.split())
    return out


class _Reader:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.out = Docstring()
        self.summary: list[str] = []
        self.examples: list[str] = []
        self.section = "summary"
        self.current: str | None = None  # the parameter a continuation line belongs to
        self.base = 0  # indentation of the items of the current section

    def run(self) -> None:
        i = 0
        while i < len(self.lines):
            line = self.lines[i]
            stripped = line.strip()
            following = self.lines[i + 1] if i + 1 < len(self.lines) else ""
            if _NUMPY_RULE.match(following.strip()) and stripped.lower() in _KNOWN:
                self.start(stripped.lower(), numpy=True)
                i += 2
                continue
            google = _GOOGLE.match(stripped)
            if google and google["name"].lower() in _KNOWN and not line[:1].isspace():
                self.start(google["name"].lower(), numpy=False)
            elif stripped.startswith(":") and self.sphinx(stripped):
                pass
            else:
                self.body(line, stripped)
            i += 1

    def start(self, name: str, *, numpy: bool) -> None:
        kind = (
            "params"
            if name in _PARAMS
            else "returns"
            if name in _RETURNS
            else "examples"
            if name in _EXAMPLES
            else "other"
        )
        self.section = f"numpy-{kind}" if numpy else kind
        self.current = None
        self.base = -1

    def sphinx(self, stripped: str) -> bool:
        match = _SPHINX.match(stripped)
        if match is None:
            if _SPHINX_OTHER.match(stripped):  # :raises ...:, :type x: and friends
                self.section, self.current = "sphinx-other", None
                return True
            return False
        kind, rest, text = match["kind"], (match["rest"] or "").split(), match["text"].strip()
        if kind == "rtype":
            self.out.returns_type = text
            self.section, self.current = "sphinx-other", None
        elif kind.startswith("return"):
            self.out.returns = text
            self.section, self.current = "sphinx-returns", None
        elif rest:
            self.current = rest[-1].lstrip("*")
            self.out.params[self.current] = text
            self.section = "sphinx-param"
        return True

    def body(self, line: str, stripped: str) -> None:
        indent = len(line) - len(line.lstrip())
        section = self.section
        if section == "summary":
            self.summary.append(line)
        elif section in ("examples", "numpy-examples"):
            self.examples.append(line)
        elif not stripped:
            return
        elif section in ("params", "numpy-params"):
            self.param_line(stripped, indent, numpy=section == "numpy-params")
        elif section in ("returns", "numpy-returns"):
            self.returns_line(stripped, indent, numpy=section == "numpy-returns")
        elif section == "sphinx-param" and self.current is not None:
            self.out.params[self.current] = f"{self.out.params[self.current]} {stripped}".strip()
        elif section == "sphinx-returns":
            self.out.returns = f"{self.out.returns} {stripped}".strip()

    def param_line(self, stripped: str, indent: int, *, numpy: bool) -> None:
        if self.base < 0:
            self.base = indent
        match = (_NUMPY_ITEM if numpy else _GOOGLE_ITEM).match(stripped)
        if indent <= self.base and match:
            self.current = match["name"].lstrip("*")
            self.out.params[self.current] = "" if numpy else match["text"].strip()
        elif self.current is not None:
            self.out.params[self.current] = f"{self.out.params[self.current]} {stripped}".strip()

    def returns_line(self, stripped: str, indent: int, *, numpy: bool) -> None:
        if self.base < 0:
            self.base = indent
            if numpy:  # "type" or "name : type", the description indented below
                match = _NUMPY_ITEM.match(stripped)
                self.out.returns_type = match["type"] if match and match["type"] else stripped
                return
            typed = re.match(r"^(?P<type>[\w\[\], .|]+):\s+(?P<text>.+)$", stripped)
            if typed:
                self.out.returns_type, stripped = typed["type"].strip(), typed["text"]
        self.out.returns = f"{self.out.returns} {stripped}".strip()
