"""ARQMath-3 Task 3 measures (docs/evaluation.md): AR and P@1 of each run's answer, lexical overlap (LO) and contextual
similarity (CS) with the relevant answers of the other teams, and correlations between the measures over the runs.

The reference is the organizers' scripts (Witiko/arqmath3-openqa-tools @80bd2b9: evaluate_task3_results_manual.py
for AR and P@1, evaluate_task3_results_automatic.py for LO and CS); docs/evaluation.md says where this follows them
and where not. AR and P@1 are `prime.first_result_scores`, the one definition for Task 1 and Task 3 runs. Pure Python
(scipy for the correlations; the `tokenizers` and `bert-score` packages only when asked for): no Django.
"""
from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ir.formats.run_names import parse_run_name
from ir.formats.task3_answers import ANSWER_MAX, UNESCAPED_DOLLAR
from ir.grades import RELEVANCE_LEVEL, is_relevant
from ir.prime import AR, P1, RunScores, first_result_scores, format_value, mean_of, natural_key
from ir.problems import InputError
from ir.statistics import kendall_tau

LO, CS = "lo", "cs"
MEASURES = (AR, P1, LO, CS)  # in the order `evaluate` writes them
TASK3_REPORTED = (AR, P1, LO)  # what the leaderboard, its CSV and the API report of a campaign's Task 3 runs
BERTSCORE_LAYERS = 10  # the layer the organizers took with MathBERTa

Tokenizer = Callable[[str], Iterable[str]]
# Answers and, for each, its references -> each answer's best F1 over its references (BERTScore's multi-reference F1).
Scorer = Callable[[list[str], list[list[str]]], Sequence[float]]
Texts = Mapping[str, Mapping[str, str]]  # run -> topic -> answer text


@dataclass(frozen=True)
class Reference:
    """A relevant answer to a topic, prepared (`math_tagged`), with the teams whose runs gave it."""

    text: str
    teams: frozenset[str]


# Preparing and tokenizing answers ----------------------------------------------------------------------------------

_SPACE = re.compile(r"\s+")
# The default tokenizer's tokens: the organizers' math markers, a LaTeX command (`\frac`) or escaped character (`\{`)
# whole, a run of letters and digits, or any other single character that is not white space.
_TOKEN = re.compile(r"\[/?MATH\]|\\[A-Za-z]+|\\.|[^\W_]+|\S")


def math_tagged(answer: str) -> str:
    """An answer as the organizers prepared it for LO and CS: each unescaped `$` in turn becomes ` [MATH] ` and
    ` [/MATH] ` (MathBERTa's math markers), runs of white space one space, ` [/MATH] [MATH] ` between two formulas
    one space, a closing marker at the very end dropped, and the text stripped (but for a leading ` [MATH]`).
    Unlike their script, the character before a `$` is kept (their pattern consumed it)."""
    opening = True

    def tag(match: re.Match[str]) -> str:
        nonlocal opening
        marker, opening = (" [MATH] " if opening else " [/MATH] "), not opening
        return match.group()[:-1] + marker  # the escaped backslashes before the `$` stay

    answer = _SPACE.sub(" ", UNESCAPED_DOLLAR.sub(tag, answer).rstrip())
    if not answer.startswith(" [MATH]"):
        answer = answer.lstrip()
    answer = answer.replace(" [/MATH] [MATH] ", " ")
    return answer.removesuffix(" [/MATH]")


def latex_tokens(text: str) -> list[str]:
    """The default tokenizer: `[MATH]` and `[/MATH]`, LaTeX commands whole (`\\frac`, `\\alpha`), escaped characters
    (`\\{`), runs of letters and digits (Unicode, case kept, as MathBERTa's cased tokenizer), and every other
    character that is not white space alone (`^`, `{`, `=`)."""
    return _TOKEN.findall(text)


def hf_tokenizer(path: str | os.PathLike) -> Tokenizer:
    """The tokens of a Hugging Face `tokenizer.json` (ARQMath used MathBERTa's), through the optional `tokenizers`
    package. A space is put before the text, as the organizers' `add_prefix_space=True` does for a byte-level BPE."""
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError:
        raise InputError("--tokenizer needs the optional package tokenizers (pip install tokenizers==0.23.3); "
                         "without --tokenizer, LO uses the built-in tokenizer") from None
    try:
        loaded = HFTokenizer.from_file(str(path))
    except Exception as exc:  # noqa: BLE001 (the Rust library raises its own exception types)
        raise InputError(f"{Path(path).name}: not a Hugging Face tokenizer.json ({exc})") from None

    def tokenize(text: str) -> list[str]:
        return loaded.encode(text if text[:1].isspace() else " " + text, add_special_tokens=False).tokens

    return tokenize


