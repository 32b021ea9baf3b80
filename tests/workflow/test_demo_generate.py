"""The synthetic demo collection and runs: reproducible, self-consistent, in the real formats."""
from __future__ import annotations

import csv
import html
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest

from ir.formats.task3_answers import read_answers_file
from workflow.demo.generate import (
    DemoFiles,
    generate_demo,
    write_posts_bulk,
    write_task1_runs_bulk,
)

SPAN_ID = re.compile(r'<span class="math-container" id="([^"]+)">')
QUESTION_LINK = re.compile(r'href="https://math\.stackexchange\.com/(?:questions|q)/(\d+)')
ANSWER_LINK = re.compile(r'href="https://math\.stackexchange\.com/a/(\d+)')
SMALL = {"topics_per_task": 5, "questions": 400, "run_depth": 40}


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> DemoFiles:
    return generate_demo(tmp_path_factory.mktemp("demo"), seed=7, **SMALL)


@pytest.fixture(scope="module")
def posts(demo) -> dict[str, ET.Element]:
    return {row.get("Id"): row for row in ET.parse(demo.posts).getroot()}


@pytest.fixture(scope="module")
def formulas(demo) -> dict[str, dict[str, str]]:
    with open(demo.formulas, encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE))
    return {row["id"]: row for row in rows}


def read_run(path: Path) -> list[list[str]]:
    return [line.split("\t") if "\t" in line else line.split() for line in path.read_text().splitlines()]


def topic_ids(path: Path) -> list[str]:
    return [topic.get("number") for topic in ET.parse(path).getroot()]


def all_files(files: DemoFiles) -> list[Path]:
    runs = [path for path, _ in files.task1_runs + files.task2_runs + files.task3_runs]
    return [files.posts, files.comments, files.formulas, files.task1_topics, files.task2_topics, *runs]


def test_same_seed_gives_byte_identical_files(demo, tmp_path):
    again = generate_demo(tmp_path / "again", seed=7, **SMALL)
    for first, second in zip(all_files(demo), all_files(again), strict=True):
        assert first.name == second.name
        assert first.read_bytes() == second.read_bytes(), first.name


def test_another_seed_gives_another_collection(demo, tmp_path):
    other = generate_demo(tmp_path / "other", seed=8, **SMALL)
    assert other.posts.read_bytes() != demo.posts.read_bytes()


def test_posts_parse_and_every_answer_belongs_to_a_question_in_the_file(demo, posts):
    assert demo.posts.read_text(encoding="utf-8").startswith('<?xml version="1.0" encoding="utf-8"?>\n<posts>\n')
    ids = [int(pid) for pid in posts]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    questions = {pid: row for pid, row in posts.items() if row.get("PostTypeId") == "1"}
    answers = {pid: row for pid, row in posts.items() if row.get("PostTypeId") == "2"}
    assert len(questions) == SMALL["questions"]
    assert 2.5 < len(answers) / len(questions) < 4.0
    children = defaultdict(list)
    for pid, answer in answers.items():
        assert answer.get("ParentId") in questions
        assert int(pid) > int(answer.get("ParentId"))  # answered after asked, like the real dump
        children[answer.get("ParentId")].append(pid)
    for pid, question in questions.items():
        assert question.get("Title") and question.get("Tags", "").startswith("<")
        assert int(question.get("AnswerCount")) == len(children[pid])
        if question.get("AcceptedAnswerId"):
            assert question.get("AcceptedAnswerId") in children[pid]
    # Questions and answers are interleaved by creation time, not grouped by kind.
    kinds = "".join(row.get("PostTypeId") for row in posts.values())
    assert kinds.count("12") > len(questions) // 4


def test_bodies_hold_the_markup_a_real_dump_has(posts):
    bodies = [row.get("Body") for row in posts.values()]
    everything = "\n".join(bodies)
    for needle in ("<p>", "<ul>", "<blockquote>", "<pre><code>", "https://en.wikipedia.org/wiki/",
                   '<img src="https://i.sstatic.net/', "https://math.stackexchange.com/q/",
                   "https://math.stackexchange.com/a/", "&lt;", "$$"):
        assert needle in everything, needle
    for target in QUESTION_LINK.findall(everything):
        assert posts[target].get("PostTypeId") == "1"
    for target in ANSWER_LINK.findall(everything):
        assert posts[target].get("PostTypeId") == "2"


