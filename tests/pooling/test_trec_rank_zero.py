"""TREC runs that rank from 0 (as the TREC 2003 Robust runs do): ingested, pooled in trec_eval's order, and
evaluated as pytrec_eval computes on the same data."""
from __future__ import annotations

import io

import pytest
import pytrec_eval

from evaluation import selectors
from ir.formats.runs import TREC, RunSummary, read_run
from ir.prime import prime_answers
from ir.problems import Problems
from pooling import services
from pooling.models import PoolItem, Run, RunEntry
from tests.commands import command_output, rejected

# Ranks from 0. Topic 303: FBIS3-10082 and FT921-7107 tie at 10.2; the file ranks FBIS3 first, trec_eval takes the
# higher doc id (FT921) first. Rank 4 scores above rank 3: the ranks disagree with the scores there.
ROBUST = [
    ("303", "LA011990-0173", 0, "10.6289"),
    ("303", "FBIS3-10082", 1, "10.2"),
    ("303", "FT921-7107", 2, "10.2"),
    ("303", "LA040190-0045", 3, "9.8"),
    ("303", "XIE19960120.0012", 4, "9.9"),
    ("303", "FR940104-0-00001", 5, "7.5"),
    ("304", "FT934-5418", 0, "12.0"),
    ("304", "LA052189-0009", 1, "11.5"),
    ("304", "FBIS4-22210", 2, "3.25"),
]
QRELS = {
    "303": {"LA011990-0173": 0, "FBIS3-10082": 3, "FT921-7107": 1, "LA040190-0045": 2, "XIE19960120.0012": 0,
            "FR940104-0-00001": 2, "LA070389-0101": 3},
    "304": {"FT934-5418": 1, "LA052189-0009": 3, "FBIS4-22210": 2, "FBIS4-99999": 2},
}


def run_text(sep: str = " ", rows=ROBUST) -> str:
    return "".join(sep.join([t, "Q0", d, str(r), s, "aplrob03a"]) + "\n" for t, d, r, s in rows)


def qrels_text() -> str:
    return "".join(f"{t} 0 {d} {g}\n" for t, docs in QRELS.items() for d, g in docs.items())


def read(data: str, task: str = "answers"):
    problems, warnings, summary = Problems(), Problems(), RunSummary()
    rows = list(read_run(io.BytesIO(data.encode()), problems, warnings, topics={"303": 1, "304": 2}, task=task,
                         summary=summary))
    return rows, problems, summary


@pytest.fixture
def robust(db, tmp_path):
    topics = tmp_path / "topics.xml"
    topics.write_text("<Topics>" + "".join(f'<Topic number="{t}"><Title>t</Title><Question>q</Question></Topic>'
                                           for t in ("303", "304")) + "</Topics>")
    campaign = services.campaign_create(name="robust", task="answers", primary_depth=2)
    services.topics_ingest(campaign=campaign, path=topics)
    return campaign


def test_a_trec_run_may_rank_from_zero_and_an_arqmath_run_may_not():
    rows, problems, summary = read(run_text())
    assert not problems, problems.messages()
    assert summary.format == TREC and [r.rank for r in rows][:3] == [0, 1, 2]

    _, problems, _ = read("A.1\t5\t0\t1.0\trun\n".replace("A.1", "303"))
    assert problems.messages() == ["line 1: rank '0' is not a whole number >= 1"]
    _, problems, _ = read("303 Q0 d -1 1.0 run\n303 Q0 e x 1.0 run\n")
    assert problems.messages() == ["line 1: rank '-1' is not a whole number >= 0",
                                   "line 2: rank 'x' is not a whole number >= 0"]


