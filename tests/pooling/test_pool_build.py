"""Pool building and export (SPEC 4, 9): small campaigns worked out by hand, and the real ARQMath-1 runs."""
import csv
import importlib
import io
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from pooling import services
from pooling.models import Campaign, Collection, Formula, PoolInstance, PoolItem, Post, Run
from tests.commands import command_output, rejected
from tests.factories import CampaignFactory, TopicFactory
from tests.pooling.run_files import answers_campaign, ingest, task1_lines, task2_lines

pytestmark = pytest.mark.django_db


def run_command(*args) -> str:
    return command_output(*args)[0]


def pool_of(campaign) -> dict[str, dict[str, list]]:
    """topic -> item -> provenance."""
    pool: dict[str, dict[str, list]] = {}
    for topic_id, item_id, provenance in PoolItem.objects.filter(campaign=campaign).values_list(
            "topic__topic_id", "item_id", "provenance"):
        pool.setdefault(topic_id, {})[item_id] = provenance
    return pool


def snapshot(campaign) -> tuple[list, list]:
    items = sorted(PoolItem.objects.filter(campaign=campaign)
                   .values_list("topic__topic_id", "item_id", "position", "provenance"))
    instances = sorted(PoolInstance.objects.filter(item__campaign=campaign)
                       .values_list("item__topic__topic_id", "item__item_id", "formula_id", "post_id", "vote",
                                    "selected"))
    return items, instances


# --- Task 1 ------------------------------------------------------------------------------------

@pytest.fixture
def answers(tmp_path):
    return answers_campaign(tmp_path)


def test_answer_pool_is_each_runs_top_depth_with_provenance(answers):
    result = services.pool_build(campaign=answers, judged_items={})

    assert result == services.PoolBuildResult(sizes={"A.1": 5, "A.2": 4}, items=9)
    assert pool_of(answers) == {
        # 13 is below r1's depth 3, r2 (alternate) found 10 at rank 3 > 2, r3 (depth 1) found 10 at rank 2
        "A.1": {"10": [["r1", 1]], "11": [["r1", 2]], "12": [["r1", 3], ["r2", 1]], "14": [["r2", 2]],
                "15": [["r3", 1]]},
        "A.2": {"20": [["r1", 1], ["r2", 2], ["r3", 1]], "21": [["r1", 2]], "22": [["r1", 3]],
                "24": [["r2", 1]]},
    }
    assert not PoolInstance.objects.exists()


def test_answer_pool_is_shown_in_the_seeded_display_order(answers):
    services.pool_build(campaign=answers, judged_items={})
    shown = {t: list(PoolItem.objects.filter(topic__topic_id=t).order_by("position").values_list("item_id", flat=True))
             for t in ("A.1", "A.2")}
    assert shown == {"A.1": ["11", "12", "14", "15", "10"], "A.2": ["21", "24", "20", "22"]}
    assert list(PoolItem.objects.filter(topic__topic_id="A.1").values_list("position", flat=True)) == [0, 1, 2, 3, 4]


def test_rebuilding_answer_pools_gives_identical_rows(answers):
    services.pool_build(campaign=answers, judged_items={})
    first = snapshot(answers)
    services.pool_build(campaign=answers, judged_items={})
    assert snapshot(answers) == first
    assert PoolItem.objects.count() == 9


def test_runs_ranked_one_two_three_are_cut_on_the_rank_with_the_same_pools(answers):
    assert set(Run.objects.filter(campaign=answers).values_list("ranks_are_positions", flat=True)) == {True}
    services.pool_build(campaign=answers, judged_items={})
    expected = snapshot(answers)
    # The same runs numbered by the database, as runs with gaps, ties or disorder are: the same pools.
    Run.objects.filter(campaign=answers).update(ranks_are_positions=False)
    services.pool_build(campaign=answers, judged_items={})
    assert snapshot(answers) == expected


