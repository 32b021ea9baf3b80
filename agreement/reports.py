"""Organizer reads over the judgments: agreement of training rounds and of the dual assessment (docs/agreement.md) and
the disagreement review (progress and time per judgment: assessor/progress.py).

The unit of agreement is the unit that is judged: a post for answers, a formula instance for formulas (two assessors
agree on an instance when they gave it the same grade). Against a gold qrels of formulas, which grades visual ids,
an assessor's grade for a visual id is the maximum of their grades of its instances (docs/judging.md).
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db.models import Count, Max, Q, Sum

from agreement.models import Adjudication, GoldJudgment, TrainingRound
from ir import agreement as ag
from ir.pools.ids import id_order_key
from ir.problems import InputError
from judging.models import GRADE_VALUES, Assignment, Judgment
from pooling.models import Campaign, PoolInstance, PoolItem
from pooling.selectors import pool_stamp

TRAINING = Assignment.Kind.TRAINING.value
DUAL = Assignment.Kind.DUAL.value
NUMERIC = GRADE_VALUES


# -- which groups there are


@dataclass(frozen=True)
class GroupKey:
    """A training round (kind training, round R) or the dual assessment (kind dual, round None)."""
    kind: str
    round: int | None

    @property
    def label(self) -> str:
        return f"training round {self.round}" if self.kind == TRAINING else "dual assessment"

    @property
    def query(self) -> str:
        return f"kind={self.kind}" + (f"&round={self.round}" if self.round is not None else "")


def agreement_groups(*, campaign: Campaign) -> list[GroupKey]:
    """The campaign's training rounds (set up as rounds, or just assigned), then the dual assessment if any."""
    active = Assignment.objects.filter(campaign=campaign, withdrawn_at__isnull=True)
    rounds = set(active.filter(kind=TRAINING).values_list("round", flat=True))
    rounds |= set(TrainingRound.objects.filter(campaign=campaign).values_list("number", flat=True))
    groups = [GroupKey(TRAINING, r) for r in sorted(rounds)]
    if active.filter(kind=DUAL).exists():
        groups.append(GroupKey(DUAL, None))
    return groups


def group_select(*, campaign: Campaign, kind: str | None = None, round: int | None = None,
                 groups: list[GroupKey] | None = None) -> list[GroupKey]:
    """The groups a request names: all of them, every group of a kind, or one training round. InputError for a
    kind or round the campaign does not have. `groups`: the campaign's agreement_groups, when the caller has read
    them already."""
    if kind not in (None, "", TRAINING, DUAL):
        raise InputError(f"unknown kind '{kind}': agreement is measured for training or dual")
    if round is not None and kind == DUAL:
        raise InputError("a round is given for training rounds only, not for the dual assessment")
    if round is not None:
        kind = TRAINING
    groups = [g for g in (agreement_groups(campaign=campaign) if groups is None else groups)
              if not kind or g.kind == kind]
    if round is not None:
        groups = [g for g in groups if g.round == round]
        if not groups:
            raise InputError(f"campaign '{campaign.name}' has no training round {round}")
    return groups


# -- the judgments of a group


@dataclass
class GroupData:
    """assessor -> unit -> grade as given ('3'..'0', 'SF', 'DK'), with comments; units are (topic id, item id,
    formula id); topics: topic id -> {assessor: assignment kind}, in campaign order."""
    key: GroupKey
    grades: dict[str, dict[tuple, str]] = field(default_factory=dict)
    comments: dict[str, dict[tuple, str]] = field(default_factory=dict)
    facets: dict[str, dict[tuple, dict[str, str]]] = field(default_factory=dict)  # a scheme's facets, as answered
    topics: dict[str, dict[str, str]] = field(default_factory=dict)
    assessors: list[str] = field(default_factory=list)

    def numeric(self) -> dict[str, dict[tuple, int]]:
        """Grades 0..3 only: SF and DK are left out of agreement."""
        return {name: {u: NUMERIC[g] for u, g in units.items() if g in NUMERIC} for name, units in self.grades.items()}


def group_assignments(*, campaign: Campaign, key: GroupKey):
    """The active assignments of a group: a training round's, or the dual assignments and the official assignments
    of the topics that have a dual assessor."""
    active = Assignment.objects.filter(campaign=campaign, withdrawn_at__isnull=True)
    if key.kind == TRAINING:
        assert key.round is not None  # a training group is one round
        return active.filter(kind=TRAINING, round=key.round)
    dual_topics = active.filter(kind=DUAL).values("topic_id")
    return active.filter(Q(kind=DUAL) | Q(kind=Assignment.Kind.OFFICIAL, topic_id__in=dual_topics))


