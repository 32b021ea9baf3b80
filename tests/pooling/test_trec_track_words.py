"""A document-retrieval track speaks of documents, its own scheme and its own relevance level on every page an
organizer or an assessor opens, never of ARQMath's answers, threads, tasks or marks (docs/pooling.md, "Document
retrieval")."""
import re
from html import unescape

import pytest

from ir.problems import InputError
from pooling import services
from pooling.models import Campaign, Collection, PoolItem
from tests.factories import CollectionFactory, PostFactory
from tests.pooling.trec_track import DOCS, trec_track

pytestmark = pytest.mark.django_db

ARQMATH_WORDS = ("Task 1", "Answer ", "Thread", "ARQMath", "SF", "score –")


def text_of(response) -> str:
    """The page's text as a reader sees it: no scripts or styles, no tags, and no lists of choices (a select lists
    every task and convention, ARQMath's among them)."""
    assert response.status_code == 200, response.status_code
    html = response.content.decode()
    html = re.sub(r"<(script|style|select)\b.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]*>", " ", html))


def arqmath_words(page: str) -> list[str]:
    return [f"{word!r} in …{page[max(0, i - 80):i + 40]!r}…" for word in ARQMATH_WORDS
            for i in [m.start() for m in re.finditer(re.escape(word), page)]]


@pytest.fixture
def track(tmp_path, assessor_user):
    return trec_track(tmp_path, assessor_user)


def test_no_arqmath_word_on_the_organizer_pages_of_a_trec_track(track, client, organizer):
    campaign, _assignment = track
    topic = campaign.topics.get(topic_id="401")
    run = campaign.runs.get()
    client.force_login(organizer)
    found = {}
    for url in ("/campaigns/", f"/campaigns/{campaign.pk}/", f"/campaigns/{campaign.pk}/settings/",
                f"/campaigns/{campaign.pk}/pools/", f"/campaigns/{campaign.pk}/pools/topics/{topic.pk}/",
                f"/campaigns/{campaign.pk}/topics/upload/", f"/campaigns/{campaign.pk}/leaderboard/",
                f"/campaigns/{campaign.pk}/leaderboard/runs/{run.pk}/", f"/campaigns/{campaign.pk}/assignments/",
                f"/campaigns/{campaign.pk}/progress/", f"/campaigns/{campaign.pk}/scheme/",
                f"/campaigns/{campaign.pk}/agreement/", f"/campaigns/{campaign.pk}/disagreements/"):
        if words := arqmath_words(text_of(client.get(url))):
            found[url] = words
    assert found == {}
    page = text_of(client.get(f"/campaigns/{campaign.pk}/"))
    assert "Document retrieval (TREC-style)" in page


def test_no_arqmath_word_on_the_assessor_pages_of_a_trec_track(track, client, assessor_user):
    campaign, assignment = track
    client.force_login(assessor_user)
    items = list(PoolItem.objects.filter(topic=assignment.topic).order_by("position").values_list("item_id",
                                                                                                  "position"))
    (_judged, judged_at), (doc, at) = items[0], items[1]
    found = {}
    pages = {}
    for url in ("/assess/", f"/assess/assignments/{assignment.pk}/topic/",
                f"/assess/assignments/{assignment.pk}/items/{judged_at}/",
                f"/assess/assignments/{assignment.pk}/items/{at}/",
                f"/assess/assignments/{assignment.pk}/items/{judged_at}/history/",
                f"/assess/collections/{campaign.collection.pk}/posts/{doc}/"):
        pages[url] = text_of(client.get(url))
        if words := arqmath_words(pages[url]):
            found[url] = words
    assert found == {}
    judging = pages[f"/assess/assignments/{assignment.pk}/items/{at}/"]
    assert f"Document {doc}" in judging and DOCS[doc][0] in judging and DOCS[doc][1] in judging


def test_a_document_retrieval_track_is_created_from_the_task_list_on_a_collection_of_documents(track, client,
                                                                                               organizer):
    client.force_login(organizer)
    page = text_of(client.get("/campaigns/"))
    assert "Document retrieval (TREC-style)" in page.split("New campaign")[0]  # the track's row
    form = client.get("/campaigns/").content.decode()
    assert '<option value="documents">Document retrieval (TREC-style)</option>' in form
    response = client.post("/campaigns/", {"name": "trec-2", "task": "documents", "collection": "lighthouses",
                                           "scheme": "trec-binary"})
    assert response.status_code == 302
    created = Campaign.objects.get(name="trec-2")
    assert created.task == Campaign.Task.ANSWERS and created.words.task == "Document retrieval (TREC-style)"
    assert "Document retrieval (TREC-style)" in text_of(client.get(f"/campaigns/{created.pk}/"))


@pytest.mark.parametrize("collection, problem", [
    ("+new", "a document-retrieval track needs its collection of documents: declare its corpus or load its JSONL "
             "documents on the Collections page, then pick it here"),
    ("judging", "collection 'judging' holds Stack Exchange posts, not documents: pick a collection of documents, or "
                "Answer retrieval (Task 1)"),
])
def test_a_document_retrieval_track_without_documents_is_refused_and_nothing_is_created(client, organizer,
                                                                                        collection, problem):
    CollectionFactory(name="judging")
    PostFactory(collection=Collection.objects.get(name="judging"), post_id="1", kind="question", thread_id="1")
    Collection.objects.filter(name="judging").update(post_count=1)
    client.force_login(organizer)
    response = client.post("/campaigns/", {"name": "trec-3", "task": "documents", "collection": collection,
                                           "new_collection": "empty" if collection == "+new" else ""})
    assert response.status_code == 200
    assert problem in unescape(response.content.decode())
    assert not Campaign.objects.filter(name="trec-3").exists()
    assert not Collection.objects.filter(name="empty").exists()


def test_a_wrong_file_as_topics_of_a_trec_track_says_a_topic_file_was_expected(track, tmp_path):
    campaign, _assignment = track
    run = tmp_path / "run.txt"
    run.write_text("401 Q0 DOC0050 1 2.5 bm25\n")
    with pytest.raises(InputError) as refused:
        services.topics_ingest(campaign=campaign, path=run)
    assert refused.value.messages() == [
        "run.txt:line 1: this looks like a TREC run file (topic Q0 doc_id rank score run_tag), not a topic file "
        "(TREC <top>, TSV queries, JSONL topics or <Topics> XML)"]
