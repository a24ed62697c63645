"""Rewrite the test modules' asserts once, before the test workers start.

pytest rewrites the `assert` statements of every test module and conftest.py it imports, and
keeps the result beside the module (`__pycache__/*.pytest-*.pyc`, checked against the source's
hash). In a fresh clone that cache is empty, so each parallel worker rewrites all ~280 modules
while collecting (~10 s CPU a worker). Done here once, on every core, the workers only load it.

An optimisation only: on a pytest whose internals differ, it says so and leaves the rewriting to
pytest (the suite runs the same either way).
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def _warm(path: str) -> None:
    from _pytest.assertion import rewrite

    fn = Path(path)
    pyc = rewrite.get_cache_dir(fn) / (fn.name[:-3] + rewrite.PYC_TAIL)
    if rewrite._read_pyc(fn, pyc, lambda _message: None) is not None:
        return
    # No config: what the project's ini would change is the assertion-pass hook, which it leaves off.
    source_hash, code = rewrite._rewrite_test(fn, None)  # type: ignore[arg-type]
    pyc.parent.mkdir(exist_ok=True)
    part = pyc.with_name(f"{pyc.name}.{os.getpid()}")
    with open(part, "wb") as out:
        rewrite._write_pyc_fp(out, source_hash, code)
    os.replace(part, pyc)


def main(root: Path) -> int:
    modules = sorted(
        str(p) for p in root.rglob("*.py") if p.name == "conftest.py" or p.name.startswith("test_")
    )
    try:
        with ProcessPoolExecutor(os.cpu_count()) as pool:
            list(pool.map(_warm, modules, chunksize=8))
    except (ImportError, AttributeError, TypeError) as error:
        print(f"warm_test_modules: left to pytest ({error})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "tests")))
