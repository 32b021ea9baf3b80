"""The leaderboard's LLM part (docs/evaluation.md): the runs scored with the qrels of the campaign's judge (the
grades its endpoint's model gave: a source of its own, never the official qrels), and how that ranking agrees with
the people's: Kendall's tau and tau_ap with bootstrap intervals over topics (`ir.rankings`), for every run and
without the runs that declare an LLM of their own. Computed in the scores' background job with the people's scores
(evaluation/snapshots.py), never in a request; docs/evaluation.md."""
from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Max, QuerySet

from evaluation import scoring, services
from ir.prime import MEASURES, Qrels, RunScores
from ir.rankings import RankCorrelation, rank_correlation
from llm import selectors as llm_selectors
from llm.models import Endpoint, LlmGrade
from pooling.models import Campaign, Run

NO_ENDPOINT = "the campaign has no LLM endpoint: set one on its LLM page to compare the judge's ranking"


def judge_model(*, campaign: Campaign) -> str:
    """The model of the campaign's endpoint, the judge; "" without an endpoint."""
    return Endpoint.objects.filter(campaign=campaign).values_list("model", flat=True).first() or ""


def llm_qrels(*, campaign: Campaign, model: str) -> Qrels:
    """topic -> item -> the model's current grade of the campaign's pool items (`llm.selectors.current_grades`: the
    newest successful one, of the endpoint's prompt when the model is the endpoint's and it names one); a formula's
    visual id takes the highest grade of its graded instances, as the official qrels do. Topics and items in natural
    order. The one rule of an LLM's qrels, `llm.selectors.llm_qrels_by_topic`: what `export_qrels --source llm:MODEL`
    writes."""
    return {topic: dict(rows) for topic, rows in llm_selectors.llm_qrels_by_topic(campaign=campaign, model=model)}


def graded(*, campaign: Campaign, model: str) -> QuerySet[LlmGrade]:
    """The grades the model's qrels are made of (`llm.selectors.current_grades`)."""
    return llm_selectors.current_grades(campaign=campaign, model=model)


def declared_models(*, campaign: Campaign) -> dict[str, str]:
    """run name -> the LLM it declares it reranks or generates with (a run fact), for the runs that declare one."""
    return dict(Run.objects.filter(campaign=campaign).exclude(llm_model="").order_by("name")
                .values_list("name", "llm_model"))


def llm_stamp(*, campaign: Campaign) -> str:
    """Changes whenever the LLM part may change: the judge's model and prompt (which of its grades count), its grades,
    the runs' declared models."""
    model, prompt = Endpoint.objects.filter(campaign=campaign).values_list("model", "prompt_id").first() or ("", None)
    grades = tuple(LlmGrade.objects.filter(campaign=campaign, model=model).aggregate(
        count=Count("pk"), last=Max("created_at")).values()) if model else ()
    return hashlib.sha256(repr((model, prompt, grades, sorted(declared_models(campaign=campaign).items()))).encode()
                          ).hexdigest()[:32]


@dataclass
class LlmBoard:
    """The judge's model; why there is no comparison (`problem`, else ""); the runs scored with its qrels; the rank
    correlations with the people's, one per prime measure, over every run (`correlations`) and without the runs that
    declare an LLM (`without`); the runs' declared models; the topics both qrels hold, over which rankings compare;
    the topics the judge's qrels hold (what a new comparison with the people's scores reads, `llm_compared`)."""

    model: str
    problem: str = ""
    runs: list[RunScores] = field(default_factory=list)
    qrels_topics: int = 0
    judgments: int = 0
    topics: list[str] = field(default_factory=list)
    correlations: list[RankCorrelation] = field(default_factory=list)
    without: list[RankCorrelation] = field(default_factory=list)
    declared: dict[str, str] = field(default_factory=dict)
    qrels_topic_ids: list[str] = field(default_factory=list)

    def flagged(self, run: str) -> bool:
        """The run declares the judge's own model: the circularity Clarke and Dietz warn of."""
        return bool(self.model) and self.declared.get(run, "").strip().casefold() == self.model.strip().casefold()

    def scores_of(self, run: str) -> RunScores | None:
        return next((scores for scores in self.runs if scores.name == run), None)


def llm_board(*, campaign: Campaign, people: services.Evaluation) -> LlmBoard:
    """The LLM part of the leaderboard beside the people's scores `people` (its options: all topics or not, the
    relevance level): the judge's qrels scored the same way, and tau and tau_ap of each prime measure's ranking."""
    model = judge_model(campaign=campaign)
    if not model:
        return LlmBoard(model="", problem=NO_ENDPOINT)
    qrels = llm_qrels(campaign=campaign, model=model)
    declared = declared_models(campaign=campaign)
    if not qrels:
        return LlmBoard(model=model, problem=f"{model} has graded no pool item yet", declared=declared)
    # The ranked runs alone, as the people's are ranked (their Task 3 runs have no place in these rankings).
    grades = scoring.campaign_grades(campaign=campaign, qrels=qrels,
                                     judged_items=graded(campaign=campaign, model=model).values("item_id"))
    judged = scoring.score(scoring.StoredRuns(campaign), grades, all_topics=people.all_topics,
                           relevance_level=people.relevance_level).runs
    held = scoring.ranked_qrels(qrels)
    found = LlmBoard(model=model, runs=judged, qrels_topics=len(held),
                     judgments=sum(len(items) for items in held.values()), declared=declared,
                     qrels_topic_ids=list(qrels))
    return llm_compared(found, people=people, qrels_topics=found.qrels_topic_ids)


def llm_compared(board: LlmBoard, *, people: services.Evaluation, qrels_topics: Collection[str]) -> LlmBoard:
    """The board's rank correlations (and the topics they are over: people's that the judge's qrels hold too,
    `qrels_topics`) against the people's scores `people`, made again: what a judgment changes of a board whose
    judge's grades have not (evaluation/topic_scores.py)."""
    held = set(qrels_topics)
    board.topics = [topic for topic in people.topics if topic in held]
    board.correlations, board.without = [], []
    names = [scores.name for scores in people.runs]
    for measure in MEASURES:
        reference, other = _values(people.runs, measure), _values(board.runs, measure)
        board.correlations.append(rank_correlation(reference, other, names, board.topics, measure=measure))
        board.without.append(rank_correlation(reference, other, [n for n in names if n not in board.declared],
                                              board.topics, measure=measure))
    return board


def _values(runs: list[RunScores], measure: str) -> dict[str, dict[str, float]]:
    return {scores.name: {topic: values[measure] for topic, values in scores.per_topic.items() if measure in values}
            for scores in runs}


def board_of(payload: dict[str, Any], runs: Callable[[list], list[RunScores]]) -> LlmBoard:
    """The LlmBoard of a snapshot's payload (`asdict` of one with its runs' scores as rows, NaN stored as null;
    `runs` decodes the rows)."""
    return LlmBoard(**{**{key: value for key, value in payload.items() if key != "rows"}, "runs": runs(payload["rows"]),
                       "correlations": [_correlation(found) for found in payload["correlations"]],
                       "without": [_correlation(found) for found in payload["without"]]})


def _correlation(found: dict[str, Any]) -> RankCorrelation:
    values: dict[str, Any] = {key: math.nan if value is None else value for key, value in found.items()}
    return RankCorrelation(**values)
