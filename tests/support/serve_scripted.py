"""Run a scripted model server in its own process, for batch tests and the batch benchmark.

    python tests/support/serve_scripted.py --latency 0.2 --calls 2

Every conversation gets the same script: `--calls` tool calls, one per model reply
(`write_file` of a note, then `read_file` of it, alternating), then the answer
"answer: <the first user message>". `--rate-limit-every N` answers every Nth request with a
429 and `Retry-After`. The server prints its port on the first line of stdout, and stops when
stdin closes (so it never outlives the process that started it) or after `--max-s` seconds.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests/ folder

from support.scripted_server import Recorded, ScriptedServer, Turn, tool_rounds


def script(calls: int) -> list[tuple[str, dict[str, Any] | str]]:
    out: list[tuple[str, dict[str, Any] | str]] = []
    for i in range(calls):
        if i % 2 == 0:
            out.append(("write_file", {"path": f"note{i}.txt", "content": f"note {i}"}))
        else:
            out.append(("read_file", {"path": f"note{i - 1}.txt"}))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--rate-limit-every", type=int, default=0)
    parser.add_argument("--retry-after", type=float, default=0.2)
    parser.add_argument("--max-s", type=float, default=900.0)
    args = parser.parse_args()
    respond = tool_rounds(script(args.calls))
    counter = iter(range(1, 1 << 62))
    lock = threading.Lock()

    def responder(recorded: Recorded) -> Turn:
        with lock:
            n = next(counter)
        if args.rate_limit_every and n % args.rate_limit_every == 0:
            return Turn(status=429, error="slow down", headers={"retry-after": str(args.retry_after)})
        return respond(recorded)

    server = ScriptedServer(responder=responder, latency_s=args.latency, record=False).start()
    print(server.port, flush=True)
    stopper = threading.Thread(target=sys.stdin.read, daemon=True)
    stopper.start()
    stopper.join(timeout=args.max_s)
    server.stop()


if __name__ == "__main__":
    main()
