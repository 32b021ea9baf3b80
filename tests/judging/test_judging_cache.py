"""The judging pages' sanitized HTML is made ahead of the assessor: assigning a topic warms the cache with every
fragment its pages show, and the pages show what the cache holds; a fragment missing from the cache is still
sanitized, and kept there for the next page."""
from unittest import mock

import pytest
from django.core.cache import cache

from judging import rendering, services
from judging.models import Assignment
from pooling.models import Formula, PoolItem
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


def key(html: str, collection_pk: int) -> str:
    return rendering._cache_key(html, f"collection-{collection_pk}", True)


def cached(html: str, collection_pk: int) -> bool:
    return cache.get(key(html, collection_pk)) is not None


def mark_in_cache(html: str, collection_pk: int, marker: str) -> None:
    """Replaces a warmed fragment by a marker: a page that shows the marker read the fragment from the cache."""
    assert cached(html, collection_pk), html
    cache.set(key(html, collection_pk), f"<p>{marker}</p>")


def assign_and_commit(django_capture_on_commit_callbacks, campaign, user, *topics):
    with django_capture_on_commit_callbacks(execute=True):
        return assign(campaign, user, *topics)


def item_urls(assignment):
    return [f"/assess/assignments/{assignment.pk}/items/{p}/" for p in
            PoolItem.objects.filter(topic=assignment.topic).order_by("position").values_list("position", flat=True)]


def test_assigning_a_topic_sanitizes_its_pages_and_nothing_else(django_capture_on_commit_callbacks, answers, ada):
    assign_and_commit(django_capture_on_commit_callbacks, answers, ada, "A.1")
    collection_pk = answers.collection_id
    topic = answers.topics.get(topic_id="A.1")
    posts = {p.post_id: p for p in answers.collection.posts.all()}
    for html in (topic.title, topic.question, posts["10"].body, posts["11"].body, posts["12"].body,
                 posts["1"].title):
        assert cached(html, collection_pk), html
    other = answers.topics.get(topic_id="A.2")
    for html in (other.question, posts["20"].body):    # A.2 is nobody's yet
        assert not cached(html, collection_pk), html


def test_pages_after_the_warm_up_show_the_warmed_fragments(django_capture_on_commit_callbacks, client, answers,
                                                              ada):
    a = assign_and_commit(django_capture_on_commit_callbacks, answers, ada, "A.1")
    posts = {p.post_id: p for p in answers.collection.posts.all()}
    mark_in_cache(posts["12"].body, answers.collection_id, "warmed ahead")
    client.force_login(ada)
    pages = [client.get(url) for url in item_urls(a)]
    assert [p.status_code for p in pages] == [200, 200, 200]
    text = "".join(p.content.decode() for p in pages)
    assert "warmed ahead" in text and "Riemann sums" not in text  # answer 12 as the cache holds it
    assert "by the power rule" in text and "An integral" in text
    assert 'class="external-link"' in text and "__pwned" not in text.replace("window.__pwned", "")  # sanitized
    assert "<script>window" not in text and "onerror" not in text


def test_a_page_sanitizes_what_the_cache_misses_and_keeps_it(django_capture_on_commit_callbacks, client, answers,
                                                             ada):
    a = assign_and_commit(django_capture_on_commit_callbacks, answers, ada, "A.1")
    cache.clear()                                        # say, an evicted cache
    client.force_login(ada)
    url = item_urls(a)[0]
    first = client.get(url)
    assert first.status_code == 200 and "I need" in first.content.decode()
    question = answers.topics.get(topic_id="A.1").question
    mark_in_cache(question, answers.collection_id, "kept for the next page")   # stored by the first page
    assert "kept for the next page" in client.get(url).content.decode()


def test_formula_pages_are_warmed_with_their_instances_posts_and_comments(django_capture_on_commit_callbacks,
                                                                         client, formulas, ada):
    Formula.objects.filter(formula_id="3").update(comment_id="c1")   # an instance in a comment
    a = assign_and_commit(django_capture_on_commit_callbacks, formulas, ada, "B.1")
    posts = {p.post_id: p for p in formulas.collection.posts.all()}
    for html in ("Nice, thanks!", posts["20"].body, posts["30"].body, posts["40"].body):
        assert cached(html, formulas.collection_id), html
    mark_in_cache("Nice, thanks!", formulas.collection_id, "the warmed comment")
    client.force_login(ada)
    pages = [client.get(url).content.decode() for url in item_urls(a)]
    assert any("Comment: <p>the warmed comment</p>" in page for page in pages)
    assert 'class="math-container hl" data-formula-id="q_1"' in pages[0]


