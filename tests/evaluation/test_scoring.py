"""One way to score (docs/evaluation.md): a stored run's rows on the leaderboard (as its snapshot stores them), against
an earlier edition and under the LLM judge's grades are the rows of the same run's file scored against the same qrels
as a file; reusability's full-qrels means are `evaluate --all-topics`'s; and the command line's rule for the values of
--measures that are run files."""
import pytest

from evaluation import scoring, services, snapshots
from evaluation.editions import edition_add
from evaluation.models import ScoreSnapshot
from evaluation.reusability import ranked
from ir.prime import MEASURES
from ir.scoring import Row, rows_of, runs_of
from ir.statistics import prime_scorer
from jobs.models import Job
from tests.commands import command_output, rejected
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
from tests.evaluation.test_campaign_rows import RUNS
from tests.factories import LlmEndpointFactory, LlmGradeFactory
from tests.pooling.run_files import ingest

EDITION = "A.1\t0\t10\t1\nA.1\t0\t12\t3\nA.1\t0\t299\t2\nA.2\t0\t20\t0\nA.2\t0\t402\t3\n"


@pytest.fixture
def stored(judged_answers, tmp_path):  # noqa: F811
    """The campaign with RUNS stored, their files in tmp_path/runs."""
    (tmp_path / "runs").mkdir()
    for name, rows in RUNS.items():
        ingest(judged_answers, tmp_path / "runs", name, [(*row, name) for row in rows], allow_missing=True)
    return judged_answers


def file_rows(tmp_path, qrels_text: str, **options) -> list[Row]:
    """The rows of RUNS' files scored against a qrels file of `qrels_text`, named as the campaign names them."""
    qrels = tmp_path / "qrels-file.txt"
    qrels.write_text(qrels_text)
    found = scoring.score(scoring.RunFiles(sorted((tmp_path / "runs").glob("*.tsv"))), scoring.QrelsFile(qrels),
                          **options)
    return [row._replace(run=row.run.removesuffix(".tsv")) for row in found.rows]


def of_runs(runs) -> list[Row]:
    return [row for row in rows_of(runs) if row.run in RUNS]


@pytest.mark.parametrize("all_topics, measures", [(False, []), (True, []), (False, ["RR", "p1"])])
def test_the_leaderboards_rows_of_a_stored_run_are_its_files_rows(stored, tmp_path, all_topics, measures):
    snapshot = snapshots.leaderboard(campaign=stored, all_topics=all_topics, measures=measures)
    exported = "".join(services.qrels_export_lines(campaign=stored))
    assert snapshot.computed_at is not None  # computed in-process (no broker), read back from the stored rows
    expected = file_rows(tmp_path, exported, all_topics=all_topics, measures=measures,
                         relevance_level=stored.relevance_level)
    assert of_runs(snapshot.value.runs) == expected
    assert {row.measure for row in expected} >= {*MEASURES, *measures}
    # The topics averaged: those with a judged post retrieved (the run "tie" has none for A.2), or every qrels topic.
    assert {run.name: run.topics for run in snapshot.value.runs if run.name in RUNS} == {
        name: 1 if name == "tie" and not all_topics else 2 for name in RUNS}


def test_scores_stored_in_an_older_shape_are_recomputed_not_misread(stored):
    first = snapshots.leaderboard(campaign=stored).value
    ScoreSnapshot.objects.filter(campaign=stored).update(payload={"runs": [], "answer_runs": []}, version="before")
    running = Job.objects.create(kind=Job.Kind.SCORES_REFRESH, campaign=stored, status=Job.Status.RUNNING)
    waiting = snapshots.leaderboard(campaign=stored)  # a worker has the recompute
    assert waiting.computing and waiting.value is None  # "computing…", not the old shape read as scores
    Job.objects.filter(pk=running.pk).update(status=Job.Status.DONE)
    again = snapshots.leaderboard(campaign=stored)  # recomputed in-process (no broker)
    assert again.computed_at is not None and not again.updating
    assert list(rows_of(again.value.runs)) == list(rows_of(first.runs))


def test_a_stored_run_against_an_earlier_edition_has_its_files_rows(stored, tmp_path):
    edition_add(campaign=stored, label="2021", data=EDITION.encode(), filename="qrels-2021.txt")
    [edition] = snapshots.leaderboard(campaign=stored).editions
    assert edition.label == "2021"
    assert of_runs(edition.evaluation.runs) == file_rows(tmp_path, EDITION)


