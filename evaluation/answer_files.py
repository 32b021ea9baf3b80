"""`evaluate --qrels FILE --answer-ids MAP [RUN...]`: ARQMath-3 Task 3 runs scored from files (ir/task3_measures.py
computes the measures). Any problem in any file rejects all, with its file and line."""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evaluation.services import raise_problems
from ir.formats.qrels import qrels_by_topic
from ir.formats.task3_answer_ids import AnswerIds, read_answer_ids, read_teams
from ir.formats.task3_answers import AnswerRow, read_answers
from ir.formats.textio import open_binary, shown
from ir.prime import RunScores
from ir.problems import InputError, Problems
from ir.task3_measures import (
    Correlation,
    Scorer,
    answer_scores,
    bertscore_scorer,
    correlations,
    hf_tokenizer,
    latex_tokens,
)


@dataclass
class AnswerEvaluation:
    runs: list[RunScores]
    correlations: list[Correlation] = field(default_factory=list)


def evaluate_answer_files(*, qrels_path: str | os.PathLike, answer_ids_path: str | os.PathLike,
                          run_paths: Sequence[str | os.PathLike] = (), team_map_path: str | os.PathLike | None = None,
                          tokenizer_path: str | os.PathLike | None = None, bertscore_model: str | os.PathLike | None
                          = None, scorer: Scorer | None = None, all_topics: bool = False) -> AnswerEvaluation:
    """AR and P@1 of the given Task 3 run files (without any, of every run of the map), and their LO (and CS, with a
    BERTScore model or a `scorer`) against the relevant answers among those files. A file's run is named by its
    run_id column if the map has that name, else by the file's name without extension (as the organizers' scripts
    name runs). A run's team comes from the team map, else from its ARQMath name."""
    if not run_paths and (tokenizer_path or bertscore_model or scorer):
        raise InputError("LO and CS compare answer texts: give the run files (--tokenizer and --bertscore-model "
                         "need them)")
    problems: list[Problems] = []
    qrels = _read(qrels_path, problems, lambda stream, found: qrels_by_topic(stream, found, sf_dk=0))
    ids = _read(answer_ids_path, problems, read_answer_ids)
    teams = _read(team_map_path, problems, read_teams) if team_map_path else {}
    texts: dict[str, dict[str, str]] = {}
    first: AnswerIds = {}
    for path in run_paths:
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
    raise_problems(problems)
    if not qrels:
        raise InputError(f"{Path(qrels_path).name}: the qrels file has no judgments")
    if scorer is None and bertscore_model:
        scorer = bertscore_scorer(bertscore_model)
    tokenizer = hf_tokenizer(tokenizer_path) if tokenizer_path else latex_tokens
    runs = answer_scores(first if run_paths else ids, qrels, texts=texts if run_paths else None, teams=teams,
                         tokenizer=tokenizer, scorer=scorer, all_topics=all_topics)
    return AnswerEvaluation(runs=runs, correlations=correlations(runs))


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
