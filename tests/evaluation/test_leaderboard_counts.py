"""The leaderboard's official judgments are what the qrels hold (issue 13.11): the export's own selection, counted."""
import pytest

from evaluation import services
from tests.evaluation.test_campaign import export, judged_answers, judged_formulas  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def test_answers_count_the_qrels_posts_not_sf_dk_training_or_dual(judged_answers, client, organizer):  # noqa: F811
    lines = export(judged_answers).splitlines()
    assert len(lines) == 3  # 5 official judgments, of which one SF and one DK
    client.force_login(organizer)
    page = client.get(f"/campaigns/{judged_answers.pk}/leaderboard/").content.decode()
    assert '<span id="judgment-count" data-noun="post">3 posts in 2 topics</span>' in page
    body = client.get(f"/api/campaigns/{judged_answers.pk}/evaluation/").json()
    assert (body["judgments"], body["instances"], body["qrels_topics"]) == (3, None, 2)


def test_formulas_count_visual_ids_as_exported_with_the_instances_beside(judged_formulas, client,  # noqa: F811
                                                                         organizer):
    visual = export(judged_formulas).splitlines()
    instances = export(judged_formulas, level="instance").splitlines()
    assert (len(visual), len(instances)) == (2, 3)  # 4 judgments: 1 and 2 are visual id 100, 3 is SF
    evaluation = services.evaluate_campaign(campaign=judged_formulas)
    assert (evaluation.judgments, evaluation.instances) == (2, 3)
    client.force_login(organizer)
    page = client.get(f"/campaigns/{judged_formulas.pk}/leaderboard/").content.decode()
    assert "2 visual ids in 1 topic (3 formula instances)</span>" in page
    body = client.get(f"/api/campaigns/{judged_formulas.pk}/evaluation/").json()
    assert (body["judgments"], body["instances"]) == (2, 3)
