"""Inspect AI log reader (mcnemar.io.inspect_log), without inspect-ai installed.

Fixtures in tests/data/io/inspect follow the log schema version 2 layout of Inspect's
``src/inspect_ai/log/_recorders/eval.py``. Score mapping as Inspect's ``value_to_float``:
C -> 1, I -> 0, P -> 0.5, N -> 0, booleans, numbers, numeric text, yes/no/true/false.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from mcnemar.errors import AlignmentError, InputFileError
from mcnemar.io import align, detect_format, read_run, score_to_float
from mcnemar.io.inspect_log import read_inspect

DATA = Path(__file__).parent / "data" / "io"
INSPECT = DATA / "inspect"


@pytest.mark.parametrize("name", ["a.eval", "a.json", "summaries_only.eval"])
def test_eval_archive_json_log_and_summaries_agree(name: str) -> None:
    run = read_run(INSPECT / name)
    assert run.format == "inspect"
    assert run.name == "openai/model-new"
    order = np.lexsort((run.epochs, run.keys.astype(str)))
    pairs = [(run.keys[i], int(run.epochs[i]), run.scores[i]) for i in order]
    assert pairs == [(1, 1, 1.0), (1, 2, 1.0), (2, 1, 1.0), (2, 2, 0.0), (3, 1, 0.5),
                     (3, 2, 0.0), ("q-4", 1, 0.0), ("q-4", 2, 0.0)]
    assert run.sample_name == "epoch" and run.score_name == "match"


def test_epochs_are_not_items() -> None:
    a, b = read_run(INSPECT / "a.eval"), read_run(INSPECT / "b.eval")
    with pytest.raises(AlignmentError, match="4 items have several samples \\(epoch, up to 2"):
        align(a, b, threshold=0.5)


@pytest.mark.parametrize(
    ("reduce", "expected"),
    [
        # A by epoch: 1: C C, 2: C I, 3: P I, q-4: I I; B: 1: C I, 2: I I, 3: C C, q-4: I C.
        ("first", (2, 1, 0, 1)),     # A 1 1 1 0 (P >= 0.5), B 1 0 1 0
        ("majority", (0, 1, 1, 2)),  # ties fail: A 1 0 0 0, B 0 0 1 0
        ("mean", (1, 1, 2, 0)),      # means A 1 .5 .25 0, B .5 0 1 .5 at >= 0.5
    ],
)
def test_reduce_policies_on_hand_counted_epochs(reduce: str,
                                                expected: tuple[int, int, int, int]) -> None:
    al = align(read_run(INSPECT / "a.eval"), read_run(INSPECT / "b.json"), reduce=reduce,
               threshold=0.5)
    assert al.counts == expected
    assert al.summary.run_a.reduced == 4 and al.summary.reduce == reduce
    if reduce == "majority":
        assert al.summary.run_a.ties == 2 and al.summary.run_b.ties == 2


@pytest.mark.parametrize(
    ("value", "expected"),
    [("C", 1.0), ("I", 0.0), ("P", 0.5), ("N", 0.0), (True, 1.0), (False, 0.0), (0.25, 0.25),
     (1, 1.0), ("0.75", 0.75), ("yes", 1.0), ("No", 0.0), ("TRUE", 1.0), (None, None)],
)
def test_value_mapping_as_inspect(value: object, expected: float | None) -> None:
    assert score_to_float(value, letters=True) == expected


def test_unknown_grade_is_an_error_not_a_silent_zero(tmp_path: Path) -> None:
    log = json.loads((INSPECT / "a.json").read_text())
    log["samples"][2]["scores"]["match"]["value"] = "maybe"
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    with pytest.raises(InputFileError, match=r"samples\[2\]: scorer 'match': score 'maybe'"):
        read_run(path)


def test_several_scorers_need_a_choice_and_dict_values_a_key(tmp_path: Path) -> None:
    log = json.loads((INSPECT / "a.json").read_text())
    for s in log["samples"]:
        s["scores"]["judge"] = {"value": {"accuracy": "C", "style": 0.2}}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    with pytest.raises(InputFileError, match="several scorers \\('match', 'judge'\\)"):
        read_run(path)
    with pytest.raises(InputFileError, match="named values \\('accuracy', 'style'\\)"):
        read_run(path, score="judge")
    run = read_inspect(path, score="judge", value_key="accuracy")
    assert set(run.scores.tolist()) == {1.0}
    with pytest.raises(InputFileError, match="scorer 'nope' not found"):
        read_run(path, score="nope")


def test_errored_sample_has_no_score(tmp_path: Path) -> None:
    log = json.loads((INSPECT / "a.json").read_text())
    log["samples"][0]["scores"] = None
    log["samples"][0]["error"] = {"message": "timeout"}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    run = read_run(path)
    assert np.isnan(run.scores[0]) and np.isfinite(run.scores[1:]).all()


def test_cluster_from_sample_metadata() -> None:
    run = read_inspect(INSPECT / "a.eval", cluster="document")
    assert sorted(set(run.clusters.tolist())) == ["doc-1", "doc-2", "doc-3", "doc-4"]
    with pytest.raises(InputFileError, match="metadata key 'nope' not found"):
        read_inspect(INSPECT / "a.eval", cluster="nope")


def test_zip_without_header_is_refused() -> None:
    path = DATA / "malformed" / "no_header.eval"
    assert detect_format(path) == "inspect"
    with pytest.raises(InputFileError, match=r"no header.json .*entries: samples/1_epoch_1.json"):
        read_run(path)


def test_corrupt_entry_and_truncated_archive(tmp_path: Path) -> None:
    path = tmp_path / "bad.eval"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", "{\"version\": 2, \"eval\": {}")
    with pytest.raises(InputFileError, match=r"header.json is not valid JSON"):
        read_run(path)
    truncated = tmp_path / "trunc.eval"
    truncated.write_bytes((INSPECT / "a.eval").read_bytes()[:200])
    with pytest.raises(InputFileError) as info:
        read_run(truncated)
    assert info.value.path == str(truncated)


def test_json_log_without_samples(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"version": 2, "status": "success", "eval": {"model": "m"}}))
    with pytest.raises(InputFileError, match="no 'samples'"):
        read_run(path)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"version": 2, "status": "success", "eval": {},
                                 "samples": [{"id": [1], "epoch": 1, "scores": {}}]}))
    with pytest.raises(InputFileError, match="no sample has scores"):
        read_run(wrong)


def test_full_samples_are_read_when_summaries_lack_scores(tmp_path: Path) -> None:
    path = tmp_path / "thin.eval"
    with zipfile.ZipFile(INSPECT / "a.eval") as source, zipfile.ZipFile(path, "w") as z:
        for name in source.namelist():
            data = source.read(name)
            if name == "summaries.json":
                thin = [{k: v for k, v in s.items() if k != "scores"} for s in json.loads(data)]
                data = json.dumps(thin).encode()
            z.writestr(name, data)
    assert read_run(path).scores.tolist() == read_run(INSPECT / "a.eval").scores.tolist()


def _zstd_archive(path: Path) -> Path:
    from mcnemar.io._archive import zip_module

    zf = zip_module()
    method = getattr(zf, "ZIP_ZSTANDARD", None)
    if method is None:
        pytest.skip("this Python's zipfile cannot write Zstandard members")
    summaries = [{"id": i, "epoch": 1, "scores": {"match": {"value": "C" if i % 2 else "I"}},
                  "input": f"question {i} " * 20} for i in range(200)]
    with zf.ZipFile(path, "w", compression=method) as z:
        z.writestr("header.json", json.dumps({"version": 2, "status": "success",
                                              "eval": {"task": "t", "model": "m"}}))
        z.writestr("summaries.json", json.dumps(summaries))
    return path


@pytest.mark.parametrize("where", ["data", "magic"])
def test_damaged_zstd_archive_is_an_input_error(tmp_path: Path, where: str) -> None:
    from mcnemar.io._archive import zip_module

    path = _zstd_archive(tmp_path / "log.eval")
    assert len(read_run(path).keys) == 200
    with zip_module().ZipFile(path) as z:
        info = z.getinfo("summaries.json")
    data = bytearray(path.read_bytes())
    if where == "magic":
        data[info.header_offset] ^= 0xFF  # the member's local header signature
    else:
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
        for k in range(start + 20, start + info.compress_size - 8, 7):
            data[k] ^= 0x5A  # scramble the compressed bytes
    path.write_bytes(bytes(data))
    with pytest.raises(InputFileError, match=r"summaries\.json") as info_err:
        read_run(path)
    assert info_err.value.path == str(path)


def test_on_error_fail_counts_errored_samples_as_failures() -> None:
    # inspect-ai wrote this log of a run stopped by an error; expected.json (counted by the
    # generator with inspect's own reader) records its errored samples and the table of the
    # items scored in both runs.
    from mcnemar.io import align, read_run

    real = Path(__file__).parent / "data" / "io" / "real" / "inspect"
    facts = json.loads((real / "expected.json").read_text())
    errored = facts["runs"]["arith_status_error.eval"]["errored"]
    (pairing,) = [p for p in facts["pairings"] if p["a"] == "arith_status_error.eval"]
    b = read_run(real / "arith_b.eval")
    missing = align(read_run(real / "arith_status_error.eval"), b, on_missing="intersect")
    failed = align(read_run(real / "arith_status_error.eval", on_error="fail"), b,
                   on_missing="intersect")
    assert missing.counts == tuple(pairing["table"][k] for k in "abcd")
    added = [f - m for f, m in zip(failed.counts, missing.counts, strict=True)]
    # The errored samples join the table, each as a failure of A: cells c or d only.
    assert errored == 2 and added[0] == added[1] == 0 and added[2] + added[3] == errored
    assert failed.summary.run_a.errored_failed == errored
    from click.testing import CliRunner

    from mcnemar.cli import main

    result = CliRunner().invoke(main, ["compare", str(real / "arith_status_error.eval"),
                                       str(real / "arith_b.eval"), "--on-error", "fail",
                                       "--on-missing", "intersect", "--format", "json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)["table"]
    assert tuple(table[k] for k in "abcd") == failed.counts


def test_on_error_is_checked() -> None:
    from mcnemar.errors import McNemarError
    from mcnemar.io import read_run

    real = Path(__file__).parent / "data" / "io" / "real" / "inspect"
    with pytest.raises(McNemarError, match="on_error"):
        read_run(real / "arith_b.eval", on_error="drop")
