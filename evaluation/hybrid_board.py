"""The leaderboard's runs under hybrid qrels (docs/evaluation.md, "Under hybrid qrels"; docs/llm_calibration.md): each
run's mean of the leaderboard's first measure under the official qrels and under the hybrid qrels of a calibrated
model (people's grades, the calibrated most probable grade elsewhere: what `export_qrels --source hybrid:MODEL`
writes), with the bootstrap intervals of `ir.hybrid_intervals` (topics resampled, the filled grades drawn from their
calibrated probabilities, the calibrator's weights drawn from their posterior). Computed in the scores' background job
(evaluation/snapshots.py), never in a request."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from agreement.calibration import calibration_resampler
from evaluation import scoring, selectors, services
from ir.prime import MEASURES, top_items
from ir.problems import InputError
from ir.statistics import ranks
from llm.models import Calibration
from pooling.models import Campaign

MEASURE = MEASURES[0]  # the leaderboard's first measure, which orders it and ranks the LLM's part (nDCG')
MIN_REPLICATES = 100  # fewer make the 2.5 and 97.5 percentiles too coarse, whatever the campaign's size
FORMAT = 1  # the stored board's shape: part of its version


@dataclass(frozen=True)
class HybridRow:
    """A run: its mean and rank under the official qrels (None: no official topic), its mean under the hybrid
    qrels, that mean's 95% interval and its rank's (best, worst)."""

    run: str
    official: float | None
    official_rank: int | None
    hybrid: float
    low: float
    high: float
    rank_best: int
    rank_worst: int


@dataclass
class HybridBoard:
    """The runs under one calibration's hybrid qrels, best hybrid mean first; what it was computed from."""

    model: str
    calibration_version: int
    humans: int  # the judged items the calibration was fitted on
    measure: str = MEASURE
    replicates: int = 0
    topics: int = 0  # the hybrid qrels' topics, the official qrels' (`official_topics`): what each mean is over
    official_topics: int = 0
    filled: int = 0  # the hybrid qrels' items no person judged, their grades drawn in each replicate
    judged: int = 0
    rows: list[HybridRow] = field(default_factory=list)


def calibration_chosen(*, campaign: Campaign, model: str | None = None) -> Calibration | None:
    """The calibration the board shows: the model's (InputError when it has none), else the campaign's latest; None
    when the campaign has none. Its probabilities are not read."""
    rows = list(Calibration.objects.filter(campaign=campaign).defer("probabilities").order_by("-fitted_at", "-pk"))
    if model:  # matched here, not in SQL: a name from a request may hold anything, NUL included
        found = next((row for row in rows if row.model == model), None)
        if found is None:
            known = ", ".join(sorted(row.model for row in rows)) or "none"
            raise InputError(f"no calibration of model '{model[:200]}' in campaign '{campaign.name}' (calibrated: "
                             f"{known[:400]})")
        return found
    return rows[0] if rows else None


def calibrated_models(*, campaign: Campaign) -> list[str]:
    return list(Calibration.objects.filter(campaign=campaign).order_by("model").values_list("model", flat=True))


def hybrid_version(*, campaign: Campaign, model: str) -> str:
    """The official judgments' stamp (the scores') and the model's calibration's version: either changed, the board
    is recomputed."""
    fitted = Calibration.objects.filter(campaign=campaign, model=model).values_list("pk", "version").first()
    return hashlib.sha256(f"{selectors.scores_version(campaign=campaign)}|{fitted}|{FORMAT}".encode()).hexdigest()[:32]


def replicates_for(*, runs: int, items: int) -> int:
    """HYBRID_BOARD_REPLICATES, fewer where the runs times the qrels' items exceed what HYBRID_BOARD_WORK allows
    (each replicate scores every run on every item), never fewer than MIN_REPLICATES."""
    most = settings.HYBRID_BOARD_REPLICATES
    allowed = settings.HYBRID_BOARD_WORK // max(1, runs * items)
    return max(min(MIN_REPLICATES, most), min(most, allowed))


