"""Run every benchmark script in this folder, one after another, each in its own process.

Usage: ``python benchmarks/run_all.py [NAME ...]`` (names like ``core`` or ``bench_core``;
default: all). Benchmarks are run on demand, never as part of the test suite; they compare
this package with its peers side by side in the same run and print times and ratios.
``bench_web_load`` needs Debian's ``wrk`` (``apt-get install wrk``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        wanted = {a if a.startswith("bench_") else f"bench_{a}" for a in argv}
        scripts = [s for s in scripts if s.stem in wanted]
    failed = []
    for script in scripts:
        print(f"\n===== {script.stem} =====", flush=True)
        start = time.perf_counter()
        result = subprocess.run([sys.executable, str(script)])
        print(f"----- {script.stem}: {time.perf_counter() - start:.1f} s, exit {result.returncode}")
        if result.returncode:
            failed.append(script.stem)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
