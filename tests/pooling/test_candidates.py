"""Candidates pooled beside the runs (issue 25): a candidates file, its source as provenance, refusals."""
import pytest

from ir.formats.candidates import Candidate, candidate_lines, read_candidates, read_topic_questions
from ir.problems import InputError
from pooling import services
from pooling.models import Candidate as CandidateRow
from pooling.models import PoolItem
from pooling.selectors import pool_statistics
from tests.commands import command_output, rejected
from tests.pooling.run_files import answers_campaign

pytestmark = pytest.mark.django_db


def pool_of(campaign):
    return {(t, i): p for t, i, p in PoolItem.objects.filter(campaign=campaign)
            .values_list("topic__topic_id", "item_id", "provenance")}


def test_candidates_are_pooled_beside_the_runs_with_their_source(tmp_path):
    campaign = answers_campaign(tmp_path)
    path = tmp_path / "candidates.tsv"
    path.write_text("A.1\t10\tcited-in-accepted-answer\tthanks, that proof is what I needed\n"
                    "A.1\t99\tcited-in-accepted-answer\t\n"
                    "A.2\t98\tmanual\n", encoding="utf-8")
    out, _ = command_output("ingest_candidates", "--campaign", "answers", str(path))
    assert out.strip() == "campaign 'answers': 3 candidates; build the pools to pool them"
    result = services.pool_build(campaign=campaign, judged_items={})
    assert result.sizes == {"A.1": 6, "A.2": 5}  # 5 and 4 from the runs, 99 and 98 from the candidates
    pool = pool_of(campaign)
    assert pool[("A.1", "10")] == [["candidates:cited-in-accepted-answer", 1], ["r1", 1]]
    assert pool[("A.1", "99")] == [["candidates:cited-in-accepted-answer", 2]]
    assert pool[("A.2", "98")] == [["candidates:manual", 1]]
    # The pools page counts each source as a contributor: items pooled, and those no run found.
    runs = {row["name"]: (row["contributed"], row["unique"]) for row in pool_statistics(campaign=campaign)["runs"]}
    assert runs["candidates:cited-in-accepted-answer"] == (2, 1) and runs["candidates:manual"] == (1, 1)
    # Ingesting again replaces them: the next build pools the new file only.
    path.write_text("A.2\t97\tmanual\tx\n", encoding="utf-8")
    command_output("ingest_candidates", "--campaign", "answers", str(path))
    services.pool_build(campaign=campaign, judged_items={})
    assert {key for key, provenance in pool_of(campaign).items() if provenance[0][0].startswith("candidates:")} == {
        ("A.2", "97")}


def test_candidates_of_unknown_topics_or_malformed_lines_are_refused(tmp_path):
    answers_campaign(tmp_path)
    path = tmp_path / "c.tsv"
    path.write_text("A.9\t10\tcited\n", encoding="utf-8")
    assert rejected("ingest_candidates", "--campaign", "answers", str(path)) == [
        "topics not in campaign 'answers': A.9"]
    path.write_text("A.1\t10\n\t11\tcited\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_candidates(path)
    assert [p.line for p in info.value.problems] == [1, 2]


def test_a_note_with_tabs_and_line_ends_stays_one_line(tmp_path):
    lines = list(candidate_lines([Candidate("A.1", "10", "cited", "one\ttwo\nthree")]))
    assert lines == ["A.1\t10\tcited\tone two three\n"]
    (tmp_path / "c.tsv").write_text("".join(lines), encoding="utf-8")
    assert read_candidates(tmp_path / "c.tsv") == [Candidate("A.1", "10", "cited", "one two three")]


@pytest.mark.parametrize("content", ["", "\n  \n\t\n"])
def test_an_empty_candidates_file_is_refused_and_keeps_the_candidates(tmp_path, content):
    campaign = answers_campaign(tmp_path)
    path = tmp_path / "candidates.tsv"
    path.write_text("A.1\t10\tcited\nA.2\t98\tmanual\n", encoding="utf-8")
    command_output("ingest_candidates", "--campaign", "answers", str(path))
    path.write_text(content, encoding="utf-8")
    assert rejected("ingest_candidates", "--campaign", "answers", str(path)) == [
        "candidates.tsv: the file has no rows"]
    assert CandidateRow.objects.filter(campaign=campaign).count() == 2
    with pytest.raises(InputError, match="the file has no rows"):
        read_topic_questions(path)
