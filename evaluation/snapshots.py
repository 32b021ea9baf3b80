"""The leaderboard's and reusability's scores as pages read them: the last ones computed (a `ScoreSnapshot`), never
computed in the request. A snapshot whose judgments stamp is not the current one sends the campaign to its
recompute (a scores_refresh job, evaluation/tasks.py, at most one queued or running per campaign); meanwhile the page
shows the last scores with their age, "updating". Without a broker the job runs in-process, so the page shows fresh
scores."""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.utils import timezone

from evaluation import editions, fusion, hybrid_board, llm_board, reusability, selectors, services, topic_scores
from evaluation.models import ScoreSnapshot
from ir.measures import parse_measures
from ir.prime import NDCG, RunScores
from ir.problems import InputError
from ir.scoring import Row, rows_of, runs_of
from ir.statistics import RankAgreement, Reusability
from jobs.models import Job
from jobs.registry import JobParams
from jobs.runner import job_request_once
from nuggets.scores import check_asked, ranked_measures
from pooling.models import Campaign

LEADERBOARD, REUSABILITY = ScoreSnapshot.Kind.LEADERBOARD.value, ScoreSnapshot.Kind.REUSABILITY.value
FUSION, HYBRID = ScoreSnapshot.Kind.FUSION.value, ScoreSnapshot.Kind.HYBRID.value
ASKED_SECONDS = 24 * 3600  # a question nobody asked for this long is not recomputed until it is asked again
# The shape of the leaderboard's stored scores: their rows (ir.scoring.Row) as scoring gives them. Part of the
# version, so that scores stored in another shape are recomputed, and shown as never computed meanwhile.
FORMAT = 2


@dataclass
class Snapshot:
    """What a page shows: the last scores (an Evaluation or a ReusabilityResult; None when there is nothing to
    score, `problem` saying why), when they were computed (None: never yet, "computing…"), and whether newer
    judgments are being scored ("updating")."""

    value: Any
    problem: str
    computed_at: datetime | None
    updating: bool
    llm: llm_board.LlmBoard | None = None  # the leaderboard's LLM part, computed with the scores
    # The leaderboard's runs scored against each of the campaign's earlier editions, computed with the scores.
    editions: list[editions.Edition] = field(default_factory=list)
    idle: bool = False  # nothing to compute (`selectors.nothing_to_score`): an empty table, `problem` saying why

    @property
    def computing(self) -> bool:
        return self.computed_at is None and not self.idle


def leaderboard(*, campaign: Campaign, all_topics: bool = False, measures: Sequence[str] = ()) -> Snapshot:
    """The leaderboard's last scores (`services.evaluate_campaign`) of these measures at the campaign's relevance
    level. An unknown measure is refused (InputError), and so is a nugget measure of a campaign without runs in
    sentences (they are computed with the scores whenever there are such runs). A campaign with no run or no
    official judgment has nothing to compute: an idle snapshot, without a recompute."""
    check_asked(measures, campaign=campaign)
    measures = ranked_measures(measures)  # a nugget measure is chosen, never computed apart
    parse_measures(measures, relevance_level=campaign.relevance_level)
    if (idle := _idle(campaign)) is not None:
        return idle
    asked = {"all_topics": bool(all_topics), "measures": list(measures), "relevance_level": campaign.relevance_level}
    return _read(campaign, LEADERBOARD, asked, leaderboard_version(campaign))


def _idle(campaign: Campaign) -> Snapshot | None:
    """The snapshot of every kind for a campaign with nothing to score (no run, or no official judgment): an empty
    table saying why, never "being computed", and nothing queued."""
    empty = selectors.nothing_to_score(campaign=campaign)
    return Snapshot(value=None, problem=empty, computed_at=None, updating=False, idle=True) if empty else None


def scores_or_empty(snapshot: Snapshot, *, campaign: Campaign, all_topics: bool) -> services.Evaluation:
    """The snapshot's scores, or an empty table (no run, no judgment) where there are none to show: what the CSV and
    the API answer for a campaign with nothing to score."""
    if snapshot.value is not None:
        return snapshot.value
    return services.Evaluation(runs=[], qrels_topics=0, all_topics=bool(all_topics),
                               relevance_level=campaign.relevance_level)