def test_the_llm_boards_rows_of_a_stored_run_are_its_files_rows_under_the_judges_grades(stored, tmp_path):
    LlmEndpointFactory(campaign=stored, model="judge-7b")
    topics = {topic.topic_id: topic for topic in stored.topics.all()}
    graded = {"A.1": {"10": 1, "12": 3, "101": 2, "299": 2}, "A.2": {"20": 0, "402": 3}}
    for topic_id, items in graded.items():
        for item, grade in items.items():
            LlmGradeFactory(topic=topics[topic_id], item_id=item, grade=grade)
    board = snapshots.leaderboard(campaign=stored).llm
    assert board is not None and board.model == "judge-7b" and not board.problem
    qrels = "".join(f"{topic}\t0\t{item}\t{grade}\n"
                    for topic, items in graded.items() for item, grade in items.items())
    assert of_runs(board.runs) == file_rows(tmp_path, qrels)
    assert board.judgments == 6 and board.qrels_topics == 2


def test_reusabilitys_full_qrels_means_are_those_of_evaluate_all_topics(stored, tmp_path):
    qrels = {"A.1": {"10": 3, "12": 0}, "A.2": {"20": 2}}
    files = sorted((tmp_path / "runs").glob("*.tsv"))
    found = scoring.score(scoring.RunFiles(files), scoring.Judgments(qrels), all_topics=True)
    by_name = {run.name: run for run in found.runs}
    # Each file's lists best first, as reusability ranks a run (trec_eval's order).
    runs = {path.name: ranked(scoring.run_lists("answers", scoring.read_run_columns(path, "answers", []), qrels, None))
            for path in files}
    assert prime_scorer()(qrels, runs) == {name: {measure: by_name[name].means[measure] for measure in MEASURES}
                                           for name in runs}


def test_rows_keep_a_topic_named_all_apart_from_the_means(tmp_path, db):
    qrels = tmp_path / "q.txt"
    qrels.write_text("all\t0\ta\t2\nA.2\t0\tb\t1\n")
    run = tmp_path / "r.tsv"
    run.write_text("all\ta\t1\t2\tt\nall\tx\t2\t1\tt\n")
    [scores] = scoring.score(scoring.RunFiles([run]), scoring.QrelsFile(qrels)).runs
    assert scores.per_topic == {"all": {"ndcg_prime": 1.0, "map_prime": 1.0, "p10_prime": 0.1, "unjudged_10": 0.5}}
    assert scores.means["unjudged_10"] == 0.5 and scores.topics == 1
    assert runs_of(rows_of([scores])) == [scores]


def test_a_mean_over_no_topic_is_written_na(tmp_path, db):
    qrels = tmp_path / "q.txt"
    qrels.write_text("A.1\t0\ta\t2\n")
    run = tmp_path / "r.tsv"
    run.write_text("A.1\tx\t1\t2\tt\n")  # nothing judged retrieved
    out, _ = command_output("evaluate", "--qrels", str(qrels), str(run))
    assert out.splitlines() == ["r.tsv\tndcg_prime\tall\tn/a", "r.tsv\tmap_prime\tall\tn/a",
                                "r.tsv\tp10_prime\tall\tn/a", "r.tsv\tunjudged_10\tall\t1.0000"]


def test_measures_end_at_the_values_written_as_paths_or_at_a_double_dash(tmp_path, db, monkeypatch):
    qrels = tmp_path / "q.txt"
    qrels.write_text("A.1\t0\ta\t2\n")
    (tmp_path / "run").write_text("A.1\ta\t1\t2\tt\n")
    monkeypatch.chdir(tmp_path)
    asked, _ = command_output("evaluate", "--qrels", "q.txt", "--measures", "RR", "./run")
    assert "run\tRR\tall\t1.0000" in asked.splitlines()
    assert command_output("evaluate", "--qrels", "q.txt", "--measures", "RR", "--", "run")[0] == asked
    # A missing run file is said to be missing, not taken for a measure; a name without / or extension is a measure.
    assert rejected("evaluate", "--qrels", "q.txt", "--measures", "RR", "gone.tsv") == [
        "gone.tsv: No such file or directory"]
    assert any("'run' is not a measure ir_measures knows" in line
               for line in rejected("evaluate", "--qrels", "q.txt", "--measures", "RR", "run", "./run"))
