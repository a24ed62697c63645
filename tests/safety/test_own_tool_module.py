"""execute_code's own `tooldeck_tools` module: calling its tools by a computed name is not
dynamic code (each call goes through every gate); the same name bound to anything else is."""

from __future__ import annotations

import shlex

import pytest

from tooldeck.safety import analyse_command

OWN = [
    "import tooldeck_tools\nfor name, args in calls:\n    print(getattr(tooldeck_tools, name)(**args))",
    "import tooldeck_tools as tools  # the helper\nresults = [getattr(tools, n)(**a) for n, a in plan]",
    "import json\nimport tooldeck_tools\nfn = getattr(tooldeck_tools, json.loads(spec)['tool'])\nfn(path='x')",
]
NOT_OWN = [
    "import os\ngetattr(os, name)('rm -rf ~')",
    "import tooldeck_tools\nimport os as tooldeck_tools\ngetattr(tooldeck_tools, name)('id')",
    "import tooldeck_tools\ntooldeck_tools = __import__('os')\ngetattr(tooldeck_tools, name)('id')",
    "import tooldeck_tools as t\nimport subprocess as t2\ngetattr(t2, name)(['id'])",
    "import tooldeck_tools\nfor tooldeck_tools in [os]:\n    getattr(tooldeck_tools, name)('id')",
    "import tooldeck_tools\ndef tooldeck_tools(): pass\ngetattr(tooldeck_tools, name)()",
]


@pytest.mark.parametrize(("code", "dynamic"), [(c, False) for c in OWN] + [(c, True) for c in NOT_OWN])
def test_getattr_is_dynamic_code_unless_on_the_own_tool_module(code: str, dynamic: bool) -> None:
    verdict = analyse_command(f"python3 -c {shlex.quote(code)}")
    fired = [finding.rule for finding in verdict.findings]
    assert ("interpreter-dynamic-code" in fired) == dynamic, fired
    assert dynamic or verdict.verdict == "safe", verdict.reason
