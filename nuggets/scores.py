"""Nugget and support scores of a campaign's generated answers (TREC RAG runs: answers in sentences that cite ids),
from its official support labels (docs/evaluation.md, "Nugget and support scores"): per run and topic, nuggetizer's
four nugget scores and the support precision and recall of the answer's citations (ir/nugget_metrics.py), and each
run's means over the topics scored: the rows evaluation/scoring.py, the one way to score, takes from here; and the
reads of the official support labels they are computed from."""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db.models import Count, Max, QuerySet, Sum

from ir.nugget_metrics import citation_support, mean_citation_support, mean_nugget_scores, nugget_scores
from ir.prime import RunScores, natural_key
from ir.problems import InputError
from nuggets.models import CitationJudgment, SupportAssignment, SupportJudgment
from pooling.models import AnswerSentence, Campaign, Run

NUGGET_VITAL, NUGGET_STRICT_VITAL = "nugget_vital", "nugget_strict_vital"
NUGGET_ALL, NUGGET_STRICT_ALL = "nugget_all", "nugget_strict_all"
SUPPORT_PRECISION, SUPPORT_RECALL = "support_precision", "support_recall"
NUGGET_MEASURES = (NUGGET_VITAL, NUGGET_STRICT_VITAL, NUGGET_ALL, NUGGET_STRICT_ALL, SUPPORT_PRECISION,
                   SUPPORT_RECALL)
NOT_SUPPORT = "not_support"  # what a nugget of the frozen bank without a label counts as


@dataclass(frozen=True)
class AnswerLabels:
    """What the scores read, per run name and topic id: every nugget of the topic's frozen bank as (importance,
    label), and every sentence of the answer as its citations' labels (full, partial, none)."""

    nuggets: dict[str, dict[str, list[tuple[str, str]]]]
    citations: dict[str, dict[str, list[list[str]]]]


def official_labels(*, campaign: Campaign, runs: Sequence[Run]) -> AnswerLabels:
    """The official labels (of the official nuggets and citations assignments in force; dual and training ones are
    not read) of the answers of `runs`. An answer without any label of its topic's assignment is not there; one with
    some has every nugget of the bank, a nugget left unlabelled as not_support, and every sentence, a citation left
    unlabelled as none."""
    nuggets = {run: {topic: [(nugget["importance"], labels.get(nugget["id"], NOT_SUPPORT)) for nugget in bank]
                     for topic, (bank, labels) in topics.items()}
               for run, topics in answer_nugget_labels(campaign=campaign, runs=runs).items()}
    return AnswerLabels(nuggets=nuggets,
                        citations=answer_citation_labels(campaign=campaign, runs=runs))


def answer_scores(labels: AnswerLabels, names: Iterable[str]) -> list[RunScores]:
    """Each named run's scores: per topic with labels its nugget scores (nuggetizer's: partial support counts 0.5)
    and its citations' support precision and recall; the means over the topics that have each (NaN over none:
    a run without labels)."""
    found = []
    for name in names:
        nugget = [nugget_scores(topic, pairs) for topic, pairs in labels.nuggets.get(name, {}).items()]
        support = [citation_support(topic, sentences) for topic, sentences in labels.citations.get(name, {}).items()]
        per_topic: dict[str, dict[str, float]] = {}
        for scores in nugget:
            per_topic.setdefault(scores.topic_id, {}).update(_nugget_values(scores))
        for cited in support:
            per_topic.setdefault(cited.topic_id, {}).update(
                {SUPPORT_PRECISION: cited.precision, SUPPORT_RECALL: cited.recall})
        means = dict.fromkeys(NUGGET_MEASURES, math.nan)
        if nugget:
            means.update(_nugget_values(mean_nugget_scores(nugget)))
        if support:
            mean = mean_citation_support(support)
            means.update({SUPPORT_PRECISION: mean.precision, SUPPORT_RECALL: mean.recall})
        ordered = {topic: {m: per_topic[topic][m] for m in NUGGET_MEASURES if m in per_topic[topic]}
                   for topic in sorted(per_topic, key=natural_key)}
        found.append(RunScores(name=name, per_topic=ordered, means=means,
                               topics=sum(1 for values in ordered.values() if NUGGET_VITAL in values)))
    return found


def _nugget_values(scores) -> dict[str, float]:
    return {NUGGET_VITAL: scores.vital, NUGGET_STRICT_VITAL: scores.strict_vital, NUGGET_ALL: scores.all,
            NUGGET_STRICT_ALL: scores.strict_all}


def ranked_measures(measures: Sequence[str]) -> list[str]:
    """The measures asked for but the nugget and support ones: what ranked runs are scored by beside the prime
    ones. The nugget measures are always computed where there is something to compute them of; naming them chooses
    them (the leaderboard's ?measure=, `evaluate --measures`) without asking for more."""
    return [name for name in measures if name.strip() not in NUGGET_MEASURES]


def nugget_columns(measures: Sequence[str]) -> list[str]:
    """The nugget and support measures among an evaluation's, in their order: the leaderboard's columns after the
    others (none for a campaign without runs in sentences)."""
    return [name for name in NUGGET_MEASURES if name in measures]


def nugget_measures_asked(measures: Sequence[str]) -> list[str]:
    return [name.strip() for name in measures if name.strip() in NUGGET_MEASURES]


def check_asked(measures: Sequence[str], *, campaign: Campaign, runs: Sequence[Run] | None = None) -> None:
    """A nugget measure asked of a campaign none of whose runs (of `runs`, when given) has sentences is refused:
    there is nothing it could be of."""
    asked = nugget_measures_asked(measures)
    if asked and not sentence_runs(runs=list(Run.objects.filter(campaign=campaign)) if runs is None
                                             else runs):
        raise InputError(f"{', '.join(asked)}: nugget and support scores are of generated answers in sentences "
                         f"(TREC RAG runs), and campaign '{campaign.name}' has no such run")