def test_a_run_with_gaps_ties_and_disorder_is_pooled_by_position(tmp_path):
    campaign = CampaignFactory(name="gaps", task=Campaign.Task.ANSWERS, primary_depth=3)
    TopicFactory(campaign=campaign, topic_id="A.1", position=0)
    regular = ingest(campaign, tmp_path, "reg", task1_lines("A.1", ["10", "11", "12", "13"], "reg"))
    # In rank order, then item id: 11 (rank 3), 12 (rank 3), 13 (rank 7), 10 (rank 10).
    irregular = ingest(campaign, tmp_path, "irr", [("A.1", "13", "7", "2.0", "irr"), ("A.1", "11", "3", "5.0", "irr"),
                                                   ("A.1", "12", "3", "5.0", "irr"), ("A.1", "10", "10", "1.0", "irr")])
    assert (regular.ranks_are_positions, irregular.ranks_are_positions) == (True, False)

    services.pool_build(campaign=campaign, judged_items={})

    assert pool_of(campaign) == {"A.1": {"10": [["reg", 1]], "11": [["irr", 1], ["reg", 2]],
                                         "12": [["irr", 2], ["reg", 3]], "13": [["irr", 3]]}}


def test_the_migration_marks_runs_ingested_before_the_flag(answers, tmp_path):
    from django.apps import apps
    from django.db import connection

    migration = importlib.import_module("pooling.migrations.0004_run_ranks_are_positions")
    ingest(answers, tmp_path, "tied", [("A.1", "10", "1", "2.0", "tied"), ("A.1", "11", "1", "1.0", "tied")])
    Run.objects.filter(campaign=answers).update(ranks_are_positions=False)
    migration.mark_runs(apps, SimpleNamespace(connection=connection))  # the schema editor's part it uses
    assert dict(Run.objects.filter(campaign=answers).values_list("name", "ranks_are_positions")) == {
        "r1": True, "r2": True, "r3": True, "tied": False}


def test_export_pools_writes_answers_in_topic_and_display_order(answers, tmp_path):
    out = run_command("build_pools", "--campaign", "answers")
    assert out.splitlines() == ["A.1\t5 items", "A.2\t4 items", "campaign 'answers': 9 items in 2 topics"]

    target = tmp_path / "pools.tsv"
    run_command("export_pools", "--campaign", "answers", "-o", str(target))
    assert target.read_text() == ("topic\tpost_id\n"
                                  "A.1\t11\nA.1\t12\nA.1\t14\nA.1\t15\nA.1\t10\n"
                                  "A.2\t21\nA.2\t24\nA.2\t20\nA.2\t22\n")
    assert run_command("export_pools", "--campaign", "answers") == target.read_text()


class ClosedPipe(io.StringIO):
    """Standard output whose reader has gone after the first line (`export_pools ... | head -1`)."""

    def write(self, text):
        if self.getvalue():
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_export_pools_into_a_closed_pipe_stops_quietly_not_as_rejected_input(answers):
    services.pool_build(campaign=answers, judged_items={})
    out, err = ClosedPipe(), io.StringIO()
    with pytest.raises(SystemExit) as info:
        call_command("export_pools", "--campaign", "answers", stdout=out, stderr=err)
    assert info.value.code == 141  # 128 + SIGPIPE, as a shell reports it
    assert out.getvalue() == "topic\tpost_id\n" and err.getvalue() == ""


def test_build_pools_rejects_an_unknown_campaign_or_one_without_runs():
    assert rejected("build_pools", "--campaign", "nope") == ["no campaign named 'nope'"]
    CampaignFactory(name="empty")
    assert rejected("build_pools", "--campaign", "empty") == [
        "campaign 'empty' has no runs: ingest its runs before building pools"]


def test_export_pools_before_build_pools_exits_2(answers):
    assert rejected("export_pools", "--campaign", "answers") == [
        "campaign 'answers' has no pools yet: build them first (build_pools)"]


# --- Task 2 ------------------------------------------------------------------------------------

