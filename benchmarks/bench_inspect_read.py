"""Reading two large Inspect AI ``.eval`` archives: mcnemar.io against inspect-ai's own reader.

The two archives (100,000 samples each by default, every member zstd as a current inspect-ai
writes them) are built with inspect-ai's own writer (``write_eval_log``) from the real small
logs in ``tests/data/io/real/inspect/`` (A's and B's ``arith`` runs): sample ``k`` of the big
log is a copy of sample ``(k - 1) % 30 + 1`` of the small one with the new id ``k``, so the
table is known in advance. They are written through Inspect's ``EvalRecorder`` as
``write_eval_log`` does, flushing every 2,000 samples as a running eval does. They are
cached in ``--data-dir`` (a temporary folder by default).

Approaches, each in its own subprocess so that peak memory (max RSS) is its alone, alternated
over ``--repeat`` rounds (median reported):

* ``mcnemar``: ``read_run`` of both archives + ``align`` (the table);
* ``inspect-full``: ``inspect_ai.log.read_eval_log`` of both (every sample, full transcript),
  then the table from each sample's score through Inspect's ``value_to_float``;
* ``inspect-summaries``: ``read_eval_log_sample_summaries`` of both (what a paired table needs),
  then the same count.

Every approach must produce the same table. inspect-ai is in the ``bench`` extra; it can also
live in another virtual environment given by ``--inspect-python`` (mcnemar must then be
importable there too, e.g. ``pip install -e .`` in it).

Usage::

    python benchmarks/bench_inspect_read.py
    python benchmarks/bench_inspect_read.py --samples 10000 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "tests/data/io/real/inspect/arith_a.eval",
           ROOT / "tests/data/io/real/inspect/arith_b.eval")
METHODS = ("mcnemar", "inspect-full", "inspect-summaries")


#: Samples the writer buffers between flushes. Inspect's writer compares each new sample with
#: every buffered one (O(buffer) per sample) and copies the whole archive on each flush, so
#: ``write_eval_log`` of 100,000 samples at once does not finish; a running eval flushes
#: every few samples (``log_buffer``) instead.
FLUSH_EVERY = 2_000


def build(n: int, targets: tuple[Path, Path]) -> dict[str, int]:
    """Write the two big archives with inspect-ai's writer; return the table they hold."""
    import anyio
    from inspect_ai.log import read_eval_log
    from inspect_ai.log._condense import condense_sample
    from inspect_ai.log._recorders.eval import EvalRecorder
    from inspect_ai.scorer import value_to_float

    async def write(log: Any, base: list[Any], target: Path) -> None:
        # What write_eval_log does (log_init, log_start, log_sample, log_finish), with the
        # periodic flushes of a running eval.
        recorder = EvalRecorder(str(target.parent))
        await recorder.log_init(log.eval, str(target), clean=True)
        await recorder.log_start(log.eval, log.plan)
        for k in range(1, n + 1):
            s = base[(k - 1) % len(base)]
            sample = s.model_copy(update={"id": k, "uuid": f"{s.uuid}-{k}"})
            await recorder.log_sample(log.eval, condense_sample(sample))
            if k % FLUSH_EVERY == 0:
                await recorder.flush(log.eval)
        await recorder.log_finish(log.eval, log.status, log.stats, log.results,
                                  log.reductions, log.error)

    to_float = value_to_float()
    passes = []
    for source, target in zip(SOURCES, targets, strict=True):
        log = read_eval_log(str(source))
        base = sorted(log.samples or [], key=lambda s: int(s.id))
        if log.results is not None:
            log.results.total_samples = log.results.completed_samples = n
        log.eval.dataset.samples = n
        log.eval.dataset.sample_ids = None
        tmp = target.with_suffix(".partial.eval")
        anyio.run(write, log, base, tmp)
        tmp.rename(target)
        passes.append([to_float(s.scores["match"].value) == 1.0 for s in base])
    cells = {"a": 0, "b": 0, "c": 0, "d": 0}
    for k in range(n):
        pa, pb = passes[0][k % len(passes[0])], passes[1][k % len(passes[1])]
        cells["a" if pa and pb else "b" if pa else "c" if pb else "d"] += 1
    return cells