def test_warming_twice_sanitizes_nothing_new(answers, ada):
    a = assign(answers, ada, "A.1")
    first = services.judging_cache_warm(assignment_pks=[a.pk])
    assert first == 6          # topic title and question, three answers, their question's title
    assert services.judging_cache_warm(assignment_pks=[a.pk]) == 0


def test_a_second_assessor_of_a_topic_finds_its_pages_warmed_already(answers, ada, bob):
    first = services.judging_cache_warm(assignment_pks=[assign(answers, ada, "A.1").pk])
    second = services.judging_cache_warm(assignment_pks=[assign(answers, bob, "A.1", kind="dual").pk])
    assert (first, second) == (6, 0)  # the fragments are the topic's, not the assessor's


def test_an_assignment_stands_when_its_warm_up_cannot_be_sent(django_capture_on_commit_callbacks, answers, ada):
    warm_up = "judging.services.judging_cache.judging_cache_warm_task.delay"
    with mock.patch(warm_up, side_effect=ConnectionError("no broker")):
        a = assign_and_commit(django_capture_on_commit_callbacks, answers, ada, "A.1")
    assert Assignment.objects.filter(pk=a.pk, assessor=ada).exists()


def test_without_a_shared_cache_assigning_warms_nothing(django_capture_on_commit_callbacks, answers, ada, settings):
    settings.JUDGING_CACHE_WARM = False  # no Redis: the demo's local-memory cache belongs to one process
    assign_and_commit(django_capture_on_commit_callbacks, answers, ada, "A.1")
    topic = answers.topics.get(topic_id="A.1")
    assert not any(cached(html, answers.collection_id) for html in (topic.title, topic.question))


def test_assign_topics_command_warms_the_cache(django_capture_on_commit_callbacks, answers, ada):
    from django.core.management import call_command

    with django_capture_on_commit_callbacks(execute=True):
        call_command("assign_topics", "--campaign", "answers", "--assessor", "ada", "A.2", stdout=mock.Mock())
    posts = {p.post_id: p for p in answers.collection.posts.all()}
    assert cached(posts["20"].body, answers.collection_id)


def test_a_refused_page_shows_what_was_sent_and_the_choice_made(client, answers, ada):
    a = assign(answers, ada, "A.1")
    client.force_login(ada)
    url = item_urls(a)[0]
    item_id = PoolItem.objects.filter(topic=a.topic).order_by("position").first().item_id
    refused = client.post(url, {"item_id": item_id, "grade": "<b>zz</b>", "comment": "secret note"})
    assert refused.status_code == 400 and "secret note" in refused.content.decode()
    assert "<b>zz</b>" not in refused.content.decode()
    again = client.post(url, {"item_id": item_id, "grade": "DK", "comment": ""})
    assert 'value="DK" data-key="d" checked' in again.content.decode()    # the choice made, kept on the page
    assert "secret note" not in client.get(url).content.decode()


def warm_up_queries(assignments) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        services.judging_cache_warm(assignment_pks=[a.pk for a in assignments])
    return len(queries)


@pytest.mark.parametrize("campaign", ["answers", "formulas"])
def test_the_warm_up_reads_a_topic_in_queries_that_grow_with_neither_its_pool_nor_its_assessors(request, campaign,
                                                                                                ada, bob):
    campaign = request.getfixturevalue(campaign)
    topic = campaign.topics.order_by("pk").first()
    first = assign(campaign, ada, topic.topic_id)
    alone = warm_up_queries([first])
    assert warm_up_queries([first, assign(campaign, bob, topic.topic_id, kind="dual")]) == alone
    last = PoolItem.objects.filter(topic=topic).order_by("-position").first()

    def grow(by: int) -> int:  # more items in the pool, then the warm-up's queries
        start = PoolItem.objects.filter(topic=topic).count()
        for n in range(start, start + by):
            PoolItem.objects.create(campaign=campaign, topic=topic, item_id=f"{last.item_id}-{n}", position=n)
        return warm_up_queries([first])

    assert grow(2) == grow(10)