def merged(ranked: Sequence[RunScores], nuggets: Sequence[RunScores], order: Sequence[str]) -> list[RunScores]:
    """The runs of `order` that are in either list, each with its nugget and support scores beside its other ones:
    the ranked values first (its topic count theirs), a run's topics in natural order. Nugget values already in
    `ranked` (a stored evaluation's) are replaced."""
    by_name = {scores.name: scores for scores in ranked}
    fresh = {scores.name: scores for scores in nuggets}
    found = []
    for name in order:
        old, new = by_name.get(name), fresh.get(name)
        if new is None:
            if old is not None:
                found.append(_without_nuggets(old))
            continue
        if old is None:
            found.append(new)
            continue
        kept = _without_nuggets(old)
        per_topic = {topic: dict(values) for topic, values in kept.per_topic.items()}
        for topic, values in new.per_topic.items():
            per_topic.setdefault(topic, {}).update(values)
        found.append(RunScores(name=name, per_topic={t: per_topic[t] for t in sorted(per_topic, key=natural_key)},
                               means={**kept.means, **new.means}, topics=kept.topics))
    return found


def _without_nuggets(scores: RunScores) -> RunScores:
    per_topic = {topic: {m: v for m, v in values.items() if m not in NUGGET_MEASURES}
                 for topic, values in scores.per_topic.items()}
    return RunScores(name=scores.name, per_topic={topic: values for topic, values in per_topic.items() if values},
                     means={m: v for m, v in scores.means.items() if m not in NUGGET_MEASURES}, topics=scores.topics)


# The official support labels, read ----------------------------------------------------------------------------


def support_labelled(*, campaign: Campaign) -> bool:
    """Whether an official support assignment in force has a label (of a nugget or of a citation)."""
    assignments = official_support_assignments(campaign=campaign)
    return (SupportJudgment.objects.filter(assignment__in=assignments).exists()
            or CitationJudgment.objects.filter(assignment__in=assignments).exists())


def official_support_assignments(*, campaign: Campaign) -> QuerySet:
    """The campaign's official support assignments in force (nuggets and citations; withdrawn ones left out): whose
    labels the nugget and support scores count."""
    return SupportAssignment.objects.filter(campaign=campaign, kind=SupportAssignment.Kind.OFFICIAL,
                                            withdrawn_at__isnull=True)


def sentence_runs(*, runs: Sequence[Run]) -> list[Run]:
    """The runs among `runs`, in their order, whose answers have sentences (TREC RAG answers): the ones nugget and
    support scores are of."""
    found = set(AnswerSentence.objects.filter(answer__run__in=runs).values_list("answer__run_id", flat=True)
                .distinct())
    return [run for run in runs if run.pk in found]


def answer_nugget_labels(*, campaign: Campaign, runs: Sequence[Run]
                         ) -> dict[str, dict[str, tuple[list[dict], dict[int, str]]]]:
    """run name -> topic id -> (the frozen bank's nuggets [{id, text, importance}], nugget id -> label) of every
    answer of `runs` with at least one label of its topic's official nuggets assignment."""
    banks = dict(official_support_assignments(campaign=campaign).filter(
        task=SupportAssignment.Task.NUGGETS, bank__isnull=False).values_list("pk", "bank__nuggets"))
    found: dict[str, dict[str, tuple[list[dict], dict[int, str]]]] = {}
    for assignment, run, topic, nugget, label in (
            SupportJudgment.objects.filter(assignment__in=list(banks), answer__run__in=runs).order_by()
            .values_list("assignment_id", "answer__run__name", "answer__topic__topic_id", "nugget_id", "label")):
        found.setdefault(run, {}).setdefault(topic, (banks[assignment], {}))[1][nugget] = label
    return found


def answer_citation_labels(*, campaign: Campaign, runs: Sequence[Run]) -> dict[str, dict[str, list[list[str]]]]:
    """run name -> topic id -> the answer's sentences in order, each as its citations' labels under the topic's
    official citations assignment (a citation without one: "none"), for every answer of `runs` with at least one
    such label."""
    assignments = official_support_assignments(campaign=campaign).filter(task=SupportAssignment.Task.CITATIONS)
    labels: dict[int, dict[str, str]] = {}
    for sentence, citation, label in (CitationJudgment.objects.filter(assignment__in=assignments,
                                                                      sentence__answer__run__in=runs)
                                      .order_by().values_list("sentence_id", "citation", "label")):
        labels.setdefault(sentence, {})[citation] = label
    labelled = set(AnswerSentence.objects.filter(pk__in=list(labels)).values_list("answer_id", flat=True))
    found: dict[str, dict[str, list[list[str]]]] = {}
    for sentence, run, topic, citations in (
            AnswerSentence.objects.filter(answer_id__in=labelled).order_by("answer_id", "position")
            .values_list("pk", "answer__run__name", "answer__topic__topic_id", "citations")):
        given = labels.get(sentence, {})
        found.setdefault(run, {}).setdefault(topic, []).append([given.get(str(c), "none") for c in citations])
    return found


def support_stamp(*, campaign: Campaign) -> tuple:
    """The part of `judgments_stamp` that is the support labels': the official support assignments in force (and
    their banks), and the labels of each kind (how many, their summed revisions, the latest update)."""
    assignments = official_support_assignments(campaign=campaign)
    return (tuple(assignments.order_by("pk").values_list("pk", "bank_id")),
            *(tuple(model.objects.filter(assignment__in=assignments).aggregate(
                count=Count("pk"), summed=Sum("revision"), last=Max("updated_at")).values())
              for model in (SupportJudgment, CitationJudgment)))
