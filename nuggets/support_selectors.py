"""Reads of support judging (docs/nuggets.md, "Support judging"): an assessor's support assignments and their
progress, the judging page of one answer (nuggets or citations, the LLM's label beside each nugget in suggest
mode), the agreement of dual and training assignments with the official one, and of the LLM's labels with it."""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import Case, QuerySet, Value, When

from ir.agreement import Kappa, cohen_kappa, confusion
from llm import selectors as llm_selectors
from llm.models import Mode
from nuggets.models import CitationJudgment, CitationLabel, SupportAssignment, SupportJudgment, SupportLabel
from nuggets.selectors import pooled_answers
from pooling.models import AnswerSentence, Campaign, Post, RunAnswer, Topic

SUPPORT_LABELS = list(SupportLabel.values)
CITATION_LABELS = list(CitationLabel.values)


def topic_answers(*, topic: Topic) -> list[RunAnswer]:
    """The topic's answers in the order every assessor sees them, the bank page's (`nuggets.selectors.pooled_answers`:
    by run name, then as stored, with their sentences)."""
    return pooled_answers(topic=topic)


def own_support_assignment(*, user, assignment_pk: int) -> SupportAssignment | None:
    return (SupportAssignment.objects.filter(pk=assignment_pk, assessor=user)
            .select_related("campaign", "topic", "bank").first())


@dataclass(frozen=True)
class Progress:
    done: int  # answers with every unit labelled
    total: int
    first_open: int | None  # the place of the first answer not done, None when all are


def support_progress_many(assignments: Sequence[SupportAssignment]) -> dict[int, Progress]:
    """Each assignment's progress (assignment pk -> Progress) in four queries whatever their number: the topics'
    answers in the judging order, the citations of their sentences, and the labels of each task. An answer is done
    when every unit of it is labelled: each nugget of the assignment's bank, or each (sentence, citation) pair."""
    topics = {a.topic_id for a in assignments}
    answers: dict[int, list[int]] = defaultdict(list)
    for answer, topic in (RunAnswer.objects.filter(topic_id__in=topics).order_by("run__name", "pk")
                          .values_list("pk", "topic_id")):
        answers[topic].append(answer)
    pairs: Counter[int] = Counter()
    if any(a.task == SupportAssignment.Task.CITATIONS for a in assignments):
        for answer, citations in (AnswerSentence.objects.filter(answer__topic_id__in=topics)
                                  .values_list("answer_id", "citations")):
            pairs[answer] += len(citations or [])
    labelled: Counter[tuple[int, int]] = Counter()
    held = [a.pk for a in assignments]
    labelled.update(SupportJudgment.objects.filter(assignment_id__in=held).values_list("assignment_id", "answer_id"))
    labelled.update(CitationJudgment.objects.filter(assignment_id__in=held)
                    .values_list("assignment_id", "sentence__answer_id"))
    found = {}
    for a in assignments:
        size = len(a.bank.nuggets) if a.bank else 0
        done = [labelled[a.pk, answer] >= (size if a.task == SupportAssignment.Task.NUGGETS else pairs[answer])
                for answer in answers[a.topic_id]]
        found[a.pk] = Progress(done=sum(done), total=len(done),
                               first_open=next((n for n, ok in enumerate(done) if not ok), None))
    return found


def support_progress(*, assignment: SupportAssignment) -> Progress:
    return support_progress_many([assignment])[assignment.pk]


@dataclass(frozen=True)
class AssignmentRow:
    assignment: SupportAssignment
    progress: Progress


def assessor_support_assignments(*, user) -> list[AssignmentRow]:
    """The assessor's support assignments, withdrawn ones left out, each with its progress."""
    held = list(SupportAssignment.objects.filter(assessor=user, withdrawn_at__isnull=True)
                .select_related("campaign", "topic", "bank").order_by("campaign__name", "topic__position", "task"))
    progress = support_progress_many(held)
    return [AssignmentRow(a, progress[a.pk]) for a in held]


def campaign_support_assignments(*, campaign: Campaign) -> QuerySet[SupportAssignment]:
    """The campaign's support assignments, withdrawn ones too: by topic and task, the official one first."""
    official_first = Case(When(kind=SupportAssignment.Kind.OFFICIAL, then=Value(0)), default=Value(1))
    return (SupportAssignment.objects.filter(campaign=campaign).select_related("topic", "assessor", "bank")
            .order_by("topic__position", "task", official_first, "kind", "round", "assessor__username", "pk"))


