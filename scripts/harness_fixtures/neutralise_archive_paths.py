"""Remove the writing machine's folders from the members of Inspect ``.eval`` archives.

The logs of runs that errored or were cancelled hold Python tracebacks, and a traceback names
the files of every frame: the harness's virtual environment (``.../site-packages/...``), the
Python installation (``.../lib/python3.11/...``) and the checkout the generator ran from
(``.../scripts/harness_fixtures/gen_inspect.py``). Inside an archive they are compressed, so
``_paths.py`` (which rewrites text files) cannot reach them. This script inflates each member,
shortens those paths to the part that does not depend on the machine, and writes the archive
again with the same members in the same order, names, dates, attributes and compression
method (each member compressed again; the inflated content of a member without such paths is
unchanged).

=================================================  ============================
written by the harness (examples)                  kept
=================================================  ============================
``<venv>/lib/python3.11/site-packages/x``          ``site-packages/x``
``<python install>/lib/python3.11/x``              ``python3.11/x``
``<checkout>/scripts/harness_fixtures/x``          ``scripts/harness_fixtures/x``
=================================================  ============================

A path of a kind not in the table is left alone and reported, so that a new kind gets a rule
instead of a silent miss. Only bytes of these paths change: the JSON stays valid (the paths
lie inside strings and the replacements hold no quote or backslash), and inspect-ai and
mcnemar read the archive as before.

Usage: ``python neutralise_archive_paths.py [DIR_OR_FILE ...]`` (default
``tests/data/io/real``); prints each archive rewritten and exits 1 if a machine path is left.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from mcnemar.io._archive import zip_module  # noqa: E402  (the zstd-capable zipfile)

#: The start of a folder of this machine: what the fixtures' no-machine-path test looks for.
MACHINE = re.compile(rb"(?<![\w.])/(?:tmp|work|root|home|Users)/")
_PREFIX = rb"(?<![\w.])/(?:tmp|work|root|home|Users)/[^\"'\s:\\]*?"
RULES: list[tuple[re.Pattern[bytes], bytes]] = [
    (re.compile(_PREFIX + rb"/(site-packages/)"), rb"\1"),
    (re.compile(_PREFIX + rb"/lib/(python3\.\d+/)"), rb"\1"),
    (re.compile(_PREFIX + rb"/(scripts/harness_fixtures/)"), rb"\1"),
]


def neutralise(data: bytes) -> bytes:
    """``data`` with every machine path of a known kind shortened (see the table above)."""
    for pattern, replacement in RULES:
        data = pattern.sub(replacement, data)
    return data


def repack(path: Path) -> bool:
    """Rewrite the members of ``path`` that name machine paths; True if it changed."""
    zf = zip_module()
    with zf.ZipFile(path) as archive:
        infos = archive.infolist()
        contents = [archive.read(info) for info in infos]
        comment = archive.comment
    new = [neutralise(data) for data in contents]
    if new == contents:
        return False
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as handle:
        temporary = Path(handle.name)
    try:
        with zf.ZipFile(temporary, "w") as target:
            target.comment = comment
            for info, data in zip(infos, new, strict=True):
                target.writestr(_copy(zf, info), data, compress_type=info.compress_type)
        shutil.copymode(path, temporary)
        shutil.move(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return True


def _copy(zf: object, info: object) -> object:
    """A fresh ZipInfo with the member's name, date, attributes and compression method (sizes,
    checksums and extra fields are the writer's, for the new content)."""
    made = zf.ZipInfo(info.filename, date_time=info.date_time)  # type: ignore[attr-defined]
    for attribute in ("compress_type", "comment", "create_system", "external_attr",
                      "internal_attr"):
        setattr(made, attribute, getattr(info, attribute))
    return made


def leftovers(path: Path) -> list[str]:
    """``member: path`` for every machine path still inside the archive."""
    zf = zip_module()
    found = []
    with zf.ZipFile(path) as archive:
        for info in archive.infolist():
            data = archive.read(info)
            for match in MACHINE.finditer(data):
                tail = data[match.start():match.start() + 80].split(b'"')[0]
                found.append(f"{path}: {info.filename}: {tail.decode(errors='replace')}")
    return found


def main(targets: list[str]) -> int:
    paths: list[Path] = []
    for target in targets or [str(ROOT / "tests" / "data" / "io" / "real")]:
        p = Path(target)
        paths += sorted(p.rglob("*.eval")) if p.is_dir() else [p]
    left = []
    for path in paths:
        if repack(path):
            print(f"rewrote {path}")
        left += leftovers(path)
    for line in left:
        print(f"machine path left (add a rule): {line}", file=sys.stderr)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