def leaderboard_version(campaign: Campaign) -> str:
    """The judgments stamp, the LLM part's (the judge's model, its grades, the runs' declared models) and the earlier
    editions' (their qrels added or removed)."""
    return hashlib.sha256(f"{selectors.scores_version(campaign=campaign)}|{llm_board.llm_stamp(campaign=campaign)}"
                          f"|{editions.editions_stamp(campaign=campaign)}|{FORMAT}".encode()).hexdigest()[:32]


def reusability_scores(*, campaign: Campaign, depth: int | None = None) -> Snapshot:
    """The last leave-one-team-out table (`reusability.reusability_campaign`) at this depth (the primary one unless
    given). A depth below 1 is refused (InputError)."""
    depth = campaign.primary_depth if depth is None else depth
    if depth < 1:
        raise InputError(f"the depth must be at least 1, not {depth}")
    if (idle := _idle(campaign)) is not None:
        return idle
    asked = {"depth": depth, "relevance_level": campaign.relevance_level}
    return _read(campaign, REUSABILITY, asked, reusability_version(campaign))


def fusion_sweep(*, campaign: Campaign) -> Snapshot:
    """The last sweep of RRF's k over the campaign's primary runs (`fusion.campaign_sweep`): a list of SweepRow."""
    if (idle := _idle(campaign)) is not None:
        return idle
    asked = {"ks": list(fusion.SWEEP_KS), "measure": NDCG, "relevance_level": campaign.relevance_level}
    return _read(campaign, FUSION, asked, fusion_version(campaign))


def hybrid(*, campaign: Campaign, model: str | None = None) -> Snapshot | None:
    """The last board of the runs under the hybrid qrels (`hybrid_board.hybrid_board`) of the model's calibration
    (InputError when it has none), else of the campaign's latest; None when the campaign has no calibration."""
    calibration = hybrid_board.calibration_chosen(campaign=campaign, model=model)
    if calibration is None:
        return None
    if (idle := _idle(campaign)) is not None:
        return idle
    asked = {"model": calibration.model, "relevance_level": campaign.relevance_level}
    return _read(campaign, HYBRID, asked, hybrid_board.hybrid_version(campaign=campaign, model=calibration.model))


def fusion_version(campaign: Campaign) -> str:
    """The judgments stamp, and the runs the sweep fuses."""
    runs = "|".join(fusion.sweep_runs(campaign=campaign))
    return hashlib.sha256(f"{selectors.scores_version(campaign=campaign)}|{runs}".encode()).hexdigest()[:32]


def reusability_version(campaign: Campaign) -> str:
    """The judgments stamp, and the runs' teams (a team changed regroups the table)."""
    teams = "|".join(reusability.run_team(run) for run in reusability.ranked_runs(campaign))
    return hashlib.sha256(f"{selectors.scores_version(campaign=campaign)}|{teams}".encode()).hexdigest()[:32]


def _read(campaign: Campaign, kind: str, asked: dict, version: str) -> Snapshot:
    now = timezone.now()
    key = hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()
    snapshot, _ = ScoreSnapshot.objects.get_or_create(campaign=campaign, kind=kind, key=key,
                                                      defaults={"asked": asked, "asked_at": now})
    if snapshot.version != version:
        ScoreSnapshot.objects.filter(pk=snapshot.pk).update(asked_at=now)
        if scores_refresh_request(campaign=campaign):
            snapshot.refresh_from_db()  # without a broker the job has run: the new scores are there
    payload, computed_at = snapshot.payload or {}, snapshot.computed_at
    if kind == LEADERBOARD and computed_at is not None and payload.get("format") != FORMAT:
        payload, computed_at = {}, None  # stored in another shape: being recomputed (the version says so)
    value = None if computed_at is None or "problem" in payload else _decode(kind, payload)
    if value is not None and kind == LEADERBOARD:
        value.version = snapshot.version
    llm = (llm_board.board_of(payload["llm"], _runs)
           if value is not None and kind == LEADERBOARD and "llm" in payload else None)
    earlier = [editions.Edition(found["label"], _evaluation(found["evaluation"]))
               for found in payload.get("editions", [])] if kind == LEADERBOARD else []
    return Snapshot(value=value, problem=payload.get("problem", ""), computed_at=computed_at,
                    updating=snapshot.version != version, llm=llm, editions=earlier)


