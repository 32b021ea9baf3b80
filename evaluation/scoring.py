"""The one way runs are scored (docs/evaluation.md, "One way to score"): `score(runs, qrels)` takes what is scored
(a campaign's stored runs, run files, runs made in memory such as fused ones, ARQMath-3 Task 3 runs stored or in
files) and one qrels to score them against (a campaign's own judgments, an LLM's grades, an earlier edition's, a
file), and gives plain rows (`ir.scoring.Scores`). The leaderboard and its snapshot, `evaluate`, the editions, the
sweep of RRF's k, the LLM board and reusability score through it; the readers of run files and stored runs are here
too, so that every one of them reads runs the same way."""
from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.db.models import QuerySet

from evaluation import selectors, task3
from ir.formats.formula_tsv import read_formula_index
from ir.formats.qrels import read_qrels
from ir.formats.runs import ARQMATH_TASK2, RunColumns, RunSummary, detect_format, read_run_blocks
from ir.formats.textio import iter_lines, open_binary
from ir.grades import MARKS, RELEVANCE_LEVEL
from ir.measures import check_level, first_result_asked, parse_measures
from ir.prime import PrimeRun, Qrels, answer_block_lists, answer_lists, formula_lists, natural_key
from ir.problems import InputError, Problems
from ir.scoring import Lists, Scores, rows_of, score_runs
from ir.task3_measures import MEASURES as TASK3_MEASURES
from ir.task3_measures import Scorer, answer_scores, bertscore_scorer, hf_tokenizer, latex_tokens
from nuggets import scores as nugget_scores
from pooling.models import Campaign, Run

ANSWERS, FORMULAS = Campaign.Task.ANSWERS.value, Campaign.Task.FORMULAS.value
NO_DEPTH_LIMIT = 2**31  # evaluation takes a run as deep as it comes


# What is scored ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredRuns:
    """A campaign's ranked runs (Task 1 or Task 2; its Task 3 runs are `StoredAnswers`), read from their rows: the
    given ones, or every one by name; of the topic ids `topics` only when given (the topics a judgment changed,
    evaluation/topic_scores.py)."""

    campaign: Campaign
    runs: Sequence[Run] | None = None
    topics: Collection[str] | None = None

    def ranked(self) -> list[Run]:
        runs = Run.objects.filter(campaign=self.campaign).order_by("name") if self.runs is None else self.runs
        return [run for run in runs if run.format != Run.Format.ARQMATH_TASK3]


@dataclass(frozen=True)
class RunFiles:
    """Run files, named by their file names; the task from the first one's shape unless given (6 columns without Q0:
    formulas). Formula ids become visual ids through the formula index files (without them each formula is its own
    visual id: qrels by formula id, as in ARQMath-1)."""

    paths: Sequence[str | os.PathLike]
    task: str | None = None
    formula_index_paths: Sequence[str | os.PathLike] = ()


@dataclass(frozen=True)
class RunLists:
    """Runs made in memory (fused runs): each name with its rows (topic, item id, score) in file order, of `task`."""

    runs: Iterable[tuple[str, Iterable[tuple[str, str, float]]]]
    task: str


@dataclass(frozen=True)
class StoredAnswers:
    """A campaign's ARQMath-3 Task 3 runs among `runs` (every run of the campaign when None): AR, P@1 and LO,
    against the answers' part of the campaign's judgments (evaluation/task3.py)."""

    campaign: Campaign
    runs: Sequence[Run] | None = None

    def answer_runs(self) -> list[Run]:
        runs = Run.objects.filter(campaign=self.campaign).order_by("name") if self.runs is None else self.runs
        return [run for run in runs if run.format == Run.Format.ARQMATH_TASK3]


@dataclass(frozen=True)
class AnswerFiles:
    """ARQMath-3 Task 3 run files and the organizers' answer-id map (without run files, every run of the map is
    scored, AR and P@1); LO needs the files, CS a BERTScore model directory or a `scorer`."""

    answer_ids_path: str | os.PathLike
    paths: Sequence[str | os.PathLike] = ()
    team_map_path: str | os.PathLike | None = None
    tokenizer_path: str | os.PathLike | None = None
    bertscore_model: str | os.PathLike | None = None
    scorer: Scorer | None = None


@dataclass(frozen=True)
class StoredSentences:
    """A campaign's runs whose answers have sentences (TREC RAG runs) among `runs` (every run of the campaign when
    None): their nugget and support scores against its support labels (nuggets/scores.py)."""

    campaign: Campaign
    runs: Sequence[Run] | None = None

    def sentence_runs(self) -> list[Run]:
        runs = Run.objects.filter(campaign=self.campaign).order_by("name") if self.runs is None else self.runs
        return nugget_scores.sentence_runs(runs=list(runs))