def hybrid_board(*, campaign: Campaign, model: str) -> HybridBoard:
    """The board of the model's calibration (InputError without one, or without official judgments): the hybrid
    qrels as exported (visual ids for formulas; an answers campaign's Task 3 answers left out, as its Task 1 runs are
    scored), the campaign's ranked runs cut to those items (the prime filter drops the others), scored per topic by
    `MEASURE`, every qrels topic counted (a topic a run retrieves nothing judged of counts 0)."""
    import numpy as np  # late: the pages that load this module need neither numpy nor scipy

    from ir.hybrid_intervals import hybrid_intervals, per_topic_scorer

    calibration = calibration_chosen(campaign=campaign, model=model)
    assert calibration is not None  # calibration_chosen refuses a model without one
    probabilities = Calibration.objects.filter(pk=calibration.pk).values_list("probabilities", flat=True).get()
    sources: dict[tuple[str, str], str] = {}
    lines = list(services.qrels_export_lines(campaign=campaign, source=f"{services.HYBRID}:{model}", sources=sources))
    answer_ids = selectors.campaign_answer_ids(campaign=campaign) if campaign.task == scoring.ANSWERS else set()
    width = max(g.value for g in campaign.judging_scheme.grades) + 1
    items: list[tuple[str, str]] = []
    rows: list[list[float]] = []
    human: dict[int, int] = {}
    held: dict[str, dict[str, int]] = {}  # topic -> item -> its grade under the hybrid qrels
    for line in lines:
        topic, _zero, item, grade = line.rstrip("\n").split("\t")
        person = sources.get((topic, item)) == services.PEOPLE
        calibrated = probabilities.get(topic, {}).get(item)
        if item in answer_ids or not (person or calibrated):
            continue  # a Task 3 answer; an item a refit made meanwhile no longer has (the next version redoes it)
        if person:
            human[len(items)] = int(grade)
        items.append((topic, item))
        rows.append([float(g == int(grade)) for g in range(width)] if person
                    else (list(calibrated) + [0.0] * width)[:width])
        held.setdefault(topic, {})[item] = int(grade)
    if not human:
        raise InputError(f"campaign '{campaign.name}' has no official judgments yet: there is nothing to score")
    matrix = np.array(rows, dtype=float)
    runs = scoring.StoredRuns(campaign).ranked()
    topic_ids = selectors.campaign_topic_ids(campaign=campaign)
    ranked = {run.name: {topic: [item for _score, item in top_items(found) if item in held[topic]]
                         for topic, found in scoring.stored_run_lists(campaign=campaign, run=run, qrels=held,
                                                                      topic_ids=topic_ids).items()}
              for run in runs}
    scorer = per_topic_scorer(ranked, measure=MEASURE, relevance_level=campaign.relevance_level)
    replicates = replicates_for(runs=len(runs), items=len(items))
    found = hybrid_intervals(items=items, human=human, calibrated=matrix, scorer=scorer, replicates=replicates,
                             resample_topics=True, refit=calibration_resampler(campaign=campaign, model=model,
                                                                               rule=calibration.rule, items=items,
                                                                               calibrated=matrix))
    official_qrels: dict[str, dict[str, int]] = {}
    for index, given in human.items():
        official_qrels.setdefault(items[index][0], {})[items[index][1]] = given
    per_topic = scorer(official_qrels)
    official = {run: float(np.mean([values.get(topic, 0.0) for topic in official_qrels]))
                for run, values in per_topic.items()}
    official_ranks = ranks(official)
    board = HybridBoard(model=model, calibration_version=calibration.version, humans=calibration.humans,
                        replicates=replicates, topics=len(held), official_topics=len(official_qrels),
                        filled=len(items) - len(human), judged=len(human))
    board.rows = sorted((HybridRow(run, official.get(run), official_ranks.get(run), found.means[run],
                                   *found.mean_intervals[run], *found.rank_intervals[run]) for run in found.runs),
                        key=lambda row: (-row.hybrid, row.run))
    return board


def board_of(payload: dict[str, Any]) -> HybridBoard:
    """The HybridBoard of a snapshot's payload (`asdict` of one)."""
    return HybridBoard(**{**payload, "rows": [HybridRow(**row) for row in payload["rows"]]})
