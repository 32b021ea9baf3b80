"""A small TREC-style document-retrieval track, built as an organizer builds one (docs/pooling.md, "Document
retrieval"): a JSONL corpus with `title` and `text`, `<top>` topics, a TREC run, a two-facet scheme without System
failure, relevance level 1, its pools built and one topic assigned and judged in part."""
import json

from ir import grades
from judging import services as assessor_services
from judging.models import Assignment
from pooling import services
from pooling.models import Campaign, PoolItem
from tests.pooling.run_files import ingest

DOCS = {f"DOC00{n}": (f"Lighthouse keeping {n}", f"How the keepers of lighthouse {n} lived.") for n in range(50, 62)}
TOPICS = """<top>
<num> Number: 401
<title> lighthouse keepers
<desc> Description:
How did lighthouse keepers live?
<narr> Narrative:
A relevant document describes a keeper's life.
</top>
<top>
<num> Number: 402
<title> foghorns
<desc> Description:
How do foghorns work?
</top>
"""
# The MathOverflow facets, with Do not know as the only mark.
SCHEME = {**grades.preset("mo-facets").to_json(), "name": "trec-facets", "marks": ["DK"], "relevance_level": 1}


def trec_track(tmp_path, assessor) -> tuple[Campaign, Assignment]:
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "title": t, "text": x}) + "\n" for d, (t, x) in DOCS.items()))
    collection = services.collection_corpus_set(name="lighthouses", corpus_path=corpus)
    campaign = services.campaign_create(name="trec-track", task=Campaign.Task.ANSWERS,
                                        scheme=grades.scheme_from_json(SCHEME), primary_depth=5, alternate_depth=5)
    campaign.collection = collection
    campaign.save()
    topics = tmp_path / "topics.txt"
    topics.write_text(TOPICS)
    services.topics_ingest(campaign=campaign, path=topics)
    ids = list(DOCS)
    ingest(campaign, tmp_path, "bm25", [(t, "Q0", d, str(r), str(20 - r), "bm25")
                                        for t, docs in (("401", ids[:6]), ("402", ids[6:])) for r, d in
                                        enumerate(docs, start=1)])
    services.pool_build(campaign=campaign, judged_items={})
    assignment = assessor_services.assignments_create(campaign=campaign, assessors=[assessor],
                                                      topic_ids=["401"]).created[0]
    first = PoolItem.objects.filter(topic=assignment.topic).order_by("position").first()
    assessor_services.judgment_submit(assignment_pk=assignment.pk, item_id=first.item_id, user=assessor, grades=[
        assessor_services.GradeInput(grade="", facets={"totality": "total", "directness": "direct"})])
    return campaign, assignment
