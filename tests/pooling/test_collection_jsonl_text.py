"""A JSONL collection reads its text by the corpus reader's rule (body, text, contents, segment; and the title), warns
when a field it does not read holds most of a line, and a collection whose campaigns have no runs can be replaced or
deleted (docs/formats.md, "Generic JSONL" and "Replacing or deleting a collection")."""
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from ir.formats.corpus import _json_doc
from ir.problems import InputError, Problems
from jobs.models import Job
from pooling import services
from pooling.models import Campaign, Collection, Post
from tests.factories import CampaignFactory, TopicFactory
from tests.pooling.run_files import ingest, task1_lines

pytestmark = pytest.mark.django_db

LONG = "Let $G$ be a finite group and let $H$ be a subgroup of index two. " * 4


def jsonl(tmp_path, name, rows) -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def docs(key, n=3):
    return [{"id": str(i), "kind": "document", "title": f"Doc {i}", key: f"{LONG}\n\nsecond <part> {i}"}
            for i in range(1, n + 1)]


def test_jsonl_documents_with_text_load_their_bodies(tmp_path):
    result = services.collection_ingest(collection_name="beir", paths=[jsonl(tmp_path, "c.jsonl", docs("text"))])
    assert result.counts == {"jsonl": 3} and not result.warnings
    post = Post.objects.get(collection__name="beir", post_id="2")
    assert post.title == "Doc 2" and post.body.startswith("<p>Let $G$")
    assert post.body.endswith("<p>second &lt;part&gt; 2</p>")  # plain text, escaped into paragraphs


def test_both_readers_take_the_same_fields():
    line = json.dumps({"id": "7", "contents": "the text", "title": "T"})
    doc = _json_doc("c.jsonl", 1, line, Problems())
    assert doc is not None and (doc.text, doc.title) == ("the text", "T")


def test_a_field_not_read_that_holds_most_of_a_line_is_a_warning_with_its_lines(tmp_path):
    rows = docs("abstract")
    result = services.collection_ingest(collection_name="odd", paths=[jsonl(tmp_path, "odd.jsonl", rows)])
    said = " ".join(result.warnings)
    assert "field 'abstract' holds most of the line's text but is not read" in said
    assert "body, text, contents or segment" in said and "line 1" in said and "3" in said


@pytest.mark.usefixtures("jobs_run_on_commit")
def test_a_collection_without_runs_is_replaced_by_the_fixed_file(tmp_path, client, organizer):
    services.collection_ingest(collection_name="mine", paths=[jsonl(tmp_path, "bad.jsonl", docs("abstract"))])
    assert set(Post.objects.filter(collection__name="mine").values_list("body", flat=True)) == {""}
    fixed = jsonl(tmp_path, "fixed.jsonl", docs("text"))
    with pytest.raises(InputError, match="already in the collection"):  # without replace: 3 duplicates
        services.collection_ingest(collection_name="mine", paths=[fixed])

    client.force_login(organizer)
    with open(fixed, "rb") as stream:
        client.post("/collections/", {"collection": "mine", "replace": "on",
                                      "files": SimpleUploadedFile("fixed.jsonl", stream.read())})
    job = Job.objects.latest("pk")
    assert job.status == Job.Status.DONE, job.result
    collection = Collection.objects.get(name="mine")
    bodies = Post.objects.filter(collection=collection).values_list("body", flat=True)
    assert collection.post_count == 3 and len(bodies) == 3 and all(bodies)


def test_a_collection_whose_campaign_has_runs_is_neither_replaced_nor_deleted(tmp_path, client, organizer):
    services.collection_ingest(collection_name="used", paths=[jsonl(tmp_path, "c.jsonl", docs("text"))])
    collection = Collection.objects.get(name="used")
    campaign = CampaignFactory(name="busy", task=Campaign.Task.ANSWERS, collection=collection)
    TopicFactory(campaign=campaign, topic_id="A.1")
    ingest(campaign, tmp_path, "r", task1_lines("A.1", ["1", "2"], "r"))
    with pytest.raises(InputError, match="campaign busy of it has runs"):
        services.collection_ingest(collection_name="used", paths=[jsonl(tmp_path, "d.jsonl", docs("text"))],
                                   replace=True)
    client.force_login(organizer)
    client.post(f"/collections/{collection.pk}/delete/")
    assert Post.objects.filter(collection=collection).count() == 3 and Collection.objects.filter(pk=collection.pk)


def test_a_collection_whose_campaign_has_no_runs_is_deleted_from_its_page(tmp_path, client, organizer):
    services.collection_ingest(collection_name="gone", paths=[jsonl(tmp_path, "c.jsonl", docs("text"))])
    collection = Collection.objects.get(name="gone")
    campaign = CampaignFactory(name="waiting", task=Campaign.Task.ANSWERS, collection=collection)
    client.force_login(organizer)
    page = client.post(f"/collections/{collection.pk}/delete/", follow=True).content.decode()
    assert "Collection gone is deleted. Campaigns now without a collection: waiting." in page
    assert not Collection.objects.filter(name="gone").exists() and not Post.objects.filter(collection_id=collection.pk)
    campaign.refresh_from_db()
    assert campaign.collection is None