def group_data(*, campaign: Campaign, key: GroupKey, with_comments: bool = False) -> GroupData:
    """The judgments of one group. For the dual assessment: the dual judgments and the official judgments of the
    topics that have a dual assessor (the qrels stay the official assessor's; this only reads them)."""
    data = GroupData(key=key)
    assignments = (group_assignments(campaign=campaign, key=key).select_related("topic", "assessor")
                   .order_by("topic__position", "topic__topic_id", "assessor__username"))
    by_pk = {}
    for a in assignments:
        by_pk[a.pk] = (a.assessor.username, a.topic.topic_id)
        data.topics.setdefault(a.topic.topic_id, {})[a.assessor.username] = a.kind
    data.assessors = sorted({name for name, _ in by_pk.values()})
    for name in data.assessors:
        data.grades[name] = {}
        data.comments[name] = {}
        data.facets[name] = {}
    fields = ["assignment_id", "item_id", "formula_id", "grade", "facets"] + (["comment"] if with_comments else [])
    for row in Judgment.objects.filter(assignment_id__in=list(by_pk)).values_list(*fields).iterator(chunk_size=5000):
        name, topic_id = by_pk[row[0]]
        unit = (topic_id, row[1], row[2])
        data.grades[name][unit] = row[3]
        if row[4]:
            data.facets[name][unit] = row[4]
        if with_comments and row[5]:
            data.comments[name][unit] = row[5]
    return data


# -- agreement


@dataclass(frozen=True)
class GoldRow:
    assessor: str
    scale: str
    kappa: ag.Kappa


@dataclass(frozen=True)
class DualTopicRow:
    topic: str
    official: str
    dual: str
    graded: ag.Kappa
    binary: ag.Kappa


@dataclass
class AgreementGroup:
    key: GroupKey
    assessors: list[str]
    topics: list[str]
    pairs: list[ag.PairRow]
    means: list[ag.MeanRow]
    facet_pairs: list[ag.PairRow]  # a scheme with facets: kappa per facet (pairs hold the combined grade's)
    alpha: dict[str, ag.Alpha]
    judged: int          # judgments with a grade 0..3
    left_out: int        # SF and DK judgments
    gold_name: str = ""
    gold: list[GoldRow] = field(default_factory=list)
    dual_topics: list[DualTopicRow] = field(default_factory=list)

    def mean(self, assessor: str, scale: str) -> ag.MeanRow:
        return next(m for m in self.means if m.assessor == assessor and m.scale == scale)

    def pair(self, assessor: str, other: str, scale: str) -> ag.PairRow | None:
        return next((p for p in self.pairs if p.assessor == assessor and p.other == other and p.scale == scale),
                    None)


def _pairs_sharing_a_topic(data: GroupData) -> list[tuple[str, str]]:
    pairs = set()
    for names in data.topics.values():
        ordered = sorted(names)
        pairs |= {(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:]}
    return sorted(pairs)


def gold_of_group(*, campaign: Campaign, key: GroupKey) -> tuple[str, dict[tuple[str, str], int]]:
    """The gold qrels of a training round that has one: its file name and (topic id, item id) -> grade 0..3
    (formulas: by visual id); ("", {}) for a round without gold and for the dual assessment."""
    training_round = (TrainingRound.objects.filter(campaign=campaign, number=key.round).first()
                      if key.kind == TRAINING and key.round is not None else None)
    if training_round is None or not training_round.gold_name:
        return "", {}
    return training_round.gold_name, {(t, i): g for t, i, g in GoldJudgment.objects.filter(round=training_round)
                                      .values_list("topic__topic_id", "item_id", "grade")}


def gold_name_of_group(*, campaign: Campaign, key: GroupKey) -> str:
    """The file name of a training round's gold qrels, without reading them ("" without gold, and for the dual
    assessment)."""
    if key.kind != TRAINING or key.round is None:
        return ""
    return (TrainingRound.objects.filter(campaign=campaign, number=key.round).values_list("gold_name", flat=True)
            .first() or "")


