"""Pool-only collections (issue 24 build 4): a collection read from a corpus file stores only the pooled documents,
after each pool build; a rebuild reads only what is new; a document the corpus lacks is missing, judged only System
failure or Do not know; a bad corpus line stores nothing."""
import gzip
import json
from html import unescape

import pytest
from rest_framework.test import APIClient

from ir.problems import InputError
from jobs.models import Job
from jobs.runner import job_create
from judging.services import assignments_create
from judging.tasks import PoolBuildParams
from pooling import selectors, services
from pooling.models import Collection, PoolItem, Post
from tests.commands import command_output, rejected
from tests.pooling.run_files import answers_campaign, ingest, task1_lines

pytestmark = pytest.mark.django_db

# answers_campaign pools A.1: 10 11 12 14 15, A.2: 20 21 22 24.
POOLED = {"10", "11", "12", "14", "15", "20", "21", "22", "24"}


def corpus_lines(ids, text=lambda i: f"text of {i}"):
    return "".join(json.dumps({"id": i, "title": f"Doc {i}", "text": text(i)}) + "\n" for i in ids)


@pytest.fixture
def corpus(tmp_path):
    """Every id from 1 to 99 except 15, gzip."""
    path = tmp_path / "corpus" / "part-00.jsonl.gz"
    path.parent.mkdir()
    with gzip.open(path, "wt") as f:
        f.write(corpus_lines([str(i) for i in range(1, 100) if i != 15]))
    return path.parent


@pytest.fixture
def campaign(tmp_path, corpus):
    campaign = answers_campaign(tmp_path)
    campaign.collection = services.collection_corpus_set(name="msmarco", corpus_path=corpus)
    campaign.save()
    return campaign


def stored(collection_name="msmarco") -> set[str]:
    return set(Post.objects.filter(collection__name=collection_name).values_list("post_id", flat=True))


def test_a_pool_build_stores_only_the_pooled_documents_and_tells_which_the_corpus_lacks(campaign):
    result = services.pool_build(campaign=campaign, judged_items={})
    assert stored() == POOLED - {"15"}
    assert result.documents_stored == 8 and result.documents_missing == ["15"]
    assert result.warnings() == ["1 pooled document is not in the corpus (15): they can only be judged System "
                                 "failure or Do not know"]
    assert Collection.objects.get(name="msmarco").post_count == 8
    assert selectors.unjudgeable_items_count(campaign=campaign) == {"A.1": 1}


def test_a_rebuild_reads_only_the_documents_not_stored_yet(campaign, tmp_path, corpus):
    services.pool_build(campaign=campaign, judged_items={})
    # The corpus changes under the stored documents: a rebuild must not read them again.
    with gzip.open(corpus / "part-00.jsonl.gz", "wt") as f:
        f.write(corpus_lines([str(i) for i in range(1, 100)], text=lambda i: f"changed {i}"))
    ingest(campaign, tmp_path, "r4", task1_lines("A.1", ["15", "30"], "r4"))
    result = services.pool_build(campaign=campaign, judged_items={})
    assert result.documents_stored == 2 and result.documents_missing == []
    assert stored() == POOLED | {"30"}
    bodies = dict(Post.objects.filter(post_id__in=["10", "30"]).values_list("post_id", "body"))
    assert bodies == {"10": "<p>text of 10</p>", "30": "<p>changed 30</p>"}


def test_a_corpus_that_lacks_every_pooled_document_still_makes_them_missing(tmp_path):
    campaign = answers_campaign(tmp_path)
    (tmp_path / "other.jsonl").write_text(corpus_lines(["900", "901"]))
    campaign.collection = services.collection_corpus_set(name="other", corpus_path=tmp_path / "other.jsonl")
    campaign.save()
    result = services.pool_build(campaign=campaign, judged_items={})
    assert result.documents_stored == 0 and len(result.documents_missing) == 9
    assert stored("other") == set()
    assert selectors.unjudgeable_items_count(campaign=campaign) == {"A.1": 5, "A.2": 4}


