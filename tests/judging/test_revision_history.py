"""The facets answered at each submission (issue 25): kept on every revision of a judgment, shown on the item's
history page by their questions' and options' labels beside the LLM grade that was on screen, and in the API's
judgment detail."""
from importlib import import_module

import pytest
from django.apps import apps
from rest_framework.authtoken.models import Token

from ir import grades
from judging import services
from judging.models import JudgmentRevision
from llm.models import Mode
from pooling.models import PoolItem
from tests.factories import LlmEndpointFactory, LlmPromptFactory
from tests.judging.fixtures import assign
from tests.llm_rows import llm_grade

pytestmark = pytest.mark.django_db


def test_each_revision_keeps_its_facets_and_the_history_page_shows_them(answers, ada, bob, client):
    answers.scheme = grades.preset("mo-facets").to_json()
    answers.save()
    prompt = LlmPromptFactory()
    LlmEndpointFactory(campaign=answers, mode=Mode.SUGGEST, prompt=prompt)
    suggested = llm_grade(answers, "A.1", "10", 3, prompt=prompt)
    a = assign(answers, ada, "A.1")
    at = PoolItem.objects.get(topic=a.topic, item_id="10").position
    url = f"/assess/assignments/{a.pk}/items/{at}/"
    client.force_login(ada)
    client.post(url, {"item_id": "10", "facet-totality": "partial", "facet-directness": "indirect", "comment": ""})
    client.post(url, {"item_id": "10", "facet-totality": "total", "facet-directness": "direct", "comment": "sure",
                      "suggestion": str(suggested.pk)})
    client.post(url, {"item_id": "10", "grade": "DK", "comment": "on second thoughts, I cannot tell"})
    assert list(JudgmentRevision.objects.order_by("number").values_list("number", "grade", "facets", "suggested")) == [
        (1, "1", {"totality": "partial", "directness": "indirect"}, False),
        (2, "3", {"totality": "total", "directness": "direct"}, True),
        (3, "DK", None, False)]
    page = client.get(url).content.decode()
    assert f'href="{url}history/" class="history-link"' in page
    history = client.get(f"{url}history/").content.decode()
    rows = history.split("<tr>")[2:]
    assert len(rows) == 3
    assert ("<strong>Low</strong>" in rows[0] and "Does it answer the whole question? <strong>Partial</strong>; "
            "Does it answer directly? <strong>Indirect</strong>" in rows[0])
    assert ("Low → <strong>High</strong>" in rows[1] and "<strong>Total</strong>" in rows[1]
            and "<td>High</td>" in rows[1] and "sure" in rows[1])   # the LLM's High was on screen
    assert "<strong>Do not know</strong>" in rows[2] and "(none: a mark)" in rows[2] and "<td>none</td>" in rows[2]
    # the API's judgment detail
    client.logout()
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {Token.objects.create(user=ada).key}"
    judgment = a.judgments.get()
    detail = client.get(f"/api/judgments/{judgment.pk}/").json()
    assert [(r["number"], r["old_grade"], r["grade"], r["facets"]) for r in detail["revisions"]] == [
        (1, "", "1", {"totality": "partial", "directness": "indirect"}),
        (2, "1", "3", {"totality": "total", "directness": "direct"}), (3, "3", "DK", None)]
    # nobody else's history
    client.defaults.pop("HTTP_AUTHORIZATION")
    client.force_login(bob)
    assert client.get(f"{url}history/").status_code == 404
    assert client.get(f"/api/judgments/{judgment.pk}/").status_code in (401, 403, 404)


def test_the_migration_gives_each_judgment_s_latest_revision_its_facets(answers, ada):
    answers.scheme = grades.preset("mo-facets").to_json()
    answers.save()
    a = assign(answers, ada, "A.1")
    for facets in ({"totality": "partial", "directness": "direct"}, {"totality": "total", "directness": "direct"}):
        services.judgment_submit(assignment_pk=a.pk, item_id="10", user=ada,
                                 grades=[services.GradeInput(grade="", facets=facets)])
    services.judgment_submit(assignment_pk=a.pk, item_id="11", user=ada, grades=[services.GradeInput(grade="SF",
                                                                                                     comment="x")])
    JudgmentRevision.objects.update(facets=None)   # as the rows were before the migration
    import_module("judging.migrations.0008_revision_facets").latest_revisions_take_their_judgments_facets(apps, None)
    assert sorted(JudgmentRevision.objects.values_list("judgment__item_id", "number", "facets")) == [
        ("10", 1, None), ("10", 2, {"totality": "total", "directness": "direct"}), ("11", 1, None)]
