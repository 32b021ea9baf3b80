"""The leaderboard's scores made again for the topics whose official judgments changed (docs/evaluation.md, "Scores
that follow the judging"): a judgment changes its topic's qrels only, so the snapshot's recompute
(evaluation/snapshots.py) scores that topic's runs again (`scoring.score`, restricted to it), keeps every other
topic's stored rows and forms the means and the qrels' counts from the rows, as a full recompute forms them. Runs
added or removed, formulas added, the LLM judge's grades or the earlier editions changed: that part is made anew.
The nugget and support scores of generated answers are made anew at every recompute (nuggets/scores.py)."""
from __future__ import annotations

import hashlib
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from evaluation import editions, llm_board, scoring, selectors, services
from ir.grades import is_relevant
from ir.measures import measure_mean, parse_measures
from ir.prime import RunScores, natural_key
from ir.problems import InputError
from nuggets import scores as nugget_scores
from pooling.models import Campaign, Run

FORMULAS = Campaign.Task.FORMULAS.value


@dataclass
class Stamps:
    """What the leaderboard's scores were computed from, as the snapshot stores it: the runs' stamp
    (`selectors.runs_stamp`), each topic's (`selectors.topic_stamps`), the LLM part's and the editions'; and, for a
    formula campaign, each topic's judged instances (what the leaderboard counts beside the visual ids)."""

    runs: str
    topics: dict[str, str]
    llm: str
    editions: str
    instances: dict[str, int] = field(default_factory=dict)

    def stored(self) -> dict:
        return {"runs": self.runs, "topics": self.topics, "llm": self.llm, "editions": self.editions,
                "instances": self.instances}


def stamps_read(*, campaign: Campaign) -> Stamps:
    """The campaign's stamps now: read before its judgments are, so that a judgment made while they are scored
    leaves its topic's stamp stale, scored again by the next recompute."""
    runs = hashlib.sha256(repr(selectors.runs_stamp(campaign=campaign)).encode()).hexdigest()[:32]
    return Stamps(runs=runs, topics=selectors.topic_stamps(campaign=campaign),
                  llm=llm_board.llm_stamp(campaign=campaign), editions=editions.editions_stamp(campaign=campaign))


@dataclass
class Previous:
    """The snapshot's last scores, decoded: the people's (None: there were none, a problem), the LLM part, the
    earlier editions' and the stamps they were computed from."""

    people: services.Evaluation | None
    llm: llm_board.LlmBoard | None
    editions: list[editions.Edition]
    stamps: Stamps


@dataclass
class Leaderboard:
    """A snapshot's new scores: the people's (None with `problem`), the LLM part, the editions', the stamps to store,
    and the topics scored again (None: every one, a full recompute)."""

    people: services.Evaluation | None
    llm: llm_board.LlmBoard | None
    editions: list[editions.Edition]
    stamps: Stamps
    problem: str = ""
    scored: list[str] | None = None


def stamps_of(stored: dict | None) -> Stamps | None:
    """The stamps a snapshot stored (None: stored before they were, or never)."""
    if not stored:
        return None
    return Stamps(runs=stored["runs"], topics=stored["topics"], llm=stored["llm"], editions=stored["editions"],
                  instances=stored.get("instances", {}))


def changed_topics(previous: Stamps, now: Stamps) -> list[str]:
    """The topics whose stamp differs (added, removed or changed), in natural order."""
    changed = {topic for topic in previous.topics.keys() | now.topics.keys()
               if previous.topics.get(topic) != now.topics.get(topic)}
    return sorted(changed, key=natural_key)


def leaderboard_scores(*, campaign: Campaign, all_topics: bool, measures: Sequence[str], relevance_level: int,
                       previous: Previous | None) -> Leaderboard:
    """The leaderboard's scores with these options: the changed topics' scores spliced into `previous` when the runs
    and the formulas are those it was computed with, else every topic's (`services.evaluate_campaign`). The earlier
    editions' are kept unless the runs or the editions changed (they read none of the campaign's judgments); the LLM
    part's runs are kept unless the runs or its stamp changed, its correlations made again against the new scores.
    InputError (no judgment left): the problem, with the editions."""
    now = stamps_read(campaign=campaign)
    same_runs = previous is not None and previous.stamps.runs == now.runs
    earlier = (previous.editions if previous is not None and same_runs and previous.stamps.editions == now.editions
               else editions.campaign_edition_scores(campaign=campaign, all_topics=all_topics))
    scored: list[str] | None = None
    people = None
    if previous is not None and previous.people is not None and same_runs:
        scored = changed_topics(previous.stamps, now)
        now.instances = {topic: count for topic, count in previous.stamps.instances.items() if topic not in scored}
        people = _people_update(campaign, previous.people, scored, measures=measures, all_topics=all_topics,
                                relevance_level=relevance_level, instances=now.instances)
    try:
        if people is None:
            scored = None
            people = services.evaluate_campaign(campaign=campaign, all_topics=all_topics, measures=measures,
                                                relevance_level=relevance_level)
            now.instances = _instances(campaign, None)
        old = previous.llm if previous is not None and scored is not None and previous.stamps.llm == now.llm else None
        if old is None:
            llm = llm_board.llm_board(campaign=campaign, people=people)
        elif old.problem:  # no judge, or no grade of its yet: as it was (its stamp says so)
            llm = old
        else:
            llm = llm_board.llm_compared(old, people=people, qrels_topics=old.qrels_topic_ids)
    except InputError as exc:  # no judgments yet is an answer too
        return Leaderboard(people=None, llm=None, editions=earlier, stamps=now, problem="; ".join(exc.messages()))
    return Leaderboard(people=people, llm=llm, editions=earlier, stamps=now, scored=scored)


