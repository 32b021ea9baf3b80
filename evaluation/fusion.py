"""Fused runs (docs/evaluation.md "Fused runs"): run files or a campaign's stored runs read for
ir/fusion.py, fused into a TREC run, and scored for a sweep of RRF's k (the command and the leaderboard's chart).
Ingesting a fused run is workflow's (workflow/fusion.py)."""
from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.bounds import max_chars
from evaluation import scoring
from evaluation import selectors as evaluation_selectors
from ir import fusion
from ir.grades import RELEVANCE_LEVEL
from ir.measures import parse_measures
from ir.prime import MEASURES, NDCG, Qrels, natural_key
from ir.problems import InputError, Problems
from pooling.models import Campaign, Run


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
    task = task or scoring.task_of(paths[0])
    problems: list[Problems] = []
    runs: list[fusion.RunScores] = []
    for path in paths:
        run: dict[str, dict[str, float]] = {}
        for topic_ids, item_ids, scores in scoring.read_run_columns(path, task, problems):
            for topic, item, score in zip(topic_ids, item_ids, scores, strict=True):
                items = run.get(topic)
                if items is None:
                    run[topic] = {item: score}
                elif item not in items:
                    items[item] = score
        runs.append(run)
    scoring.raise_problems(problems)
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
    """The fused run as a TREC run file, topics in natural order; InputError for a name that cannot be its run tag
    (every row carries it as its last column: one word, at most as long as a run's name may be)."""
    if not name or any(char.isspace() for char in name) or len(name) > max_chars(Run, "name"):
        raise InputError(f"the fused run's name '{name[:40]}' is the run tag of every row of its file: one word, "
                         f"without spaces or tabs, of at most {max_chars(Run, 'name')} characters")
    fused = fusion.fuse(sources.runs, how)
    return "".join(fusion.trec_lines(fused, name=name, topics=sorted(fused, key=natural_key)))


@dataclass
class SweepRow:
    k: int
    measure: str
    value: float
    topics: int


def k_sweep(*, sources: Sources, how: fusion.Settings, ks: Sequence[int], qrels: Qrels | None = None,
            qrels_path: str | os.PathLike | None = None, measure: str = NDCG, all_topics: bool = False,
            relevance_level: int = RELEVANCE_LEVEL) -> list[SweepRow]:
    """RRF at each k, scored against a qrels file (or a campaign's qrels) by the prime measures or any ir_measures
    measure: the MIRMU paper's Figure 2. The mean is over the topics the fused run has judged items for, as evaluate
    gives it (or every qrels topic with `all_topics`)."""
    if how.method != fusion.RRF:
        raise InputError(f"a sweep of k is RRF's: not {how.method}")
    if any(k < 0 for k in ks):
        raise InputError("RRF's k must be 0 or more")
    extra = [] if measure in MEASURES else [measure]
    if extra:
        parse_measures(extra, relevance_level=relevance_level)  # an unknown measure: InputError before any fusion
    against: scoring.Judgments | scoring.QrelsFile
    if qrels is not None:
        against = scoring.Judgments(qrels)
    else:
        assert qrels_path is not None
        against = scoring.QrelsFile(qrels_path)

    def fused() -> Iterator[tuple[str, Iterator[tuple[str, str, float]]]]:
        for i, k in enumerate(ks):  # each fused run scored, then freed, before the next is fused
            run = fusion.fuse(sources.runs, fusion.Settings(method=fusion.RRF, k=k, weights=how.weights,
                                                            depth=how.depth, runs=how.runs))
            yield str(i), ((topic, doc, value) for topic, pairs in run.items() for doc, value in pairs)
    scored = scoring.score(scoring.RunLists(fused(), sources.task), against, measures=extra, all_topics=all_topics,
                           relevance_level=relevance_level).runs
    return [SweepRow(k=k, measure=measure, value=scores.means[measure], topics=scores.topics)
            for k, scores in zip(ks, scored, strict=True)]


def sweep_lines(rows: Sequence[SweepRow]) -> list[str]:
    """k<TAB>measure<TAB>value lines, a header first."""
    return ["k\tmeasure\tvalue\n", *(f"{row.k}\t{row.measure}\t{row.value:.4f}\n" for row in rows)]


SWEEP_KS = (10, 20, 40, 60, 80, 100, 180)  # the MIRMU paper's Figure 2


def sweep_runs(*, campaign: Campaign) -> list[str]:
    """The runs the leaderboard's sweep fuses: every primary run that is neither a baseline nor fused (ARQMath's
    overviews fused all primary runs but the baselines), Task 3 runs aside."""
    return list(Run.objects.filter(campaign=campaign, alternate=False, baseline=False, fused=False)
                .exclude(format=Run.Format.ARQMATH_TASK3).order_by("name").values_list("name", flat=True))


def campaign_sweep(*, campaign: Campaign, ks: Sequence[int] = SWEEP_KS, measure: str = NDCG,
                   relevance_level: int | None = None) -> list[SweepRow]:
    """RRF of the campaign's primary runs (`sweep_runs`) at each k, scored against its official judgments (SF and DK
    unjudged): what the leaderboard charts (computed by the score snapshot job, never in a request)."""
    if campaign.task != Campaign.Task.ANSWERS:
        raise InputError("the sweep of RRF's k is charted for answer campaigns (formula runs are fused by formula "
                         "id, their qrels are by visual id): use fuse_runs --qrels FILE")
    names = sweep_runs(campaign=campaign)
    if len(names) < 2:
        raise InputError(f"campaign '{campaign.name}' has {len(names)} primary runs that are not baselines: the "
                         "sweep fuses two or more")
    judged = scoring.official_judgments(campaign=campaign)
    qrels = scoring.ranked_qrels(judged.qrels)
    if not qrels:
        raise InputError(judged.empty)
    how = fusion.settings(method=fusion.RRF, runs=names)
    # The qrels as exported, posts and Task 3 answers together: what `fuse_runs --qrels` scores the same runs' files
    # against (docs/evaluation.md).
    return k_sweep(sources=stored_sources(campaign=campaign, names=names), how=how, ks=ks, qrels=qrels,
                   measure=measure,
                   relevance_level=campaign.relevance_level if relevance_level is None else relevance_level)
