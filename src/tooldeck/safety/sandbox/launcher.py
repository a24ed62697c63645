"""Starts bubblewrap as an unprivileged user when tooldeck runs as root.

Run as a script (`python -I -S launcher.py REPORT_FD UID WORKSPACE STAGE [N=PATH ...] -- BWRAP ...`;
`+upper=`/`+work=` add a copy-on-write view, each `+cgroup=PROCS` a cgroup joined first),
never imported by tooldeck: it imports only the standard library, so it starts in a few
milliseconds, and it runs as its own single-threaded process, where unsharing a mount namespace
and changing user is safe (a `preexec_fn` in a threaded parent is not).

A root process in a user namespace is still kernel uid 0 on the host: it reads /etc/shadow and
escapes every process limit. So this launcher gives the sandbox another host uid. The workspace
would then be read-only to it, so, in a mount namespace of its own, the launcher puts an idmapped
mount over the workspace in which the files of the workspace's owner (usually root) appear owned
by UID: the sandbox writes them as their owner and what it writes lands owned by that owner on
disk.

bwrap, now unprivileged, must still reach the sources of its bind mounts, and some lie under
folders only root may enter (`/root`, pytest's `/tmp/pytest-of-root`). Each `N=PATH` is bound
(as root) at `STAGE/N` on a tmpfs private to this mount namespace, and bwrap is given those
paths instead. Then the launcher drops to UID/GID with no supplementary groups and executes
bwrap.

A failure is one line written to REPORT_FD (closed at the exec, so the sandbox never holds it),
and the launcher exits with status 125. The gid is the uid's number too.
"""

from __future__ import annotations

import ctypes
import os
import sys

FAILED = 125
# Syscall numbers of the new mount API (Linux 5.12+), which older libcs do not wrap. Syscalls
# added since Linux 5.1 share one number on nearly every architecture; only the two checked here
# are listed, so that any other is refused by name rather than guessed.
SYSCALLS = {
    "x86_64": {"open_tree": 428, "move_mount": 429, "mount_setattr": 442},
    "aarch64": {"open_tree": 428, "move_mount": 429, "mount_setattr": 442},
}
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
OPEN_TREE_CLONE = 1
OPEN_TREE_CLOEXEC = os.O_CLOEXEC
MOVE_MOUNT_F_EMPTY_PATH = 0x00000004
MOUNT_ATTR_IDMAP = 0x00100000
# The same numbers on x86_64 and aarch64; set through libc, since the signal module imports enum,
# which would double this script's start-up time.
SIGPIPE = 13
SIGXFSZ = 25
SIG_DFL = 0
MS_BIND = 0x1000
MS_NOSUID = 0x2
MS_NODEV = 0x4


class _LaunchError(Exception):
    pass


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise _LaunchError(f"{what}: {os.strerror(errno)}")
    return result


def _syscall(name: str, *args: object) -> int:
    table = SYSCALLS.get(os.uname().machine)
    if table is None:
        raise _LaunchError(f"idmapped mounts are not wired for the {os.uname().machine} architecture")
    return _check(_libc.syscall(table[name], *args), name)


def userns_fd(owner: os.stat_result, uid: int) -> int:
    """A user namespace mapping the workspace owner's uid and gid to `uid`: the idmap."""
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child only holds the namespace open
        os.close(ready_r)
        os.close(done_w)
        code = 0 if _libc.unshare(CLONE_NEWUSER) == 0 else 1
        os.write(ready_w, b"x")
        os.read(done_r, 1)
        os._exit(code)
    os.close(ready_w)
    os.close(done_r)
    try:
        os.read(ready_r, 1)
        proc = f"/proc/{child}"
        with open(f"{proc}/uid_map", "w") as fh:
            fh.write(f"{owner.st_uid} {uid} 1\n")
        with open(f"{proc}/setgroups", "w") as fh:
            fh.write("deny\n")
        with open(f"{proc}/gid_map", "w") as fh:
            fh.write(f"{owner.st_gid} {uid} 1\n")
        return os.open(f"{proc}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise _LaunchError(f"could not make the user namespace of the idmap: {exc}") from None
    finally:
        os.close(done_w)
        os.close(ready_r)
        os.waitpid(child, 0)


def idmap_workspace(workspace: str, uid: int) -> None:
    """Cover `workspace` with an idmapped mount of itself in which the files of the workspace's
    owner (root, or the user a CI checkout belongs to) appear as `uid`'s."""
    _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "making / private")
    ns = userns_fd(os.stat(workspace), uid)
    try:
        tree = _syscall("open_tree", AT_FDCWD, os.fsencode(workspace), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)
        try:
            attr = _MountAttr(MOUNT_ATTR_IDMAP, 0, 0, ns)
            _syscall("mount_setattr", tree, b"", AT_EMPTY_PATH, ctypes.byref(attr), ctypes.sizeof(attr))
            _syscall("move_mount", tree, b"", AT_FDCWD, os.fsencode(workspace), MOVE_MOUNT_F_EMPTY_PATH)
        finally:
            os.close(tree)
    except _LaunchError as exc:
        raise _LaunchError(f"cannot give the workspace {workspace} an idmapped mount ({exc})") from None
    finally:
        os.close(ns)


