"""`simulate_judging` and the planner's curves: judging orders replayed on an earlier edition's qrels and runs
(ir/pools/simulate.py), the files read as `evaluate` and `reusability` read them."""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from django.db.models import QuerySet

from evaluation import selectors, services
from evaluation.reusability import ranked, ranked_runs
from ir.formats.runs import TREC, RunSummary, run_name
from ir.pools.adaptive import WARM_UP
from ir.pools.posts import pooling_order
from ir.pools.simulate import PolicyResult, check_simulation, simulate
from ir.prime import Qrels, answer_block_lists
from ir.problems import InputError, Problems
from ir.statistics import RankedRun
from jobs.models import Job
from jobs.registry import JobParams
from jobs.runner import job_create
from pooling.models import Campaign
from pooling.ranking import top_entries

if TYPE_CHECKING:
    from ir.budget_simulation import BudgetRow
# ir/budget_simulation.py (numpy, scipy) is imported where a budget is replayed: every command loads this app, and
# starts without them (tests/test_start_up_imports.py).


def simulate_files(*, qrels_path: str | os.PathLike, run_paths: Sequence[str | os.PathLike], depth: int,
                   policies: Sequence[str], seed: int = 0, relevance_level: int = services.RELEVANCE_LEVEL,
                   warm_up: int = WARM_UP, min_depth: int = 0, budget: int | None = None) -> list[PolicyResult]:
    """Each policy replayed on the pools of the run files (Task 1 answer runs, named as ingest_run names them) at
    `depth`, with the qrels file as the assessor: the order a campaign of these runs at this depth shows an assessor
    who grades as the qrels do. Any problem in any file rejects all."""
    check_simulation(depth=depth, policies=policies, relevance_level=relevance_level, warm_up=warm_up,
                     min_depth=min_depth, budget=budget)
    qrels, runs, pooled = replay_files(qrels_path, run_paths)
    return simulate(runs, qrels, depth=depth, policies=policies, seed=seed, relevance_level=relevance_level,
                    warm_up=warm_up, min_depth=min_depth, budget=budget, pooled=pooled)


def budget_files(*, qrels_path: str | os.PathLike, run_paths: Sequence[str | os.PathLike], llm_path: str, **o
                 ) -> list[BudgetRow]:
    """`simulate_judging --llm`: people's and a model's judgments under one budget (ir/budget_simulation.py)."""
    from ir.budget_simulation import check_replay, read_model_file, replay

    check_replay(o["policies"], o["shares"])
    services.check_level(o["relevance_level"])
    qrels, runs, _pooled = replay_files(qrels_path, run_paths)
    return replay(qrels, runs, read_model_file(llm_path), **o)


def replay_files(qrels_path: str | os.PathLike, run_paths: Sequence[str | os.PathLike]
                 ) -> tuple[Qrels, dict[str, RankedRun], dict[str, RankedRun]]:
    """The qrels and the runs' lists, as scored and as pooled (`file_lists`); any problem in any file rejects all."""
    if not run_paths:
        raise InputError("no run files given")
    if services.task_of(run_paths[0]) != services.ANSWERS:
        raise InputError(f"{Path(run_paths[0]).name}: a formula run; the simulator pools answer runs (Task 1)")
    problems: list[Problems] = []
    qrels = services.read_qrels_file(qrels_path, problems)
    runs: dict[str, RankedRun] = {}
    pooled: dict[str, RankedRun] = {}
    for path in run_paths:
        name = run_name(Path(path).name)
        if name in runs:
            problems.append(services.file_problem(Path(path).name, f"two runs would be named '{name}' (the file name "
                                                  "without its extension); their rows could not be told apart"))
            continue
        runs[name], pooled[name] = file_lists(path, qrels, problems)
    services.raise_problems(problems)
    if not qrels:
        raise InputError(f"{Path(qrels_path).name}: the qrels file has no judgments")
    return qrels, runs, pooled


