"""Micro-topics (issue 25): each is a topic of its own, pooled, judged and scored separately; the judging page shows
its parent's prelude and its siblings; the leaderboard gives the means over parent topics too."""
import pytest
from django.core.cache import cache
from django.urls import reverse

from evaluation import board
from evaluation.services import evaluate_campaign
from judging.models import Assignment
from judging.services import judgments_import
from pooling import services as pooling_services
from pooling.models import Campaign
from tests.factories import CampaignFactory
from tests.pooling.run_files import ingest, task1_lines

TOPICS = (b'{"id": "301", "title": "Planning a trip", "prelude": "I am going to Japan in May.", "micro_topics": '
          b'[{"text": "Which cities?"}, {"text": "What to pack?"}]}\n'
          b'{"id": "302", "title": "Dogs", "narrative": "Any breed is relevant."}\n')


@pytest.fixture
def micro(collection, tmp_path, ada):
    campaign = CampaignFactory(name="micro", task=Campaign.Task.ANSWERS, collection=collection, primary_depth=2,
                               alternate_depth=2)
    path = tmp_path / "topics.jsonl"
    path.write_bytes(TOPICS)
    assert pooling_services.topics_ingest(campaign=campaign, path=path).created == 3
    ingest(campaign, tmp_path, "r1", task1_lines("301.1", ["10", "11"], "r1") + task1_lines("301.2", ["12", "20"], "r1")
           + task1_lines("302", ["30"], "r1"))
    pooling_services.pool_build(campaign=campaign, judged_items={})
    judgments_import(campaign=campaign, lines=["\t".join(line) for line in (
        ("ada", "301.1", "10", "3", ""), ("ada", "301.1", "11", "0", ""),
        ("ada", "301.2", "12", "0", ""), ("ada", "301.2", "20", "0", ""), ("ada", "302", "30", "2", ""))])
    return campaign


def test_micro_topics_are_pooled_judged_and_scored_separately_and_averaged_per_parent(micro):
    pools = {t.topic_id: sorted(t.pool_items.values_list("item_id", flat=True)) for t in micro.topics.all()}
    assert pools == {"301.1": ["10", "11"], "301.2": ["12", "20"], "302": ["30"]}
    evaluation = evaluate_campaign(campaign=micro)
    (run,) = evaluation.runs
    per_topic = {topic: values["ndcg_prime"] for topic, values in run.per_topic.items()}
    assert per_topic["301.1"] == 1.0 and per_topic["301.2"] == 0.0 and per_topic["302"] == 1.0
    assert run.means["ndcg_prime"] == pytest.approx(2 / 3)  # the mean over micro-topics, the paper's way
    parents = {"301.1": "301", "301.2": "301"}
    assert board.parent_means(evaluation, "ndcg_prime", parents) == {"r1": pytest.approx(0.75)}  # (0.5 + 1) / 2


def test_the_leaderboard_gives_the_parent_means_when_asked(micro, client, organizer):
    cache.clear()
    client.force_login(organizer)
    url = reverse("evaluation:leaderboard", args=[micro.pk])
    page = client.get(url).content.decode()
    assert "Means over parent topics too" in page and "parent-mean" not in page
    page = client.get(url, {"parents": "1"}).content.decode()
    assert '<td class="num parent-mean" data-value="0.75">' in page


def test_the_judging_page_shows_the_prelude_and_the_sibling_micro_topics(micro, client, ada):
    assignment = Assignment.objects.get(topic__topic_id="301.2", assessor=ada)  # made by the import
    client.force_login(ada)
    page = client.get(reverse("judging:judge", args=[assignment.pk, 0])).content.decode()
    assert "Topic 301: Planning a trip" in page and "I am going to Japan in May." in page
    assert "The other micro-topics of topic 301 (1)" in page and "<strong>301.1</strong> Which cities?" in page
    other = Assignment.objects.get(topic__topic_id="302", assessor=ada)
    page = client.get(reverse("judging:judge", args=[other.pk, 0])).content.decode()
    assert "Any breed is relevant." in page and "topic-siblings" not in page and "topic-prelude" not in page


def test_the_api_gives_the_parent_means_when_asked_as_evaluate_parents_writes_them(micro, organizer):
    from rest_framework.test import APIClient

    cache.clear()
    api = APIClient()
    api.force_authenticate(organizer)
    url = f"/api/campaigns/{micro.pk}/evaluation/"
    assert "parents" not in api.get(url).json()["runs"][0]
    (run,) = api.get(url, {"parents": "1"}).json()["runs"]
    assert run["parents"]["ndcg_prime"] == pytest.approx(0.75)  # 301: (1 + 0) / 2, 302: 1
    tsv = api.get(url, {"parents": "1", "format": "tsv"}).content.decode()
    assert "r1\tndcg_prime\tparents\t0.7500\n" in tsv and "r1\tndcg_prime\tall\t0.6667\n" in tsv
    plain = CampaignFactory(name="plain", task=Campaign.Task.ANSWERS)
    refused = api.get(f"/api/campaigns/{plain.pk}/evaluation/", {"parents": "1"})
    assert refused.status_code == 400 and "has no micro-topics" in str(refused.json())
