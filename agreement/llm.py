"""The LLM co-assessor measured against people (docs/agreement.md): each model's agreement with every
assessor and with the official qrels, its canaries' flip rate, and the items where it and the official judgment
differ on relevance, for an organizer to send to an assessor as a check assignment.

A unit is what is judged (a post; a formula instance for formulas), as in the agreement of assessors
(assessor/reports.py). The LLM's grades come from llm/selectors.py: a source of their own, never an assessor.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from agreement import reports
from agreement.official import official_unit_grades
from ir import agreement as ag
from ir.grades import is_relevant
from ir.prime import natural_key
from ir.problems import InputError
from judging.models import Assignment, Judgment
from llm import selectors as llm_selectors
from llm.models import LlmGrade
from pooling.models import Campaign

LLM = "llm"
OFFICIAL_QRELS = "qrels:official"  # the official qrels' column beside assessors (no username holds a colon)
# The kinds of assignment whose judgments are grades of a pool item by a person (characterisation asks questions).
GRADED_KINDS = (Assignment.Kind.OFFICIAL, Assignment.Kind.DUAL, Assignment.Kind.TRAINING)
SCALES = (ag.GRADED, ag.BINARY, "weighted", "alpha")  # the LLM rows' scales, in the TSV's order

Unit = tuple[str, str, str]  # (topic id, item id, formula id)


def scheme_values(campaign: Campaign) -> dict[str, int]:
    """The campaign's grades as stored ('3'..'0', or its scheme's) -> their values; SF and DK are not grades."""
    return {str(g.value): g.value for g in campaign.judging_scheme.grades}


def people_grades(*, campaign: Campaign) -> dict[str, dict[Unit, int]]:
    """assessor -> unit -> grade of every person's judgments on active official, dual and training assignments (SF
    and DK left out); an assessor who graded a unit twice (a training round and their official topic) counts with
    the later grade."""
    values = scheme_values(campaign)
    grades: dict[str, dict[Unit, int]] = {}
    rows = (Judgment.objects.filter(assignment__campaign=campaign, assignment__withdrawn_at__isnull=True,
                                    assignment__kind__in=GRADED_KINDS)
            .order_by("updated_at", "pk")
            .values_list("assignment__assessor__username", "assignment__topic__topic_id", "item_id", "formula_id",
                         "grade"))
    for name, topic_id, item_id, formula_id, grade in rows.iterator(chunk_size=5000):
        if grade in values:
            grades.setdefault(name, {})[(topic_id, item_id, formula_id)] = values[grade]
    return grades


def official_grades(*, campaign: Campaign) -> dict[Unit, int]:
    """unit -> the official grade (official adjudications included), SF and DK left out: the official qrels per
    unit judged."""
    values = scheme_values(campaign)
    return {unit: values[g] for unit, g in official_unit_grades(campaign=campaign).items() if g in values}


@dataclass(frozen=True)
class LlmPair:
    other: str  # an assessor's username, or OFFICIAL_QRELS
    comparison: ag.Comparison


@dataclass
class LlmAgreement:
    """One model's agreement: with the official qrels first, then with each assessor by name; `means`: per scale,
    the mean of its defined kappas with the assessors (as an assessor's "mean" row)."""
    model: str
    graded: int        # pool units it has a grade of
    failures: int      # pool units where it has a failure and no grade
    categories: tuple[int, ...]
    pairs: list[LlmPair] = field(default_factory=list)
    means: dict[str, ag.MeanRow] = field(default_factory=dict)
    flips: list[ag.FlipRate] = field(default_factory=list)

    @property
    def name(self) -> str:
        return llm_selectors.llm_name(self.model)

    @property
    def official(self) -> ag.Comparison | None:
        return next((p.comparison for p in self.pairs if p.other == OFFICIAL_QRELS), None)


def kappa_of(comparison: ag.Comparison, scale: str) -> ag.Kappa:
    """One of SCALES' measures of a comparison, as a Kappa (alpha too: its value, units and reason)."""
    if scale == "alpha":
        a = comparison.alpha
        return ag.Kappa(a.value, a.units, a.reason)
    return {ag.GRADED: comparison.graded, ag.BINARY: comparison.binary, "weighted": comparison.weighted}[scale]


def _means(model: str, pairs: list[LlmPair], items: int) -> dict[str, ag.MeanRow]:
    people = [p for p in pairs if p.other != OFFICIAL_QRELS]
    result = {}
    for scale in SCALES:
        values = [k.value for p in people if (k := kappa_of(p.comparison, scale)).value is not None]
        if values:
            result[scale] = ag.MeanRow(llm_selectors.llm_name(model), scale, sum(values) / len(values), items,
                                       len(values))
        else:
            reason = "no assessor graded an item it graded" if not people else "no kappa with an assessor is defined"
            result[scale] = ag.MeanRow(llm_selectors.llm_name(model), scale, None, items, 0, reason)
    return result


def _failures(campaign: Campaign, model: str, graded: set[Unit]) -> int:
    failed = set(LlmGrade.objects.filter(campaign=campaign, model=model, canary__isnull=True, grade__isnull=True)
                 .values_list("topic__topic_id", "item_id", "formula_id"))
    return len(failed - graded)


def flip_rates(*, campaign: Campaign, model: str, official: dict[Unit, int] | None = None,
               llm: dict[Unit, int] | None = None) -> list[ag.FlipRate]:
    """The canaries' flip rate per kind: of the canaries graded whose source item is not relevant at the campaign's
    relevance level, the fraction the model graded relevant. A source's relevance is its official grade (formulas: of
    its visual id, the highest of its instances'), else the model's own grade of it (a source nobody judged)."""
    official = official_grades(campaign=campaign) if official is None else official
    llm = llm_selectors.llm_grades(campaign=campaign, model=model) if llm is None else llm
    by_official, by_llm = llm_selectors.item_grades(official), llm_selectors.item_grades(llm)
    canaries: dict[str, list[tuple[int | None, int | None]]] = {}
    for c in llm_selectors.canary_grades(campaign=campaign, model=model):
        source = by_official.get((c.topic, c.source_item_id), by_llm.get((c.topic, c.source_item_id)))
        canaries.setdefault(c.kind, []).append((c.grade, source))
    return [ag.flip_rate(kind, rows, campaign.relevance_level) for kind, rows in sorted(canaries.items())]


def llm_agreement(*, campaign: Campaign, models: list[str] | None = None) -> list[LlmAgreement]:
    """Each model's (every model that graded the campaign, or those given) agreement with the official qrels and with
    each assessor over their units in common: kappa on the scheme's grades and binary (relevant at the campaign's
    relevance level), linear-weighted kappa, ordinal alpha and the confusion matrix; and its canaries' flip rate."""
    models = llm_selectors.llm_models(campaign=campaign) if models is None else models
    if not models:  # most campaigns: no judgment is read for nothing
        return []
    people = people_grades(campaign=campaign)
    official = official_grades(campaign=campaign)
    level = campaign.relevance_level
    result = []
    for model in models:
        llm = llm_selectors.llm_grades(campaign=campaign, model=model)
        categories = tuple(sorted(scheme_values(campaign).values()))
        pairs = [LlmPair(OFFICIAL_QRELS, ag.compare(llm, official, level, categories))]
        pairs += [LlmPair(name, ag.compare(llm, people[name], level, categories))
                  for name in sorted(people) if llm.keys() & people[name].keys()]
        shared = {u for p in people.values() for u in p.keys() & llm.keys()}
        result.append(LlmAgreement(model=model, graded=len(llm), failures=_failures(campaign, model, set(llm)),
                                   categories=categories, pairs=pairs, means=_means(model, pairs, len(shared)),
                                   flips=flip_rates(campaign=campaign, model=model, official=official, llm=llm)))
    return result


def llm_agreement_rows(agreements: list[LlmAgreement]) -> list[tuple[str, ...]]:
    """The agreement rows (docs/agreement.md) of the LLMs (kind "llm", round "-", assessor "llm:MODEL"): against the
    official qrels, each assessor, then "mean", on the scales graded, binary, weighted (linear-weighted kappa) and
    alpha (ordinal Krippendorff's alpha of the two)."""
    rows: list[tuple[str, ...]] = []
    for a in agreements:
        for pair in a.pairs:
            for scale in SCALES:
                kappa = kappa_of(pair.comparison, scale)
                rows.append((LLM, "-", a.name, pair.other, scale, kappa.text(), str(kappa.items)))
        for scale in SCALES:
            mean = a.means[scale]
            rows.append((LLM, "-", a.name, "mean", scale, mean.text(), str(mean.items)))
    return rows


def _measure_json(value: float | None, items: int, reason: str) -> dict:
    return {"value": value, "items": items, **({"reason": reason} if reason else {})}


def llm_agreement_json(agreements: list[LlmAgreement]) -> list[dict]:
    """The same numbers for the API and `agreement --kind llm --format json`, with each confusion matrix (rows: the
    LLM's grade, columns: the other's) and the flip rates; undefined values are null with a reason."""
    out = []
    for a in agreements:
        out.append({
            "kind": LLM, "assessor": a.name, "model": a.model, "graded": a.graded, "failures": a.failures,
            "categories": list(a.categories),
            "pairs": [{"other": p.other, **{scale: _measure_json((k := kappa_of(p.comparison, scale)).value,
                                                                 k.items, k.reason) for scale in SCALES},
                       "confusion": {"rows": "llm", "columns": p.other, "grades": list(p.comparison.categories),
                                     "matrix": p.comparison.confusion}}
                      for p in a.pairs],
            "means": {scale: {**_measure_json(m.value, m.items, m.reason), "pairs": m.pairs}
                      for scale, m in a.means.items()},
            "canaries": [{"kind": f.kind, "canaries": f.canaries, "graded": f.graded, "source_not_relevant": f.counted,
                          "flipped": f.flipped, "flip_rate": f.rate} for f in a.flips],
        })
    return out


def agreement_with_llm(*, campaign: Campaign, kind: str | None, round: int | None
                       ) -> tuple[list[reports.AgreementGroup], list[LlmAgreement]]:
    """What `agreement --kind K --round R` reads: the groups asked, and the LLMs' agreement with kind llm or when no
    kind and no round is asked."""
    if kind == LLM:
        if round is not None:
            raise InputError("a round is given for training rounds only, not for the LLM's agreement")
        return [], llm_agreement(campaign=campaign)
    groups = reports.agreement_compute(campaign=campaign, kind=kind, round=round)
    return groups, (llm_agreement(campaign=campaign) if kind is None and round is None else [])


# -- disagreements to people (docs/llm.md)


@dataclass(frozen=True)
class LlmDisagreement:
    """A unit where the model and the official judgment differ on relevance (at the campaign's relevance level)."""
    topic: str
    item_id: str
    formula_id: str
    llm: int
    official: int

    @property
    def relevant_by_llm(self) -> bool:
        return self.llm > self.official

    @property
    def key(self) -> str:
        """The unit as one form value: topic, item and instance joined by tabs (ids hold no tab)."""
        return "\t".join((self.topic, self.item_id, self.formula_id))


def llm_disagreements(*, campaign: Campaign, model: str, topic: str | None = None) -> list[LlmDisagreement]:
    """The units (of one topic, or all) that the model and the official qrels put on different sides of the relevance
    level, those the model calls relevant first (LLMs over-label relevant), then by topic and item in natural
    order."""
    level = campaign.relevance_level
    llm = llm_selectors.llm_grades(campaign=campaign, model=model)
    official = official_grades(campaign=campaign)
    found = [LlmDisagreement(t, i, f, llm[(t, i, f)], official[(t, i, f)])
             for (t, i, f) in llm.keys() & official.keys()
             if (topic is None or t == topic)
             and is_relevant(llm[(t, i, f)], level) != is_relevant(official[(t, i, f)], level)]
    return sorted(found, key=lambda d: (not d.relevant_by_llm, natural_key(d.topic), natural_key(d.item_id),
                                        natural_key(d.formula_id)))


@dataclass
class LlmReview:
    """The LLM disagreements section of the review: the model shown, the models there are, the units listed (at most
    `limit`, relevant-by-LLM first) of `count`, and per item what check assignments hold: who was sent it, and the
    grades they gave (unit -> [(assessor, grade)])."""
    model: str
    models: list[str]
    items: list[LlmDisagreement]
    count: int
    sent: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    checked: dict[Unit, list[tuple[str, str]]] = field(default_factory=dict)


LLM_REVIEW_ITEMS = 200  # units listed at once; the rest by topic (the list is for a meeting, not for export)


def llm_review(*, campaign: Campaign, model: str | None = None, topic: str | None = None,
               limit: int = LLM_REVIEW_ITEMS) -> LlmReview | None:
    """The review's LLM section for one model (the one named, else the campaign's default, else the first), or None
    when no model graded the campaign. InputError for a model that graded nothing."""
    models = llm_selectors.llm_models(campaign=campaign)
    if not models:
        return None
    if not model:
        try:
            model = llm_selectors.llm_model_chosen(campaign=campaign)
        except InputError:  # several models and no endpoint: the first, the page offers the others
            model = models[0]
    model = llm_selectors.llm_model_chosen(campaign=campaign, model=model)
    found = llm_disagreements(campaign=campaign, model=model, topic=topic)
    shown = found[:limit]
    review = LlmReview(model=model, models=models, items=shown, count=len(found))
    checks = Assignment.objects.filter(campaign=campaign, kind=Assignment.Kind.CHECK, withdrawn_at__isnull=True)
    for topic_id, item_id, name in checks.values_list("topic__topic_id", "check_items__item_id",
                                                      "assessor__username"):
        if item_id is not None:
            review.sent.setdefault((topic_id, item_id), []).append(name)
    for topic_id, item_id, formula_id, name, grade in Judgment.objects.filter(assignment__in=checks).values_list(
            "assignment__topic__topic_id", "item_id", "formula_id", "assignment__assessor__username", "grade"):
        review.checked.setdefault((topic_id, item_id, formula_id), []).append((name, grade))
    return review