def file_lists(path: str | os.PathLike, qrels: Qrels, problems: list[Problems]) -> tuple[RankedRun, RankedRun]:
    """A Task 1 run file's lists of the qrels topics, read once: as `evaluate` scores them (trec_eval's order) and
    as the pool build reads them (`pooling_order`: by rank; they differ where scores tie)."""
    summary = RunSummary()
    rows: dict[str, list[tuple[str, int, float]]] = {}

    def blocks():
        for block in services.read_run_file(path, services.ANSWERS, problems, summary=summary):
            for topic, item, rank, score in zip(block.topic_ids, block.item_ids, block.ranks, block.scores,
                                                strict=True):
                if topic in qrels:
                    rows.setdefault(topic, []).append((item, rank, score))
            yield block.topic_ids, block.item_ids, block.scores

    scored = ranked(answer_block_lists(blocks(), qrels))
    trec = summary.format == TREC
    return scored, {topic: pooling_order(topic_rows, trec=trec) for topic, topic_rows in rows.items()}


# --- the planner's curves: the campaign's own runs replayed against an earlier edition's qrels --------------------

def simulate_campaign(*, campaign: Campaign, qrels: Qrels, depth: int, policies: Sequence[str], seed: int = 0,
                      warm_up: int = WARM_UP, min_depth: int = 0, budget: int | None = None) -> list[PolicyResult]:
    """The campaign's answer runs (read whole from the database, as they are scored) pooled at `depth` as the pool
    build pools them (`pooling.ranking.top_entries`) and judged in each policy's order by a qrels of another edition
    (the topics both share), at the campaign's relevance level."""
    check_simulation(depth=depth, policies=policies, relevance_level=campaign.relevance_level, warm_up=warm_up,
                     min_depth=min_depth, budget=budget)
    if campaign.task != Campaign.Task.ANSWERS:
        raise InputError("the simulator replays answer runs (Task 1); this campaign judges formulas")
    topic_ids = selectors.campaign_topic_ids(campaign=campaign)
    shared = set(topic_ids.values()) & set(qrels)
    if not shared:
        raise InputError("the qrels judge none of the campaign's topics: upload the qrels of the edition whose runs "
                         "(and topic ids) the campaign holds")
    qrels = {topic: qrels[topic] for topic in shared}
    stored = list(ranked_runs(campaign))
    runs = _stored_ranked(campaign, stored, qrels, topic_ids)
    names = {run.pk: run.name for run in stored}
    pooled: dict[str, dict[str, list[str]]] = {}
    for run_pk, topic_pk, item_id, _post_id in top_entries(campaign, depth):
        if run_pk in names and topic_ids[topic_pk] in qrels:
            pooled.setdefault(names[run_pk], {}).setdefault(topic_ids[topic_pk], []).append(item_id)
    return simulate(runs, qrels, depth=depth, policies=policies, seed=seed, relevance_level=campaign.relevance_level,
                    warm_up=warm_up, min_depth=min_depth, budget=budget, pooled=pooled)


def _stored_ranked(campaign: Campaign, stored: Sequence, qrels: Qrels, topic_ids: dict[int, str]
                   ) -> dict[str, RankedRun]:
    """Each stored run's lists of the qrels' topics, best first, as they are scored."""
    runs = {run.name: ranked(services.stored_run_lists(campaign=campaign, run=run, qrels=qrels, topic_ids=topic_ids))
            for run in stored}
    if not runs:
        raise InputError("the campaign has no runs to pool")
    return runs


BUDGET_REPLICATES = 50  # the coverage's bootstrap on the planner: a job of seconds, not minutes


def budget_campaign(*, campaign: Campaign, qrels: Qrels, model: dict[str, list[float]], policies: Sequence[str],
                    shares: Sequence[float], seed: int = 0) -> list[BudgetRow]:
    """Budgets of people and a model's grades replayed on the campaign's runs (`ir.budget_simulation.replay`, what
    `simulate_judging --llm` prints): the qrels of the topics the campaign shares, the model's grades of them
    (`model`: "topic<TAB>item" -> one probability per grade, lowest first)."""
    if campaign.task != Campaign.Task.ANSWERS:
        raise InputError("the simulator replays answer runs (Task 1); this campaign judges formulas")
    topic_ids = selectors.campaign_topic_ids(campaign=campaign)
    qrels = {topic: grades for topic, grades in qrels.items() if topic in set(topic_ids.values())}
    if not qrels:
        raise InputError("the qrels judge none of the campaign's topics")
    runs = _stored_ranked(campaign, list(ranked_runs(campaign)), qrels, topic_ids)
    import numpy as np

    from ir.budget_simulation import replay

    grades: dict[tuple[str, str], np.ndarray] = {}
    for key, values in model.items():
        topic, _, item = key.partition("\t")
        grades[topic, item] = np.array(values)
    return replay(qrels, runs, grades, policies=policies, shares=shares, relevance_level=campaign.relevance_level,
                  seed=seed, replicates=BUDGET_REPLICATES)