def scores_refresh(*, campaign_pk: int) -> int:
    """Recomputes the campaign's stale snapshots that pages asked for lately, again while judgments keep changing
    them. Returns how many it computed."""
    computed = 0
    campaign = Campaign.objects.filter(pk=campaign_pk).first()
    while campaign is not None:
        versions = {LEADERBOARD: leaderboard_version(campaign),
                    REUSABILITY: reusability_version(campaign), FUSION: fusion_version(campaign)}
        current = {snapshot.pk: _version(campaign, snapshot, versions) for snapshot in ScoreSnapshot.objects.filter(
                    campaign=campaign, asked_at__gte=timezone.now() - timedelta(seconds=ASKED_SECONDS),
                    asked__relevance_level=campaign.relevance_level)}
        stale = [snapshot for snapshot in ScoreSnapshot.objects.filter(pk__in=current)
                 if snapshot.version != current[snapshot.pk]]
        due = _due(stale)
        if not due:
            break
        for snapshot in due:
            snapshot.payload = _compute(campaign, snapshot.kind, snapshot.asked, snapshot.payload)
            snapshot.version, snapshot.computed_at = current[snapshot.pk], timezone.now()
            snapshot.save(update_fields=["payload", "version", "computed_at"])
            computed += 1
        campaign.refresh_from_db()
    return computed


def _version(campaign: Campaign, snapshot: ScoreSnapshot, versions: dict[str, str]) -> str:
    """The version a snapshot's question has now: its kind's, or for a hybrid board its model's."""
    if snapshot.kind == HYBRID:
        return hybrid_board.hybrid_version(campaign=campaign, model=snapshot.asked["model"])
    return versions[snapshot.kind]


def _due(stale: list[ScoreSnapshot]) -> list[ScoreSnapshot]:
    """What to compute next of the stale snapshots: every leaderboard first; else the one analysis (reusability,
    the sweep, the hybrid board) most overdue of those due: never computed, asked for by its page's button
    (`reusability_ask`), or computed `SCORES_ANALYSES_SECONDS` ago or longer. One at a time, so that a judgment
    made meanwhile has its leaderboard recomputed before the next one."""
    boards = [snapshot for snapshot in stale if snapshot.kind == LEADERBOARD]
    if boards:
        return boards
    since = timezone.now() - timedelta(seconds=settings.SCORES_ANALYSES_SECONDS)
    due = [snapshot for snapshot in stale if snapshot.computed_at is None or not snapshot.version
           or snapshot.computed_at <= since]
    return sorted(due, key=lambda snapshot: (snapshot.computed_at is not None, snapshot.computed_at))[:1]


def reusability_ask(*, campaign: Campaign, depth: int | None = None) -> None:
    """The reusability page's button: its table at this depth recomputed with the newest judgments now rather than on
    its schedule (`_due`); the next read sends the recompute."""
    depth = campaign.primary_depth if depth is None else depth
    _ask(campaign, REUSABILITY, {"depth": depth, "relevance_level": campaign.relevance_level})


def fusion_ask(*, campaign: Campaign) -> None:
    """The sweep's button, as `reusability_ask`."""
    _ask(campaign, FUSION, {"ks": list(fusion.SWEEP_KS), "measure": NDCG, "relevance_level": campaign.relevance_level})


def _ask(campaign: Campaign, kind: str, asked: dict) -> None:
    """A stale snapshot's version cleared: `_due` takes it at once (a fresh one is left as it is)."""
    key = hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()
    current = reusability_version(campaign) if kind == REUSABILITY else fusion_version(campaign)
    ScoreSnapshot.objects.filter(campaign=campaign, kind=kind, key=key).exclude(version=current).update(version="")