Runs = StoredRuns | RunFiles | RunLists | StoredAnswers | AnswerFiles | StoredSentences


# Against what ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judgments:
    """One qrels in memory: topic -> item id -> grade, SF and DK as the marks 5 and 6 (`ir.grades.MARKS`: unjudged
    for ranked runs, 0 for Task 3 answers). `empty` is the refusal when it judges nothing ("" scores anyway).
    `campaign`: the qrels are that campaign's own (official, an LLM's), which hold its posts and its Task 3 answer
    ids together: Task 1 runs are scored on the posts, Task 3 runs on the answers. `cut`: an answers campaign's runs
    may be read as far as the prime filter needs (`selectors.answer_rows_to_score`) rather than whole, by the items of
    `judged_items` (a `values("item_id")` query; None: the official judgments'). A new source (a hybrid of two) is one
    more function that makes one of these."""

    qrels: Qrels
    empty: str = ""
    campaign: Campaign | None = None
    cut: bool = False
    judged_items: QuerySet | None = field(default=None, compare=False)


@dataclass(frozen=True)
class QrelsFile:
    """A qrels file, read with the runs so that every problem of every file is reported together."""

    path: str | os.PathLike


@dataclass(frozen=True)
class SupportLabels:
    """What generated answers are scored against: the campaign's official support labels, of its official nuggets
    and citations assignments in force (a withdrawn one's, the dual and training assignments' are not counted)."""

    campaign: Campaign


def official_judgments(*, campaign: Campaign, topics: Collection[str] | None = None) -> Judgments:
    """The campaign's official judgments (with the dual assessment's official adjudicated grades), complete; of the
    topic ids `topics` only when given."""
    return Judgments(selectors.campaign_qrels(campaign=campaign, complete=True, topics=topics), campaign=campaign,
                     cut=True,
                     empty=f"campaign '{campaign.name}' has no official judgments yet: there is nothing to score")


def campaign_grades(*, campaign: Campaign, qrels: Qrels, judged_items: QuerySet | None = None) -> Judgments:
    """Another source's grades of the campaign's items (an LLM's: evaluation/llm_board.py), scored as its official
    judgments are; with `judged_items`, the query of their items, an answers campaign's runs are read only as far as
    the prime filter needs, else whole."""
    return Judgments(qrels, campaign=campaign, cut=judged_items is not None, judged_items=judged_items,
                     empty=f"campaign '{campaign.name}' has no grades yet: there is nothing to score")


def ranked_qrels(qrels: Qrels) -> dict[str, dict[str, int]]:
    """The qrels as ranked runs read them: SF and DK unjudged (docs/evaluation.md), topics left empty dropped."""
    return task3.kept(qrels, lambda _item, grade: grade not in MARKS)


# The one function --------------------------------------------------------------------------------------------------


def score(runs: Runs, qrels: Judgments | QrelsFile | SupportLabels, *, measures: Sequence[str] = (),
          all_topics: bool = False, relevance_level: int | None = None) -> Scores:
    """`runs` scored against `qrels`, every value a row (docs/evaluation.md). Ranked runs get the prime measures
    (ir/prime.py: the prime filter, pytrec_eval), Unjudged@10 and `measures` beside them (ir_measures or trec_eval
    names, on the de-duplicated run; `ar` and `p1` of an answer run's first result); Task 3 runs AR, P@1 and LO (CS
    too, with a model or a scorer; `measures` must be empty). `relevance_level` binarises MAP', P'@10, P@1 and the
    binary measures named without one: the runs' campaign's by default, else 2. Means over the topics with something
    judged retrieved, or with `all_topics` over every qrels topic. A problem in any file rejects all, with its line.
    Runs with sentences against support labels get the nugget and support measures (`nugget_scores.NUGGET_MEASURES`),
    each mean over the topics their answer has labels of, `all_topics` or not; their names among `measures` are
    taken by the campaign's runs and refused for files."""
    if isinstance(runs, StoredSentences) or isinstance(qrels, SupportLabels):
        return _sentence_scores(runs, qrels, all_topics=all_topics)
    if nugget_scores.nugget_measures_asked(measures) and not isinstance(runs, StoredRuns):
        raise InputError(f"{', '.join(nugget_scores.nugget_measures_asked(measures))}: nugget and support scores "
                         "are of a campaign's generated answers against its support labels (evaluate --campaign)")
    measures = nugget_scores.ranked_measures(measures)
    campaign = runs.campaign if isinstance(runs, StoredRuns | StoredAnswers) else None
    level = (relevance_level if relevance_level is not None
             else campaign.relevance_level if campaign is not None else RELEVANCE_LEVEL)
    if isinstance(runs, StoredAnswers | AnswerFiles):
        if measures:
            raise InputError("Task 3 runs are scored by AR, P@1, LO and CS, not by other measures")
        return _answer_scores(runs, qrels, all_topics=all_topics, relevance_level=level)
    if isinstance(runs, RunFiles) and not runs.paths:
        raise InputError("no run files given")
    check_level(level)
    extra = parse_measures(measures, relevance_level=level)
    lists: Iterable[tuple[str, Lists]]
    if isinstance(runs, RunFiles):
        task, judged, lists = _file_lists(runs, qrels)
    else:
        problems: list[Problems] = []
        judged = ranked_qrels(_complete(qrels, problems))
        if any(problems) or (not judged and (isinstance(qrels, QrelsFile) or qrels.empty)):
            _refuse(problems, judged, qrels)
        if isinstance(runs, StoredRuns):
            task = runs.campaign.task
            judged, lists = _stored_lists(runs, qrels, judged, whole=bool(extra))
        else:
            task = runs.task
            lists = ((name, answer_lists(rows, judged) if task == ANSWERS else formula_lists(rows, judged))
                     for name, rows in runs.runs)
    return score_runs(lists, judged, extra=extra, first_result=task == ANSWERS and first_result_asked(measures),
                      relevance_level=level, all_topics=all_topics)