def stage_sources(stage: str, specs: list[str]) -> None:
    """Bind each `N=PATH` at `stage/N`, on a tmpfs mounted over `stage` in this namespace."""
    if not specs:
        return
    os.makedirs(stage, 0o755, exist_ok=True)  # another launcher may make it at the same time
    st = os.lstat(stage)
    if st.st_uid != 0 or not os.path.isdir(stage) or os.path.islink(stage):
        raise _LaunchError(f"{stage} must be a folder owned by root")
    _check(
        _libc.mount(b"tmpfs", os.fsencode(stage), b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755"),
        f"tmpfs on {stage}",
    )
    for spec in specs:
        name, _, path = spec.partition("=")
        _stage_one(path, os.path.join(stage, name))


def _stage_one(path: str, target: str) -> None:
    """Bind `path` at `target`, exactly the object `path` names now: a path given without
    symbolic links that resolves elsewhere (a link swapped in by a command of another sandbox)
    is refused, and the bind is made from the opened descriptor, so it cannot be swapped after."""
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        proc = f"/proc/self/fd/{fd}"
        if os.readlink(proc) != path:
            raise _LaunchError(f"{path} changed while the sandbox started (it now leads elsewhere)")
        if os.path.isdir(proc):
            os.mkdir(target)
        else:
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
        _check(
            _libc.mount(os.fsencode(proc), os.fsencode(target), None, MS_BIND | MS_REC, None),
            f"binding {path}",
        )
    finally:
        os.close(fd)


def overlay_workspace(workspace: str, upper: str, work: str, *, in_userns: bool) -> None:
    """Cover `workspace` with a copy-on-write view of itself: reads see the workspace (or, as
    root, its idmapped mount), every change lands in `upper` and nothing in the workspace. In
    a user namespace the overlay keeps its marks in `user.` extended attributes."""
    options = [
        f"lowerdir={_escaped(workspace)}",
        f"upperdir={_escaped(upper)}",
        f"workdir={_escaped(work)}",
        "metacopy=off",
        "index=off",
    ]
    # No redirects: a renamed folder is copied, so the upper layer holds it whole. In a user
    # namespace the kernel makes none already (userxattr allows only redirect_dir=nofollow).
    options.append("userxattr" if in_userns else "redirect_dir=off")
    _check(
        _libc.mount(
            b"overlay", os.fsencode(workspace), b"overlay", MS_NOSUID | MS_NODEV, ",".join(options).encode()
        ),
        f"a copy-on-write view (overlayfs) of the workspace {workspace}",
    )


def _escaped(path: str) -> str:
    """A path as an overlayfs option value: its commas, colons and backslashes escaped."""
    return path.replace("\\", "\\\\").replace(",", "\\,").replace(":", "\\:")


def own_namespaces() -> None:
    """A user namespace in which this (unprivileged) user keeps its own uid and gid, and a mount
    namespace owned by it: enough to mount the overlay, which bwrap then binds."""
    uid, gid = os.getuid(), os.getgid()
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare(CLONE_NEWUSER | CLONE_NEWNS)")
    with open("/proc/self/uid_map", "w") as fh:
        fh.write(f"{uid} {uid} 1\n")
    with open("/proc/self/setgroups", "w") as fh:
        fh.write("deny\n")
    with open("/proc/self/gid_map", "w") as fh:
        fh.write(f"{gid} {gid} 1\n")
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "making / private")


def join_cgroup(procs: str) -> None:
    """Move this process into the cgroup whose `cgroup.procs` file is `procs`."""
    try:
        with open(procs, "w") as fh:
            fh.write(f"{os.getpid()}\n")
    except OSError as exc:
        raise _LaunchError(f"cannot join the call's cgroup ({procs}): {exc.strerror}") from None


def main(argv: list[str]) -> None:
    if "--" not in argv or len(argv) < 5:
        raise _LaunchError(
            "usage: launcher.py REPORT_FD UID|- WORKSPACE STAGE [N=PATH ...] [+upper=PATH +work=PATH] "
            "[+cgroup=PROCS ...] -- BWRAP ARGS..."
        )
    split = argv.index("--")
    _, uid_text, workspace, stage, *specs = argv[:split]
    command = argv[split + 1 :]
    extras = [(k[1:], v) for k, _, v in (s.partition("=") for s in specs if s.startswith("+"))]
    layers = {k: v for k, v in extras if k in ("upper", "work")}
    specs = [s for s in specs if not s.startswith("+")]
    for key, procs in extras:
        if key == "cgroup":  # first: every process started from here on is counted in the call's group
            join_cgroup(procs)
    if uid_text == "-":  # not root: only the overlay, in namespaces of this user's own
        if layers:
            own_namespaces()
            overlay_workspace(workspace, layers["upper"], layers["work"], in_userns=True)
    else:
        uid = int(uid_text)
        idmap_workspace(workspace, uid)
        if layers:
            overlay_workspace(workspace, layers["upper"], layers["work"], in_userns=False)
        stage_sources(stage, specs)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    # Python ignores these two at start-up; the command must get them as usual (a process that
    # outgrows the file size limit is stopped by SIGXFSZ).
    for signum in (SIGPIPE, SIGXFSZ):
        _libc.signal(signum, SIG_DFL)
    try:
        os.execv(command[0], command)
    except OSError as exc:
        raise _LaunchError(f"cannot run {command[0]} as uid {uid}: {exc.strerror}") from None


if __name__ == "__main__":
    report = 2  # misused (no descriptor given): complain on stderr
    if len(sys.argv) > 1 and sys.argv[1].isdigit():
        report = int(sys.argv[1])
        os.set_inheritable(report, False)
    try:
        main(sys.argv[1:])
    except (_LaunchError, OSError, ValueError) as exc:
        os.write(report, f"{exc}\n".encode())
        os._exit(FAILED)
