"""An item whose post the collection lacks (issue 22 point 3): only System failure and Do not know, on every way in
(the page's form, the fetch-ahead submit, the API), one rule (rules.GRADES_OF_MISSING); the page says why, and for
Task 2 names the run's formula id and what the formula index knows; the pools page can count such items."""
from html import unescape

import pytest

from judging.models import Judgment
from pooling import selectors as pooling_selectors
from pooling.models import PoolItem
from tests.factories import PostFactory
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db

REFUSED = "the post is not in the collection, so it cannot be graded High (3)"


def missing_position(assignment) -> int:
    return PoolItem.objects.get(topic=assignment.topic, item_id="99").position


def test_a_missing_answer_offers_only_sf_and_dk_and_says_why(ada_client, answers, ada):
    a = assign(answers, ada, "A.2")
    page = unescape(ada_client.get(f"/assess/assignments/{a.pk}/items/{missing_position(a)}/").content.decode())
    assert 'value="SF"' in page and 'value="DK"' in page
    assert not any(f'name="grade" value="{g}"' in page for g in "3210")
    assert "Post 99 is not in the collection: the run names a post the collection does not have" in page
    other = unescape(ada_client.get(f"/assess/assignments/{a.pk}/items/{1 - missing_position(a)}/").content.decode())
    assert 'name="grade" value="3"' in other  # a post of the collection keeps every grade


@pytest.mark.parametrize("grade, comment", [("3", ""), ("2", "looks fine"), ("0", "")])
def test_a_real_grade_for_a_missing_answer_is_refused_on_the_page_the_fetch_ahead_submit_and_the_api(
        ada_client, answers, ada, grade, comment):
    a = assign(answers, ada, "A.2")
    url = f"/assess/assignments/{a.pk}/items/{missing_position(a)}/"
    page = ada_client.post(url, {"item_id": "99", "grade": grade, "comment": comment})
    assert page.status_code == 400 and "the post is not in the collection" in unescape(page.content.decode())
    ahead = ada_client.post(url, {"item_id": "99", "grade": grade, "comment": comment, "submit_key": "k" * 32},
                            headers={"Accept": "application/json"})
    assert ahead.status_code == 400 and "the post is not in the collection" in ahead.json()["errors"][0]
    api = ada_client.post("/api/judgments/", {"assignment": a.pk, "item_id": "99",
                                               "grades": [{"grade": grade, "comment": comment}]},
                          content_type="application/json")
    assert api.status_code == 400 and "the post is not in the collection" in str(api.json())
    assert not Judgment.objects.exists()

    saved = ada_client.post(url, {"item_id": "99", "grade": "SF", "comment": "no such post"})
    assert saved.status_code == 302 and Judgment.objects.get().grade == "SF"


def test_a_missing_formula_instance_names_the_run_s_formula_id_and_what_the_index_knows(ada_client,
                                                                                       formulas_missing, ada):
    a = assign(formulas_missing, ada, "B.1")
    known = PoolItem.objects.get(topic=a.topic, item_id="900").position
    page = unescape(ada_client.get(f"/assess/assignments/{a.pk}/items/{known}/").content.decode())
    assert "post 90 (not in the collection)" in page
    assert ('The run names formula <strong class="formula-id">9</strong> in post 90, which is not in the collection'
            in page)
    assert "The formula index has formula 9: answer post 90, visual id 900, LaTeX" in page and "x^{9}" in page
    assert 'name="instance-0-grade" value="SF"' in page and 'name="instance-0-grade" value="3"' not in page

    unknown = PoolItem.objects.get(topic=a.topic, instances__formula_id="8").position
    page = unescape(ada_client.get(f"/assess/assignments/{a.pk}/items/{unknown}/").content.decode())
    assert 'formula-id">8</strong> in post 80' in page and "The formula index has no formula 8." in page

    refused = ada_client.post(f"/assess/assignments/{a.pk}/items/{known}/",
                              {"item_id": "900", "instance-TOTAL_FORMS": "1", "instance-INITIAL_FORMS": "1",
                               "instance-0-formula_id": "9", "instance-0-grade": "2", "instance-0-comment": ""})
    assert refused.status_code == 400
    assert "instance 9: the post is not in the collection, so it cannot be graded Medium (2)" in unescape(
        refused.content.decode())


def test_the_pools_count_the_items_that_cannot_be_judged(answers, formulas_missing, task3):
    # 99; the Task 3 answers are no posts
    assert pooling_selectors.unjudgeable_items_count(campaign=answers) == {"A.2": 1}
    assert pooling_selectors.unjudgeable_items_count(campaign=formulas_missing) == {"B.1": 2}  # instances 9 and 8
    answers.collection = None
    answers.save()
    assert pooling_selectors.unjudgeable_items_count(campaign=answers) == {}


def test_the_pools_page_says_how_many_pooled_items_cannot_be_judged(client, organizer, answers):
    client.force_login(organizer)
    page = unescape(client.get(f"/campaigns/{answers.pk}/pools/").content.decode())
    assert "1 pooled item cannot be judged: its post is not in the collection" in page


def test_the_pools_page_counts_again_once_the_missing_post_is_loaded(client, organizer, answers):
    client.force_login(organizer)
    url = f"/campaigns/{answers.pk}/pools/"
    assert "1 pooled item cannot be judged" in unescape(client.get(url).content.decode())
    PostFactory(collection=answers.collection, post_id="99")  # the count was kept in the cache: not any more true
    assert "cannot be judged" not in unescape(client.get(url).content.decode())
