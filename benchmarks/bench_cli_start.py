"""Start-up of the command line: ``mcnemar test --b 17 --c 3`` as a whole process against
``python -c "import numpy"``, side by side in the same run (run on demand, not in CI).

The two commands run interleaved (numpy, mcnemar, numpy, mcnemar, ...) so that a change of load
on the shared machine hits both alike; each figure is the median of ``--runs`` runs after one
warm-up run of each, and the ratio of the medians is the figure of merit (target: at most
``TARGET``). The load average is printed before and after.

Two settings of Python's bytecode cache are measured, each for both commands:

1. as this environment is configured (``PYTHONDONTWRITEBYTECODE`` may be set: then Python
   writes no bytecode, and a module without a current compiled copy, as after an edit or an
   editable install that was not followed by ``compileall`` as ``make`` does, is compiled
   from source on every start, while numpy's ship compiled);
2. with a bytecode cache, as after ``pip install`` or any earlier run: ``PYTHONPYCACHEPREFIX``
   points to a fresh temporary folder (nothing is written into the source tree) and the warm-up
   run fills it.

The modules the command imports that count as heavy (scipy, pandas, ..., numpy.testing) are
listed from one ``-X importtime`` run.

Usage: ``python benchmarks/bench_cli_start.py [--runs N]`` (default 41).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The whole process of the command may take at most this many times ``import numpy``'s.
TARGET = 1.5
ARGS = ("test", "--b", "17", "--c", "3")
HEAVY = ("scipy", "pandas", "polars", "pyarrow", "duckdb", "narwhals", "matplotlib", "fastapi",
         "pydantic", "numpy.testing", "numpy.f2py", "numpy.random")


def command() -> list[str]:
    """The installed console script, else ``python -m mcnemar``."""
    script = Path(sys.executable).parent / "mcnemar"
    prefix = [str(script)] if script.exists() else [sys.executable, "-m", "mcnemar"]
    return [*prefix, *ARGS]


def run_once(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def interleaved(cmds: dict[str, list[str]], env: dict[str, str], runs: int) -> dict[str, float]:
    """Median wall-clock time of each command over ``runs`` interleaved runs, in seconds."""
    for cmd in cmds.values():
        run_once(cmd, env)  # warm the file cache (and the bytecode cache, if any)
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            times[name].append(run_once(cmd, env))
    return {name: statistics.median(ts) for name, ts in times.items()}


def heavy_modules(env: dict[str, str]) -> list[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mcnemar", *ARGS], env=env,
                          capture_output=True, text=True, check=True)
    names = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    return sorted(n for n in names if any(n == m or n.startswith(m + ".") for m in HEAVY))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=41, help="interleaved runs per setting")
    args = parser.parse_args(argv)
    cmds = {"numpy": [sys.executable, "-c", "import numpy"], "mcnemar": command()}
    print(f"`{' '.join(cmds['mcnemar'])}` against `{' '.join(cmds['numpy'])}`, "
          f"median of {args.runs} interleaved runs; target ratio <= {TARGET}")
    print(f"heavy modules imported: {heavy_modules(dict(os.environ)) or 'none'}")
    cache = tempfile.mkdtemp(prefix="mcnemar-pycache-")
    settings = {
        "as configured" + (" (PYTHONDONTWRITEBYTECODE set)"
                           if os.environ.get("PYTHONDONTWRITEBYTECODE") else ""): dict(os.environ),
        "with a bytecode cache": {
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            "PYTHONPYCACHEPREFIX": cache,
        },
    }
    try:
        for number, (label, env) in enumerate(settings.items(), start=1):
            before = load()
            medians = interleaved(cmds, env, args.runs)
            ratio = medians["mcnemar"] / medians["numpy"]
            verdict = "meets" if ratio <= TARGET else "misses"
            print(f"{number}. {label}")
            print(f"   import numpy {1e3 * medians['numpy']:.1f} ms, mcnemar test "
                  f"{1e3 * medians['mcnemar']:.1f} ms: ratio {ratio:.2f} ({verdict} the target)")
            print(f"   load average {before} before, {load()} after")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
