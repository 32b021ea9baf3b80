"""Pool-only collections (docs/pooling.md, "Pool-only collections"): a collection declared from a corpus file stores
only the documents its campaigns' pools hold, read in one pass over the corpus after each pool build."""
from __future__ import annotations

import html
import os
from collections.abc import Iterator
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F

from ir.formats.corpus import CorpusDoc, corpus_check, read_corpus
from ir.formats.textio import text_html
from ir.pools.ids import id_order_key
from ir.problems import InputError, Problems
from pooling.bulk import bulk_insert
from pooling.models import AnswerText, Campaign, Collection, PoolInstance, PoolItem, Post
from pooling.ranking import LOOKUP_CHUNK
from pooling.services.campaigns import collection_get_or_create
from pooling.services.collection import POST_COLUMNS, post_copy_line
from pooling.services.common import Progress


@transaction.atomic
def collection_corpus_set(*, name: str, corpus_path: str | os.PathLike, description: str = "") -> Collection:
    """Declares the collection of that name (created if there is none) as read from a corpus file or folder, once its
    files are found and each is told to be JSONL or TREC (InputError otherwise). The path is kept absolute, as the
    web server and the workers must see it; the documents are read at the next pool build."""
    path = os.path.abspath(os.fspath(corpus_path).strip())
    corpus_check(path)
    collection = collection_get_or_create(name=name, description=description)
    Collection.objects.filter(pk=collection.pk).update(corpus_path=path)
    collection.corpus_path = path
    return collection


@dataclass(frozen=True)
class PoolTextsResult:
    stored: int  # documents read from the corpus and stored now
    missing: list[str]  # pooled ids neither stored nor in the corpus, in id order


def missing_documents_warnings(missing: list[str], examples: int = 5) -> list[str]:
    """The pooled documents the corpus lacks, as job warnings and command lines say them."""
    if not missing:
        return []
    shown = ", ".join(missing[:examples])
    more = f" and {len(missing) - examples:,} more" if len(missing) > examples else ""
    return [f"{len(missing):,} pooled document{'s are' if len(missing) != 1 else ' is'} not in the corpus "
            f"({shown}{more}): they can only be judged System failure or Do not know"]


@transaction.atomic
def pool_texts_fetch(*, campaign: Campaign, progress: Progress = None) -> PoolTextsResult | None:
    """Stores the pooled documents of a campaign whose collection is read from a corpus and that are not stored yet,
    in one pass over the corpus; None for a campaign of any other collection. A corpus with a problem in a line it
    had to read stores nothing (InputError, every problem with its file and line)."""
    collection = campaign.collection
    if collection is None or not collection.corpus_path:
        return None
    pooled = _pooled_ids(campaign)
    wanted = pooled - _stored_ids(collection, pooled)
    if not wanted:
        return PoolTextsResult(stored=0, missing=[])
    collectors: list[Problems] = []
    found: set[str] = set()
    docs = read_corpus(collection.corpus_path, wanted, collectors, progress=progress)
    stored = bulk_insert(Post, POST_COLUMNS, _post_rows(collection.pk, docs, found, collectors),
                         copy_line=post_copy_line)
    if any(collectors):
        raise InputError.of(*collectors)
    Collection.objects.filter(pk=collection.pk).update(post_count=F("post_count") + stored)
    return PoolTextsResult(stored=stored, missing=sorted(wanted - found, key=id_order_key))


def _post_rows(cid: int, docs: Iterator[CorpusDoc], found: set[str], collectors: list[Problems]) -> Iterator[tuple]:
    for doc in docs:
        found.add(doc.doc_id)
        if not any(collectors):  # after a problem nothing is written, but the corpus is read on for every problem
            yield (cid, doc.doc_id, Post.Kind.DOCUMENT.value, doc.doc_id, html.escape(doc.title, quote=False),
                   text_html(doc.text), "", None, None, "", "")


def _pooled_ids(campaign: Campaign) -> set[str]:
    """The ids of the posts the campaign's pools show: answers, the items (not Task 3 answers, which are no posts);
    formulas, the posts of the selected instances."""
    if campaign.task == Campaign.Task.ANSWERS:
        answers = set(AnswerText.objects.filter(campaign=campaign).values_list("answer_id", flat=True))
        return set(PoolItem.objects.filter(campaign=campaign).values_list("item_id", flat=True)) - answers
    return set(PoolInstance.objects.filter(item__campaign=campaign, selected=True).values_list("post_id", flat=True))


def _stored_ids(collection: Collection, ids: set[str]) -> set[str]:
    wanted = sorted(ids)
    stored: set[str] = set()
    for start in range(0, len(wanted), LOOKUP_CHUNK):
        stored.update(Post.objects.filter(collection=collection, post_id__in=wanted[start:start + LOOKUP_CHUNK])
                      .values_list("post_id", flat=True))
    return stored