def _per_item(units: dict[tuple, int]) -> dict[tuple[str, str], int]:
    """Per item (answers) or per visual id (formulas: the maximum grade of the judged instances), as gold grades."""
    own: dict[tuple[str, str], int] = {}
    for (topic_id, item_id, _formula_id), grade in units.items():
        own[(topic_id, item_id)] = max(grade, own.get((topic_id, item_id), -1))
    return own


def _gold(campaign: Campaign, key: GroupKey, grades: dict[str, dict[tuple, int]]) -> tuple[str, list[GoldRow]]:
    gold_name, gold = gold_of_group(campaign=campaign, key=key)
    if not gold_name:
        return "", []
    rows = []
    for name in sorted(grades):
        own = _per_item(grades[name])
        for scale in ag.SCALES:
            rows.append(GoldRow(name, scale, ag.kappa_between(own, gold, scale, campaign.relevance_level)))
    return gold_name, rows


def _dual_topics(data: GroupData, grades: dict[str, dict[tuple, int]], relevance_level: int) -> list[DualTopicRow]:
    rows = []
    for topic_id, kinds in data.topics.items():
        official = next((n for n, k in kinds.items() if k == Assignment.Kind.OFFICIAL), None)
        for dual in (n for n, k in kinds.items() if k == DUAL):
            if official is None:
                continue
            first = {u: g for u, g in grades[official].items() if u[0] == topic_id}
            second = {u: g for u, g in grades[dual].items() if u[0] == topic_id}
            rows.append(DualTopicRow(topic_id, official, dual, ag.kappa_between(first, second, ag.GRADED),
                                     ag.kappa_between(first, second, ag.BINARY, relevance_level)))
    return rows


def agreement_of_group(*, campaign: Campaign, key: GroupKey) -> AgreementGroup:
    """A group's agreement; the binary scale counts relevant what the campaign's relevance level does. Kept in the
    cache under what it is computed from (`_group_stamp`, the relevance level and the scheme's facets), as the
    disagreement list is: the agreement page, its CSV and the API read a round's every judgment and compute its
    pairwise kappas only after one of them changed (docs/benchmarks.md)."""
    facets = [f.name for f in campaign.judging_scheme.facets]
    asked = hashlib.sha256(repr((campaign.relevance_level, facets)).encode()).hexdigest()[:16]
    cache_key = f"agreement:v1:{campaign.pk}:{key.kind}:{key.round}:{asked}:{_group_stamp(campaign, key)}"
    found: AgreementGroup | None = cache.get(cache_key)
    if found is None:
        found = _agreement_compute(campaign, key, facets)
        cache.set(cache_key, found, DISAGREEMENTS_SECONDS)
    return found


def _agreement_compute(campaign: Campaign, key: GroupKey, facets: list[str]) -> AgreementGroup:
    data = group_data(campaign=campaign, key=key)
    grades = data.numeric()
    level = campaign.relevance_level
    pairs = ag.pairwise(grades, _pairs_sharing_a_topic(data), level)
    judged = sum(len(units) for units in grades.values())
    result = AgreementGroup(
        key=key, assessors=data.assessors, topics=list(data.topics), pairs=pairs, means=ag.means(grades, pairs),
        facet_pairs=ag.facet_pairs(data.facets, facets, _pairs_sharing_a_topic(data)),
        alpha={scale: ag.krippendorff_alpha(grades, scale, level) for scale in ag.SCALES}, judged=judged,
        left_out=sum(len(units) for units in data.grades.values()) - judged)
    if key.kind == TRAINING:
        result.gold_name, result.gold = _gold(campaign, key, grades)
    else:
        result.dual_topics = _dual_topics(data, grades, level)
    return result


def agreement_compute(*, campaign: Campaign, kind: str | None = None, round: int | None = None
                      ) -> list[AgreementGroup]:
    """Agreement of every group the request names (docs/agreement.md): training rounds in order, then the dual
    assessment."""
    return [agreement_of_group(campaign=campaign, key=key)
            for key in group_select(campaign=campaign, kind=kind, round=round)]


AGREEMENT_HEADER = ("kind", "round", "assessor", "other", "scale", "kappa", "items")