def bertscore_scorer(model: str | os.PathLike, *, layers: int = BERTSCORE_LAYERS) -> Scorer:
    """BERTScore F1 with a local model directory, through the optional `bert-score` package (which needs torch and
    transformers); nothing is fetched from the network."""
    try:
        from bert_score import BERTScorer
    except ImportError:
        raise InputError("--bertscore-model needs the optional package bert-score, with torch and transformers "
                         "(pip install bert-score==0.3.13); see docs/evaluation.md") from None
    if not Path(model).is_dir():
        raise InputError(f"{model}: not a directory (--bertscore-model takes a local model directory)")
    scorer = BERTScorer(model_type=str(model), num_layers=layers)

    def score(answers: list[str], references: list[list[str]]) -> list[float]:
        *_, f1 = scorer.score(answers, references)
        return [float(value) for value in f1.tolist()]

    return score


# The measures ------------------------------------------------------------------------------------------------------

def team_of(run: str, teams: Mapping[str, str] | None = None) -> str:
    """A run's team: as given, else the first part of an ARQMath run name (`approach0-task3-...`), else the run."""
    if teams and run in teams:
        return teams[run]
    facts = parse_run_name(run)
    return facts.team if facts is not None else run


def token_f1(answer: set[str], reference: set[str]) -> float:
    """F1 of two token sets (each token once, as the organizers count)."""
    common = len(answer & reference)
    if not common:
        return 0.0
    precision, recall = common / len(answer), common / len(reference)
    return 2 * precision * recall / (precision + recall)


def relevant_references(texts: Texts, first: Mapping[str, Mapping[str, str]], qrels: Mapping[str, Mapping[str, int]],
                        teams: Mapping[str, str], *, extra: Mapping[str, Iterable[tuple[str, Iterable[str]]]]
                        | None = None, relevance_level: int = RELEVANCE_LEVEL) -> dict[str, list[Reference]]:
    """topic -> its references: the runs' answers judged relevant (at `relevance_level`), prepared, each distinct
    text once with every team that gave it; `extra` adds other relevant answers with the teams that found them
    (ARQMath added the relevant Task 1 answer posts of at most 1,200 characters: longer ones are left out here)."""
    found: dict[str, dict[str, set[str]]] = {}
    for run, answers in texts.items():
        for topic, text in answers.items():
            answer_id = first.get(run, {}).get(topic)
            if answer_id is not None and is_relevant(qrels.get(topic, {}).get(answer_id, 0), relevance_level):
                found.setdefault(topic, {}).setdefault(math_tagged(text), set()).add(team_of(run, teams))
    for topic, posts in (extra or {}).items():
        for text, by in posts:
            if len(text) <= ANSWER_MAX:
                found.setdefault(topic, {}).setdefault(math_tagged(text), set()).update(by)
    return {topic: [Reference(text, frozenset(by)) for text, by in sorted(refs.items())]
            for topic, refs in found.items()}


def others(references: Iterable[Reference], team: str) -> list[Reference]:
    """Leave-team-out: the references some other team gave too (the organizers' excluded run ids)."""
    return [ref for ref in references if ref.teams - {team}]


def lexical_overlap(answers: Mapping[str, str], references: Mapping[str, Sequence[Reference]], team: str,
                    tokenizer: Tokenizer = latex_tokens, *, all_topics: bool = False) -> dict[str, float]:
    """LO per topic: the best token F1 of the run's prepared answer against the topic's references left after leaving
    its team out (empty ones passed over). Over the topics it answered that have such a reference; `all_topics`:
    over every topic that has one, a topic it did not answer 0."""
    tokens = lru_cache(maxsize=None)(lambda text: frozenset(tokenizer(text)))
    values: dict[str, float] = {}
    for topic, refs in references.items():
        kept = [token_set for ref in others(refs, team) if (token_set := tokens(ref.text))]
        if not kept:
            continue
        if topic in answers:
            answer = tokens(math_tagged(answers[topic]))
            values[topic] = max(token_f1(set(answer), set(ref)) if answer else 0.0 for ref in kept)
        elif all_topics:
            values[topic] = 0.0
    return values


