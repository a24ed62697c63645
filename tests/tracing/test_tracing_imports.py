"""Without tracing asked for, nothing of OpenTelemetry is imported: not by `import tooldeck`,
not by `tooldeck --help`, not by a `tooldeck call` (so no exporter exists to connect anywhere)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def no_otel_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}


def otel_modules(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[list[str], str]:
    """The opentelemetry modules `python -X importtime ARGS` imported (its stderr names every
    module as it is imported, whatever way the process ends), and its stdout."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        cwd=cwd,
        env=env or no_otel_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    imported = [
        ln.rsplit("|", 1)[-1].strip() for ln in out.stderr.splitlines() if ln.startswith("import time:")
    ]
    assert "tooldeck" in imported, out.stderr[-2000:]
    return [m for m in imported if m.split(".")[0] == "opentelemetry"], out.stdout


def test_import_tooldeck_imports_no_opentelemetry(tmp_path: Path) -> None:
    modules, _ = otel_modules(["-c", "import tooldeck, tooldeck.tracing"], tmp_path)
    assert modules == []


def test_cli_help_imports_no_opentelemetry(tmp_path: Path) -> None:
    modules, stdout = otel_modules(["-m", "tooldeck.cli.main", "--help"], tmp_path)
    assert "usage: tooldeck" in stdout
    assert modules == []


def test_a_cli_call_without_an_endpoint_imports_no_opentelemetry(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_text("tides at six\n")
    (tmp_path / "tooldeck.yaml").write_text(f"home: {tmp_path / 'home'}\nsandbox: {{workspace: .}}\n")
    args = ["-m", "tooldeck.cli.main", "call", "read_file", "--args", '{"path": "note.txt"}']
    modules, stdout = otel_modules(args, tmp_path)
    assert "tides at six" in stdout
    assert modules == []


ENABLED = "import tooldeck.tracing as t; print('ON', t.enabled())"


def test_an_otel_variable_turns_tracing_on_in_process(tmp_path: Path) -> None:
    env = {**no_otel_env(), "OTEL_SERVICE_NAME": "app"}
    modules, stdout = otel_modules(["-c", ENABLED], tmp_path, env)
    assert "ON True" in stdout and "opentelemetry.trace" in modules
    env = {**env, "OTEL_SDK_DISABLED": "true"}
    modules, stdout = otel_modules(["-c", ENABLED], tmp_path, env)
    assert "ON False" in stdout and modules == []
