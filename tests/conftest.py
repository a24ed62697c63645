"""Root fixtures: the scripted model server and a temp tooldeck home, for every test folder."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

# A suite started in the background by a shell without job control inherits SIGINT ignored, and
# so would every command it starts (Python keeps an ignored SIGINT ignored): the tests that
# interrupt a command (Ctrl-C) need it delivered.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

from support.fixtures import home, scripted_server  # noqa: F401

# The `tooldeck` console script runs in other working directories: a relative PYTHONPATH
# (`PYTHONPATH=src pytest`) is made absolute so those children import the code under test.
if os.environ.get("PYTHONPATH"):
    os.environ["PYTHONPATH"] = os.pathsep.join(
        str(Path(p).resolve()) for p in os.environ["PYTHONPATH"].split(os.pathsep) if p
    )

# Validated config files are cached under the user's cache folder; tests use a private one. Each
# test process (one per pytest-xdist worker) has its own cache and, unless a test sets one, its own
# tooldeck home, so parallel workers never share a state database, grants or spilled results.
os.environ["TOOLDECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="tooldeck-test-cache-")
os.environ["TOOLDECK_HOME"] = tempfile.mkdtemp(prefix="tooldeck-test-home-")

# Hypothesis fails an example that takes over 200 ms by default: on a loaded two-core machine a
# first example that imports a module, or a GC pause, can, and the run would be red for nothing.
# Tests that set their own settings keep them; this is the default for the rest.
settings.register_profile("tooldeck", deadline=None)
settings.load_profile("tooldeck")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups into the test ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`--dist loadgroup`), a module whose tests share a fixture wider than one
    test (a browser, an inspector process, a Ray cluster, a built wheel) runs on one worker, so
    that fixture is made once; every other test is handed to whichever worker is free.

    A session-scoped fixture is made once per worker, wherever its tests run (a warm process each
    worker can afford, data read once): it groups nothing.

    Those modules run first: each is one long unit of work (the sum of its tests, and a browser,
    a cluster or a wheel to make), and a long unit handed out last would be the run's tail, its
    worker busy while the others have nothing left."""
    grouped: list[pytest.Item] = []
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        shared = [
            d
            for defs in info.name2fixturedefs.values()
            for d in defs
            if d.baseid and d.scope in ("module", "class", "package")
        ]
        if shared:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
            grouped.append(item)
    first = set(map(id, grouped))
    items[:] = grouped + [item for item in items if id(item) not in first]


class _GroupIds:
    """pytest-xdist (3.8) hands a group's tests to one worker by the `@group` suffix it puts in
    their ids through `item._nodeid`, which pytest 9 no longer reads (the id is `item._id`): the
    groups would be spread over the workers, each making the module's fixture again. After
    xdist's hook, a grouped test whose id lacks the suffix gets it where pytest 9 reads it."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if not config.getvalue("loadgroup"):
            return
        for item in items:
            marks = [m for m in item.iter_markers("xdist_group") if m.args]
            group = "_".join(sorted({str(m.args[0]) for m in marks}))
            # (A parameter's id may hold an "@" of its own: only the suffix tells.)
            if marks and not item.nodeid.endswith(f"@{group}") and item._id.names:
                from _pytest.nodeid import NodeId  # pytest 9's ids

                # The suffix after the parameters, in the last name: rebuilt from its parts, the
                # id reads as xdist writes it (`path::test[params]@group`).
                last, params = item._id.names[-1], item._id.params
                last += "" if params is None else f"[{params}]"
                item._id = NodeId(path=item._id.path, names=(*item._id.names[:-1], f"{last}@{group}"))


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: it collects and reports the ids
        config.pluginmanager.register(_GroupIds(), "tooldeck-xdist-group-ids")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """This worker's warm `tooldeck` server (support.cli), if a test started it, ends with the
    session: waited for here, so the CPU of the commands it ran counts in the run's."""
    from support.cli import stop_warm_server

    stop_warm_server()
