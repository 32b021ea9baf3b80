"""A campaign's ARQMath-3 Task 3 runs scored (issue 17): AR, P@1 and LO (ir/task3_measures.py) against the campaign's
judgments of their answers, beside its Task 1 runs' prime measures (services.evaluate_campaign).

The campaign's qrels hold both the posts and the Task 3 answer ids (`d_N`), judged in the same pools. As in ARQMath-3,
each task is scored on its own part: the Task 1 runs on the posts (an answer id in their qrels would count in nDCG's
ideal ranking, which no Task 1 run can reach), the Task 3 runs on the answer ids, with System failure and Do not know
as 0 (the organizers' complete qrels, read by their scripts) and the mean over the topics with a judged answer.
"""
from __future__ import annotations

from collections.abc import Callable, Container, Sequence

from evaluation import selectors
from ir.grades import MARKS
from ir.prime import Qrels, RunScores
from ir.task3_measures import answer_scores
from pooling.models import Run


def kept(qrels: Qrels, keep: Callable[[str, int], bool]) -> dict[str, dict[str, int]]:
    """The qrels' (item, grade) pairs that `keep` takes, topics left empty dropped."""
    found = {topic: {item: grade for item, grade in items.items() if keep(item, grade)}
             for topic, items in qrels.items()}
    return {topic: items for topic, items in found.items() if items}


def post_qrels(qrels: Qrels, answer_ids: Container[str]) -> Qrels:
    """What a campaign's Task 1 runs are scored on: its qrels without the Task 3 answer ids."""
    return kept(qrels, lambda item, _grade: item not in answer_ids) if answer_ids else qrels


def answer_qrels(complete: Qrels, answer_ids: Container[str]) -> dict[str, dict[str, int]]:
    """The Task 3 answers' part of a campaign's complete qrels, SF and DK (5 and 6) as 0."""
    return {topic: {item: 0 if grade in MARKS else grade for item, grade in items.items()}
            for topic, items in kept(complete, lambda item, _grade: item in answer_ids).items()}


def task3_scores(*, runs: Sequence[Run], qrels: Qrels, all_topics: bool = False, relevance_level: int
                 ) -> list[RunScores]:
    """AR, P@1 and LO of each Task 3 run against `qrels` (answer_qrels), in the runs' order. LO's references are the
    relevant answers of the given runs, a run's own team left out (its team: `Run.team`, its facts, when set, else
    from its ARQMath name). P@1 and the references count relevant the grades from `relevance_level` up (the
    campaign's; ARQMath-3's was 2)."""
    if not runs:
        return []
    answers = selectors.task3_answers(runs=runs)
    first = {run: {topic: answer_id for topic, (answer_id, _text) in topics.items()} for run, topics in answers.items()}
    texts = {run: {topic: text for topic, (_answer_id, text) in topics.items()} for run, topics in answers.items()}
    teams = {run.name: run.team for run in runs if run.team}
    return answer_scores(first, qrels, texts=texts, teams=teams, all_topics=all_topics, relevance_level=relevance_level)