def _stored_lists(runs: StoredRuns, qrels: Judgments | QrelsFile, judged: dict[str, dict[str, int]], *, whole: bool
                  ) -> tuple[Qrels, Iterator[tuple[str, Lists]]]:
    """The qrels the runs are scored on (a campaign's own: the posts, for its Task 1 runs) and their lists, a run at a
    time: whole, or as far as the prime filter reads them (`Judgments.cut`; not for measures beside the prime ones,
    which read every row)."""
    campaign = runs.campaign
    ranked = runs.ranked()
    own = isinstance(qrels, Judgments) and qrels.campaign is not None
    posts: Qrels = judged
    if own and campaign.task == ANSWERS:
        posts = task3.post_qrels(judged, selectors.campaign_answer_ids(campaign=campaign))
    topic_ids = selectors.campaign_topic_ids(campaign=campaign)
    read = None if runs.topics is None else [pk for pk, topic in topic_ids.items() if topic in runs.topics]
    if campaign.task == ANSWERS and isinstance(qrels, Judgments) and qrels.cut and not whole:
        found = selectors.answer_rows_to_score(campaign=campaign, runs=ranked, topic_ids=topic_ids,
                                               judged_items=qrels.judged_items, topics=read)

        def cut() -> Iterator[tuple[str, Lists]]:
            for run in ranked:
                rows = found.pop(run.pk)  # each run's rows freed once it is scored
                yield run.name, answer_lists(((topic, item, value) for topic, items in rows.items()
                                              for item, value in items.items()), posts)
        return posts, cut()
    return posts, ((run.name, stored_run_lists(campaign=campaign, run=run, qrels=posts, topic_ids=topic_ids,
                                               topics=read)) for run in ranked)


def _file_lists(runs: RunFiles, qrels: Judgments | QrelsFile) -> tuple[str, Qrels, Iterator[tuple[str, Lists]]]:
    """The task, the qrels and the run files' lists, a run at a time: memory holds one run's rows (and, for formula
    runs with an index, the set of every formula id the runs name: those runs are read twice, first for the formula
    ids whose visual ids the index must give, then to score them). Every run is read by read_run (the ingest's
    reader, with its messages); any problem in any file rejects all, after every file is read for its problems."""
    task = runs.task or task_of(runs.paths[0])
    if task not in (ANSWERS, FORMULAS):
        raise InputError(f"unknown task '{task}'; expected answers or formulas")
    if runs.formula_index_paths and task != FORMULAS:
        raise InputError("a formula index is for formula runs (--task formulas)")
    problems: list[Problems] = []
    judged = ranked_qrels(_complete(qrels, problems))
    names = [Path(path).name for path in runs.paths]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(file_problem(name, "two runs have this file name; their scores could not be told apart"))
    named = list(zip(names, runs.paths, strict=True))
    visual_of: dict[str, str] | None = None
    if task == FORMULAS and runs.formula_index_paths:
        needed: set[str] = set()
        for _name, path in named:
            for _topics, formula_ids, _scores in read_run_columns(path, task, problems):
                needed.update(formula_ids)
        if not any(problems):
            visual_of = _read_visual_ids(runs.formula_index_paths, needed, problems)
        _refuse(problems, judged, qrels)
        return task, judged, ((name, run_lists(task, read_run_columns(path, task, []), judged, visual_of))
                              for name, path in named)
    if any(problems) or not judged:
        for _name, path in named:  # read for their problems only
            run_lists(task, read_run_columns(path, task, problems), judged, None)
        _refuse(problems, judged, qrels)

    def one_by_one() -> Iterator[tuple[str, Lists]]:
        for name, path in named:
            lists = run_lists(task, read_run_columns(path, task, problems), judged, None)
            if not any(problems):
                yield name, lists
        raise_problems(problems)
    return task, judged, one_by_one()


