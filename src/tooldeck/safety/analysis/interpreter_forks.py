"""Fork bombs written in an interpreter: a process-starting call inside a loop without end, or in a
function that calls itself.

Endless loops are `while True`/`while(1)`/`for(;;)`/`loop {}`/`until 0`, Perl's statement
modifiers (`fork while 1`, `1 while fork`), iterators without end (`itertools.count()`,
`iter(int, 1)`), timers (`setInterval`) and ranges too long to finish (`range(10**9)`,
`1..1e9`). Starting a process is `fork`, `pcntl_fork`, `spawn`, `Popen`, `Process(...)`,
`child_process` calls and the `exec`/`system` family.
"""

from __future__ import annotations

import re

_LOOP = re.compile(
    r"\bwhile\s*\(?\s*(?:True|1|true|!0|!false)\s*\)?\s*[:{]|\bwhile\s*\(\s*(?:1|true|!0)\s*\)|\bloop\s*(?:\{|do\b)"
    r"|\bfor\s*\(\s*;\s*;\s*\)|\bwhile\s+fork\b|\bfork\s+while\b|\buntil\s*\(?\s*(?:false|0)\b|\bwhile\s+(?:1|true)\b"
    r"|\.times\s*(?:\{|do)|\bwhile\s+True\b|\bwhile\s*\(?\s*(?:os\.)?fork\s*\(|\bitertools\.count\s*\(|(?<![\w.])count\(\s*\)"
    r"|\biter\s*\(\s*int\s*,|\bsetInterval\s*\(|\brange\s*\(\s*(?:\d{5,}|\d+\s*\*\*\s*\d+|\d+e\d+)"
    r"|\b\d+\s*\.\.\s*(?:\d{5,}|\d+e\d+)|\bwhile\s*\(\s*\)|\bdo\s*\{.*\}\s*while\s*\(\s*(?:1|true)\s*\)",
    re.S,
)
_FORK = re.compile(
    r"\bfork\b|\bpcntl_fork\b|\bspawn\w*\s*\(|\bexec\w*\s*\(|\bPopen\b|\bsystem\s*\(|\bProcess\s*\(|\bchild_process\b"
)
_FUNCTION = re.compile(
    r"\b(?:def|function|sub)\s+([A-Za-z_]\w*)|(?<![\w.])([A-Za-z_]\w*)\s*=\s*(?:lambda\b|function\b|\([^)]*\)\s*=>)"
)


def forks_forever(code: str) -> bool:
    """Does `code` start processes without end?"""
    if not _FORK.search(code):
        return False
    if _LOOP.search(code) or re.search(r"fork\s+while\s+fork", code):
        return True
    return any(_calls_itself(code, match) for match in _FUNCTION.finditer(code))


def _calls_itself(code: str, definition: re.Match[str]) -> bool:
    """A function that starts processes and calls itself: once inside its body and once to begin,
    or once inside a function expression that is called where it is defined."""
    name = definition.group(1) or definition.group(2)
    after = code[definition.end() :]
    calls = len(re.findall(r"(?<![\w.])" + re.escape(name) + r"\s*\(", after))
    invoked_in_place = code[: definition.start()].rstrip().endswith("(")
    return calls >= 2 or (calls >= 1 and invoked_in_place)
