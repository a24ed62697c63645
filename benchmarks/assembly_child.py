"""The measured process of the assembly benchmark (tooldeck side); run as a script, not imported.

    python assembly_child.py WORKLOAD_JSON N_WARM N_WARMUP N_RECOMPUTE N_RECOMPUTE_WARMUP BUILTINS(1|0)

Its first statement reads CLOCK_MONOTONIC, exactly as the Hermes script does; the parent read
the same clock just before the spawn, so launch -> first statement is the interpreter start-up.
Only `time`, `os` and `sys` are loaded before tooldeck; the harness modules come after it. The
figures go to stdout as one JSON object.
"""

import time as _time

_T0_NS = _time.monotonic_ns()  # first statement of the process

import os  # noqa: E402  (already loaded by site)
import sys  # noqa: E402  (builtin)

# Run as a script, the folder of this file is sys.path[0]; the checkout replaces it, so that
# `benchmarks` is importable and no module in this folder shadows a top-level name.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child_main(argv: list[str]) -> dict[str, object]:
    t_pre = _time.monotonic_ns()
    # ---- cold: import, the way an application does -----------------------------------------
    import tooldeck  # noqa: F401
    from tooldeck._core.dialects import render_loadout  # noqa: F401
    from tooldeck._deck import Deck  # noqa: F401

    t_imp = _time.monotonic_ns()
    # ---- harness (after tooldeck, so it cannot pre-load what tooldeck pays for) -------------
    from pathlib import Path

    from benchmarks import assembly_phases as phases
    from benchmarks import assembly_workload as wl

    t_h = _time.monotonic_ns()
    path = Path(argv[0])
    counts = phases.Counts(*(int(a) for a in argv[1:5]))
    cold = phases.cold_phases(
        path, verify=False, builtins=argv[5] != "0"
    )  # the parent verified the file; checked again below
    figures = {
        "harness_pre_import_ms": phases.ms(t_pre - _T0_NS),
        "import_tooldeck_ms": phases.ms(t_imp - t_pre),
        # A config file already validated (the config cache) needs neither YAML nor pydantic.
        "pydantic_imported_by_first_list": "pydantic" in sys.modules,
        "harness_post_import_ms": phases.ms(t_h - t_imp),
        **cold.figures,
        "script_start_to_first_list_ms": phases.ms(cold.first_list_mono_ns - _T0_NS),
        "_t0_mono_ns": _T0_NS,
        "_first_list_mono_ns": cold.first_list_mono_ns,
    }
    figures["pydantic_imported_by_first_list"] = "pydantic" in sys.modules
    return {"cold": figures, "workload_sha256": wl.fingerprint(cold.doc), **phases.measure(cold, counts)}


def main() -> None:
    result = child_main(sys.argv[1:])
    import json  # after the measured phases, as in the Hermes script

    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    # Check threads are daemons; nothing may keep this process alive once the figures are out.
    os._exit(0)


if __name__ == "__main__":
    main()
