"""A judgment rescores its topic only (evaluation/topic_scores.py): after random changes of the judgments of a few
topics, the leaderboard's snapshot recomputed from the topics whose judgments changed equals a recompute of every
topic, row for row (per-topic rows and means, the qrels' counts, the LLM part, the Task 3 runs), whatever the
options; and reusability and the sweep follow the judgments on their own schedule, never before the leaderboard."""
import hashlib
import json
import random
from datetime import timedelta

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from evaluation import editions, snapshots, topic_scores
from evaluation.models import ScoreSnapshot
from judging.models import Assignment, Judgment
from judging.services import assignment_withdraw, judgments_import
from llm.models import LlmGrade
from pooling import services as pooling_services
from pooling.models import Campaign, PoolItem
from tests.factories import (
    CampaignFactory,
    CollectionFactory,
    FormulaFactory,
    LlmEndpointFactory,
    LlmGradeFactory,
    TopicFactory,
    UserFactory,
)
from tests.judging.fixtures import ingest_task3
from tests.pooling.run_files import ingest

pytestmark = pytest.mark.django_db

TOPICS, RUNS, GRADES = 5, 4, ["0", "0", "1", "2", "3", "SF", "DK"]
OPTIONS = [(False, []), (True, []), (False, ["P@5", "gm_map", "Bpref"]), (True, ["P@5", "gm_map", "ar"])]


def _rows(rng, topics, items, run, formulas=False):
    """A run's rows: per topic 12 of its items by descending score, with ties."""
    lines = []
    for topic in topics:
        chosen = rng.sample(items[topic], 12)
        for rank, item in enumerate(chosen, 1):
            score = str(round(20 - rank + rng.choice([0, 0, 0.5]), 1))
            lines.append((topic, item, f"p{item}", str(rank), score, run) if formulas
                         else (topic, "Q0", item, str(rank), score, run))
    return lines


def _judge(campaign, lines):
    """The lines (assessor, topic, item, grade), SF and DK with the comment they need."""
    judgments_import(campaign=campaign, lines=["\t".join([*line, "unsure" if line[3] in ("SF", "DK") else ""])
                                               for line in lines])


def _pooled(campaign):
    found: dict[str, list[str]] = {}
    for topic, item, formula in (PoolItem.objects.filter(campaign=campaign)
                                 .values_list("topic__topic_id", "item_id", "instances__formula_id")):
        found.setdefault(topic, []).append(formula or item)
    return {topic: sorted(set(items)) for topic, items in found.items()}


@pytest.fixture
def scored(tmp_path, request):
    """A campaign of 5 topics and 4 runs of 12 rows a topic over 20 items, pooled at depth 8, with most pool items
    judged by one assessor; an answers campaign has two Task 3 runs and an LLM judge who graded half the pools."""
    task = request.param
    rng = random.Random(7)
    collection = CollectionFactory(name=f"scores-{task}")
    campaign = CampaignFactory(name=f"scores-{task}", task=task, collection=collection, primary_depth=8,
                               alternate_depth=8, instances=2)
    topics = [TopicFactory(campaign=campaign, topic_id=f"A.{n}", position=n, formula_id=f"q{n}").topic_id
              for n in range(1, TOPICS + 1)]
    formulas = task == Campaign.Task.FORMULAS
    items = {topic: [f"{n}{k:02d}" for k in range(20)] for n, topic in enumerate(topics, 1)}
    if formulas:  # two instances of each visual id
        for topic, formula_ids in items.items():
            for k, formula in enumerate(formula_ids):
                FormulaFactory(collection=collection, formula_id=formula, post_id=f"p{formula}", thread_id="1",
                               visual_id=f"v{topic}-{k // 2}")
    for n in range(RUNS):
        ingest(campaign, tmp_path, f"run{n}", _rows(rng, topics, items, f"run{n}", formulas), allow_missing=True)
    if not formulas:
        for name in ("team-task3-gpt-auto-both-generate-P", "other-task3-se-auto-both-extract-A"):
            ingest_task3(campaign, tmp_path, name, {topic: f"Because $x^{n}$ is {rng.choice('ab')}."
                                                     for n, topic in enumerate(topics[:3])})
    pooling_services.pool_build(campaign=campaign, judged_items={})
    UserFactory(username="ada")
    UserFactory(username="bob")
    pools = _pooled(campaign)
    _judge(campaign, [("ada", topic, item, rng.choice(GRADES)) for topic, found in pools.items()
                      for item in found if rng.random() < 0.7])
    if not formulas:
        LlmEndpointFactory(campaign=campaign, model="judge-7b")
        for topic, found in pools.items():
            pk = campaign.topics.get(topic_id=topic).pk
            for item in found[::2]:
                LlmGradeFactory(campaign=campaign, topic_id=pk, item_id=item, grade=rng.choice([0, 1, 2, 3]))
    return campaign