def agreement_rows(groups: list[AgreementGroup]) -> list[tuple[str, ...]]:
    """The rows of `agreement --format tsv` (docs/agreement.md, header not included): per assessor, each other
    assessor then "mean", graded then binary. A dual assessment has no round: "-"."""
    rows: list[tuple[str, ...]] = []
    for group in groups:
        round_text = str(group.key.round) if group.key.round is not None else "-"
        for name in group.assessors:
            others = sorted({p.other for p in group.pairs if p.assessor == name})
            for other in others:
                for scale in ag.SCALES:
                    pair = group.pair(name, other, scale)
                    assert pair is not None  # `others` are the assessor's pairs, computed on every scale
                    rows.append((group.key.kind, round_text, name, other, scale, pair.kappa.text(),
                                 str(pair.kappa.items)))
            for scale in ag.SCALES:
                mean = group.mean(name, scale)
                rows.append((group.key.kind, round_text, name, "mean", scale, mean.text(), str(mean.items)))
            rows += [(group.key.kind, round_text, name, p.other, p.scale, p.kappa.text(), str(p.kappa.items))
                     for p in group.facet_pairs if p.assessor == name]
    return rows


def _kappa_json(kappa: ag.Kappa) -> dict:
    return {"kappa": kappa.value, "items": kappa.items, **({"reason": kappa.reason} if kappa.reason else {})}


def agreement_json(groups: list[AgreementGroup]) -> list[dict]:
    """The same numbers for the API and `agreement --format json`; undefined values are null with a reason."""
    out = []
    for g in groups:
        out.append({
            "kind": g.key.kind, "round": g.key.round, "assessors": g.assessors, "topics": g.topics,
            "judged": g.judged, "left_out_sf_dk": g.left_out,
            "pairs": [{"assessor": p.assessor, "other": p.other, "scale": p.scale, **_kappa_json(p.kappa)}
                      for p in g.pairs],
            **({"facets": [{"assessor": p.assessor, "other": p.other, "scale": p.scale, **_kappa_json(p.kappa)}
                           for p in g.facet_pairs]} if g.facet_pairs else {}),
            "means": [{"assessor": m.assessor, "scale": m.scale, "kappa": m.value, "items": m.items,
                       "pairs": m.pairs, **({"reason": m.reason} if m.reason else {})} for m in g.means],
            "alpha": {scale: {"alpha": a.value, "items": a.units, **({"reason": a.reason} if a.reason else {})}
                      for scale, a in g.alpha.items()},
            "gold": ({"file": g.gold_name, "kappas": [{"assessor": r.assessor, "scale": r.scale,
                                                       **_kappa_json(r.kappa)} for r in g.gold]}
                     if g.gold_name else None),
            **({"topics_dual": [{"topic": r.topic, "official": r.official, "dual": r.dual,
                                 "graded": _kappa_json(r.graded), "binary": _kappa_json(r.binary)}
                                for r in g.dual_topics]} if g.key.kind == DUAL else {}),
        })
    return out


# -- disagreement review


@dataclass
class DisagreementItem:
    topic: str
    item_id: str
    formula_id: str
    post_id: str
    position: int
    grades: list[tuple[str, str, str]]  # (assessor, grade or "", comment) for every assessor of the topic
    gold: int | None = None             # the round's gold grade of the item (formulas: of its visual id), if any
    gold_differs: bool = False          # an assessor's grade of the item is not the gold grade
    adjudication: Adjudication | None = None  # the organizer's recorded grade, with its revisions

    @property
    def spread(self) -> int:
        numeric = [NUMERIC[g] for _, g, _ in self.grades if g in NUMERIC]
        return max(numeric) - min(numeric) if numeric else 0


def group_round(key: GroupKey) -> int:
    """A group's round as adjudications store it: the training round, 0 for the dual assessment."""
    return key.round if key.kind == TRAINING and key.round is not None else 0


def adjudications_of_group(*, campaign: Campaign, key: GroupKey) -> dict[tuple[str, str, str], Adjudication]:
    """The organizer's recorded grades of a group by unit (topic id, item id, formula id), with their revisions
    (oldest first) and who recorded them."""
    rows = (Adjudication.objects.filter(campaign=campaign, kind=key.kind, round=group_round(key))
            .select_related("topic", "by").prefetch_related("revisions__by"))
    return {(a.topic.topic_id, a.item_id, a.formula_id): a for a in rows}