def test_span_ids_and_formula_index_match_one_to_one(posts, formulas):
    spans = {}
    for pid, row in posts.items():
        for fid in SPAN_ID.findall(row.get("Body")):
            assert fid not in spans
            spans[fid] = pid
    assert set(spans) == set(formulas)
    for fid, row in formulas.items():
        post = posts[row["post_id"]]
        assert spans[fid] == row["post_id"]
        assert row["type"] == ("question" if post.get("PostTypeId") == "1" else "answer")
        assert row["thread_id"] == (post.get("ParentId") or row["post_id"])
        assert "\t" not in row["formula"] and row["formula"].strip()


def test_visual_id_is_smallest_formula_id_of_same_latex_without_white_space(formulas):
    clusters = defaultdict(list)
    for fid, row in formulas.items():
        clusters["".join(row["formula"].split())].append(int(fid))
    for ids in clusters.values():
        assert {formulas[str(fid)]["visual_id"] for fid in ids} == {str(min(ids))}
    assert sum(1 for ids in clusters.values() if len(ids) > 1) > 50


def test_comments_point_at_posts_and_counts_agree(demo, posts):
    comments = list(ET.parse(demo.comments).getroot())
    assert 0.4 < len(comments) / len(posts) < 0.6
    per_post = defaultdict(int)
    for comment in comments:
        assert comment.get("PostId") in posts and comment.get("Text")
        per_post[comment.get("PostId")] += 1
    for pid, row in posts.items():
        assert int(row.get("CommentCount")) == per_post[pid]


def test_topic_files_are_cut_to_the_first_topics(demo):
    assert topic_ids(demo.task1_topics) == [f"A.{n}" for n in range(301, 306)]
    assert topic_ids(demo.task2_topics) == [f"B.{n}" for n in range(301, 306)]
    first = ET.parse(demo.task2_topics).getroot()[0]
    assert first.findtext("Formula_Id") == "q_6" and first.findtext("Latex")


def test_full_topic_files_are_copied_unchanged(tmp_path):
    files = generate_demo(tmp_path, questions=50, run_depth=5)
    shipped = Path(__file__).resolve().parents[2] / "workflow" / "demo" / "data"
    assert files.task1_topics.read_bytes() == (shipped / files.task1_topics.name).read_bytes()
    assert len(topic_ids(files.task2_topics)) == 100
    assert {row[0] for path, _ in files.task2_runs for row in read_run(path)} == set(topic_ids(files.task2_topics))


def check_ranked(rows: list[list[str]], item_column: int, rank_column: int, depth: int) -> None:
    by_topic = defaultdict(list)
    for row in rows:
        by_topic[row[0]].append(row)
    for topic_rows in by_topic.values():
        items = [row[item_column] for row in topic_rows]
        assert len(items) == len(set(items))
        assert [int(row[rank_column]) for row in topic_rows] == list(range(1, depth + 1))
        scores = [float(row[rank_column + 1]) for row in topic_rows]
        assert scores == sorted(scores, reverse=True)


def test_task1_runs_rank_answers_of_the_collection(demo, posts):
    topics = set(topic_ids(demo.task1_topics))
    assert [alternate for _, alternate in demo.task1_runs] == [False, True] * 3
    shapes = defaultdict(int)
    for path, _ in demo.task1_runs:
        rows = read_run(path)
        trec = rows[0][1] == "Q0"
        shapes["trec" if trec else "arqmath"] += 1
        assert all(len(row) == (6 if trec else 5) for row in rows)
        assert len({row[-1] for row in rows}) == 1
        item = 2 if trec else 1
        assert {row[0] for row in rows} == topics
        assert all(posts[row[item]].get("PostTypeId") == "2" for row in rows)
        check_ranked(rows, item, item + 1, SMALL["run_depth"])
    assert shapes == {"arqmath": 4, "trec": 2}


def test_task3_runs_answer_every_topic_one_generated_one_extracted(demo, posts):
    topics = topic_ids(demo.task1_topics)
    assert [(path.name, alternate) for path, alternate in demo.task3_runs] == [
        ("delta-task3-gpt-auto-both-generate-P.tsv", False), ("alpha-task3-tangent-auto-both-extract-A.tsv", True)]
    generated, extracted = (read_answers_file(path, topics=set(topics)) for path, _ in demo.task3_runs)
    for run in (generated, extracted):  # the organizers' rules, as an ingest reads them
        assert [row.topic_id for row in run.rows] == topics
        assert not run.warnings.count
    assert any("$" in row.answer for row in generated.rows) and any("\n" in row.answer for row in generated.rows)
    for row in extracted.rows:  # the text of the answer post it names, without its HTML
        post = posts[row.sources.removeprefix("post ")]
        assert post.get("PostTypeId") == "2"
        assert row.answer.split()[:3] == html.unescape(re.sub(r"<[^>]+>", " ", post.get("Body"))).split()[:3]