@pytest.fixture
def formulas(tmp_path):
    """k = 2 distinct visual ids for primary runs, 1 for alternate ones, 2 instances per visual id, rr-vote.

    Index: formulas 1, 2, 3 are visual id 100, 4 is 200, 5 is 300; 6 and 7 have no visual id but the same SLT,
    so they cluster as "6" (the smallest id); 8 is not in the index at all and stands for itself.
    """
    collection = Collection.objects.create(name="hand-made")
    for formula_id, visual_id, slt in [("1", "100", ""), ("2", "100", ""), ("3", "100", ""), ("4", "200", ""),
                                       ("5", "300", ""), ("6", "", "<mi>x</mi>"), ("7", "", "<mi>x</mi>")]:
        Formula.objects.create(collection=collection, formula_id=formula_id, post_id=str(int(formula_id) * 10),
                               thread_id="1", type="answer", visual_id=visual_id, slt=slt)
    campaign = CampaignFactory(name="formulas", task=Campaign.Task.FORMULAS, collection=collection,
                               primary_depth=2, alternate_depth=1, instances=2, selection="rr-vote")
    TopicFactory(campaign=campaign, topic_id="B.1", position=0)
    TopicFactory(campaign=campaign, topic_id="B.2", position=1)
    # B.1: ra's 2nd visual id (200) first appears at rank 3; rb's (cluster 6) at rank 3; rc (k=1) stops at rank 1.
    ingest(campaign, tmp_path, "ra", task2_lines("B.1", ["1", "2", "4", "5"], "ra")
           + task2_lines("B.2", ["1", "8", "4"], "ra"))
    ingest(campaign, tmp_path, "rb", task2_lines("B.1", ["2", "3", "6", "7"], "rb"))
    ingest(campaign, tmp_path, "rc", task2_lines("B.1", ["7", "1"], "rc")
           + task2_lines("B.2", ["8", "1"], "rc"), alternate=True)
    return campaign


def test_formula_pool_groups_instances_by_visual_id_and_selects_by_rr_vote(formulas):
    result = services.pool_build(campaign=formulas, judged_items={})

    assert result == services.PoolBuildResult(sizes={"B.1": 3, "B.2": 2}, items=5, overflow={"B.1": 1, "B.2": 0},
                                              selected=7)
    assert pool_of(formulas) == {
        "B.1": {"100": [["ra", 1], ["rb", 1]], "200": [["ra", 3]], "6": [["rb", 3], ["rc", 1]]},
        "B.2": {"100": [["ra", 1]], "8": [["ra", 2], ["rc", 1]]},
    }
    instances = {(t, v, f): (p, vote, selected) for t, v, f, p, vote, selected in snapshot(formulas)[1]}
    assert instances == {
        # votes of visual id 100: 1 -> 1/1, 2 -> 1/2 (ra) + 1/1 (rb), 3 -> 1/2 (rb); the best two are judged
        ("B.1", "100", "1"): ("10", 1.0, True),
        ("B.1", "100", "2"): ("20", 1.5, True),
        ("B.1", "100", "3"): ("30", 0.5, False),
        ("B.1", "200", "4"): ("40", pytest.approx(1 / 3), True),
        ("B.1", "6", "6"): ("60", pytest.approx(1 / 3), True),
        ("B.1", "6", "7"): ("70", 1.0, True),
        ("B.2", "100", "1"): ("10", 1.0, True),
        # not in the index: its own visual id, with the post the runs gave
        ("B.2", "8", "8"): ("80", 1.5, True),
    }


def test_rebuilding_formula_pools_gives_identical_rows(formulas):
    services.pool_build(campaign=formulas, judged_items={})
    first = snapshot(formulas)
    services.pool_build(campaign=formulas, judged_items={})
    assert snapshot(formulas) == first
    assert PoolInstance.objects.count() == 8


def test_lists_longer_than_the_first_read_are_read_again_deeper_with_the_same_pools(formulas, monkeypatch):
    services.pool_build(campaign=formulas, judged_items={})
    expected = snapshot(formulas)
    # With one row read first per run and topic, every list that needs more takes the second query.
    monkeypatch.setattr("pooling.ranking.PREFIX_ROWS", 1)
    services.pool_build(campaign=formulas, judged_items={})
    assert snapshot(formulas) == expected


def test_formula_runs_numbered_by_the_database_give_the_same_pools(formulas, monkeypatch):
    services.pool_build(campaign=formulas, judged_items={})
    expected = snapshot(formulas)
    Run.objects.filter(campaign=formulas).update(ranks_are_positions=False)
    services.pool_build(campaign=formulas, judged_items={})
    assert snapshot(formulas) == expected
    monkeypatch.setattr("pooling.ranking.PREFIX_ROWS", 1)  # and the deeper reads, numbered too
    services.pool_build(campaign=formulas, judged_items={})
    assert snapshot(formulas) == expected