def test_ingested_with_the_rank_order_warning_and_pooled_in_trec_eval_order(robust, tmp_path):
    path = tmp_path / "aplrob03a.txt"
    path.write_text(run_text())
    out, _ = command_output("ingest_run", "--campaign", "robust", str(path))
    run = Run.objects.get(campaign=robust)
    assert run.format == "trec" and run.row_count == 9 and "rows for" in out
    assert sorted(RunEntry.objects.filter(run=run, topic__topic_id="303").values_list("rank", flat=True)) == [
        0, 1, 2, 3, 4, 5]
    assert any("ranks disagree with score order in 1 topics (first: topic 303, rank 4" in w for w in run.warnings)

    services.pool_build(campaign=robust, judged_items={})

    pooled = {}
    for topic_id, item_id in PoolItem.objects.filter(campaign=robust).values_list("topic__topic_id", "item_id"):
        pooled.setdefault(topic_id, set()).add(item_id)
    # Depth 2 in trec_eval's order: by score, the tie at 10.2 to the higher doc id; not the file's ranks 0 and 1.
    assert pooled == {"303": {"LA011990-0173", "FT921-7107"}, "304": {"FT934-5418", "LA052189-0009"}}


def test_a_file_in_trec_eval_order_ranked_from_zero_pools_its_first_rows(robust, tmp_path):
    rows = [("303", "d9", 0, "3"), ("303", "d8", 1, "3"), ("303", "d1", 2, "2"), ("304", "d5", 0, "1")]
    path = tmp_path / "r.txt"
    path.write_text(run_text("\t", rows))
    run = services.run_ingest(campaign=robust, path=path)
    assert not run.warnings or not any("disagree" in w for w in run.warnings)
    services.pool_build(campaign=robust, judged_items={})
    assert sorted(PoolItem.objects.filter(campaign=robust).values_list("topic__topic_id", "item_id")) == [
        ("303", "d8"), ("303", "d9"), ("304", "d5")]


def expected_lines() -> set[str]:
    """pytrec_eval on the same data: every row is judged, so the prime measures are trec_eval's own."""
    run: dict[str, dict[str, float]] = {}
    for topic, doc, _rank, score in ROBUST:
        run.setdefault(topic, {})[doc] = float(score)
    ndcg = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg"}).evaluate(run)
    binary = pytrec_eval.RelevanceEvaluator(QRELS, {"map", "P_10"}, relevance_level=2).evaluate(run)
    lines = set()
    for ours, theirs, source in (("ndcg_prime", "ndcg", ndcg), ("map_prime", "map", binary),
                                 ("p10_prime", "P_10", binary)):
        for topic in QRELS:
            lines.add(f"run.txt\t{ours}\t{topic}\t{source[topic][theirs]:.4f}")
        lines.add(f"run.txt\t{ours}\tall\t{sum(source[t][theirs] for t in QRELS) / len(QRELS):.4f}")
    return lines


@pytest.mark.parametrize("sep", [" ", "\t"], ids=["spaces", "tabs"])
def test_evaluate_scores_a_run_ranked_from_zero_as_pytrec_eval(tmp_path, db, sep):
    run = tmp_path / "run.txt"
    run.write_text(run_text(sep))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(qrels_text())
    out, _ = command_output("evaluate", "--per-topic", "--qrels", str(qrels), str(run))
    lines = set(out.splitlines())
    assert expected_lines() <= lines
    assert "run.txt\tunjudged_10\tall\t0.0000" in lines


def test_evaluate_still_refuses_rank_zero_in_an_arqmath_run(tmp_path, db):
    run = tmp_path / "run.tsv"
    run.write_text("A.1\t5\t0\t1.0\trun\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("A.1 0 5 2\n")
    lines = rejected("evaluate", "--qrels", str(qrels), str(run))
    assert any("line 1: rank '0' is not a whole number >= 1" in line for line in lines)


def test_a_stored_run_ranked_from_zero_is_read_from_its_rows_for_the_campaign_evaluation(robust, tmp_path):
    path = tmp_path / "aplrob03a.txt"
    path.write_text(run_text())
    run = services.run_ingest(campaign=robust, path=path)
    topic_ids = selectors.campaign_topic_ids(campaign=robust)
    found = selectors.answer_rows_to_score(campaign=robust, runs=[run], topic_ids=topic_ids)[run.pk]
    prime = prime_answers([(topic, item, score) for topic, items in found.items() for item, score in items.items()],
                          QRELS)
    rows, _, _ = read(run_text())
    expected = prime_answers([(r.topic_id, r.item_id, r.score) for r in rows], QRELS)
    assert (prime.run, prime.unjudged) == (expected.run, expected.unjudged)
