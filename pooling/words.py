"""The words a campaign's pages use for its task, its items, its marks and its relevance level, in one place
(docs/pooling.md, "Document retrieval"): ARQMath's for a campaign of Stack Exchange answers or formulas, a TREC
track's for a campaign whose collection holds documents."""
from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache

from ir.grades import MARK_LABELS, Scheme, is_relevant
from pooling.models import Campaign, Collection, Post

ANSWERS, DOCUMENTS, FORMULAS = "answers", "documents", "formulas"
# The task list of the campaign form: a document-retrieval track is an answers campaign underneath (one item per
# pooled id, a grade per item), whose collection holds documents.
DOCUMENT_TASK = "documents"
DOCUMENT_TASK_LABEL = "Document retrieval (TREC-style)"
TASK_CHOICES = [*Campaign.Task.choices, (DOCUMENT_TASK, DOCUMENT_TASK_LABEL)]
_CACHE_SECONDS = 24 * 3600


def collection_kind(collection: Collection | None) -> str:
    """'documents' for a collection read from a corpus or whose posts are documents (generic JSONL of kind document),
    'answers' otherwise (Stack Exchange posts, or nothing loaded yet). The posts' kind is asked once per collection
    and size: an ingest changes the post count, and with it the key."""
    if collection is None:
        return ANSWERS
    if collection.corpus_path:
        return DOCUMENTS
    if not collection.post_count:
        return ANSWERS
    key = f"collection-kind:{collection.pk}:{collection.post_count}:{collection.created_at.timestamp()}"
    kind = cache.get(key)
    if kind is None:
        first = Post.objects.filter(collection_id=collection.pk).values_list("kind", flat=True)[:1]
        kind = DOCUMENTS if list(first) == [Post.Kind.DOCUMENT] else ANSWERS
        cache.set(key, kind, _CACHE_SECONDS)
    return kind


def _listed(texts: list[str], last: str = "or") -> str:
    return ", ".join(texts[:-1]) + f" {last} {texts[-1]}" if len(texts) > 1 else "".join(texts)


@dataclass(frozen=True)
class CampaignWords:
    kind: str           # answers, documents or formulas
    task: str           # "Answer retrieval (Task 1)", "Document retrieval (TREC-style)"
    item: str           # what one pooled item is: "answer", "document", "formula"
    marks: tuple[str, ...]
    relevant_values: tuple[int, ...]   # the scheme's grades counted relevant at the campaign's level, lowest first

    @property
    def documents(self) -> bool:
        return self.kind == DOCUMENTS

    @property
    def arqmath(self) -> bool:
        """ARQMath's words (tasks, posts, threads, its conventions named after it)."""
        return self.kind != DOCUMENTS

    @property
    def Item(self) -> str:  # noqa: N802 (a template's capitalised noun)
        return self.item[:1].upper() + self.item[1:]

    @property
    def post(self) -> str:
        """What the qrels and the pools list, one per id: ARQMath's "post", a TREC track's "document"."""
        return "document" if self.documents else "post"

    @property
    def marks_short(self) -> str:
        """"SF and DK" (ARQMath's page words), "Do not know" for a scheme with that mark only, "" without marks."""
        return "SF and DK" if self.marks == ("SF", "DK") else self.marks_and

    @property
    def marks_are(self) -> str:
        """The verbs that follow marks_short."""
        return "are" if len(self.marks) > 1 else "is"

    @property
    def marks_count(self) -> str:
        return "count" if len(self.marks) > 1 else "counts"

    @property
    def marks_and(self) -> str:
        """"System failure and Do not know": the scheme's marks by their labels ("" without marks)."""
        return _listed([MARK_LABELS[m] for m in self.marks], "and")

    @property
    def marks_either(self) -> str:
        """"System failure or Do not know": what an item without its text can be given."""
        return _listed([MARK_LABELS[m] for m in self.marks])

    @property
    def marks_as_grades(self) -> str:
        """The complete qrels' option: "System failure and Do not know as grades 5 and 6"."""
        numbers = {"SF": "5", "DK": "6"}
        grade = "grades" if len(self.marks) > 1 else "grade"
        return (f"{self.marks_and} as {grade} "
                f"{_listed([numbers[m] for m in self.marks], 'and')}")

    @property
    def relevant(self) -> str:
        """"grade 2 or 3": the grades counted relevant."""
        values = [str(v) for v in self.relevant_values]
        return "grade " + _listed(values) if values else "no grade"


def campaign_words(campaign: Campaign) -> CampaignWords:
    scheme: Scheme = campaign.judging_scheme
    if campaign.task == Campaign.Task.FORMULAS:
        kind, item = FORMULAS, "formula"
    else:
        kind = collection_kind(campaign.collection)
        item = "document" if kind == DOCUMENTS else "answer"
    task = DOCUMENT_TASK_LABEL if kind == DOCUMENTS else campaign.get_task_display()
    relevant = tuple(sorted(g.value for g in scheme.grades if is_relevant(g.value, campaign.relevance_level)))
    return CampaignWords(kind=kind, task=task, item=item, marks=tuple(scheme.marks), relevant_values=relevant)
