"""The assessor's pages and API (SPEC 5, 8): what each role can reach, and submits through the web and the API."""
import pytest

from judging.models import ItemVisit, Judgment
from pooling.models import PoolItem
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db


def position(campaign, topic, item_id):
    return PoolItem.objects.get(campaign=campaign, topic__topic_id=topic, item_id=item_id).position


def test_home_lists_assignments_with_progress_and_continue_opens_the_first_item(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    page = ada_client.get("/assess/").content.decode()
    assert "A.1" in page and "0 of 3 judged" in page and "Continue" in page
    response = ada_client.get(f"/assess/assignments/{a.pk}/")
    first = PoolItem.objects.filter(topic=a.topic).order_by("position").first()
    assert response["Location"] == f"/assess/assignments/{a.pk}/items/{first.position}/"


def test_judging_page_shows_topic_answer_grades_and_progress(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    page = ada_client.get(f"/assess/assignments/{a.pk}/items/{position(answers, 'A.1', '10')}/").content.decode()
    assert "How do I integrate" in page and "calculus" in page
    assert "by the power rule" in page
    assert "0 of 3 judged" in page
    for label in ("High", "Medium", "Low", "Not relevant", "System failure", "Do not know"):
        assert label in page
    assert "Sufficient to answer the complete question on its own" in page   # the definitions, one click away
    assert "/static/mathjax/es5/tex-chtml.js" in page


def test_pages_forbid_scripts_from_elsewhere_and_inline(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    response = ada_client.get(f"/assess/assignments/{a.pk}/items/0/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "default-src 'self'" in policy
    assert "<script>" not in response.content.decode()


def test_submitting_a_grade_saves_it_and_moves_on(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    pos = position(answers, "A.1", "10")
    url = f"/assess/assignments/{a.pk}/items/{pos}/"
    response = ada_client.post(url, {"item_id": "10", "grade": "3", "active_seconds": "7"})
    # Straight to the next unjudged item in display order (wrapping around), where "Next unjudged" would go.
    following = ada_client.get(f"/assess/assignments/{a.pk}/?after={pos}")["Location"]
    assert response.status_code == 302 and response["Location"] == following
    assert following.startswith(f"/assess/assignments/{a.pk}/items/") and following != url
    again = ada_client.post(url, {"item_id": "10", "grade": "3", "active_seconds": "7"})
    assert again.status_code == 302
    assert Judgment.objects.get().grade == "3"
    page = ada_client.get(f"/assess/assignments/{a.pk}/items/{pos}/").content.decode()
    assert "Saved: <strong>High</strong>" in page and "1 of 3 judged" in page


def test_skipping_and_judging_the_last_item_move_on_and_finish_on_the_start_page(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    first, second, third = (position(answers, "A.1", item_id) for item_id in ("10", "11", "12"))
    order = sorted([(first, "10"), (second, "11"), (third, "12")])
    (p0, i0), (p1, i1), (p2, i2) = order
    skipped = ada_client.post(f"/assess/assignments/{a.pk}/items/{p0}/skip/")
    assert skipped["Location"] == f"/assess/assignments/{a.pk}/items/{p1}/"
    ada_client.post(f"/assess/assignments/{a.pk}/items/{p1}/", {"item_id": i1, "grade": "1"})
    last = ada_client.post(f"/assess/assignments/{a.pk}/items/{p2}/", {"item_id": i2, "grade": "0"})
    assert last["Location"] == f"/assess/assignments/{a.pk}/items/{p0}/"     # the skipped one comes back
    done = ada_client.post(f"/assess/assignments/{a.pk}/items/{p0}/", {"item_id": i0, "grade": "2"}, follow=True)
    assert done.redirect_chain[-1][0] == "/assess/"
    assert "every item is judged" in done.content.decode() and "3 of 3" in done.content.decode()


def test_odd_values_from_the_page_do_no_harm(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    assert ada_client.get(f"/assess/assignments/{a.pk}/?after=\u00b2").status_code == 302
    pos = position(answers, "A.1", "10")
    ada_client.post(f"/assess/assignments/{a.pk}/items/{pos}/", {"item_id": "10", "grade": "1",
                                                                 "active_seconds": "nan"})
    assert ItemVisit.objects.get(item_id="10").active_seconds == 0.0


def test_a_rejected_submit_shows_why_and_saves_nothing(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    pos = position(answers, "A.1", "10")
    response = ada_client.post(f"/assess/assignments/{a.pk}/items/{pos}/",
                               {"item_id": "10", "grade": "DK", "comment": " "})
    assert response.status_code == 400
    page = response.content.decode()
    assert "a comment is required with Do not know" in page
    assert 'value="DK" data-key="d" checked' in page                    # the choice is still there to complete
    assert not Judgment.objects.exists()


def test_formula_page_highlights_query_and_instances_and_takes_a_grade_per_instance(ada_client, formulas, ada):
    a = assign(formulas, ada, "B.1")
    pos = position(formulas, "B.1", "100")
    page = ada_client.get(f"/assess/assignments/{a.pk}/items/{pos}/").content.decode()
    assert 'class="math-container hl" data-formula-id="q_1"' in page
    assert 'class="math-container hl" data-formula-id="1"' in page
    assert 'class="math-container hl" data-formula-id="2"' in page
    assert 'class="math-container" data-formula-id="3"' in page           # same post, not this formula
    assert 'name="instance-0-grade"' in page and 'name="instance-1-grade"' in page
    ada_client.post(f"/assess/assignments/{a.pk}/items/{pos}/", {
        "item_id": "100", "instance-TOTAL_FORMS": "2", "instance-INITIAL_FORMS": "2",
        "instance-0-formula_id": "1", "instance-0-grade": "3", "instance-1-formula_id": "2", "instance-1-grade": "2"})
    assert sorted(Judgment.objects.values_list("formula_id", "grade")) == [("1", "3"), ("2", "2")]


def test_a_formula_submit_with_its_instance_count_tampered_is_refused_and_saves_nothing(ada_client, formulas, ada):
    a = assign(formulas, ada, "B.1")
    pos = position(formulas, "B.1", "100")
    response = ada_client.post(f"/assess/assignments/{a.pk}/items/{pos}/", {
        "item_id": "100", "instance-TOTAL_FORMS": "5000", "instance-INITIAL_FORMS": "2",
        "instance-0-formula_id": "1", "instance-0-grade": "3"})
    assert response.status_code == 400
    assert "Please submit at most 100 forms." in response.content.decode()
    assert not Judgment.objects.exists()


def test_a_page_left_open_across_a_forced_pool_rebuild_cannot_grade_another_item(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    pos = position(answers, "A.1", "10")
    response = ada_client.post(f"/assess/assignments/{a.pk}/items/{pos}/", {"item_id": "11", "grade": "3"})
    assert response.status_code == 400 and "the pools were rebuilt since this page was shown" in (
        response.content.decode())
    assert not Judgment.objects.exists()


def test_a_thread_opens_with_answers_comments_and_rewritten_links(ada_client, answers, ada):
    assign(answers, ada, "A.1")
    page = ada_client.get(f"/assess/collections/{answers.collection_id}/posts/11/").content.decode()
    assert "An integral" in page and "by the power rule" in page and "Nice, thanks!" in page
    assert f'href="/assess/collections/{answers.collection_id}/posts/2/#post-2"' in page
    assert "wikipedia.org" not in page.split("External link, not followed: ")[0]   # only in the title
    assert 'href="https://en.wikipedia.org' not in page
    assert "accepted answer" in page
    assert "<script>window" not in page and "onerror" not in page and "href=\"javascript:" not in page


def test_a_link_to_a_post_outside_the_collection_says_so(ada_client, answers, ada):
    assign(answers, ada, "A.1")
    response = ada_client.get(f"/assess/collections/{answers.collection_id}/posts/777/")
    assert response.status_code == 404 and "not in the collection" in response.content.decode()


# --- permissions (SPEC 8)

def test_an_assessor_cannot_open_another_assessors_assignment(client, answers, ada, bob):
    a = assign(answers, ada, "A.1")
    client.force_login(bob)
    pos = position(answers, "A.1", "10")
    assert client.get(f"/assess/assignments/{a.pk}/").status_code == 404
    assert client.get(f"/assess/assignments/{a.pk}/items/{pos}/").status_code == 404
    assert client.post(f"/assess/assignments/{a.pk}/items/{pos}/", {"item_id": "10", "grade": "3"}).status_code == 404
    assert client.post(f"/assess/assignments/{a.pk}/items/{pos}/skip/").status_code == 404
    assert client.get(f"/assess/assignments/{a.pk}/topic/").status_code == 404
    assert not Judgment.objects.exists()


def test_thread_views_need_an_assignment_in_a_campaign_of_that_collection(client, answers, bob):
    client.force_login(bob)
    assert client.get(f"/assess/collections/{answers.collection_id}/posts/11/").status_code == 404


def test_anonymous_users_see_only_the_login_page(client, answers, ada):
    a = assign(answers, ada, "A.1")
    for url in ("/assess/", f"/assess/assignments/{a.pk}/",
                f"/assess/collections/{answers.collection_id}/posts/1/", f"/campaigns/{answers.pk}/assignments/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert client.get("/api/assignments/").status_code in (401, 403)
    assert client.get("/api/judgments/").status_code in (401, 403)


def test_assessors_reach_no_organizer_page_or_endpoint(ada_client, answers, ada):
    assign(answers, ada, "A.1")
    for url in (f"/campaigns/{answers.pk}/assignments/", f"/campaigns/{answers.pk}/", f"/campaigns/{answers.pk}/pools/",
                "/api/campaigns/", f"/api/campaigns/{answers.pk}/pools/export/", "/api/schema/"):
        assert ada_client.get(url).status_code == 403, url
    assert ada_client.post(f"/campaigns/{answers.pk}/pools/build/").status_code == 403


def test_the_organizer_assigns_topics_and_closes_one(client, organizer, answers, ada):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{answers.pk}/assignments/", {
        "action": "assign", "assessors": [ada.pk], "topics": ["A.1", "A.2"], "kind": "official"})
    assert response.status_code == 302
    page = client.get(f"/campaigns/{answers.pk}/assignments/").content.decode()
    assert "ada" in page and "0 / 3" in page and "0 / 2" in page
    topic = answers.topics.get(topic_id="A.1")
    client.post(f"/campaigns/{answers.pk}/topics/{topic.pk}/close/", {"closed": "1"})
    assert "closed" in client.get(f"/campaigns/{answers.pk}/assignments/").content.decode()


def test_the_organizer_creates_an_assessor_account_with_a_password_shown_once(client, organizer, answers,
                                                                              django_user_model):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{answers.pk}/assignments/", {"action": "account", "username": "cleo"},
                           follow=True)
    assert "Account cleo created with password" in response.content.decode()
    assert django_user_model.objects.get(username="cleo").has_usable_password()


# --- API

def test_api_lists_only_my_assignments_and_gives_the_next_item(ada_api, answers, ada, bob):
    mine = assign(answers, ada, "A.1")
    assign(answers, bob, "A.2")
    listing = ada_api.get("/api/assignments/").json()
    assert [(a["id"], a["topic"], a["done"], a["total"]) for a in listing["results"]] == [(mine.pk, "A.1", 0, 3)]
    first = PoolItem.objects.filter(topic=mine.topic).order_by("position").first()
    nxt = ada_api.get(f"/api/assignments/{mine.pk}/next/").json()
    assert (nxt["item_id"], nxt["position"], nxt["instances"], nxt["judgments"]) == (first.item_id, first.position,
                                                                                      [], [])


def test_api_double_post_makes_one_judgment(ada_api, answers, ada):
    a = assign(answers, ada, "A.1")
    body = {"assignment": a.pk, "item_id": "10", "grades": [{"grade": "2", "comment": "ok"}], "active_seconds": 4}
    first = ada_api.post("/api/judgments/", body, content_type="application/json")
    second = ada_api.post("/api/judgments/", body, content_type="application/json")
    assert first.status_code == 201 and second.status_code == 200
    assert second.json()["unchanged"] == 1
    assert Judgment.objects.count() == 1
    assert [j["grade"] for j in ada_api.get(f"/api/judgments/?assignment={a.pk}").json()["results"]] == ["2"]


def test_api_judgments_filtered_by_a_non_ascii_digit_answer_200_not_500(ada_api, answers, ada):
    a = assign(answers, ada, "A.1")
    body = {"assignment": a.pk, "item_id": "10", "grades": [{"grade": "2"}]}
    assert ada_api.post("/api/judgments/", body, content_type="application/json").status_code == 201
    # "²" is a digit to str.isdigit(), not to int(): no number, so no filter, as for "x" (a 500 before).
    for value in ("²", "x"):
        response = ada_api.get("/api/judgments/", {"assignment": value})
        assert response.status_code == 200 and len(response.json()["results"]) == 1
    # A number past the column's range is no assignment's.
    assert ada_api.get("/api/judgments/", {"assignment": "9" * 30}).json()["results"] == []


def test_api_refuses_other_assessors_work_and_bad_grades(ada_api, answers, ada, bob):
    theirs = assign(answers, bob, "A.2")
    mine = assign(answers, ada, "A.1")
    body = {"assignment": theirs.pk, "item_id": "20", "grades": [{"grade": "2"}]}
    assert ada_api.post("/api/judgments/", body, content_type="application/json").status_code == 404
    assert ada_api.get(f"/api/assignments/{theirs.pk}/").status_code == 404
    assert ada_api.get(f"/api/assignments/{theirs.pk}/next/").status_code == 404
    bad = {"assignment": mine.pk, "item_id": "10", "grades": [{"grade": "DK"}]}
    response = ada_api.post("/api/judgments/", bad, content_type="application/json")
    assert response.status_code == 400 and "a comment is required" in str(response.json())
    assert not Judgment.objects.exists()
    # bob's judgments never show in ada's list
    from judging import services
    services.judgment_submit(assignment_pk=theirs.pk, item_id="20",
                             grades=[services.GradeInput("3")], user=bob)
    assert ada_api.get("/api/judgments/").json()["results"] == []
    assert ada_api.get(f"/api/judgments/?assignment={theirs.pk}").json()["results"] == []