def test_a_bad_line_of_a_pooled_document_stores_nothing_and_says_where(tmp_path):
    campaign = answers_campaign(tmp_path)
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text(corpus_lines(["10", "11"]) + '{"id": "12", "text": 12}\n{"id": "14", "text": "x"\n'
                      + corpus_lines(["15", "20", "21", "22", "24"]))
    campaign.collection = services.collection_corpus_set(name="bad", corpus_path=corpus)
    campaign.save()
    with pytest.raises(InputError) as refused:
        services.pool_build(campaign=campaign, judged_items={})
    assert refused.value.messages() == [
        "bad.jsonl:line 3: no text (a string under body, text, contents or segment)",
        "bad.jsonl:line 4: invalid JSON: Expecting ',' delimiter (column 25)"]
    assert stored("bad") == set()


def test_the_judging_page_shows_a_corpus_document_and_a_lacking_one_as_missing(campaign, client, assessor_user):
    services.pool_build(campaign=campaign, judged_items={})
    assignment = assignments_create(campaign=campaign, assessors=[assessor_user], topic_ids=["A.1"]).created[0]
    client.force_login(assessor_user)
    position = {item: pos for item, pos in PoolItem.objects.filter(topic=assignment.topic)
                .values_list("item_id", "position")}
    page = unescape(client.get(f"/assess/assignments/{assignment.pk}/items/{position['10']}/").content.decode())
    assert "text of 10" in page and 'name="grade" value="3"' in page
    page = unescape(client.get(f"/assess/assignments/{assignment.pk}/items/{position['15']}/").content.decode())
    assert "Document 15 is not in the collection" in page  # a corpus holds documents (pooling/words.py)
    assert 'value="SF"' in page and 'name="grade" value="3"' not in page


def test_runs_of_a_pool_only_collection_are_not_refused_for_ids_it_has_not_stored(campaign, tmp_path):
    services.pool_build(campaign=campaign, judged_items={})
    run = ingest(campaign, tmp_path, "r5", task1_lines("A.1", ["50", "51", "52"], "r5")
                 + task1_lines("A.2", ["60"], "r5"))
    assert run.warnings == []


def test_the_command_declares_the_corpus_and_build_pools_reports_the_documents(tmp_path, corpus):
    campaign = answers_campaign(tmp_path)
    out, _ = command_output("ingest_collection", "--collection", "cmd", "--corpus", str(corpus))
    assert out == f"collection 'cmd': documents read from {corpus} at each pool build\n"
    campaign.collection = Collection.objects.get(name="cmd")
    campaign.save()
    out, _ = command_output("build_pools", "--campaign", campaign.name)
    assert "warning: 1 pooled document is not in the corpus (15)" in out
    assert out.endswith("campaign 'answers': 9 items in 2 topics; 8 documents read from the corpus\n")
    assert rejected("ingest_collection", "--collection", "cmd", "--corpus", str(tmp_path / "nowhere")) == [
        f"the corpus {tmp_path / 'nowhere'} is neither a file nor a folder that can be read"]


def test_the_api_creates_a_pool_only_collection_and_the_pool_build_job_reports_the_pass(
        organizer, tmp_path, corpus, jobs_run_on_commit):
    client = APIClient()
    client.force_authenticate(organizer)
    response = client.post("/api/collections/", {"name": "api", "corpus_path": str(corpus)}, format="json")
    assert response.status_code == 201 and response.json()["corpus_path"] == str(corpus)
    (tmp_path / "run.tsv").write_text("A.1\t10\t1\t9.0\tr\n")
    refused = client.post("/api/collections/", {"name": "x", "corpus_path": str(tmp_path / "run.tsv")},
                          format="json")
    assert refused.status_code == 400 and "not a corpus file" in str(refused.json())
    campaign = answers_campaign(tmp_path)
    campaign.collection = Collection.objects.get(name="api")
    campaign.save()
    job = Job.objects.get(pk=job_create(campaign=campaign, params=PoolBuildParams()).pk)
    assert job.status == Job.Status.DONE and job.result["documents_stored"] == 8
    assert job.warnings == ["1 pooled document is not in the corpus (15): they can only be judged System failure "
                            "or Do not know"]