def test_task2_runs_rank_formula_instances_of_the_collection(demo, formulas):
    topics = set(topic_ids(demo.task2_topics))
    for path, _ in demo.task2_runs:
        rows = read_run(path)
        assert all(len(row) == 6 and row[1] != "Q0" for row in rows)
        assert {row[0] for row in rows} == topics
        for _topic, fid, pid, *_ in rows:
            assert formulas[fid]["post_id"] == pid
        check_ranked(rows, 1, 3, SMALL["run_depth"])


def test_task2_runs_find_the_query_formula_and_its_look_alikes(demo, formulas):
    queries = {t.get("number"): "".join(t.findtext("Latex").split()) for t in ET.parse(demo.task2_topics).getroot()}
    rows = [row for path, _ in demo.task2_runs for row in read_run(path)]
    for topic, query in queries.items():
        found = {row[1] for row in rows if row[0] == topic}
        same_as_query = [fid for fid in found if "".join(formulas[fid]["formula"].split()) == query]
        assert len(same_as_query) >= 2, topic
        visual_ids = [formulas[fid]["visual_id"] for fid in found]
        assert len(set(visual_ids)) < len(visual_ids)  # several instances share a visual id


def top(path: Path, topic: str, k: int = 20) -> set[str]:
    """Items of a run's first k ranks for a topic; column 1 is the item in every shape but TREC."""
    rows = read_run(path)
    item, rank = (2, 3) if rows[0][1] == "Q0" else (1, 2) if len(rows[0]) == 5 else (1, 3)
    return {row[item] for row in rows if row[0] == topic and int(row[rank]) <= k}


@pytest.mark.parametrize("task", [1, 2])
def test_primary_runs_overlap_without_being_identical(demo, task):
    runs = demo.task1_runs if task == 1 else demo.task2_runs
    primaries = [path for path, alternate in runs if not alternate]
    for topic in topic_ids(demo.task1_topics if task == 1 else demo.task2_topics):
        first, second = (top(path, topic) for path in primaries[:2])
        assert first & second, topic
        assert first != second, topic


def test_alternate_run_resembles_its_primary_more_than_another_team(demo):
    (alpha_p, _), (alpha_a, _), (beta_p, _) = demo.task1_runs[:3]
    topics = topic_ids(demo.task1_topics)
    same_team = sum(len(top(alpha_p, t) & top(alpha_a, t)) for t in topics)
    other_team = sum(len(top(alpha_p, t) & top(beta_p, t)) for t in topics)
    assert same_team > other_team


def test_bulk_posts_and_runs_are_consistent(tmp_path):
    bulk = write_posts_bulk(tmp_path / "Posts.xml", posts=3000, seed=3, formulas=tmp_path / "formulas.tsv")
    rows = list(ET.parse(bulk.posts).getroot())
    assert [row.get("Id") for row in rows] == [str(n) for n in range(1, 3001)]
    kinds = {row.get("Id"): row.get("PostTypeId") for row in rows}
    assert bulk.questions + bulk.answers == 3000 and bulk.answers == len(bulk.answer_ids)
    assert all(kinds[pid] == "2" for pid in bulk.answer_ids)
    for row in rows:
        if row.get("PostTypeId") == "2":
            assert kinds[row.get("ParentId")] == "1"
    spans = {fid for row in rows for fid in SPAN_ID.findall(row.get("Body"))}
    with open(bulk.formulas, encoding="utf-8", newline="") as stream:
        index = {row["id"] for row in csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE)}
    assert spans == index and len(index) == bulk.formula_count

    runs = write_task1_runs_bulk(tmp_path / "runs", topics=["A.1", "A.2"], post_ids=bulk.answer_ids,
                                 runs=3, depth=50, seed=3)
    assert [alternate for _, alternate in runs] == [False, True, False]
    for path, _ in runs:
        run = read_run(path)
        assert all(kinds[row[1]] == "2" for row in run)
        check_ranked(run, 1, 2, 50)


def test_bulk_writers_are_reproducible(tmp_path):
    first = write_posts_bulk(tmp_path / "a.xml", posts=500, seed=5, formulas=tmp_path / "a.tsv")
    second = write_posts_bulk(tmp_path / "b.xml", posts=500, seed=5, formulas=tmp_path / "b.tsv")
    assert first.posts.read_bytes() == second.posts.read_bytes()
    assert first.formulas.read_bytes() == second.formulas.read_bytes()
