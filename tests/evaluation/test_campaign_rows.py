"""A campaign's runs scored from their stored rows (only the judged rows and each topic's top of the ranking are read
from the database) give the scores of the same runs as files against the exported qrels: ranks out of order, ties
at the 10th place, odd ids and scores, topics with few rows."""
import pytest

from evaluation import services
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
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