def _complete(qrels: Judgments | QrelsFile, problems: list[Problems]) -> Qrels:
    """A qrels file's grades with SF and DK as 5 and 6 (its problems join `problems`), or the Judgments' own."""
    if isinstance(qrels, Judgments):
        return qrels.qrels
    found = Problems(file=Path(qrels.path).name)
    problems.append(found)
    complete: dict[str, dict[str, int]] = {}
    with open_binary(qrels.path) as stream:
        for record in read_qrels(stream, found):
            complete.setdefault(record.topic_id, {})[record.item_id] = record.grade
    return complete


def _refuse(problems: list[Problems], judged: Qrels, qrels: Judgments | QrelsFile) -> None:
    """Every problem found, then a qrels that judges nothing."""
    raise_problems(problems)
    if not judged:
        raise InputError(f"{Path(qrels.path).name}: the qrels file has no judgments" if isinstance(qrels, QrelsFile)
                         else qrels.empty or "the qrels have no judgments")


def _answer_scores(runs: StoredAnswers | AnswerFiles, qrels: Judgments | QrelsFile, *, all_topics: bool,
                   relevance_level: int) -> Scores:
    """AR, P@1 and LO (and CS) of Task 3 runs (ir/task3_measures.py) against the answers' grades, SF and DK as 0: a
    campaign's own judgments give the part of its Task 3 answer ids, a file all of its lines."""
    problems: list[Problems] = []
    if isinstance(runs, AnswerFiles):
        if not runs.paths and (runs.tokenizer_path or runs.bertscore_model or runs.scorer):
            raise InputError("LO and CS compare answer texts: give the run files (--tokenizer and --bertscore-model "
                             "need them)")
        complete = _complete(qrels, problems)
        answers = task3.file_answers(answer_ids_path=runs.answer_ids_path, paths=runs.paths,
                                     team_map_path=runs.team_map_path, problems=problems)
        raise_problems(problems)
        graded = task3.answer_qrels(complete, None)
        if not graded:
            _refuse([], graded, qrels)
        scorer = runs.scorer if runs.scorer is not None or not runs.bertscore_model else bertscore_scorer(
            runs.bertscore_model)
        tokenizer = hf_tokenizer(runs.tokenizer_path) if runs.tokenizer_path else latex_tokens
    else:
        stored = runs.answer_runs()
        if not stored:  # most campaigns: no query for what would score nothing
            return Scores(rows=[], measures=[], topics=[], all_topics=all_topics, relevance_level=relevance_level)
        complete = _complete(qrels, problems)
        raise_problems(problems)
        own = isinstance(qrels, Judgments) and qrels.campaign is not None
        graded = task3.answer_qrels(complete, selectors.campaign_answer_ids(campaign=runs.campaign) if own else None)
        answers = task3.stored_answers(runs=stored)
        scorer, tokenizer = None, latex_tokens
    scored = answer_scores(answers.first, graded, texts=answers.texts, teams=answers.teams, tokenizer=tokenizer,
                           scorer=scorer, all_topics=all_topics, relevance_level=relevance_level)
    measures = [m for m in TASK3_MEASURES if any(m in run.means for run in scored)]
    return Scores(rows=list(rows_of(scored, measures)), measures=measures,
                  topics=sorted(graded, key=natural_key), all_topics=all_topics,
                  relevance_level=relevance_level)


def _sentence_scores(runs: Runs, labels: Judgments | QrelsFile | SupportLabels, *, all_topics: bool) -> Scores:
    """The nugget and support scores of the runs with sentences (nuggets/scores.py)."""
    if not (isinstance(runs, StoredSentences) and isinstance(labels, SupportLabels)):
        raise TypeError("runs with sentences are scored against support labels, and only they are")
    stored = runs.sentence_runs()
    scored = nugget_scores.answer_scores(nugget_scores.official_labels(campaign=labels.campaign, runs=stored),
                                         [run.name for run in stored])
    measures = [m for m in nugget_scores.NUGGET_MEASURES if any(m in run.means for run in scored)]
    topics = {topic for run in scored for topic in run.per_topic}
    return Scores(rows=list(rows_of(scored, measures)), measures=measures, topics=sorted(topics, key=natural_key),
                  all_topics=all_topics, relevance_level=labels.campaign.relevance_level)