def _compute(campaign: Campaign, kind: str, asked: dict, stored: dict | None = None) -> dict:
    if kind == LEADERBOARD:
        found = topic_scores.leaderboard_scores(
            campaign=campaign, all_topics=asked["all_topics"], measures=asked["measures"],
            relevance_level=asked["relevance_level"], previous=_previous(stored))
        kept = {"editions": [{"label": e.label, "evaluation": _scores(e.evaluation)} for e in found.editions],
                "format": FORMAT, "stamps": found.stamps.stored()}
        if found.people is None or found.llm is None:
            return _plain({"problem": found.problem, **kept})
        llm = {**{key: value for key, value in asdict(found.llm).items() if key != "runs"},
               "rows": _rows(found.llm.runs)}
        return _plain({**_scores(found.people), "llm": llm, **kept})
    try:
        if kind == HYBRID:
            return _plain(asdict(hybrid_board.hybrid_board(campaign=campaign, model=asked["model"])))
        if kind == FUSION:
            rows = fusion.campaign_sweep(campaign=campaign, ks=asked["ks"], measure=asked["measure"],
                                         relevance_level=asked["relevance_level"])
            return _plain({"rows": [asdict(row) for row in rows]})
        return _plain(asdict(reusability.reusability_campaign(campaign=campaign, depth=asked["depth"])))
    except InputError as exc:  # no judgments yet is an answer too
        return {"problem": "; ".join(exc.messages())}


def _previous(stored: dict | None) -> topic_scores.Previous | None:
    """A leaderboard snapshot's stored scores as topic_scores splices into them (None: none, or stored in another
    shape or without stamps)."""
    if not stored or stored.get("format") != FORMAT or (stamps := topic_scores.stamps_of(stored.get("stamps"))) is None:
        return None
    earlier = [editions.Edition(found["label"], _evaluation(found["evaluation"])) for found in stored["editions"]]
    people = None if "problem" in stored else _evaluation(stored)
    llm = llm_board.board_of(stored["llm"], _runs) if people is not None and "llm" in stored else None
    return topic_scores.Previous(people=people, llm=llm, editions=earlier, stamps=stamps)


def _plain(value: Any) -> Any:
    """JSON as PostgreSQL takes it: NaN (a mean over no topic) as null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _nan(value: float | None) -> float:
    return math.nan if value is None else value


def _scores(evaluation: services.Evaluation) -> dict:
    """An Evaluation as stored: what the qrels held and the runs' rows (scoring's rows, `[run, topic, measure,
    value]`), the version left to the snapshot's own."""
    kept = {item.name: getattr(evaluation, item.name) for item in fields(evaluation)
            if item.name not in ("runs", "answer_runs", "version")}
    return {**kept, "rows": _rows(evaluation.runs), "answer_rows": _rows(evaluation.answer_runs)}


def _rows(runs: Sequence[RunScores]) -> list[list]:
    return [list(row) for row in rows_of(runs)]


def _runs(rows: list[list]) -> list[RunScores]:
    """The runs of stored rows, a mean stored as null (over no topic) NaN again."""
    return runs_of(Row(run, topic, measure, _nan(value)) for run, topic, measure, value in rows)


def _evaluation(payload: dict) -> services.Evaluation:
    kept = {key: value for key, value in payload.items()
            if key not in ("rows", "answer_rows", "topic_counts", "llm", "editions", "format", "stamps")}
    return services.Evaluation(**kept, runs=_runs(payload["rows"]), answer_runs=_runs(payload["answer_rows"]),
                               topic_counts=[tuple(counts) for counts in payload["topic_counts"]])


def _decode(kind: str, payload: dict) -> Any:
    if kind == HYBRID:
        return hybrid_board.board_of(payload)
    if kind == FUSION:
        return [fusion.SweepRow(**{**row, "value": _nan(row["value"])}) for row in payload["rows"]]
    if kind == LEADERBOARD:
        return _evaluation(payload)
    return reusability.ReusabilityResult(
        rows=[Reusability(**{**row, "full": _nan(row["full"]), "leave_team_out": _nan(row["leave_team_out"])})
              for row in payload["rows"]],
        agreements=[RankAgreement(**{**found, "kendall_tau": _nan(found["kendall_tau"]),
                                     "tau_ap": _nan(found["tau_ap"]), "changed_runs": tuple(found["changed_runs"])})
                    for found in payload["agreements"]],
        depth=payload["depth"], relevance_level=payload["relevance_level"], teams=payload["teams"])




@dataclass(frozen=True)
class ScoresRefreshParams(JobParams):
    """snapshots.scores_refresh of the job's campaign: nothing more to say."""

    kind: ClassVar[str] = Job.Kind.SCORES_REFRESH


def scores_refresh_request(*, campaign: Campaign) -> bool:
    """Queues the recompute of the campaign's scores unless one is pending (jobs.runner.job_request_once); whether it
    did."""
    return job_request_once(params=ScoresRefreshParams(), campaign=campaign)


