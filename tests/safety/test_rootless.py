"""The launcher that starts bubblewrap as an unprivileged uid when tooldeck runs as root: a
failure is reported on its private pipe and nothing runs; bind sources the uid cannot reach are
staged; a bwrap option it does not know is refused rather than misread."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tooldeck.safety.sandbox import launcher, rootless
from tooldeck.safety.sandbox.bubblewrap import BwrapRunner, SandboxSettings, SandboxUnavailable
from tooldeck.safety.sandbox.capture import run_capped

# sysfs cannot be idmapped: the launcher must stop there, whoever runs it.
NOT_IDMAPPABLE = "/sys/kernel"


def test_a_launcher_failure_is_reported_on_its_pipe_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    read_end, write_end = os.pipe()
    started = rootless.launch(
        ["/usr/bin/touch", "--", str(marker)], uid=65534, workspace=NOT_IDMAPPABLE, report_fd=write_end
    )
    try:
        result = run_capped(
            started.argv,
            cwd="/",
            env={},
            timeout_s=30,
            output_limit=10_000,
            sandboxed=True,
            pass_fds=(write_end,),
        )
        os.close(write_end)
        problem = rootless.failure(read_end)
    finally:
        os.close(read_end)
    assert result.exit_code == 125 and problem is not None, result.output
    # As root it is the idmap that fails; as a user, the mount namespace it needs first.
    assert ("idmapped mount" in problem) if os.geteuid() == 0 else ("CLONE_NEWNS" in problem)
    assert not marker.exists()


def test_as_root_a_workspace_that_cannot_be_idmapped_is_refused_not_run_as_root() -> None:
    runner = BwrapRunner(SandboxSettings(Path(NOT_IDMAPPABLE), timeout_s=20))
    if os.geteuid() != 0:  # a user's bwrap needs no idmap: the command runs as that user
        result = runner.run("id -u")
        assert result.output.strip() == str(os.getuid())
        return
    with pytest.raises(SandboxUnavailable) as caught:
        runner.run("id -u")
    message = str(caught.value)
    assert "runs no command as root" in message and "uid 65534" in message
    assert NOT_IDMAPPABLE in message and "filesystem that supports idmapped mounts" in message


def test_sources_the_uid_cannot_reach_are_staged(tmp_path: Path) -> None:
    private = tmp_path / "private"
    (private / "inner").mkdir(parents=True)
    private.chmod(0o700)
    argv = [
        "/usr/bin/bwrap",
        "--ro-bind",
        str(private / "inner"),
        "/x",
        "--bind",
        "/usr",
        "/usr",
        "--",
        "true",
    ]
    started = rootless.launch(argv, uid=65534, workspace="/w", report_fd=9)
    split = started.argv.index("--")
    assert started.argv[split - 1] == f"0={private / 'inner'}"
    bwrap = started.argv[split + 1 :]
    # /usr is reachable by anyone: bwrap binds it itself. The stage is masked inside.
    staged = ["--ro-bind", f"{rootless.STAGE}/0", "/x", "--bind", "/usr", "/usr", "--tmpfs", rootless.STAGE]
    staged += ["--remount-ro", rootless.STAGE]
    assert bwrap == ["/usr/bin/bwrap", *staged, "--", "true"]


def test_an_unknown_bwrap_option_is_refused_not_misread() -> None:
    with pytest.raises(ValueError, match="--overlay"):
        rootless.launch(
            ["/usr/bin/bwrap", "--overlay", "/a", "/b", "--", "true"], uid=1, workspace="/w", report_fd=9
        )


def test_with_network_the_staged_workspace_does_not_show_the_hidden_home(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    home = workspace / ".tooldeck"
    home.mkdir(parents=True)
    (home / "grants.jsonl").write_text("secret-grant")
    tmp_path.chmod(0o700)  # run as root, the workspace is staged: it lies under a private folder
    settings = SandboxSettings(workspace, network=True, hidden=(home,), timeout_s=20)
    command = f"ls -A {home}; ls -A {rootless.STAGE}; grep -rs secret-grant /run /tmp {workspace}; echo done"
    result = BwrapRunner(settings).run(command)
    assert result.output.strip() == "done", result.output


# Root only: a user (even as root of `unshare --map-root-user`) can neither chown to another uid
# nor map 65534, and an idmapped mount of a host filesystem needs root of the first namespace.
@pytest.mark.skipif(os.geteuid() != 0, reason="a workspace owned by another user needs root to make")
def test_as_root_a_workspace_owned_by_another_user_stays_writable(tmp_path: Path) -> None:
    # A CI checkout belongs to the runner's user while tooldeck runs as root.
    workspace = tmp_path / "checkout"
    workspace.mkdir()
    (workspace / "src.py").write_text("old\n")
    for path in (workspace, workspace / "src.py"):
        os.chown(path, 1234, 1234)
    result = BwrapRunner(SandboxSettings(workspace, timeout_s=20)).run(
        "id -u; echo new >> src.py; echo x > made.txt"
    )
    assert result.output.splitlines() == ["65534"], result.output
    assert (workspace / "src.py").read_text() == "old\nnew\n"
    assert (workspace / "made.txt").stat().st_uid == 1234 and (workspace / "made.txt").stat().st_gid == 1234


# Root only: the launcher stages sources after the workspace's idmapped mount, which a user
# cannot make; the check itself is tested for everyone below.
@pytest.mark.skipif(os.geteuid() != 0, reason="the launcher stages sources only when run as root")
def test_a_source_swapped_for_a_link_while_the_sandbox_starts_is_refused(tmp_path: Path) -> None:
    # The parent names sources without links; one that leads elsewhere when the launcher opens it
    # was swapped by a command of another sandbox, aiming to have root bind /etc in.
    workspace = tmp_path / "ws"
    workspace.mkdir()
    swapped = workspace / "protected"
    swapped.symlink_to("/etc")
    marker = tmp_path / "ran"
    read_end, write_end = os.pipe()
    plain = rootless.launch(["/usr/bin/true"], uid=65534, workspace=str(workspace), report_fd=write_end).argv
    argv = [*plain[: plain.index("--")], f"0={swapped}", "--", "/usr/bin/touch", str(marker)]
    try:
        result = run_capped(
            argv, cwd="/", env={}, timeout_s=30, output_limit=10_000, sandboxed=True, pass_fds=(write_end,)
        )
        os.close(write_end)
        problem = rootless.failure(read_end)
    finally:
        os.close(read_end)
    assert result.exit_code == 125 and problem is not None
    assert f"{swapped} changed while the sandbox started" in problem
    assert not marker.exists()


def test_the_stager_refuses_a_source_that_now_leads_elsewhere_for_any_user(tmp_path: Path) -> None:
    # The check of the test above, before any mount: a source given without links that resolves
    # elsewhere when opened is refused, and nothing is made at the stage.
    swapped = tmp_path / "protected"
    swapped.symlink_to("/etc")
    target = tmp_path / "stage-0"
    with pytest.raises(launcher._LaunchError, match="changed while the sandbox started"):
        launcher._stage_one(str(swapped), str(target))
    assert not target.exists()
