"""HELM per_instance_stats.json reader (mcnemar.io.helm).

Fixtures in tests/data/io/helm follow ``PerInstanceStats`` / ``Stat`` of stanford-crfm/helm
(``metrics/metric.py``, ``metrics/statistic.py``); each instance appears unperturbed and with
a robustness perturbation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcnemar.errors import InputFileError
from mcnemar.io import align, detect_format, read_run

DATA = Path(__file__).parent / "data" / "io" / "helm"


def test_unperturbed_instances_by_default() -> None:
    run = read_run(DATA / "mmlu_a")
    assert detect_format(DATA / "mmlu_a") == "helm"
    assert detect_format(DATA / "mmlu_a" / "per_instance_stats.json") == "helm"
    assert run.name == "openai/model-new"  # from run_spec.json
    assert run.keys.tolist() == [(f"id{i}", "none") for i in range(6)]
    assert run.scores.tolist() == [1, 1, 1, 1, 0, 0]
    assert run.metadata["perturbations"] == {"none": 6, "robustness": 6}
    assert align(run, read_run(DATA / "mmlu_b")).counts == (2, 2, 1, 1)


def test_one_perturbation_or_all() -> None:
    robust = read_run(DATA / "mmlu_a", perturbation="robustness")
    assert robust.scores.tolist() == [1, 0, 1, 0, 1, 0]
    everything = read_run(DATA / "mmlu_a", perturbation="all")
    assert len(everything.keys) == 12
    with pytest.raises(InputFileError, match="no instance with perturbation 'typos'"):
        read_run(DATA / "mmlu_a", perturbation="typos")


def test_unknown_stat_lists_the_stats() -> None:
    with pytest.raises(InputFileError, match="stat 'f1' not found; the stats are exact_match, "
                                             "num_prompt_tokens"):
        read_run(DATA / "mmlu_a", score="f1")


def test_non_binary_stat_needs_a_threshold() -> None:
    from mcnemar.errors import AlignmentError, McNemarError

    a = read_run(DATA / "mmlu_a", score="num_prompt_tokens")
    b = read_run(DATA / "mmlu_b")
    with pytest.raises(McNemarError, match="scored by num_prompt_tokens in A and by exact_match "
                                           "in B"):
        align(a, b)
    with pytest.raises(AlignmentError, match=r"6 scores are not 0/1 \(e.g. 120\)"):
        align(a, b, allow_different_scorers=True)


def test_malformed_documents(tmp_path: Path) -> None:
    path = tmp_path / "per_instance_stats.json"
    path.write_text(json.dumps({"instance_id": "x"}))
    with pytest.raises(InputFileError, match="expected a JSON list"):
        read_run(path)
    path.write_text(json.dumps([{"instance_id": "x", "perturbation": None,
                                 "train_trial_index": "0", "stats": []}]))
    with pytest.raises(InputFileError, match="entry 0: 'train_trial_index' must be an integer"):
        read_run(path)
    path.write_text('[{"instance_id": "x", "stats": [')
    with pytest.raises(InputFileError, match="not valid JSON") as info:
        read_run(path, format="helm")
    assert info.value.line == 1


def test_same_stat_on_two_splits_needs_a_split(tmp_path: Path) -> None:
    stat = {"name": {"name": "exact_match", "split": "test"}, "mean": 1.0}
    stat2 = {"name": {"name": "exact_match", "split": "valid"}, "mean": 0.0}
    path = tmp_path / "per_instance_stats.json"
    path.write_text(json.dumps([{"instance_id": "x", "perturbation": None,
                                 "train_trial_index": 0, "stats": [stat, stat2]}]))
    with pytest.raises(InputFileError, match="appears 2 times"):
        read_run(path)
    assert read_run(path, split="valid").scores.tolist() == [0.0]


# --- graded stats (tests/data/io/derived/helm: the real suite with f1_score and rouge_l added
# by scripts/harness_fixtures/derive_graded_metrics.py) ---------------------------------------

DERIVED = Path(__file__).parent / "data" / "io" / "derived" / "helm"
ADD_A = DERIVED / "fixture" / "fixture_add:model=fixture_system-a"
ADD_B = DERIVED / "fixture" / "fixture_add:model=fixture_system-b"


def _expected(run: Path, stat: str) -> dict[str, float]:
    want = json.loads((DERIVED / "expected.json").read_text())[run.name]
    return {iid: scores[stat] for iid, scores in want.items()}


@pytest.mark.parametrize("stat", ["f1_score", "rouge_l"])
def test_a_graded_stat_is_handed_over_as_it_is(stat: str) -> None:
    run = read_run(ADD_A, score=stat)
    assert run.format == "helm" and run.identity.scorer == stat
    got = {k[0]: s for k, s in zip(run.keys.tolist(), run.scores.tolist(), strict=True)}
    assert got == _expected(ADD_A, stat)
    assert any(0 < s < 1 for s in got.values())


def test_the_graded_stat_gets_the_score_report_and_exact_match_stays_pass_fail() -> None:
    import numpy as np

    from mcnemar.pipeline import compare_runs
    from mcnemar.report import Report
    from mcnemar.scores import ScoreReport, analyze_scores

    rep = compare_runs(read_run(ADD_A, score="f1_score"), read_run(ADD_B, score="f1_score"))
    assert isinstance(rep, ScoreReport)
    fa, fb = _expected(ADD_A, "f1_score"), _expected(ADD_B, "f1_score")
    want = analyze_scores(np.array([fa[k] for k in fa]), np.array([fb[k] for k in fa]),
                          random_state=0)
    assert rep.n == 30 and rep.difference == pytest.approx(want.difference, rel=1e-12)
    assert rep.tests["t"].pvalue == pytest.approx(want.tests["t"].pvalue, rel=1e-12)
    assert (rep.higher_a, rep.equal, rep.higher_b) == (want.higher_a, want.equal, want.higher_b)
    assert rep.alignment.summary.run_a.identity.scorer == "f1_score"
    assert isinstance(compare_runs(read_run(ADD_A), read_run(ADD_B)), Report)


def test_the_compare_command_picks_the_score_report_for_a_graded_stat() -> None:
    from click.testing import CliRunner

    from mcnemar.cli import main

    def schema(*extra: str) -> object:
        result = CliRunner().invoke(main, ["compare", str(ADD_A), str(ADD_B), "--format",
                                           "json", *extra])
        assert result.exit_code == 0, result.output
        return json.loads(result.output)["schema"]

    assert schema("--score", "rouge_l") == "mcnemar.scores/1"
    assert schema() == "mcnemar.report/1"  # exact_match
    assert schema("--score", "rouge_l", "--threshold", "1") == "mcnemar.report/1"