# Reading runs -------------------------------------------------------------------------------------------------------


def stored_run_lists(*, campaign: Campaign, run: Run, qrels: Qrels, topic_ids: dict[int, str],
                     topics: Collection[int] | None = None) -> PrimeRun:
    """A stored run's ranked lists as the prime measures read them against `qrels`: an answers campaign's by post, a
    formula campaign's by the visual ids it pools by (the campaign's scores, reusability, earlier editions, the
    judging simulator); of the topics (pks) `topics` only when given."""
    if campaign.task == ANSWERS:
        return answer_lists(selectors.answer_run_rows(run=run, topic_ids=topic_ids, topics=topics), qrels)
    return formula_lists(selectors.formula_run_rows(run=run, campaign=campaign, topic_ids=topic_ids, topics=topics),
                         qrels)


class _AnyTopic(dict):
    """Takes every topic id: evaluation drops the topics its qrels do not have instead of rejecting the run."""

    def __contains__(self, key) -> bool:
        return True


def run_lists(task: str, blocks: Iterable[tuple[Sequence[str], Sequence[str], Sequence[float]]], qrels: Qrels,
              visual_of: dict[str, str] | None) -> PrimeRun:
    """The de-duplicated run (`prime.answer_block_lists`, `prime.formula_lists`) of a run's blocks of rows
    (`read_run_columns`), formula ids through the index's visual ids when there is one."""
    if task == ANSWERS:
        return answer_block_lists(blocks, qrels)
    rows = (row for block in blocks for row in zip(*block, strict=True))
    if visual_of is None:
        return formula_lists(rows, qrels)
    return formula_lists(((topic, visual_of.get(formula), score) for topic, formula, score in rows), qrels)


def file_problem(file: str, message: str) -> Problems:
    """A problem of a whole file (no line), to join a list of files' problems."""
    problems = Problems(file=file)
    problems.add(None, message)
    return problems


def raise_problems(problems: list[Problems]) -> None:
    found = [p for p in problems if p]
    if found:
        raise InputError.of(*found)


def task_of(path: str | os.PathLike) -> str:
    with open_binary(path) as stream:
        for _line, text in iter_lines(stream, Problems()):
            if text.strip():
                return FORMULAS if detect_format(text.split()) == ARQMATH_TASK2 else ANSWERS
    return ANSWERS


def read_qrels_file(path: str | os.PathLike, problems: list[Problems]) -> dict[str, dict[str, int]]:
    """A qrels file as ranked runs read it: SF and DK lines (5, 6) left out, unjudged, as in a campaign's own qrels."""
    return ranked_qrels(_complete(QrelsFile(path), problems))


def read_run_columns(path: str | os.PathLike, task: str, problems: list[Problems], *, tags: list[str] | None = None
                     ) -> Iterator[tuple[Sequence[str], Sequence[str], Sequence[float]]]:
    """The run's rows as the file is read, a block at a time: (topic ids, item ids, scores); its problems join
    `problems`, and the run tag of its first row `tags` (when given)."""
    for block in read_run_file(path, task, problems):
        if tags is not None and not tags:
            tags.append(block.tags[0])
        yield block.topic_ids, block.item_ids, block.scores


def read_run_file(path: str | os.PathLike, task: str, problems: list[Problems], *, summary: RunSummary | None = None
                  ) -> Iterator[RunColumns]:
    """read_run_columns' blocks whole (ranks too), the file's format in `summary` when given."""
    found = Problems(file=Path(path).name)
    problems.append(found)
    with open_binary(path) as stream:
        yield from read_run_blocks(stream, found, Problems(), topics=_AnyTopic(), task=task,
                                   max_depth=NO_DEPTH_LIMIT, summary=summary, find_duplicates=False)


def _read_visual_ids(paths: Sequence[str | os.PathLike], needed: set[str], problems: list[Problems]
                     ) -> dict[str, str]:
    """formula id -> visual id for the formulas the runs name; the index files are streamed, not held."""
    visual_of: dict[str, str] = {}
    for path in paths:
        found = Problems(file=Path(path).name)
        problems.append(found)
        with open_binary(path) as stream:
            for record in read_formula_index(stream, found):
                if record.formula_id in needed and record.visual_id:
                    visual_of[record.formula_id] = record.visual_id
    return visual_of