@dataclass
class JudgingPage:
    """One answer of an assignment, as its judging page shows it."""
    assignment: SupportAssignment
    answers: list[RunAnswer]
    number: int
    answer: RunAnswer
    sentences: list
    nuggets: list[dict] = field(default_factory=list)  # nuggets: [{id, text, importance, label, span}]
    citations: list[dict] = field(default_factory=list)  # citations: per sentence {sentence, cited: [...]}
    progress: Progress | None = None

    @property
    def previous(self) -> int | None:
        return self.number - 1 if self.number > 0 else None

    @property
    def next(self) -> int | None:
        return self.number + 1 if self.number + 1 < len(self.answers) else None


def judging_page(*, user, assignment_pk: int, number: int) -> JudgingPage | None:
    """The user's own assignment's answer at `number` (from 0) with its sentences and the labels given so far: the
    bank version's nuggets (nuggets), or each sentence's cited items with the collection's post (citations). None
    when the assignment is not the user's or there is no such answer."""
    assignment = own_support_assignment(user=user, assignment_pk=assignment_pk)
    if assignment is None:
        return None
    answers = topic_answers(topic=assignment.topic)
    if not 0 <= number < len(answers):
        return None
    answer = answers[number]
    sentences = list(answer.sentences.order_by("position"))
    page = JudgingPage(assignment=assignment, answers=answers, number=number, answer=answer, sentences=sentences,
                       progress=support_progress(assignment=assignment))
    if assignment.task == SupportAssignment.Task.NUGGETS:
        given = {j.nugget_id: j for j in SupportJudgment.objects.filter(assignment=assignment, answer=answer)}
        suggested = support_suggestions(assignment=assignment, answer=answer)
        for entry in assignment.bank.nuggets if assignment.bank else []:
            judgment = given.get(entry["id"])
            page.nuggets.append({**entry, "label": judgment.label if judgment else "",
                                 "span": judgment.span if judgment else "",
                                 "revision": judgment.revision if judgment else 0,
                                 "suggestion": suggested.get(entry["id"])})
        return page
    given_c = {(j.sentence_id, j.citation): j for j in CitationJudgment.objects.filter(
        assignment=assignment, sentence__answer=answer)}
    cited = {str(c) for s in sentences for c in s.citations}
    collection = assignment.campaign.collection_id
    posts = ({p.post_id: p for p in Post.objects.filter(collection_id=collection, post_id__in=cited)}
             if collection is not None else {})
    for sentence in sentences:
        items = []
        for index, c in enumerate(sentence.citations):
            cited_judgment = given_c.get((sentence.pk, str(c)))
            items.append({"index": index, "id": str(c), "post": posts.get(str(c)),
                          "label": cited_judgment.label if cited_judgment else "",
                          "revision": cited_judgment.revision if cited_judgment else 0})
        page.citations.append({"sentence": sentence, "cited": items})
    return page


def support_suggestions(*, assignment: SupportAssignment, answer: RunAnswer) -> dict[int, SupportJudgment]:
    """nugget id -> the LLM's label the judging page shows beside the nugget: in the campaign's suggest mode (its
    LLM endpoint's mode, the one relevance judging's suggestions follow, docs/llm.md), the endpoint model's label of
    the answer; {} in any other mode (blind, the default; filter) and for a campaign without an endpoint, so that in
    those nothing of the model's labels reaches the page."""
    if assignment.task != SupportAssignment.Task.NUGGETS:
        return {}
    endpoint = llm_selectors.endpoint_in_mode(assignment.campaign, Mode.SUGGEST)
    if endpoint is None:
        return {}
    return {j.nugget_id: j for j in SupportJudgment.objects.filter(assignment__isnull=True, model=endpoint.model,
                                                                   answer=answer)}


# -- agreement


@dataclass(frozen=True)
class AgreementCell:
    """One comparison against the official labels: kappa over the units both labelled, and the confusion counts
    (rows: the official label, columns: the other's, in `labels` order)."""
    kappa: Kappa
    confusion: list[list[int]]
    labels: list[str]

    @property
    def rows(self) -> list[tuple[str, list[int]]]:
        return list(zip(self.labels, self.confusion, strict=True))


@dataclass
class SupportAgreement:
    by_assignment: dict[int, AgreementCell] = field(default_factory=dict)  # dual and training assignments
    by_topic: dict[tuple[str, str], AgreementCell] = field(default_factory=dict)  # (topic id, task)
    overall: dict[str, AgreementCell] = field(default_factory=dict)  # task


def _cell(pairs: list[tuple[str, str]], labels: list[str]) -> AgreementCell:
    place = {label: n for n, label in enumerate(labels)}
    coded = [(place[a], place[b]) for a, b in pairs]
    return AgreementCell(cohen_kappa(coded), confusion(coded, range(len(labels))), labels)