def _instances(campaign: Campaign, topics: Collection[str] | None) -> dict[str, int]:
    """A formula campaign's judged instances per topic (the instance-level export's lines), of `topics` only when
    given; nothing for an answers campaign."""
    if campaign.task != FORMULAS:
        return {}
    return {topic: len(rows) for topic, rows in
            selectors.qrels_by_topic(campaign=campaign, level=selectors.INSTANCE, topics=topics)}


def _people_update(campaign: Campaign, previous: services.Evaluation, topics: list[str], *, measures: Sequence[str],
                   all_topics: bool, relevance_level: int, instances: dict[str, int]) -> services.Evaluation | None:
    """`previous` with the rows of `topics` scored again, the means and counts formed again; None when no topic
    is left with a judgment (a full recompute says why). `instances` gets the topics' judged instances."""
    if not topics:
        found = services.Evaluation(runs=[], answer_runs=[], qrels_topics=0, all_topics=all_topics)
        counts: list[tuple[str, int, int]] = []
        post_topics: list[str] = []
    else:
        judged = scoring.official_judgments(campaign=campaign, topics=topics)
        runs = list(Run.objects.filter(campaign=campaign).order_by("name"))
        held = scoring.ranked_qrels(judged.qrels)
        found = services.Evaluation(runs=[], qrels_topics=len(held), all_topics=all_topics)
        post_topics = []
        if held:
            ranked = scoring.score(scoring.StoredRuns(campaign, runs, topics=topics), judged, measures=measures,
                                   all_topics=all_topics, relevance_level=relevance_level)
            found.runs, post_topics = ranked.runs, ranked.topics
        found.answer_runs = scoring.score(scoring.StoredAnswers(campaign, runs), judged, all_topics=all_topics,
                                          relevance_level=relevance_level).runs
        counts = [(topic, len(items), sum(1 for grade in items.values() if is_relevant(grade, relevance_level)))
                  for topic, items in held.items()]
        instances.update(_instances(campaign, topics))
    changed = set(topics)
    counts = sorted([*(row for row in previous.topic_counts if row[0] not in changed), *counts],
                    key=lambda row: natural_key(row[0]))
    if not counts:
        return None
    extra = {named.name: named for named in parse_measures(nugget_scores.ranked_measures(measures),
                                                           relevance_level=relevance_level)}
    # A trec_eval measure's mean sums its values in the order the full recompute lists its topics: every qrels
    # topic in natural order (all topics), else the order the run's rows come in, by topic pk.
    order = None if all_topics else _pk_order(campaign)
    spliced = services.Evaluation(
        runs=_spliced(previous.runs, found.runs, changed, extra, order),
        qrels_topics=len(counts), all_topics=all_topics, topic_counts=counts,
        judgments=sum(count for _topic, count, _relevant in counts),
        instances=sum(instances.values()) if campaign.task == FORMULAS else None,
        measures=previous.measures,
        topics=sorted({*(topic for topic in previous.topics if topic not in changed), *post_topics}, key=natural_key),
        relevance_level=previous.relevance_level,
        answer_runs=_spliced(previous.answer_runs, found.answer_runs, changed, {}, None))
    # The support labels are few and have no topic stamps: their scores are made anew at every recompute.
    nuggets = services.campaign_nugget_scores(campaign=campaign, all_topics=all_topics)
    return services.with_nugget_scores(spliced, nuggets, order=list(
        Run.objects.filter(campaign=campaign).order_by("name").values_list("name", flat=True)))


def _pk_order(campaign: Campaign) -> dict[str, int]:
    return {topic: n for n, topic in enumerate(
        campaign.topics.order_by("pk").values_list("topic_id", flat=True))}


def _spliced(previous: list[RunScores], new: list[RunScores], changed: set[str], extra: dict,
             order: dict[str, int] | None) -> list[RunScores]:
    """Each run of `previous` with its rows of the `changed` topics those of `new`, its means formed again."""
    by_name = {scores.name: scores for scores in new}
    spliced = []
    for old in previous:
        fresh = by_name.get(old.name)
        rows = {topic: values for topic, values in old.per_topic.items() if topic not in changed}
        rows.update(fresh.per_topic if fresh is not None else {})
        per_topic = {topic: rows[topic] for topic in sorted(rows, key=natural_key)}
        means = {measure: _mean(per_topic, measure, extra.get(measure), order) for measure in old.means}
        first = next(iter(means), None)
        spliced.append(RunScores(name=old.name, per_topic=per_topic, means=means,
                                 topics=sum(1 for values in per_topic.values() if first in values)))
    return spliced


def _mean(per_topic: dict[str, dict[str, float]], measure: str, named, order: dict[str, int] | None) -> float:
    """A measure's mean over the topics with a value of it: every measure's is the plain mean of those values (the
    prime measures', Unjudged@10's, AR's, P@1's, LO's: `ir.prime.Evaluator.scores`, `ir.task3_measures`) but a
    trec_eval measure asked for by name, whose mean is trec_eval's own (`ir.measures.measure_mean`)."""
    topics = [topic for topic, values in per_topic.items() if measure in values]
    if named is None:
        values = [per_topic[topic][measure] for topic in topics]
        return math.fsum(values) / len(values) if values else math.nan
    if order is not None:
        topics.sort(key=lambda topic: order.get(topic, len(order)))
    return measure_mean(named, [per_topic[topic][measure] for topic in topics])
