"""`evaluate --qrels FILE --answer-ids MAP [RUN...]`: ARQMath-3 Task 3 runs scored from files (`scoring.score` of
their `AnswerFiles`; ir/task3_measures.py computes the measures), with the correlations of their measures. Any
problem in any file rejects all, with its file and line."""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from evaluation import scoring
from ir.prime import RunScores
from ir.task3_measures import Correlation, Scorer, correlations


@dataclass
class AnswerEvaluation:
    scores: scoring.Scores  # the runs' rows, as `evaluate` writes them
    runs: list[RunScores]  # the same, run by run
    correlations: list[Correlation]


def evaluate_answer_files(*, qrels_path: str | os.PathLike, answer_ids_path: str | os.PathLike,
                          run_paths: Sequence[str | os.PathLike] = (), team_map_path: str | os.PathLike | None = None,
                          tokenizer_path: str | os.PathLike | None = None, bertscore_model: str | os.PathLike | None
                          = None, scorer: Scorer | None = None, all_topics: bool = False) -> AnswerEvaluation:
    """AR and P@1 of the given Task 3 run files (without any, of every run of the map), and their LO (and CS, with a
    BERTScore model or a `scorer`) against the relevant answers among those files (scoring.AnswerFiles)."""
    scores = scoring.score(scoring.AnswerFiles(answer_ids_path=answer_ids_path, paths=run_paths,
                                               team_map_path=team_map_path, tokenizer_path=tokenizer_path,
                                               bertscore_model=bertscore_model, scorer=scorer),
                           scoring.QrelsFile(qrels_path), all_topics=all_topics)
    runs = scores.runs
    return AnswerEvaluation(scores=scores, runs=runs, correlations=correlations(runs))