def contextual_similarity(answers: Mapping[str, str], references: Mapping[str, Sequence[Reference]], team: str,
                          scorer: Scorer, *, all_topics: bool = False) -> dict[str, float]:
    """CS per topic: the scorer's (BERTScore's) best F1 of the prepared answer over the references left after leaving
    its team out, the topics counted as for LO; all of a run's topics go to the scorer at once."""
    topics, candidates, their_refs = [], [], []
    values: dict[str, float] = {}
    for topic, refs in references.items():
        kept = [ref.text for ref in others(refs, team)]
        if kept and topic in answers:
            topics.append(topic)
            candidates.append(math_tagged(answers[topic]))
            their_refs.append(kept)
        elif kept and all_topics:
            values[topic] = 0.0
    if topics:
        scores = list(scorer(candidates, their_refs))
        if len(scores) != len(topics):
            raise ValueError(f"the scorer gave {len(scores)} values for {len(topics)} answers")
        values.update(zip(topics, (float(value) for value in scores), strict=True))
    return values


def answer_scores(first: Mapping[str, Mapping[str, str]], qrels: Mapping[str, Mapping[str, int]], *,
                  texts: Texts | None = None, teams: Mapping[str, str] | None = None,
                  tokenizer: Tokenizer = latex_tokens, scorer: Scorer | None = None,
                  extra_references: Mapping[str, Iterable[tuple[str, Iterable[str]]]] | None = None,
                  all_topics: bool = False, relevance_level: int = RELEVANCE_LEVEL) -> list[RunScores]:
    """Every run's Task 3 measures. `first`: run -> topic -> the answer id of its answer (the organizers' map);
    `qrels`: topic -> answer id -> grade, SF and DK as 0. AR and P@1 need nothing more; LO (and CS, with a scorer)
    need `texts`, every run's answers (the references are the relevant ones among them, and `extra_references`).
    `relevance_level` says which grades P@1 and the references count relevant (2, ARQMath-3's, unless given)."""
    references = (relevant_references(texts, first, qrels, teams or {}, extra=extra_references,
                                      relevance_level=relevance_level) if texts else {})
    runs = []
    for run, answered in first.items():
        per_topic = first_result_scores(answered, qrels, all_topics=all_topics, relevance_level=relevance_level)
        means, topics = mean_of(per_topic, (AR, P1)), len(per_topic)
        if texts is not None:
            team = team_of(run, teams)
            measured = {LO: lexical_overlap(texts.get(run, {}), references, team, tokenizer, all_topics=all_topics)}
            if scorer is not None:
                measured[CS] = contextual_similarity(texts.get(run, {}), references, team, scorer,
                                                     all_topics=all_topics)
            for measure, values in measured.items():
                for topic, value in values.items():
                    per_topic.setdefault(topic, {})[measure] = value
                means[measure] = _mean(list(values.values()))
        runs.append(RunScores(name=run, per_topic=dict(sorted(per_topic.items(), key=lambda kv: natural_key(kv[0]))),
                              means=means, topics=topics))
    return runs


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


# Correlations between the measures ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Correlation:
    """How two measures agree over the runs (ARQMath-3's Table 6): Pearson's r of the values, Kendall's tau-b of the
    rankings; NaN when fewer than two runs have both or either is the same for every run."""

    first: str
    second: str
    pearson: float
    kendall: float
    runs: int


def correlations(runs: Sequence[RunScores], measures: Sequence[str] = MEASURES) -> list[Correlation]:
    """Every pair of the measures, over the runs with a (finite) mean of both."""
    found = []
    for i, first in enumerate(measures):
        for second in measures[i + 1:]:
            both = {run.name: (run.means[first], run.means[second]) for run in runs
                    if math.isfinite(run.means.get(first, math.nan)) and math.isfinite(run.means.get(second, math.nan))}
            if not both and not any(first in run.means and second in run.means for run in runs):
                continue  # a measure not computed (CS without a model)
            a = {name: pair[0] for name, pair in both.items()}
            b = {name: pair[1] for name, pair in both.items()}
            found.append(Correlation(first, second, _pearson(list(a.values()), list(b.values())), kendall_tau(a, b),
                                     len(both)))
    return found


def _pearson(a: list[float], b: list[float]) -> float:
    from scipy import stats  # scipy only when a statistic is computed: commands and pages start without it
    if len(a) < 2 or len(set(a)) < 2 or len(set(b)) < 2:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.pearsonr(a, b).statistic)


def correlation_lines(rows: Iterable[Correlation]) -> Iterator[str]:
    """`# ` lines after the scores: `# correlation ar p1: pearson_r=0.9712 kendall_tau=0.8901 runs=14`."""
    for row in rows:
        yield (f"# correlation {row.first} {row.second}: pearson_r={format_value(row.pearson)}"
               f" kendall_tau={format_value(row.kendall)} runs={row.runs}\n")