def _change(campaign, rng, topics):
    """Random changes of these topics' judgments through the judging services: grades revised, items judged anew by
    each topic's assessor; the first topic then handed to the other assessor, who judges a few of its items again."""
    pools = _pooled(campaign)
    current = {topic: Assignment.objects.get(campaign=campaign, topic__topic_id=topic, kind="official",
                                             withdrawn_at=None) for topic in topics}
    _judge(campaign, [(current[topic].assessor.username, topic, item, rng.choice(GRADES))
                      for topic in topics for item in rng.sample(pools[topic], 5)])
    assignment_withdraw(assignment=current[topics[0]])
    other = "bob" if current[topics[0]].assessor.username == "ada" else "ada"
    _judge(campaign, [(other, topics[0], item, rng.choice(GRADES)) for item in pools[topics[0]][:3]])


def _asked(campaign, all_topics, measures):
    return {"all_topics": all_topics, "measures": measures, "relevance_level": campaign.relevance_level}


def _stored(campaign, asked):
    key = hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()
    return ScoreSnapshot.objects.get(campaign=campaign, kind=snapshots.LEADERBOARD, key=key).payload


def _full(campaign, asked):
    """Every topic scored again: what the snapshot held before it spliced topics."""
    return json.loads(json.dumps(snapshots._compute(campaign, snapshots.LEADERBOARD, asked)))


def _no_full_recompute(monkeypatch):
    def refused(**_kwargs):
        raise AssertionError("every topic was scored again")
    monkeypatch.setattr(topic_scores.services, "evaluate_campaign", refused)
    monkeypatch.setattr(topic_scores.editions, "campaign_edition_scores", refused)
    monkeypatch.setattr(topic_scores.llm_board, "llm_board", refused)


@pytest.mark.parametrize("scored", [Campaign.Task.ANSWERS, Campaign.Task.FORMULAS], indirect=True)
@pytest.mark.parametrize(("all_topics", "measures"), OPTIONS)
def test_the_changed_topics_rescored_give_the_scores_of_every_topic_rescored(scored, all_topics, measures,
                                                                             monkeypatch):
    if measures and "ar" in measures and scored.task == Campaign.Task.FORMULAS:
        measures = measures[:-1]  # AR and P@1 are an answer run's
    asked = _asked(scored, all_topics, measures)
    snapshots.leaderboard(campaign=scored, all_topics=all_topics, measures=measures)  # the first scores, in full
    first = _stored(scored, asked)
    assert first["rows"] and first["stamps"]["topics"]
    if scored.task == Campaign.Task.ANSWERS:
        assert first["answer_rows"] and first["llm"]["rows"] and not first["llm"]["problem"]
    else:
        assert first["instances"] > first["judgments"] > 0
    rng = random.Random(f"{all_topics}{measures}")
    topics = sorted(first["stamps"]["topics"])
    for changed in ([topics[1]], rng.sample(topics, 2)):
        _change(scored, rng, changed)
        with monkeypatch.context() as patch:
            _no_full_recompute(patch)
            snapshot = snapshots.leaderboard(campaign=scored, all_topics=all_topics, measures=measures)
        assert snapshot.updating is False
        stored = _stored(scored, asked)
        assert stored != first  # the changes moved the scores
        assert stored == _full(scored, asked)


@pytest.mark.parametrize("scored", [Campaign.Task.ANSWERS], indirect=True)
def test_a_topic_judged_all_sf_leaves_the_rows_and_counts(scored, monkeypatch):
    asked = _asked(scored, True, [])
    snapshots.leaderboard(campaign=scored, all_topics=True)
    judged = Judgment.objects.filter(assignment__topic__topic_id="A.4", assignment__kind="official")
    _judge(scored, [("ada", "A.4", item, "SF") for item in judged.values_list("item_id", flat=True)])
    with monkeypatch.context() as patch:
        _no_full_recompute(patch)
        snapshots.leaderboard(campaign=scored, all_topics=True)
    stored = _stored(scored, asked)
    assert "A.4" not in {row[1] for row in stored["rows"]} and "A.4" not in stored["topics"]
    assert stored == _full(scored, asked)


