"""`python -m tooldeck.testing.scripted_server`: the documented way to run `tooldeck run` and
`tooldeck batch` without a paid model, as docs/testing.md shows it (real processes, real HTTP)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import tooldeck_command
from support.cli_in_process import tooldeck_in_process

TOOLDECK = str(Path(sys.executable).with_name("tooldeck"))
SERVER = [sys.executable, "-m", "tooldeck.testing.scripted_server"]


def tooldeck(project: Path, *args: str, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    """`tooldeck ARGS` run in `project`, its home the project's, with no real model's keys."""
    argv = [*tooldeck_command(), *args]
    return subprocess.run(
        argv, cwd=project, env=env_for(project), capture_output=True, text=True, timeout=timeout, check=False
    )


def env_for(project: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    return {**env, "TOOLDECK_HOME": str(project / "home")}


def tooldeck_here(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`tooldeck ARGS` as `tooldeck` above runs it, in this process (see support.cli_in_process):
    for the variations once the first test has run the real processes."""
    return tooldeck_in_process(project, *args, env=env_for(project))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "tooldeck.yaml").write_text(f"home: {tmp_path / 'home'}\nsandbox: {{workspace: .}}\n")
    calls = [
        {"name": "write_file", "arguments": {"path": "note.txt", "content": "tides at six"}},
        {"name": "read_file", "arguments": {"path": "note.txt"}},
    ]
    (root / "calls.json").write_text(json.dumps(calls))
    return root


@pytest.fixture
def server(project: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    with subprocess.Popen(
        [*SERVER, "--calls", "calls.json", "--until-eof"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        try:
            assert url.startswith("http://127.0.0.1:") and url.endswith("/v1"), url
            yield proc, url
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=60)


def test_run_and_batch_go_through_the_scripted_calls_and_answer(
    project: Path, server: tuple[subprocess.Popen[str], str]
) -> None:
    proc, url = server
    model = ["--model", "scripted", "--base-url", url]
    ran = tooldeck(project, "run", "keep a note", *model)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "answer: keep a note"
    assert (project / "note.txt").read_text() == "tides at six"

    (project / "in.jsonl").write_text('{"id": "a", "prompt": "first"}\n{"id": "b", "prompt": "second"}\n')
    batch = tooldeck(project, "batch", "in.jsonl", "--out", "out.jsonl", *model, timeout=300)
    assert batch.returncode == 0, batch.stderr
    results = {r["id"]: r for r in map(json.loads, (project / "out.jsonl").read_text().splitlines())}
    assert {k: r["text"] for k, r in results.items()} == {"a": "answer: first", "b": "answer: second"}
    for r in results.values():
        assert r["status"] == "ok"
        assert r["tool_calls"] == [
            {"name": "write_file", "error": None},
            {"name": "read_file", "error": None},
        ]
        assert (Path(r["workspace"]) / "note.txt").read_text() == "tides at six"

    assert proc.stdin is not None
    proc.stdin.close()  # --until-eof: closing its stdin stops it
    assert proc.wait(timeout=60) == 0


def test_without_until_eof_it_serves_until_interrupted(project: Path) -> None:
    with subprocess.Popen(
        [*SERVER, "--answer", "fixed"],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().strip()
            ran = tooldeck(project, "run", "hello", "--model", "scripted", "--base-url", url)
            assert ran.returncode == 0 and ran.stdout.strip() == "fixed", ran.stderr
            assert proc.poll() is None  # stdin at EOF from the start did not stop it
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=60) == 0
            assert proc.stderr is not None and "Traceback" not in proc.stderr.read()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=60)


def test_a_bad_calls_file_is_named(project: Path) -> None:
    (project / "bad.json").write_text('[{"arguments": {}}]')
    for name, problem in (("bad.json", "item 0 must be"), ("missing.json", "No such file")):
        done = subprocess.run(
            [*SERVER, "--calls", name], cwd=project, capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 1 and f"--calls {name}: " in done.stderr and problem in done.stderr
        assert done.stdout == ""


def test_a_reasoning_server_is_answered_by_run_and_batch_for_each_provider(project: Path) -> None:
    # Every reply reasons first and refuses a later request that does not give it back, as
    # DeepSeek, Gemini (signatures), Responses and Anthropic do.
    options = ["--calls", "calls.json", "--reasoning", "weighing-it", "--thought-signatures", "--until-eof"]
    with subprocess.Popen(
        [*SERVER, *options], cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None and proc.stdin is not None
        url = proc.stdout.readline().strip()
        try:
            for provider in ("openai", "responses", "anthropic"):
                model = [
                    "--model",
                    "scripted",
                    "--base-url",
                    url,
                    "--provider",
                    provider,
                    "--reasoning",
                    "high",
                ]
                ran = tooldeck_here(project, "run", f"note via {provider}", "-v", *model)
                assert ran.returncode == 0, ran.stderr
                assert ran.stdout.strip() == f"answer: note via {provider}"
                assert ran.stderr.count("weighing-it") == 3  # each reply's reasoning, shown once
            (project / "in.jsonl").write_text('{"id": "a", "prompt": "first"}\n')
            model = ["--model", "scripted", "--base-url", url, "--reasoning", "high"]
            batch = tooldeck(project, "batch", "in.jsonl", "--out", "out.jsonl", *model, timeout=300)
            assert batch.returncode == 0, batch.stderr
            [result] = map(json.loads, (project / "out.jsonl").read_text().splitlines())
            assert (result["status"], result["text"]) == ("ok", "answer: first")
            assert result["usage"]["reasoning_tokens"] > 0
        finally:
            proc.stdin.close()
            proc.wait(timeout=60)
