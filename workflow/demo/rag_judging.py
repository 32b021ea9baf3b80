"""The demo's TREC RAG campaign after its runs are in (docs/nuggets.md): each topic's nugget bank drafted and curated
through the bank's services (the LLM's drafts made as drafting.py stores them, without calling a model: the demo
knows their texts), the banks of the first topics frozen by support assignments of the demo assessors, and their
support and citation labels, so that the leaderboard has nugget scores. load_demo calls rag_curate once, with the
campaign it has just made; rag_delete before `load_demo --reset`."""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from nuggets.models import (
    CitationJudgment,
    CitationRevision,
    Nugget,
    SupportAssignment,
    SupportJudgment,
    SupportLabel,
    SupportRevision,
)
from nuggets.services.bank import draft_accept, draft_reject, drafts_add, nugget_add, nugget_importance
from nuggets.services.support import answer_text, citation_submit, support_assign, support_submit
from pooling.models import AnswerSentence, Campaign, RunAnswer
from workflow.demo.rag import TOPICS, Claim, RagTopic

DRAFT_MODEL = "demo-llm (the demo's drafts; no model was called)"
# A draft the organizer has not looked at yet, on the last topic's bank.
WAITING = "The equation has no solution with x = y"
NUGGET_TOPICS = 3  # the first topics: assessor1's official nugget assignments
JUDGED_TOPICS = 2  # of which the demo has judged these (the third is left to do), and assessor2 their citations
CITATION_WEIGHTS = (("full", 0.7), ("partial", 0.2), ("none", 0.1))


def rag_curate(*, campaign: Campaign, organizer, assessors: Sequence, seed: int, say: Callable[[str], None]) -> None:
    """The banks, the support assignments and the labels of the demo's RAG campaign."""
    for spec in TOPICS:
        _bank(campaign, spec, organizer)
    say(f"campaign '{campaign.name}': {Nugget.objects.filter(campaign=campaign, status='accepted').count()} "
        f"nuggets in {len(TOPICS)} banks (drafted and curated)")
    if len(assessors) < 2:
        return
    rng = random.Random(f"{seed}/rag/citations")
    for number, spec in enumerate(TOPICS[:NUGGET_TOPICS]):
        topic = campaign.topics.get(topic_id=spec.id)
        assignment = support_assign(campaign=campaign, topic=topic, assessor=assessors[0], by=organizer)[0]
        if number >= JUDGED_TOPICS:
            continue
        claims = {claim.nugget: claim for claim in spec.claims}
        frozen = assignment.bank.nuggets if assignment.bank is not None else []
        for answer in _answers(topic):
            text = answer_text(answer)
            labels = {entry["id"]: (_label(claims.get(entry["text"]), entry["text"], text), "") for entry in frozen}
            support_submit(assignment=assignment, answer=answer, labels=labels, user=assessors[0])
        citations = support_assign(campaign=campaign, topic=topic, assessor=assessors[1], by=organizer,
                                   task=SupportAssignment.Task.CITATIONS)[0]
        for answer in _answers(topic):
            units = {(s.position, str(c)): _weighted(rng)
                     for s in AnswerSentence.objects.filter(answer=answer).order_by("position") for c in s.citations}
            citation_submit(assignment=citations, answer=answer, labels=units, user=assessors[1])
    say(f"campaign '{campaign.name}': {assessors[0].username} has the nugget support of {NUGGET_TOPICS} topics "
        f"({JUDGED_TOPICS} judged), {assessors[1].username} the citations of {JUDGED_TOPICS}")


def _bank(campaign: Campaign, spec: RagTopic, organizer) -> None:
    """Drafts of the LLM for the drafted claims (the first with the wrong importance, corrected by the organizer)
    and a rejected one, the others written by the organizer, in the claims' order; on the first topic one more,
    selected in an answer; on the last a draft left waiting."""
    topic = campaign.topics.get(topic_id=spec.id)
    drafted = [claim for claim in spec.claims if claim.source == "drafted"]
    wrong = drafted[0] if drafted and drafted[0].importance == "vital" else None
    drafts = drafts_add(topic=topic, model=DRAFT_MODEL,
                        nuggets=[(c.nugget, "okay" if c is wrong else c.importance) for c in drafted]
                        + [(spec.rejected, "okay")]
                        + ([(WAITING, "okay")] if spec is TOPICS[-1] else []))
    by_text = {draft.text: draft for draft in drafts}
    for claim in spec.claims:
        if claim.source == "drafted":
            accepted = draft_accept(nugget=by_text[claim.nugget], user=organizer)
            if claim is wrong:
                nugget_importance(nugget=accepted, importance="vital", user=organizer)
        else:
            nugget_add(topic=topic, text=claim.nugget, importance=claim.importance, user=organizer)
    draft_reject(nugget=by_text[spec.rejected], user=organizer)
    if spec is TOPICS[0]:
        # One made of words selected in an answer, as the bank page makes it.
        answer = _answers(topic)[0]
        nugget_add(topic=topic, text=answer.sentences.all()[0].text.rstrip("."), importance="okay", user=organizer,
                   answer=answer)


def _answers(topic) -> list[RunAnswer]:
    return list(RunAnswer.objects.filter(topic=topic).select_related("run").prefetch_related("sentences")
                .order_by("run__name", "pk"))


def _label(claim: Claim | None, nugget: str, text: str) -> str:
    """What a careful assessor says: the claim made in full supports its nugget, hedged partly."""
    if claim is None:
        return SupportLabel.SUPPORT if nugget.casefold() in text.casefold() else SupportLabel.NOT
    if claim.strong in text:
        return SupportLabel.SUPPORT
    return SupportLabel.PARTIAL if claim.weak in text else SupportLabel.NOT


def _weighted(rng: random.Random) -> str:
    roll, total = rng.random(), 0.0
    for label, weight in CITATION_WEIGHTS:
        total += weight
        if roll < total:
            return label
    return CITATION_WEIGHTS[-1][0]


def rag_delete(*, campaigns: Sequence[Campaign]) -> None:
    """Only for load_demo --reset: the support labels and assignments of the demo's campaigns, which a campaign's
    delete keeps (they are protected), so that the campaigns can go."""
    SupportRevision.objects.filter(judgment__answer__run__campaign__in=campaigns).delete()  # the LLM's too
    SupportJudgment.objects.filter(answer__run__campaign__in=campaigns).delete()
    CitationRevision.objects.filter(judgment__assignment__campaign__in=campaigns).delete()
    CitationJudgment.objects.filter(assignment__campaign__in=campaigns).delete()
    SupportAssignment.objects.filter(campaign__in=campaigns).delete()