@pytest.mark.parametrize("scored", [Campaign.Task.ANSWERS], indirect=True)
def test_new_llm_grades_or_a_new_run_score_every_topic_again(scored, tmp_path):
    asked = _asked(scored, False, [])
    snapshots.leaderboard(campaign=scored)
    grade = LlmGrade.objects.filter(campaign=scored, topic__topic_id="A.2").order_by("item_id")[0]
    grade.grade = 3 - grade.grade  # the judge grades again
    grade.save()
    snapshots.leaderboard(campaign=scored)
    assert _stored(scored, asked) == _full(scored, asked)
    ingest(scored, tmp_path, "late", [("A.1", "Q0", "105", "1", "3", "late")], allow_missing=True)
    snapshots.leaderboard(campaign=scored)
    stored = _stored(scored, asked)
    assert "late" in {row[0] for row in stored["rows"]} and stored == _full(scored, asked)


@pytest.mark.parametrize("scored", [Campaign.Task.ANSWERS], indirect=True)
def test_the_earlier_editions_are_kept_until_the_editions_change(scored, monkeypatch):
    calls = []
    real = editions.campaign_edition_scores
    monkeypatch.setattr(topic_scores.editions, "campaign_edition_scores",
                        lambda **kwargs: calls.append(1) or real(**kwargs))
    snapshots.leaderboard(campaign=scored)
    _change(scored, random.Random(1), ["A.1"])
    snapshots.leaderboard(campaign=scored)
    assert calls == [1]
    editions.edition_add(campaign=scored, label="2021", data=b"A.1\t0\t105\t2\n", filename="q.txt")
    snapshots.leaderboard(campaign=scored)
    assert calls == [1, 1] and [e.label for e in snapshots.leaderboard(campaign=scored).editions] == ["2021"]


@pytest.mark.parametrize("scored", [Campaign.Task.ANSWERS], indirect=True)
@override_settings(SCORES_ANALYSES_SECONDS=600)
def test_reusability_follows_the_judgments_on_its_schedule_or_its_button(scored, client, organizer):
    client.force_login(organizer)
    url = reverse("evaluation:reusability", args=[scored.pk])
    assert 'id="reusability"' in client.get(url).content.decode()  # never computed: computed at once
    board = snapshots.leaderboard(campaign=scored)
    _change(scored, random.Random(2), ["A.2"])
    page = client.get(url).content.decode()
    assert "<strong>updating</strong>" in page and 'id="reusability-recompute"' in page  # not due yet
    assert snapshots.leaderboard(campaign=scored).computed_at > board.computed_at  # the leaderboard was
    client.post(url, {"depth": ""})
    page = client.get(url).content.decode()
    assert "updating" not in page and 'id="reusability-recompute"' not in page
    _change(scored, random.Random(3), ["A.3"])
    assert "<strong>updating</strong>" in client.get(url).content.decode()
    ScoreSnapshot.objects.filter(campaign=scored, kind=snapshots.REUSABILITY).update(
        computed_at=timezone.now() - timedelta(seconds=601))
    assert "updating" not in client.get(url).content.decode()  # due: recomputed


@pytest.mark.parametrize("scored", [Campaign.Task.ANSWERS], indirect=True)
@override_settings(SCORES_ANALYSES_SECONDS=600)
def test_the_leaderboards_are_computed_before_any_analysis(scored, monkeypatch):
    snapshots.reusability_scores(campaign=scored)
    snapshots.fusion_sweep(campaign=scored)
    snapshots.leaderboard(campaign=scored)
    snapshots.leaderboard(campaign=scored, all_topics=True)
    _change(scored, random.Random(4), ["A.1"])
    ScoreSnapshot.objects.filter(campaign=scored).exclude(kind=snapshots.LEADERBOARD).update(
        computed_at=timezone.now() - timedelta(seconds=601))
    order = []
    real = snapshots._compute
    monkeypatch.setattr(snapshots, "_compute", lambda campaign, kind, *args: order.append(kind)
                        or real(campaign, kind, *args))
    assert snapshots.scores_refresh(campaign_pk=scored.pk) == 4
    assert order[:2] == [snapshots.LEADERBOARD] * 2 and sorted(order[2:]) == [snapshots.FUSION,
                                                                               snapshots.REUSABILITY]
