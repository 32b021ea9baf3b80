"""ARQMath-3 Task 3 runs (docs/evaluation.md) as their measures read them (ir/task3_measures.py: AR, P@1, LO, CS): each
run's answer id and text per topic and its team, from a campaign's stored runs or from the organizers' answer-id map and
the run files; and the parts of a campaign's qrels each kind of run is scored on (evaluation/scoring.py scores both).

The campaign's qrels hold both the posts and the Task 3 answer ids (`d_N`), judged in the same pools. As in ARQMath-3,
each task is scored on its own part: the Task 1 runs on the posts (an answer id in their qrels would count in nDCG's
ideal ranking, which no Task 1 run can reach), the Task 3 runs on the answer ids, with System failure and Do not know
as 0 (the organizers' complete qrels, read by their scripts) and the mean over the topics with a judged answer.
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evaluation import selectors
from ir.formats.task3_answer_ids import AnswerIds, read_answer_ids, read_teams
from ir.formats.task3_answers import AnswerRow, read_answers
from ir.formats.textio import open_binary, shown
from ir.grades import MARKS
from ir.prime import Qrels
from ir.problems import Problems
from pooling.models import Run


def kept(qrels: Qrels, keep: Callable[[str, int], bool]) -> dict[str, dict[str, int]]:
    """The qrels' (item, grade) pairs that `keep` takes, topics left empty dropped."""
    found = {topic: {item: grade for item, grade in items.items() if keep(item, grade)}
             for topic, items in qrels.items()}
    return {topic: items for topic, items in found.items() if items}


def post_qrels(qrels: Qrels, answer_ids: Container[str]) -> Qrels:
    """What a campaign's Task 1 runs are scored on: its qrels without the Task 3 answer ids."""
    return kept(qrels, lambda item, _grade: item not in answer_ids) if answer_ids else qrels


def answer_qrels(complete: Qrels, answer_ids: Container[str] | None) -> dict[str, dict[str, int]]:
    """What Task 3 runs are scored on: the answer ids' part of a campaign's complete qrels (every item of a qrels
    file: `answer_ids` None), SF and DK (5 and 6) as 0."""
    part = complete if answer_ids is None else kept(complete, lambda item, _grade: item in answer_ids)
    return {topic: {item: 0 if grade in MARKS else grade for item, grade in items.items()}
            for topic, items in part.items()}


@dataclass
class Answers:
    """Task 3 runs as `ir.task3_measures.answer_scores` takes them: run -> topic -> answer id; run -> topic -> text
    (None: no texts, AR and P@1 only); run -> team, for the runs whose team is known."""

    first: dict[str, dict[str, str]]
    texts: dict[str, dict[str, str]] | None
    teams: Mapping[str, str] = field(default_factory=dict)


def stored_answers(*, runs: Sequence[Run]) -> Answers:
    """A campaign's Task 3 runs' answers, in the runs' order. A run's team is its `team` fact when set (else
    ir/task3_measures.py takes it from its ARQMath name)."""
    if not runs:
        return Answers(first={}, texts={})
    answers = selectors.task3_answers(runs=runs)
    first = {run: {topic: answer_id for topic, (answer_id, _text) in topics.items()} for run, topics in answers.items()}
    texts = {run: {topic: text for topic, (_answer_id, text) in topics.items()} for run, topics in answers.items()}
    return Answers(first=first, texts=texts, teams={run.name: run.team for run in runs if run.team})


def file_answers(*, answer_ids_path: str | os.PathLike, paths: Sequence[str | os.PathLike],
                 team_map_path: str | os.PathLike | None, problems: list[Problems]) -> Answers:
    """The runs of Task 3 run files (without any, every run of the answer-id map, without texts), their problems
    joining `problems` with their files and lines. A file's run is named by its run_id column if the map has that
    name, else by the file's name without extension (as the organizers' scripts name runs); a run's team comes from
    the team map, else from its ARQMath name."""
    ids = _read(answer_ids_path, problems, read_answer_ids)
    teams = _read(team_map_path, problems, read_teams) if team_map_path else {}
    texts: dict[str, dict[str, str]] = {}
    first: AnswerIds = {}
    for path in paths:
        found = Problems(file=Path(path).name)
        problems.append(found)
        with open_binary(path) as stream:
            rows = read_answers(stream, found, Problems())
        name = _run_name(rows, Path(path), ids, found)
        if name is None:
            continue
        if name in texts:
            found.add(None, f"a second file of run '{shown(name)}': its scores could not be told apart")
            continue
        for row in rows:
            if row.topic_id not in ids[name]:
                found.add(row.line, f"the answer-id map has no answer of run '{shown(name)}' to topic "
                                    f"'{shown(row.topic_id)}'")
        texts[name] = {row.topic_id: row.answer for row in rows}
        first[name] = {row.topic_id: ids[name].get(row.topic_id, "") for row in rows}
    return Answers(first=first, texts=texts, teams=teams) if paths else Answers(first=ids, texts=None, teams=teams)


def _read(path, problems: list[Problems], reader):
    found = Problems(file=Path(path).name)
    problems.append(found)
    with open_binary(path) as stream:
        return reader(stream, found)


def _run_name(rows: list[AnswerRow], path: Path, ids: AnswerIds, problems: Problems) -> str | None:
    """The map's name of the file's run: its (most common) run id, else the file's name without extension."""
    if not rows:
        return None  # the file's problems say why
    run_id = Counter(row.run_id for row in rows).most_common(1)[0][0]
    for name in (run_id, path.stem):
        if name in ids:
            return name
    problems.add(None, f"neither its run id '{shown(run_id)}' nor its file name '{shown(path.stem)}' is a run of "
                       "the answer-id map")
    return None
