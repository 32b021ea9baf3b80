"""Fused runs (issue 28, docs/evaluation.md "Fused runs"): run files or a campaign's stored runs fused by ir/fusion.py,
written as a TREC run, scored for a sweep of RRF's k, or ingested into a campaign as a baseline marked fused (through
the run ingest service, or its job from the campaign page). The command, the page and the sweep chart call these."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import AnonymousUser, User
from django.core.files.base import ContentFile
from django.db import transaction

from evaluation import selectors as evaluation_selectors
from evaluation import services as evaluation
from ir import fusion
from ir.grades import RELEVANCE_LEVEL
from ir.measures import parse_measures
from ir.prime import MEASURES, NDCG, Qrels, natural_key, prime_of
from ir.problems import InputError, Problems
from pooling.models import Campaign, Job, Run
from pooling.services import run_ingest
from workflow.job_params import RunIngestParams
from workflow.jobs import job_create
from workflow.store import upload_save


@dataclass
class Sources:
    """The runs to fuse: their names (file names, or stored runs' names), their scores, and the task they are of."""

    names: list[str]
    runs: list[fusion.RunScores]
    task: str


def file_sources(*, paths: Sequence[str | os.PathLike], task: str | None = None) -> Sources:
    """Run files of any shape the service reads (ir/formats/runs.py through evaluation's reader), named by their file
    names; a document twice in a topic keeps its first line, as evaluation does. Any problem in any file rejects all."""
    if not paths:
        raise InputError("no run files given")
    task = task or evaluation.task_of(paths[0])
    problems: list[Problems] = []
    runs: list[fusion.RunScores] = []
    for path in paths:
        run: dict[str, dict[str, float]] = {}
        for topic_ids, item_ids, scores in evaluation.read_run_columns(path, task, problems):
            for topic, item, score in zip(topic_ids, item_ids, scores, strict=True):
                items = run.get(topic)
                if items is None:
                    run[topic] = {item: score}
                elif item not in items:
                    items[item] = score
        runs.append(run)
    evaluation.raise_problems(problems)
    return Sources(names=[Path(path).name for path in paths], runs=runs, task=task)


def stored_sources(*, campaign: Campaign, names: Sequence[str]) -> Sources:
    """A campaign's stored runs by name (ARQMath-3 Task 3 runs have no ranked list and cannot be fused)."""
    found = {run.name: run for run in Run.objects.filter(campaign=campaign, name__in=list(names))}
    problems = [f"campaign '{campaign.name}' has no run named '{name}'" for name in names if name not in found]
    problems += [f"'{name}' is an ARQMath-3 Task 3 run (one answer a topic): it cannot be fused" for name in names
                 if name in found and found[name].format == Run.Format.ARQMATH_TASK3]
    if problems:
        raise InputError(problems)
    topic_ids = evaluation_selectors.campaign_topic_ids(campaign=campaign)
    runs: list[fusion.RunScores] = []
    for name in names:
        run: dict[str, dict[str, float]] = {}
        for topic, item, score in evaluation_selectors.answer_run_rows(run=found[name], topic_ids=topic_ids):
            run.setdefault(topic, {})[item] = score
        runs.append(run)
    return Sources(names=list(names), runs=runs, task=campaign.task)


def fused_name(how: fusion.Settings) -> str:
    """A fused run's default name: its method, with RRF's k."""
    return f"fused-{how.method}-k{how.k}" if how.method == fusion.RRF else f"fused-{how.method}"


def fused_text(*, sources: Sources, how: fusion.Settings, name: str) -> str:
    """The fused run as a TREC run file, topics in natural order."""
    fused = fusion.fuse(sources.runs, how)
    return "".join(fusion.trec_lines(fused, name=name, topics=sorted(fused, key=natural_key)))


@dataclass
class SweepRow:
    k: int
    measure: str
    value: float
    topics: int


def k_sweep(*, sources: Sources, how: fusion.Settings, ks: Sequence[int], qrels: Qrels | None = None,
            qrels_path: str | os.PathLike | None = None, measure: str = NDCG, all_topics: bool = False
            ) -> list[SweepRow]:
    """RRF at each k, scored against a qrels file (or a campaign's qrels) by the prime measures or any ir_measures
    measure: the MIRMU paper's Figure 2. The mean is over the topics the fused run has judged items for, as evaluate
    gives it (or every qrels topic with `all_topics`)."""
    if how.method != fusion.RRF:
        raise InputError(f"a sweep of k is RRF's: not {how.method}")
    if any(k < 0 for k in ks):
        raise InputError("RRF's k must be 0 or more")
    extra = [] if measure in MEASURES else [measure]
    if extra:
        parse_measures(extra, relevance_level=RELEVANCE_LEVEL)  # an unknown measure: InputError before any fusion
    if qrels is None:
        problems: list[Problems] = []
        assert qrels_path is not None
        qrels = evaluation.read_qrels_file(qrels_path, problems)
        evaluation.raise_problems(problems)
        if not qrels:
            raise InputError(f"{Path(qrels_path).name}: the qrels file has no judgments")
    evaluator = evaluation.evaluator_for(qrels, measures=extra, first_result=False)
    rows: list[SweepRow] = []
    for k in ks:
        fused = fusion.fuse(sources.runs, fusion.Settings(method=fusion.RRF, k=k, weights=how.weights,
                                                          depth=how.depth, runs=how.runs))
        blocks = [_columns(fused)]
        lists = evaluation.run_lists(sources.task, blocks, qrels, None)
        scores = evaluator.scores(f"k={k}", prime_of(lists, qrels, first=sources.task == evaluation.ANSWERS),
                                  all_topics=all_topics, lists=lists)
        rows.append(SweepRow(k=k, measure=measure, value=scores.means[measure], topics=scores.topics))
    return rows


def _columns(fused: fusion.Fused) -> tuple[list[str], list[str], list[float]]:
    topics: list[str] = []
    items: list[str] = []
    scores: list[float] = []
    for topic, pairs in fused.items():
        for doc, score in pairs:
            topics.append(topic)
            items.append(doc)
            scores.append(score)
    return topics, items, scores


def sweep_lines(rows: Sequence[SweepRow]) -> list[str]:
    """k<TAB>measure<TAB>value lines, a header first."""
    return ["k\tmeasure\tvalue\n", *(f"{row.k}\t{row.measure}\t{row.value:.4f}\n" for row in rows)]


def fused_ingest(*, campaign: Campaign, sources: Sources, how: fusion.Settings, name: str,
                 user: User | None = None) -> Run:
    """Fuses and stores the fused run in the campaign through the run ingest service (its checks, its rows), marked a
    baseline and fused, its method and sources in `fused_from`."""
    text = fused_text(sources=sources, how=how, name=name)
    with tempfile.TemporaryDirectory(prefix="assess-fused-") as folder:
        path = Path(folder) / f"{name}.tsv"
        path.write_text(text, encoding="utf-8")
        return run_ingest(campaign=campaign, path=path, filename=path.name, user=user, name=name, baseline=True,
                          fused=True, fused_from=how.as_dict())


@transaction.atomic
def fused_upload(*, campaign: Campaign, names: Sequence[str], how: fusion.Settings, name: str,
                 user: User | AnonymousUser | None) -> Job:
    """The campaign page's "Add a fused baseline": fuses the stored runs and queues the job that ingests the fused run
    (as an uploaded run file is ingested), marked a baseline and fused."""
    if Run.objects.filter(campaign=campaign, name=name).exists():
        raise InputError(f"the campaign already has a run named '{name}'")
    text = fused_text(sources=stored_sources(campaign=campaign, names=names), how=how, name=name)
    stored = upload_save(file=ContentFile(text.encode("utf-8"), name=f"{name}.tsv"))
    return job_create(campaign=campaign, user=user, params=RunIngestParams(
        upload=stored, filename=f"{name}.tsv",
        options={"name": name, "baseline": True, "fused": True, "fused_from": how.as_dict()}))