def simulation_request(*, campaign: Campaign, qrels: Qrels, qrels_name: str, params: dict) -> Job:
    """Queues the campaign's simulation as a job (judging_simulation, run in this process without a broker), once
    the transaction commits."""
    check_simulation(depth=params["depth"], policies=params["policies"], relevance_level=campaign.relevance_level,
                     warm_up=params["warm_up"], min_depth=params["min_depth"], budget=params["budget"])
    return job_create(campaign=campaign, params=JudgingSimulationParams(
        qrels={topic: dict(grades) for topic, grades in qrels.items()}, filename=qrels_name, **params))


def _simulations(campaign: Campaign) -> QuerySet[Job]:
    return Job.objects.filter(campaign=campaign, kind=Job.Kind.JUDGING_SIMULATION).order_by("-created_at", "-pk")


def _stored(job: Job) -> dict:
    """A simulation job as the planner's page shows it: its state (computing, done or failed), the settings and the
    qrels file it replayed, and each policy's curve, judged_for_90 and tau_at_budget once done, or the problem."""
    params = {key: value for key, value in job.params.items() if key not in ("qrels", "filename", "model")}
    stored = {"params": params, "qrels_name": job.params.get("filename", ""), "asked_at": job.created_at.isoformat()}
    if not job.finished:
        return stored | {"state": "computing"}
    stored["computed_at"] = (job.finished_at or job.created_at).isoformat()
    if job.status == Job.Status.DONE:
        return stored | {"state": "done", "results": job.result.get("results", []),
                         "budget": job.result.get("budget", [])}
    if job.problems:
        problem = "; ".join(found["message"] for found in job.problems)
    elif job.status == Job.Status.CANCELLED:
        problem = "cancelled"
    else:  # the page must not say "computing" for ever: it says what happened, and the worker's log has the rest
        problem = "an internal error (see the worker's log)"
    return stored | {"state": "failed", "problem": problem}


def simulation_result(*, campaign: Campaign) -> dict | None:
    """The campaign's last simulation: state computing, done (with each policy's curve, judged_for_90 and
    tau_at_budget) or failed (with the problem); None when none was asked for."""
    job = _simulations(campaign).first()
    return _stored(job) if job is not None else None


def simulation_last_done(*, campaign: Campaign) -> dict | None:
    """The campaign's last simulation that was done, kept while a later one computes or after it failed."""
    job = _simulations(campaign).filter(status=Job.Status.DONE).first()
    return _stored(job) if job is not None else None


@dataclass(frozen=True)
class JudgingSimulationParams(JobParams):
    """simulation.simulate_campaign of the job's campaign: an earlier edition's qrels (topic -> item -> grade, read
    from the file `filename` by the planner's page) and the replay's settings."""

    kind: ClassVar[str] = Job.Kind.JUDGING_SIMULATION
    qrels: dict[str, dict[str, int]]
    filename: str
    depth: int
    policies: list[str] = field(default_factory=list)
    warm_up: int = 0
    min_depth: int = 0
    budget: int | None = None
    seed: int = 0
    # A model's grades ("topic<TAB>item" -> a probability per grade, lowest first, from the file `model_name`) and
    # the budget shares to replay them at: the budget curves beside the judging orders' (budget_campaign).
    model: dict[str, list[float]] = field(default_factory=dict)
    model_name: str = ""
    shares: list[float] = field(default_factory=list)

    def replay(self) -> dict:
        """The replay's settings, as the planner's form names them."""
        return {"depth": self.depth, "warm_up": self.warm_up, "min_depth": self.min_depth, "budget": self.budget,
                "policies": list(self.policies), "seed": self.seed}