def _labels_of(assignment: SupportAssignment) -> dict[tuple, str]:
    if assignment.task == SupportAssignment.Task.NUGGETS:
        return {(a, n): label for a, n, label in SupportJudgment.objects.filter(assignment=assignment)
                .values_list("answer_id", "nugget_id", "label")}
    return {(s, c): label for s, c, label in CitationJudgment.objects.filter(assignment=assignment)
            .values_list("sentence_id", "citation", "label")}


def support_agreement(*, campaign: Campaign) -> SupportAgreement:
    """Cohen's kappa of each dual and training assignment's labels against the official assignment of its topic
    and task, over the units (answer and nugget; sentence and citation) both labelled; the same pooled per topic
    and over the campaign, per task. Withdrawn assignments left out."""
    held = list(SupportAssignment.objects.filter(campaign=campaign, withdrawn_at__isnull=True)
                .select_related("topic"))
    official = {(a.topic_id, a.task): a for a in held if a.kind == SupportAssignment.Kind.OFFICIAL}
    report = SupportAgreement()
    by_topic: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    overall: dict[str, list[tuple[str, str]]] = defaultdict(list)
    cache: dict[int, dict[tuple, str]] = {}

    def labels(a: SupportAssignment) -> dict[tuple, str]:
        if a.pk not in cache:
            cache[a.pk] = _labels_of(a)
        return cache[a.pk]

    for a in held:
        reference = official.get((a.topic_id, a.task))
        if a.kind == SupportAssignment.Kind.OFFICIAL or reference is None:
            continue
        mine, theirs = labels(a), labels(reference)
        pairs = [(theirs[u], mine[u]) for u in sorted(mine.keys() & theirs.keys())]
        names = SUPPORT_LABELS if a.task == SupportAssignment.Task.NUGGETS else CITATION_LABELS
        report.by_assignment[a.pk] = _cell(pairs, names)
        by_topic[(a.topic.topic_id, a.task)].extend(pairs)
        overall[a.task].extend(pairs)
    for (topic_id, task), pairs in by_topic.items():
        report.by_topic[(topic_id, task)] = _cell(
            pairs, SUPPORT_LABELS if task == SupportAssignment.Task.NUGGETS else CITATION_LABELS)
    for task, pairs in overall.items():
        report.overall[task] = _cell(pairs, SUPPORT_LABELS if task == SupportAssignment.Task.NUGGETS
                                     else CITATION_LABELS)
    return report


@dataclass
class LlmSupportAgreement:
    """One model's labels against the official ones over the (answer, nugget) pairs both have: per topic and over
    the campaign (rows of the confusion: the official label, columns: the model's)."""
    model: str
    overall: AgreementCell
    by_topic: dict[str, AgreementCell] = field(default_factory=dict)  # topic id, in the topics' order


def llm_support_agreement(*, campaign: Campaign) -> list[LlmSupportAgreement]:
    """Per model with labels in the campaign (by name), Cohen's kappa and the confusion counts of its support labels
    against the official nugget assignments' in force, over the (answer, nugget) pairs labelled by both, per topic
    (those with any pair) and over the campaign."""
    official = (SupportAssignment.objects.filter(campaign=campaign, task=SupportAssignment.Task.NUGGETS,
                                                 kind=SupportAssignment.Kind.OFFICIAL, withdrawn_at__isnull=True)
                .select_related("topic").order_by("topic__position", "topic__pk"))
    people: dict[tuple, tuple[str, str]] = {}  # (answer, nugget) -> (topic id, the official label)
    for assignment in official:
        for unit, label in _labels_of(assignment).items():
            people[unit] = (assignment.topic.topic_id, label)
    order = {a.topic.topic_id: n for n, a in enumerate(official)}
    by_model: dict[str, dict[tuple, str]] = defaultdict(dict)
    for model, answer, nugget, label in (SupportJudgment.objects.filter(assignment__isnull=True,
                                                                        nugget__campaign=campaign)
                                         .exclude(model="").values_list("model", "answer_id", "nugget_id", "label")):
        by_model[model][(answer, nugget)] = label
    report = []
    for model in sorted(by_model):
        theirs = by_model[model]
        by_topic: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for unit in sorted(theirs.keys() & people.keys()):
            topic_id, label = people[unit]
            by_topic[topic_id].append((label, theirs[unit]))
        report.append(LlmSupportAgreement(
            model=model, overall=_cell([pair for pairs in by_topic.values() for pair in pairs], SUPPORT_LABELS),
            by_topic={t: _cell(by_topic[t], SUPPORT_LABELS) for t in sorted(by_topic, key=order.__getitem__)}))
    return report
