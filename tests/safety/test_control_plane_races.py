"""A path checked as unprotected cannot be led into a protected one before the change lands:
the file layer checks the path it writes in the folder it holds open. Real files, real
bubblewrap, the real executor; the attacks come through the patch tool itself and through
execute_code's nested calls racing a thread of the same program."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tooldeck import Deck, load_config
from tooldeck._core.execution.policy import ApprovalAnswer, CallbackApprover

CONFIG = (
    "sandbox: {kind: bwrap}\nhome: .tooldeck\nplatform_toolsets: {cli: [file, terminal, code_execution]}\n"
)


def make_project(root: Path) -> Deck:
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "tooldeck.yaml").write_text(CONFIG)
    (root / ".tooldeck").mkdir()
    return Deck(load_config(root / "tooldeck.yaml"))


def hooks(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".git" / "hooks").iterdir() if not p.name.endswith(".sample"))


def test_a_patch_that_moves_a_link_into_place_cannot_write_through_it(tmp_path: Path) -> None:
    # `link -> .git` is not protected itself, nor is `d/hooks/pre-commit` while `d` does not
    # exist: the patch's first step makes `d` the link, its second would write the hook.
    root = tmp_path / "p"
    deck = make_project(root)
    assert "linked" in deck.call_sync("terminal", {"command": "ln -s .git link && echo linked"}).content
    body = "*** Move File: link -> d\n*** Add File: d/hooks/pre-commit\n+#!/bin/sh\n+echo pwned\n"
    done = deck.call_sync("patch", {"mode": "patch", "patch": f"*** Begin Patch\n{body}*** End Patch"})
    error = json.loads(done.content)["error"]
    assert (
        error["type"] == "denied" and "'d/hooks/pre-commit' now leads to a protected path" in error["message"]
    )
    assert hooks(root) == [] and (root / "d").is_symlink()
    # An ordinary edit through an in-workspace link keeps working unasked.
    (root / "real").mkdir()
    (root / "to-real").symlink_to("real")
    assert deck.call_sync("write_file", {"path": "to-real/notes.txt", "content": "ok\n"}).error is None
    assert (root / "real" / "notes.txt").read_text() == "ok\n"


def test_nested_calls_racing_a_link_swap_never_write_a_hook(tmp_path: Path) -> None:
    # The program's thread flips `d` between `real` and `.git/hooks` while its nested patch
    # calls edit `d/pre-commit`: one checked while `d` was `real` must not land in the hooks.
    root = tmp_path / "p"
    deck = make_project(root)
    code = (
        "import os, threading, time\n"
        "from tooldeck_tools import patch\n"
        "os.makedirs('real')\n"
        "with open('real/pre-commit', 'w') as f:\n"
        "    f.write('#!/bin/sh\\n' + '# filler\\n' * 150000 + 'echo MARK\\n')\n"
        "os.symlink('real', 'd')\n"
        "stop = False\n"
        "def swap():\n"
        "    flip = 0\n"
        "    while not stop:\n"
        "        flip ^= 1\n"
        "        os.symlink('.git/hooks' if flip else 'real', 'd.new'); os.rename('d.new', 'd')\n"
        "        time.sleep(0.003)\n"
        "thread = threading.Thread(target=swap); thread.start()\n"
        "outcomes = []\n"
        "for _ in range(60):\n"
        "    try:\n"
        "        patch(path='d/pre-commit', old_string='echo MARK', new_string='echo MARK pwned')\n"
        "        outcomes.append('ok')\n"
        "    except Exception as exc:\n"
        "        outcomes.append('denied' if 'protected' in str(exc) else 'other')\n"
        "stop = True; thread.join()\n"
        "print('outcomes', sorted(set(outcomes)))\n"
    )
    out = deck.call_sync("execute_code", {"code": code, "timeout": 300}).content
    assert "outcomes" in out and "'ok'" in out, out
    assert hooks(root) == []


def test_an_always_grant_follows_what_a_link_reached_not_its_name(tmp_path: Path) -> None:
    # The user's own link `alias -> .mcp.json`, granted 'always'; a command then points the
    # link at .git/config. The grant is for .mcp.json: the write through `alias` is asked anew.
    root = tmp_path / "p"
    deck = make_project(root)
    (root / ".mcp.json").write_text("{}\n")
    (root / "alias").symlink_to(".mcp.json")
    always = CallbackApprover(lambda request: ApprovalAnswer(True, "always"))
    assert deck.call_sync("write_file", {"path": "alias", "content": "[]\n"}, approver=always).error is None
    assert (root / ".mcp.json").read_text() == "[]\n"
    config = (root / ".git" / "config").read_text()
    out = deck.call_sync("terminal", {"command": "ln -sfn .git/config alias && echo moved"}).content
    assert "moved" in out, out
    fresh = Deck(load_config(root / "tooldeck.yaml"))
    done = fresh.call_sync("write_file", {"path": "alias", "content": "[core]\n\tfsmonitor = sh\n"})
    assert json.loads(done.content)["error"]["type"] == "denied"
    assert (root / ".git" / "config").read_text() == config
    # The grant still holds for the path it was given for.
    assert fresh.call_sync("write_file", {"path": ".mcp.json", "content": "{}\n"}).error is None
