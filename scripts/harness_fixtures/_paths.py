"""Remove this machine's paths from the logs the harnesses wrote.

The harnesses record where their inputs and outputs lay (OpenAI evals its ``--registry_path``
and ``--record_path``, lm-evaluation-harness each task's ``config_source``): temporary folders
and the checkout of whoever ran the generator. Those strings are metadata the readers never
use, and a committed fixture should not name a machine, so each generator replaces the
folder prefixes it created with nothing, leaving the paths relative to those folders
(``/tmp/tmpab12/registry`` -> ``registry``). Nothing else in a file changes.

Usage: ``python _paths.py OUT_DIR PREFIX [PREFIX ...]`` applies it to files already written.
:func:`output_folder` is the one command line the generators that take only ``OUT`` share.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path


def output_folder(description: str) -> Path:
    """A generator's command line, ``OUT``: that folder, emptied and created afresh (the
    first paragraph of ``description``, the generator's docstring, is its help)."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    out: Path = parser.parse_args().out.resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    return out


def strip_prefixes(out: Path, prefixes: list[str]) -> list[Path]:
    """Drop each ``PREFIX/`` (longest first) from every text file under ``out``; return the
    files changed."""
    changed = []
    folders = sorted({p.rstrip("/") + "/" for p in prefixes}, key=len, reverse=True)
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # archives: no text paths inside that the generators control
        new = text
        for folder in folders:
            new = new.replace(folder, "")
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


if __name__ == "__main__":
    for changed in strip_prefixes(Path(sys.argv[1]), sys.argv[2:]):
        print(changed)
