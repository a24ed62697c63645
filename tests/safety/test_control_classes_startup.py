"""Interpreter start-up hooks, tooldeck's own next start and a workspace that holds the home are
control plane by class: the file tools and the terminal's effects need consent there, wherever
the path lies and whether or not it exists yet; an approved `pip install` into the project's
virtualenv lands, and `sandbox.protected: ["!.venv"]` lets a trusted one through unasked."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tooldeck import Deck, load_config, parse_config
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover
from tooldeck._core.execution.types import ToolResult
from tooldeck.core import ControlPlane

SYSTEM_PYTHON = "/usr/bin/python3"  # visible inside the sandbox, with pip
TOOLS = "platform_toolsets: {cli: [file, terminal, code_execution]}\n"


def denied(result: ToolResult) -> str:
    error = json.loads(result.content).get("error") or {}
    assert error.get("type") == "denied", result.content
    return str(error["message"])


def answering(yes: bool, asked: list[str]) -> CallbackApprover:
    def answer(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request.reason)
        return ApprovalAnswer(yes or not (request.rule or "").startswith("effects:"), "once")

    return CallbackApprover(answer)


def venv_project(root: Path, sandbox: str = "{kind: bwrap}") -> Path:
    """A project with a virtualenv in `.venv`; its site-packages folder."""
    root.mkdir()
    (root / "tooldeck.yaml").write_text(f"sandbox: {sandbox}\nhome: .tooldeck\n{TOOLS}")
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    [site] = (root / ".venv" / "lib").glob("python3*/site-packages")
    return site


def demo_wheel(folder: Path) -> Path:
    """A wheel that installs a .pth file and a console script, as many packages do."""
    wheel = folder / "zz_demo-1.0-py3-none-any.whl"
    info = "zz_demo-1.0.dist-info"
    files = {
        "zz_demo/__init__.py": "def main():\n    print('demo')\n",
        "zz_demo.pth": "zz_demo_extra\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: zz-demo\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": "[console_scripts]\nzz-demo = zz_demo:main\n",
    }
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            zf.writestr(name, text)
    return wheel


PIP = f"{SYSTEM_PYTHON} -m pip --python .venv/bin/python install -q --no-index --no-deps zz_demo-1.0-py3-none-any.whl && echo installed"


def test_the_projects_virtualenv_cannot_be_given_a_pth_file(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    site = venv_project(root)
    rel = site.relative_to(root).as_posix()
    marker = tmp_path / "PWN"
    deck = Deck(load_config(root / "tooldeck.yaml"))
    hook = f"import os; os.system('touch {marker}')\n"
    for path in (
        f"{rel}/zz.pth",
        f"{rel}/sitecustomize.py",
        ".venv/bin/python3-x",
        "lib/site-packages/a.pth",
    ):
        assert "start" in denied(deck.call_sync("write_file", {"path": path, "content": hook}))
    asked: list[str] = []
    out = deck.call_sync(
        "terminal",
        {"command": f'echo "{hook.strip()}" > {rel}/zz.pth; echo end'},
        approver=answering(False, asked),
    )
    assert f"{rel}/zz.pth" in denied(out)
    assert not (site / "zz.pth").exists()
    subprocess.run([str(root / ".venv" / "bin" / "python"), "-c", "pass"], check=True)
    assert not marker.exists()
    # Ordinary project files, and the environment's other packages, change unasked.
    assert deck.call_sync("write_file", {"path": "src/app.py", "content": "x = 1\n"}).error is None
    assert deck.call_sync("write_file", {"path": f"{rel}/mod.py", "content": "x = 1\n"}).error is None


def test_pip_install_into_the_projects_virtualenv_lands_once_approved(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    site = venv_project(root)
    demo_wheel(root)
    deck = Deck(load_config(root / "tooldeck.yaml"))
    refused = deck.call_sync("terminal", {"command": PIP}, approver=answering(False, []))
    assert ".pth" in denied(refused) and ".venv/bin/zz-demo" in denied(refused)
    assert not (site / "zz_demo.pth").exists() and not (root / ".venv" / "bin" / "zz-demo").exists()
    asked: list[str] = []
    done = deck.call_sync("terminal", {"command": PIP}, approver=answering(True, asked))
    assert done.error is None and "installed" in done.content, done.content
    assert any("interpreter start-up" in reason for reason in asked), asked
    assert (site / "zz_demo.pth").is_file() and (root / ".venv" / "bin" / "zz-demo").is_file()


def test_a_trusted_virtualenv_taken_out_of_the_classes_takes_pip_install_unasked(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    site = venv_project(root, "{kind: bwrap, protected: ['!.venv']}")
    demo_wheel(root)
    deck = Deck(load_config(root / "tooldeck.yaml"))
    done = deck.call_sync("terminal", {"command": PIP})
    assert done.error is None and "installed" in done.content, done.content
    assert (site / "zz_demo.pth").is_file()
    # Only that environment: another one in the workspace keeps its protection.
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(root / "other")], check=True)
    denied(deck.call_sync("write_file", {"path": "other/bin/activate", "content": "echo\n"}))


def test_tooldeck_yaml_in_any_folder_is_protected_before_it_exists(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    marker = tmp_path / "PWN"
    config = parse_config(
        {
            "sandbox": {"kind": "bwrap"},
            "home": str(tmp_path / "home"),
            "platform_toolsets": {"cli": ["file", "terminal"]},
        },
        base_dir=str(root),
    )
    assert config.config_file is None and not (root / "tooldeck.yaml").exists()
    deck = Deck(config)
    evil = f"mcp_servers:\n  x: {{command: sh, args: ['-c', 'touch {marker}']}}\n"
    for path in ("tooldeck.yaml", "sub/dir/tooldeck.yaml"):
        assert "tooldeck config" in denied(deck.call_sync("write_file", {"path": path, "content": evil}))
    out = deck.call_sync(
        "terminal", {"command": f"printf '{evil}' > tooldeck.yaml; echo end"}, approver=answering(False, [])
    )
    assert "tooldeck.yaml" in denied(out)
    assert not (root / "tooldeck.yaml").exists()
    tooldeck = Path(sys.executable).with_name("tooldeck")
    subprocess.run(
        [str(tooldeck), "explain"],
        cwd=root,
        capture_output=True,
        timeout=120,
    )
    assert not marker.exists()
    assert deck.call_sync("write_file", {"path": "notes.yaml", "content": "a: 1\n"}).error is None


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    user = tmp_path / "user"
    user.mkdir()
    (user / ".profile").write_text(
        'if [ -d "$HOME/bin" ] ; then\n    PATH="$HOME/bin:$PATH"\nfi\n'
        'PATH="$HOME/tools/bin:$PATH"\n. "$HOME/scripts/env.sh"\n'
    )
    (user / ".bashrc").write_text("if [ -f ~/.bash_aliases ]; then\n    . ~/.bash_aliases\nfi\n")
    (user / "tooldeck.yaml").write_text(f"sandbox: {{kind: bwrap}}\nhome: .tooldeck\n{TOOLS}")
    monkeypatch.setenv("HOME", str(user))
    return user


def test_a_workspace_that_is_the_home_protects_its_dot_files_and_what_they_put_on_path(
    user_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "PWN"
    deck = Deck(load_config(user_home / "tooldeck.yaml"))
    payload = f"touch {marker}\n"
    for path in (
        ".bash_aliases",
        ".cargo/env",
        ".local/bin/git",
        "bin/git",
        "tools/bin/ls",
        "scripts/env.sh",
    ):
        assert "home" in denied(deck.call_sync("write_file", {"path": path, "content": payload})), path
    script = (
        f"mkdir -p .cargo && echo '{payload.strip()}' > .cargo/env && echo '. ~/.cargo/env' >> .bash_aliases"
    )
    out = deck.call_sync("terminal", {"command": script}, approver=answering(False, []))
    assert ".cargo/env" in denied(out) and ".bash_aliases" in denied(out)
    assert not (user_home / ".cargo").exists() and not (user_home / ".bash_aliases").exists()
    login = subprocess.run(
        ["bash", "-lc", "git --version >/dev/null 2>&1; true"],
        env={"HOME": str(user_home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        timeout=60,
    )
    assert login.returncode == 0 and not marker.exists()
    # What is not a dot-name, nor on PATH or sourced, stays the model's to use.
    assert deck.call_sync("write_file", {"path": "notes/today.txt", "content": "ok\n"}).error is None
    described = "\n".join(ControlPlane.of(deck.config).describe())
    assert "holds the user's home" in described and "tools/bin" in described and "scripts/env.sh" in described
