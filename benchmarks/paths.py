"""Where benchmarks find shared data and keep the peers' virtual environments.

Nothing here names a folder of one machine: the shared data folder comes from `--shared` or
`TOOLDECK_SHARED` (default: `shared` beside the checkout), the cache from `--cache` or
`TOOLDECK_BENCH_CACHE` (default: `~/.cache/tooldeck-bench`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

CHECKOUT = Path(__file__).resolve().parents[1]


class BenchSetupError(Exception):
    """A benchmark cannot run here (data missing, a peer cannot be installed); the message says why."""


def shared_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The shared benchmark folder: `explicit`, else $TOOLDECK_SHARED, else `<checkout>/../shared`."""
    chosen = explicit or os.environ.get("TOOLDECK_SHARED")
    path = Path(chosen) if chosen else CHECKOUT.parent / "shared"
    if not path.is_dir():
        how = "--shared DIR or TOOLDECK_SHARED" if not chosen else "a folder that exists"
        raise BenchSetupError(f"shared benchmark folder {path} not found; pass {how}")
    return path


def shared_file(relative: str, explicit: str | os.PathLike[str] | None = None) -> Path:
    path = shared_dir(explicit) / relative
    if not path.exists():
        raise BenchSetupError(f"{path} not found (is the shared folder complete?)")
    return path


def cache_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    chosen = explicit or os.environ.get("TOOLDECK_BENCH_CACHE")
    path = Path(chosen) if chosen else Path.home() / ".cache" / "tooldeck-bench"
    path.mkdir(parents=True, exist_ok=True)
    return path


def peer_python(
    name: str, requirements: list[str], *, env_var: str, cache: str | os.PathLike[str] | None = None
) -> str:
    """The python of a peer's venv: `$<env_var>` if set, else `<cache>/<name>`, built with pip once.

    The venv is built aside and moved into place, so a failed install never looks ready.
    """
    chosen = os.environ.get(env_var)
    if chosen:
        if not Path(chosen).exists():
            raise BenchSetupError(f"{env_var}={chosen} does not exist")
        return chosen
    target = cache_dir(cache) / name
    python = target / "bin" / "python"
    if python.exists():
        return str(python)
    print(f"building {target} with {' '.join(requirements)} (once)", file=sys.stderr)
    building = target.with_name(f"{name}.building-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(building)], check=True)
        pip = [str(building / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, *requirements], check=True)
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(building, ignore_errors=True)
        raise BenchSetupError(f"could not build the {name} venv: {exc}") from None
    building.rename(target)
    return str(python)


HERMES_REQUIREMENT = "hermes-agent==0.19.0"


def hermes_python(cache: str | os.PathLike[str] | None = None) -> str:
    """Python of a venv with Hermes Agent 0.19.0 ($HERMES_PY overrides)."""
    return peer_python("hermes-0.19.0", [HERMES_REQUIREMENT], env_var="HERMES_PY", cache=cache)


def run_peer_script(
    argv: list[str],
    *,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 600,
) -> tuple[dict[str, Any] | None, str | None]:
    """Run a peer's measuring script; (the JSON object on its last output line, None) or
    (None, why it failed: the exit code and the end of its output)."""
    proc = subprocess.run(
        argv, input=stdin, capture_output=True, text=True, env=env, timeout=timeout, check=False
    )
    if proc.returncode != 0:
        return None, f"exit {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-500:]}"
    lines = proc.stdout.strip().splitlines()
    try:
        data = json.loads(lines[-1]) if lines else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return None, f"printed no JSON object on its last line: {proc.stdout.strip()[-300:]!r}"
    return data, None