def disagreement_list(*, campaign: Campaign, key: GroupKey, topic: str | None = None,
                      adjudicated: dict[tuple[str, str, str], Adjudication] | None = None) -> list[DisagreementItem]:
    """The units of a group to discuss, by topic and pool order: those that two assessors or more graded
    differently (SF and DK count as grades here: they are worth discussing too), and, in a training round with gold
    qrels, those whose gold grade an assessor did not give (all assessors may agree with each other and not with
    gold; formulas: an assessor's grade of a visual id is the highest of its instances they graded, as the gold
    kappa takes it). Each with the gold grade and the organizer's recorded grade, when there are.

    The list without the recorded grades is kept in the cache under what it is computed from (`_group_stamp`), so
    that a page of the review, and the next one, do not read the group's every judgment again; the recorded grades,
    which the review meeting changes item by item, are read on each call (`adjudicated`: the group's
    adjudications_of_group, when the caller has read them already)."""
    cache_key = f"disagreements:v1:{campaign.pk}:{key.kind}:{key.round}:{_group_stamp(campaign, key)}"
    found: list[DisagreementItem] | None = cache.get(cache_key)
    if found is None:
        found = _disagreements_compute(campaign, key)
        cache.set(cache_key, found, DISAGREEMENTS_SECONDS)
    if topic:
        found = [d for d in found if d.topic == topic]
    if adjudicated is None:
        adjudicated = adjudications_of_group(campaign=campaign, key=key)
    for d in found:
        d.adjudication = adjudicated.get((d.topic, d.item_id, d.formula_id))
    return found


# A group's list (and its agreement) stays in the cache this long after it was computed, unless what it was computed
# from changes first.
DISAGREEMENTS_SECONDS = 24 * 3600


def _group_stamp(campaign: Campaign, key: GroupKey) -> str:
    """A digest of what a group's disagreement list is computed from: its active assignments (with their assessors
    and topics, whose order the list follows), their judgments (a submission adds one or raises a revision number),
    the round's gold qrels, and the pool rows (positions, and the posts of formula instances)."""
    assignments = list(group_assignments(campaign=campaign, key=key).order_by("pk").values_list(
        "pk", "kind", "assessor__username", "topic__topic_id", "topic__position"))
    judged = (Judgment.objects.filter(assignment_id__in=[a[0] for a in assignments]).order_by()
              .aggregate(n=Count("pk"), revisions=Sum("revision"), last=Max("updated_at")))
    gold = (tuple(TrainingRound.objects.filter(campaign=campaign, number=group_round(key)).order_by()
                  .aggregate(name=Max("gold_name"), n=Count("gold"), last=Max("gold__pk")).values())
            if key.kind == TRAINING else ())
    stamp = (assignments, tuple(judged.values()), gold, pool_stamp(campaign))
    return hashlib.sha256(repr(stamp).encode()).hexdigest()[:32]


def _disagreements_compute(campaign: Campaign, key: GroupKey) -> list[DisagreementItem]:
    """The group's disagreement list of every topic, without the recorded grades."""
    data = group_data(campaign=campaign, key=key, with_comments=True)
    _gold_name, gold = gold_of_group(campaign=campaign, key=key)
    by_item = {name: _per_item(units) for name, units in data.numeric().items()}
    positions = {(t, i): p for t, i, p in PoolItem.objects.filter(campaign=campaign, topic__topic_id__in=list(
        data.topics)).values_list("topic__topic_id", "item_id", "position")}
    units: dict[tuple, list[str]] = defaultdict(list)
    for name in data.assessors:
        for unit in data.grades[name]:
            units[unit].append(name)
    found = []
    topic_order = {t: n for n, t in enumerate(data.topics)}
    for unit, names in units.items():
        topic_id, item_id, formula_id = unit
        given = {data.grades[n][unit] for n in names}
        gold_grade = gold.get((topic_id, item_id))
        gold_differs = gold_grade is not None and any(by_item[n].get((topic_id, item_id)) != gold_grade
                                                      for n in names)
        if not gold_differs and (len(names) < 2 or len(given) < 2):
            continue
        found.append(DisagreementItem(
            topic=topic_id, item_id=item_id, formula_id=formula_id, post_id=item_id, position=positions.get(
                (topic_id, item_id), 10**9),
            grades=[(n, data.grades[n].get(unit, ""), data.comments[n].get(unit, "")) for n in
                    sorted(data.topics[topic_id])],
            gold=gold_grade, gold_differs=gold_differs))
    found.sort(key=lambda d: (topic_order[d.topic], d.position, id_order_key(d.formula_id)))
    if campaign.task == Campaign.Task.FORMULAS and found:
        posts = dict(PoolInstance.objects.filter(item__campaign=campaign, formula_id__in={d.formula_id for d in found})
                     .values_list("formula_id", "post_id"))
        for d in found:
            d.post_id = posts.get(d.formula_id, "")
    return found