def make_data(n: int, directory: Path, python: str) -> tuple[Path, Path, dict[str, int]]:
    directory.mkdir(parents=True, exist_ok=True)
    a, b = directory / f"a-{n}.eval", directory / f"b-{n}.eval"
    table_file = directory / f"table-{n}.json"
    if not (a.exists() and b.exists() and table_file.exists()):
        print(f"building two {n:,}-sample archives with inspect-ai in {directory} ...",
              flush=True)
        start = time.perf_counter()
        out = subprocess.run([python, __file__, "--build", str(n), str(a), str(b)],
                             check=True, capture_output=True, text=True)
        table_file.write_text(out.stdout.strip().splitlines()[-1])
        print(f"  built in {time.perf_counter() - start:.0f} s", flush=True)
    return a, b, json.loads(table_file.read_text())


def run_one(method: str, a: Path, b: Path) -> dict[str, Any]:
    start = time.perf_counter()
    if method == "mcnemar":
        from mcnemar.io import align, read_run

        counts = list(align(read_run(a), read_run(b)).counts)
    else:
        from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
        from inspect_ai.scorer import value_to_float

        to_float = value_to_float()
        outcome = []
        for path in (a, b):
            if method == "inspect-full":
                samples: Any = read_eval_log(str(path)).samples or []
            else:
                samples = read_eval_log_sample_summaries(str(path))
            outcome.append({(s.id, s.epoch): to_float(s.scores["match"].value) == 1.0
                            for s in samples})
        if outcome[0].keys() != outcome[1].keys():
            raise SystemExit("the archives hold different samples")
        counts = [0, 0, 0, 0]
        for key, pa in outcome[0].items():
            pb = outcome[1][key]
            counts[0 if pa and pb else 1 if pa else 2 if pb else 3] += 1
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {"seconds": seconds, "peak_mb": peak, "counts": counts}


def measure(method: str, a: Path, b: Path, python: str, max_gb: float) -> dict[str, Any]:
    interpreter = sys.executable if method == "mcnemar" else python
    size = int(max_gb * 2**30)

    def limit() -> None:
        # A reader that outgrows the machine fails alone instead of starving everything else.
        if size:
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    out = subprocess.run([interpreter, __file__, "--child", method, str(a), str(b)],
                         check=True, capture_output=True, text=True, preexec_fn=limit)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--inspect-python", default=sys.executable,
                        help="Python with inspect-ai (default: this one)")
    parser.add_argument("--data-dir", type=Path,
                        default=Path(tempfile.gettempdir()) / "mcnemar-bench-inspect")
    parser.add_argument("--max-gb", type=float, default=0,
                        help="address-space limit of each measured process (0: none)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--build", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        method, a, b = args.child
        print(json.dumps(run_one(method, Path(a), Path(b))))
        return
    if args.build:
        n, a, b = args.build
        print(json.dumps(build(int(n), (Path(a), Path(b)))))
        return
    a, b, expected = make_data(args.samples, args.data_dir, args.inspect_python)
    sizes = ", ".join(f"{p.stat().st_size / 2**20:.0f} MB" for p in (a, b))
    results: dict[str, list[dict[str, Any]]] = {m: [] for m in METHODS}
    for _ in range(args.repeat):
        for method in METHODS:
            results[method].append(measure(method, a, b, args.inspect_python, args.max_gb))
    want = [expected[k] for k in "abcd"]
    for method, runs in results.items():
        for r in runs:
            if r["counts"] != want:
                raise SystemExit(f"{method} counted {r['counts']}, expected {want}")
    seconds = {m: statistics.median(r["seconds"] for r in rs) for m, rs in results.items()}
    peak = {m: statistics.median(r["peak_mb"] for r in rs) for m, rs in results.items()}
    print(f"\ntwo .eval archives of {args.samples:,} samples ({sizes}), table {want}, "
          f"median of {args.repeat}")
    print(f"  {'approach':<19}{'seconds':>9}{'peak MB':>10}{'time vs mcnemar':>18}"
          f"{'memory vs mcnemar':>20}")
    for m in METHODS:
        print(f"  {m:<19}{seconds[m]:>9.2f}{peak[m]:>10.0f}"
              f"{seconds[m] / seconds['mcnemar']:>17.2f}x{peak[m] / peak['mcnemar']:>19.2f}x")


if __name__ == "__main__":
    main()
