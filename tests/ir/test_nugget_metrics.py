"""Nugget scores against nuggetizer's own code (tests/ir/nuggetizer_reference.py), and the citation support scores."""
import random

import pytest

from ir.formats.nuggets import AssignedNugget, NuggetAssignment
from ir.nugget_metrics import (
    assignment_scores,
    citation_support,
    mean_citation_support,
    mean_nugget_scores,
    nugget_scores,
)
from tests.ir.nuggetizer_reference import calculate_global_metrics, calculate_nugget_scores

ASSIGNMENTS = ("support", "partial_support", "not_support", "failed")
IMPORTANCES = ("vital", "okay", "failed")


def random_records(seed):
    rng = random.Random(seed)
    records = []
    for topic in range(rng.randint(1, 30)):
        nuggets = [{"text": f"n{k}", "importance": rng.choice(IMPORTANCES), "assignment": rng.choice(ASSIGNMENTS)}
                   for k in range(rng.choice([0, 1, 2, 3, 7, 13, 29, 40]))]
        records.append({"qid": str(topic), "nuggets": nuggets})
    return records


@pytest.mark.parametrize("seed", range(40))
def test_per_topic_and_mean_scores_equal_nuggetizers_exactly(seed):
    records = random_records(seed)
    ours = [nugget_scores(r["qid"], [(n["importance"], n["assignment"]) for n in r["nuggets"]]) for r in records]
    for record, mine in zip(records, ours, strict=True):
        theirs = calculate_nugget_scores(record["qid"], record["nuggets"])
        assert (mine.topic_id, mine.strict_vital, mine.strict_all, mine.vital, mine.all) == (
            theirs.qid, theirs.strict_vital_score, theirs.strict_all_score, theirs.vital_score, theirs.all_score)
    theirs_all = calculate_global_metrics(records)
    mean = mean_nugget_scores(ours)
    assert {"qid": mean.topic_id, "strict_vital_score": mean.strict_vital, "strict_all_score": mean.strict_all,
            "vital_score": mean.vital, "all_score": mean.all} == theirs_all


def test_a_read_assignment_scores_as_its_nuggets_say():
    line = NuggetAssignment(1, "t1", "run", "q", "a", 3, (
        AssignedNugget("a", "vital", "support"), AssignedNugget("b", "vital", "partial_support"),
        AssignedNugget("c", "okay", "partial_support"), AssignedNugget("d", "okay", "not_support")))
    scores = assignment_scores(line)
    assert (scores.strict_vital, scores.strict_all, scores.vital, scores.all) == (0.5, 0.25, 0.75, 0.5)


def test_a_topic_without_vital_nuggets_scores_zero_on_the_vital_scores():
    scores = nugget_scores("t", [("okay", "support")])
    assert (scores.strict_vital, scores.vital, scores.strict_all, scores.all) == (0.0, 0.0, 1.0, 1.0)


def test_no_scores_have_no_mean():
    with pytest.raises(ValueError):
        mean_nugget_scores([])


def test_citation_precision_weighs_each_citation_and_recall_each_sentences_best_citation():
    support = citation_support("t", [["full", "none"], ["partial"], [], ["partial", "full"]])
    assert support.precision == pytest.approx((1 + 0 + 0.5 + 0.5 + 1) / 5)
    assert support.recall == pytest.approx((1 + 0.5 + 0 + 1) / 4)
    assert (support.citations, support.sentences) == (5, 4)


def test_an_answer_that_cites_nothing_has_zero_precision_and_recall():
    support = citation_support("t", [[], []])
    assert (support.precision, support.recall) == (0.0, 0.0)


def test_citation_support_refuses_an_unknown_label():
    with pytest.raises(ValueError, match="support"):
        citation_support("t", [["support"]])


def test_the_mean_citation_support_weighs_every_answer_the_same():
    a = citation_support("a", [["full"]])
    b = citation_support("b", [["none"], ["none"], ["none"]])
    mean = mean_citation_support([a, b])
    assert (mean.precision, mean.recall, mean.citations, mean.sentences) == (0.5, 0.5, 4, 4)
