"""tooldeck as a user installs it: the wheel and sdist `python -m build` makes from the tracked
files, installed into a fresh venv outside the checkout and run from another folder. Nothing here
imports the checkout: every command is the installed console script or the venv's Python."""

from __future__ import annotations

import email
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import httpx
import pytest

from support.readable_packages import place_distributions, requirement_closure

CHECKOUT = Path(__file__).resolve().parents[2]
# Building and installing happens once, in the first test's setup.
pytestmark = pytest.mark.timeout(900)
PACKAGE_FILES = re.compile(r"^src/(tooldeck/.*)$")


def tracked_package_files() -> list[str]:
    """The files of the package as git tracks them, relative to src/ (what a clone holds)."""
    listed = subprocess.run(
        ["git", "-C", str(CHECKOUT), "ls-files", "-z", "--", "src/tooldeck"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return sorted(m.group(1) for f in listed.split("\0") if (m := PACKAGE_FILES.match(f)))


def run(argv: list[str | Path], *, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{argv}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and the sdist built from a copy of the tracked files (as `git clone` would give),
    so nothing untracked in the checkout (an editable install's egg-info, caches) leaks in."""
    clone = tmp_path_factory.mktemp("clone")
    files = subprocess.run(
        ["git", "-C", str(CHECKOUT), "ls-files", "-z"], check=True, capture_output=True, text=True
    ).stdout
    for name in filter(None, files.split("\0")):
        source = CHECKOUT / name
        if source.is_file():
            target = clone / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, clone], cwd=clone)
    return out


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the wheel, installed by pip, and what the wheel's metadata says it
    needs with the `serve` extra (which the inspector needs), as `pip install 'tooldeck[serve]'`
    gives a user. Those requirements are not resolved and downloaded again: their distributions
    are placed from this test's venv (`requirement_closure`: only what the wheel declares, in
    versions its specifiers accept), so a requirement the wheel forgets still fails here."""
    root = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", "--without-pip", root], cwd=root)
    python = root / "bin" / "python"
    wheel = next(dist.glob("tooldeck-*.whl"))
    pip = [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--disable-pip-version-check"]
    run([*pip, "--no-deps", wheel], cwd=root)
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=root)
    wanted = email.message_from_bytes(_metadata(wheel)).get_all("Requires-Dist") or []
    place_distributions(requirement_closure(wanted, extras=["serve"]), Path(site.stdout.strip()))
    return root


def _metadata(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA")))


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder far from the checkout, holding only the example configuration and its modules."""
    folder = tmp_path / "project"
    folder.mkdir()
    examples = CHECKOUT / "examples"
    for name in ("tooldeck.yaml", "demo_tools.py"):
        (folder / name).write_bytes((examples / name).read_bytes())
    for source in (examples / "demo_pkg").glob("*.py"):
        (folder / "demo_pkg").mkdir(exist_ok=True)
        (folder / "demo_pkg" / source.name).write_bytes(source.read_bytes())
    return folder


def test_every_package_file_that_is_not_python_is_in_the_wheel(dist: Path) -> None:
    wheel = next(dist.glob("tooldeck-*.whl"))
    inside = set(zipfile.ZipFile(wheel).namelist())
    missing = [f for f in tracked_package_files() if f not in inside]
    assert missing == [], f"missing from {wheel.name}: {missing}"
    assert not [f for f in inside if "__pycache__" in f or f.endswith(".pyc")]


def test_the_sdist_holds_every_tracked_package_file(dist: Path) -> None:
    sdist = next(dist.glob("tooldeck-*.tar.gz"))
    with tarfile.open(sdist) as archive:
        inside = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    missing = [f for f in tracked_package_files() if f"src/{f}" not in inside]
    assert missing == [], f"missing from {sdist.name}: {missing}"


def test_the_installed_package_is_the_wheel_not_the_checkout(venv: Path, elsewhere: Path) -> None:
    where = run([venv / "bin" / "python", "-c", "import tooldeck; print(tooldeck.__file__)"], cwd=elsewhere)
    path = Path(where.stdout.strip())
    assert path.is_relative_to(venv) and not path.is_relative_to(CHECKOUT)


def test_help_explain_and_call_work_from_another_folder(venv: Path, elsewhere: Path) -> None:
    tooldeck = venv / "bin" / "tooldeck"
    assert "explain" in run([tooldeck, "--help"], cwd=elsewhere).stdout
    explained = run([tooldeck, "explain"], cwd=elsewhere).stdout
    # The example's gates all have something to say: a visible tool and a hidden one with its reason.
    assert "word_count" in explained and "weather" in explained and "OPENWEATHER_API_KEY" in explained
    called = run([tooldeck, "call", "word_count", "--args", '{"text": "one two three"}'], cwd=elsewhere)
    assert json.loads(called.stdout)["words"] == 3, called.stdout


def test_the_inspector_serves_its_page_and_static_files_from_the_wheel(venv: Path, elsewhere: Path) -> None:
    with subprocess.Popen(
        [str(venv / "bin" / "tooldeck"), "inspect", "--no-open"],
        cwd=elsewhere,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            assert proc.stdout is not None and proc.stderr is not None
            url = proc.stdout.readline().strip()
            assert url.startswith("http://127.0.0.1:"), url + (proc.stderr.read() if proc.poll() else "")
            base = url.split("?")[0]
            with httpx.Client(timeout=30) as client:
                page = client.get(url)
                assert page.status_code == 200 and "<html" in page.text.lower()
                assets = re.findall(r'(?:src|href)="/?(static/[^"?]+)', page.text)
                assert assets, page.text
                for asset in assets:
                    got = client.get(base + asset)
                    assert got.status_code == 200 and got.content, asset
                assert client.get(base + "api/loadout").status_code == 200
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def test_the_readme_first_example_runs_against_the_installed_wheel(venv: Path, tmp_path: Path) -> None:
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```python\n(.*?)```", readme, re.DOTALL)
    assert first is not None, "the README has no python example"
    script = tmp_path / "first_example.py"
    script.write_text(first.group(1), encoding="utf-8")
    run([venv / "bin" / "python", script], cwd=tmp_path)
