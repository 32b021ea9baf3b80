"""A campaign's runs scored from their stored rows (only the judged rows and each topic's top of the ranking are read
from the database) give the scores of the same runs as files against the exported qrels: ranks out of order, ties
at the 10th place, odd ids and scores, topics with few rows."""
import pytest

from evaluation import selectors, services
from ir.prime import prime_answers
from judging.models import Assignment
from judging.services import assignment_withdraw, judgments_import
from pooling.models import Run
from tests.evaluation.test_campaign import judged_answers, judged_formulas  # noqa: F401 (fixtures)
from tests.pooling.run_files import ingest

# judged_answers' qrels: A.1: 10 (3), 12 (0); A.2: 20 (2).
RUNS = {
    # Ranks against the scores, ties at the 10th place, the judged posts last.
    "disorder": [("A.1", str(100 + i), str(20 - i), "1.0" if i < 15 else "2.0") for i in range(20)]
    + [("A.1", "10", "21", "1.0"), ("A.1", "12", "22", "3.0"), ("A.2", "20", "1", "-0")],
    # In rank order but for rank 11, which scores above rank 10 (a judged post it pushes out of the top 10).
    "eleventh": [("A.1", str(200 + i), str(i + 1), str(50 - i)) for i in range(9)]
    + [("A.1", "10", "10", "41"), ("A.1", "299", "11", "45.5"), ("A.1", "12", "12", "1"), ("A.2", "20", "30", "2")],
    # Rank 11 ties with the judged rank 10 and has the higher id: trec_eval puts it in the top 10 instead.
    "tie": [("A.1", str(300 + i), str(i + 1), str(50 - i)) for i in range(9)]
    + [("A.1", "12", "10", "41"), ("A.1", "399", "11", "41"), ("A.1", "10", "12", "0.5")],
    # Fewer than 10 rows ranked 1-10, more further down; ranks from 5; posts judged for the other topic only.
    "sparse": [("A.1", "10", "5", "3"), ("A.1", "400", "20", "9"), ("A.1", "401", "30", "2"), ("A.1", "20", "31", "8"),
               ("A.2", "20", "40", "1"), ("A.2", "402", "41", "0.5"), ("A.2", "12", "42", "7")],
    # Scores the database writes in other forms; ids with a backslash, a vertical tab, a non-ASCII letter.
    "odd": [("A.1", post, str(rank), score) for rank, (post, score) in enumerate(zip(
        ["10", "a\\b", "11", "a\x0bb", "é", "15", "16", "12"],
        ["1e-05", "-0", "0.1", "123456789.123456789", "2.5e+300", "0.30000000000000004", "7", "7"],
        strict=True), 1)] + [("A.2", "20", "1", "-1.5"), ("A.2", "99", "2", "-2.25")],
}


def scores(result):
    return [(s.name.removesuffix(".tsv"), s.per_topic, s.means, s.topics) for s in result.runs]


@pytest.mark.parametrize("all_topics", [False, True])
def test_campaign_scores_are_those_of_its_run_files(judged_answers, tmp_path, all_topics):  # noqa: F811
    for name, rows in RUNS.items():
        # Most of their posts are not in the small collection (unjudged rows, as the measures need): kept explicitly.
        ingest(judged_answers, tmp_path, name, [(*row, name) for row in rows], allow_missing=True)
    qrels = tmp_path / "qrels.txt"
    with open(qrels, "w") as out:
        services.qrels_export(campaign=judged_answers, out=out)
    files = sorted(tmp_path.glob("*.tsv"))
    expected = scores(services.evaluate_files(qrels_path=qrels, run_paths=files, all_topics=all_topics))
    found = scores(services.evaluate_campaign(campaign=judged_answers, all_topics=all_topics))
    assert found == expected
    assert [name for name, *_ in found] == sorted([*RUNS, "r1"])


def test_the_rows_read_from_the_database_give_the_prime_filter_of_the_whole_run(judged_answers, tmp_path):  # noqa: F811
    # answer_rows_to_score is prime_answers' cut done in the database: on its rows, prime_answers gives what it gives
    # on every row of the run.
    for name, rows in RUNS.items():
        ingest(judged_answers, tmp_path, name, [(*row, name) for row in rows], allow_missing=True)
    runs = list(Run.objects.filter(campaign=judged_answers, name__in=RUNS))
    topic_ids = selectors.campaign_topic_ids(campaign=judged_answers)
    qrels = selectors.campaign_qrels(campaign=judged_answers)
    found = selectors.answer_rows_to_score(campaign=judged_answers, runs=runs, topic_ids=topic_ids)
    for run in runs:
        cut = prime_answers(((topic, item, score) for topic, items in found[run.pk].items()
                             for item, score in items.items()), qrels)
        whole = prime_answers(selectors.answer_run_rows(run=run, topic_ids=topic_ids), qrels)
        assert (cut.run, cut.unjudged, cut.first) == (whole.run, whole.unjudged, whole.first), run.name


def test_campaign_qrels_in_one_query_are_the_exports_topic_by_topic(judged_answers, judged_formulas, ada):  # noqa: F811
    def by_topic(campaign):
        return [(topic, rows) for topic, rows in selectors.qrels_by_topic(campaign=campaign)]

    def in_one(campaign):
        return [(topic, list(items.items())) for topic, items in selectors.campaign_qrels(campaign=campaign).items()]

    assert in_one(judged_formulas) == by_topic(judged_formulas) != []
    assert in_one(judged_answers) == by_topic(judged_answers) == [("A.1", [("10", 3), ("12", 0)]), ("A.2", [("20", 2)])]
    # A topic handed over: the second assessor's grades where they have one, the first one's elsewhere.
    assignment_withdraw(assignment=Assignment.objects.get(assessor=ada, topic__topic_id="A.1", kind="official"))
    judgments_import(campaign=judged_answers, lines=["cy\tA.1\t10\t1\t", "cy\tA.1\t12\tDK\tunsure", "cy\tA.1\t11\t2\t"])
    assert in_one(judged_answers) == by_topic(judged_answers) == [("A.1", [("10", 1), ("11", 2)]), ("A.2", [("20", 2)])]