def test_export_pools_writes_one_row_per_selected_formula_instance(formulas):
    out = run_command("build_pools", "--campaign", "formulas")
    assert out.splitlines() == ["B.1\t3 visual ids, 1 with more than 2 instances",
                                "B.2\t2 visual ids, 0 with more than 2 instances",
                                "campaign 'formulas': 5 visual ids in 2 topics, 7 instances to judge"]

    assert run_command("export_pools", "--campaign", "formulas") == (
        "topic\tvisual_id\tformula_id\tpost_id\n"
        "B.1\t200\t4\t40\n"
        "B.1\t6\t6\t60\nB.1\t6\t7\t70\n"
        "B.1\t100\t1\t10\nB.1\t100\t2\t20\n"
        "B.2\t8\t8\t80\n"
        "B.2\t100\t1\t10\n")


def test_a_run_depth_override_changes_the_formula_pool(formulas):
    Run.objects.filter(name="rc").update(depth=2)  # rc now walks to its 2nd distinct visual id
    services.pool_build(campaign=formulas, judged_items={})
    assert pool_of(formulas)["B.1"]["100"] == [["ra", 1], ["rb", 1], ["rc", 2]]
    assert pool_of(formulas)["B.2"]["100"] == [["ra", 1], ["rc", 2]]


def test_thread_spread_takes_threads_from_the_posts_when_the_index_has_none(formulas):
    Campaign.objects.filter(pk=formulas.pk).update(selection="thread-spread")
    formulas.refresh_from_db()
    # formulas 2 and 3 have no thread in the index; their posts 20 and 30 are both in thread 2
    Formula.objects.filter(formula_id__in=["2", "3"]).update(thread_id="")
    for post_id in ("20", "30"):
        Post.objects.create(collection=formulas.collection, post_id=post_id, kind="answer", thread_id="2")

    services.pool_build(campaign=formulas, judged_items={})

    chosen = set(PoolInstance.objects.filter(item__topic__topic_id="B.1", item__item_id="100", selected=True)
                 .values_list("formula_id", flat=True))
    # 3 answers in 2 threads, 2 to judge: one answer from each thread, so formula 1 (thread 1) always
    assert "1" in chosen and len(chosen & {"2", "3"}) == 1


# --- the real ARQMath-1 Task 1 runs ------------------------------------------------------------

def top(path, depth: int) -> dict[str, set[str]]:
    """topic -> the first `depth` post ids of a run file, by rank (5-column or TREC 6-column)."""
    ranked: dict[str, list[tuple[int, str]]] = {}
    with open(path, newline="") as stream:
        for row in csv.reader(stream, delimiter="\t"):
            topic, post, rank = (row[0], row[2], row[3]) if row[1] == "Q0" else (row[0], row[1], row[2])
            ranked.setdefault(topic, []).append((int(rank), post))
    return {topic: {post for _, post in sorted(rows)[:depth]} for topic, rows in ranked.items()}


def test_real_arqmath1_runs_pool_each_runs_top_45(arqmath_data):
    # psu-task1-auto-both-A is an alternate run by its name (ingested so): both depths 45.
    campaign = services.campaign_create(name="arq1", task="answers", primary_depth=45, alternate_depth=45)
    services.topics_ingest(campaign=campaign, path=arqmath_data / "topics" / "topics.arqmath-2020-task1-origin.xml")
    runs = [arqmath_data / "runs" / "ensemble-task1.tsv", arqmath_data / "runs" / "psu-task1-auto-both-A.tsv"]
    for path in runs:
        services.run_ingest(campaign=campaign, path=path)

    result = services.pool_build(campaign=campaign, judged_items={})

    pool = pool_of(campaign)
    tops = [top(path, 45) for path in runs]
    topics = set(tops[0]) | set(tops[1])
    assert set(pool) == topics
    for topic_id in topics:
        expected = tops[0].get(topic_id, set()) | tops[1].get(topic_id, set())
        assert set(pool[topic_id]) == expected
        assert len(pool[topic_id]) <= 90
        assert result.sizes[topic_id] == len(expected)
    # the two runs overlap: some topics pool fewer than 90 answers, none more
    assert any(len(items) < 90 for items in pool.values())
