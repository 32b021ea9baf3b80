"""Organizer pages over the judgments: training rounds, the kappa dashboard with its CSV, the disagreement review
and the progress dashboard. Organizers only (assessors get 403)."""
from __future__ import annotations

import csv
from collections import Counter
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize, slugify
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from agreement import calibration, reports, rounds
from agreement import llm as llm_review
from agreement.adjudication import adjudication_record
from agreement.checks import check_items_send
from agreement.forms import AdjudicationForm, LlmCheckForm, TrainingRoundForm
from agreement.tasks import calibration_refit_request
from core.api import flag
from core.bounds import upload_size_check
from core.downloads import attachment, spreadsheet_safe
from core.permissions import organizer_required
from ir.charts import kappa_bars
from ir.problems import InputError
from judging import progress as progress_reports
from judging.forms import GroupKeyForm
from judging.rendering import collection_safe_many
from judging.rendering import thread_url as _post_url
from pooling import selectors as pooling_selectors
from pooling.models import AnswerText, Campaign, Post

if TYPE_CHECKING:
    pass

REVIEW_PAGE_ITEMS = 20  # items per page of the disagreement review


def _llm_review_context(request: HttpRequest, campaign: Campaign, form: LlmCheckForm | None = None
                        ) -> dict[str, Any]:
    """The LLM disagreements section of the review (its own include, _llm_disagreements.html): ?llm_model= names the
    model, ?topic= a topic."""
    try:
        review = llm_review.llm_review(campaign=campaign, model=request.GET.get("llm_model") or None,
                                       topic=request.GET.get("topic") or None)
    except InputError as exc:
        return {"llm_problems": exc.messages()}
    if review is None:
        return {}
    scheme = campaign.judging_scheme
    rows = [{"d": d, "llm_label": scheme.label(str(d.llm)), "official_label": scheme.label(str(d.official)),
             "sent": review.sent.get((d.topic, d.item_id), []),
             "checked": [(name, grade, scheme.label(grade)) for name, grade in
                         review.checked.get((d.topic, d.item_id, d.formula_id), [])]}
            for d in review.items]
    return {"llm_review": review, "llm_rows": rows,
            "llm_form": form or LlmCheckForm(units=[d.key for d in review.items])}


@organizer_required
@require_http_methods(["POST"])
def llm_checks_send(request: HttpRequest, pk: int) -> HttpResponse:
    """Sends the chosen items of the LLM disagreements to an assessor as a check assignment (services.checks)."""
    campaign = get_object_or_404(Campaign, pk=pk)
    # Any unit may be posted: the service sends only items in the campaign's pools.
    form = LlmCheckForm(request.POST, units=request.POST.getlist("units"))
    back = reverse("agreement:disagreements", args=[pk]) + "?" + request.GET.urlencode()
    if form.is_valid():
        assert request.user.is_authenticated  # organizer_required let only a signed-in organizer in
        try:
            sent = check_items_send(campaign=campaign, assessor=form.cleaned_data["assessor"], items=form.items(),
                                    user=request.user)
        except InputError as exc:
            exc.add_to_form(form)
        else:
            topics = len(sent.assignments)
            messages.info(request, f"Sent {sent.sent} item{pluralize(sent.sent)} to {form.cleaned_data['assessor']} "
                                   f"as a check assignment ({topics} topic{pluralize(topics)})"
                                   + (f"; {sent.already} had been sent already" if sent.already else "") + ".")
            return redirect(back + "#llm-disagreements")
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, f"Nothing was sent: {error}")
    return redirect(back + "#llm-disagreements")


@organizer_required
@require_http_methods(["GET", "POST"])
def training_rounds(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's training rounds, and a new round: topics, assessors and an optional gold qrels in one step."""
    campaign = get_object_or_404(Campaign, pk=pk)
    form = TrainingRoundForm(request.POST or None, request.FILES or None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        assert request.user.is_authenticated  # organizer_required let only a signed-in organizer in
        data = form.cleaned_data
        gold = data["gold"]
        try:
            if gold is not None:
                upload_size_check(gold)
            result = rounds.training_round_create(
                campaign=campaign, topic_ids=data["topics"], assessors=list(data["assessors"]),
                number=data["number"], gold=gold.file if gold is not None else None,
                gold_name=gold.name if gold is not None else "", user=request.user)
        except InputError as exc:
            exc.add_to_form(form)
        else:
            note = ""
            if gold is not None:
                note = f", {result.gold} gold judgment{pluralize(result.gold)}"
                if result.gold_other_topics:
                    other = result.gold_other_topics
                    note += f" ({other} line{pluralize(other)} for other topics left out)"
            created = len(result.assignments.created)
            messages.info(request, f"Training round {result.round.number}: {created} "
                                   f"assignment{pluralize(created)} created{note}.")
            return redirect("agreement:training_rounds", pk=pk)
    round_list = rounds.training_round_list(campaign=campaign)
    # Which earlier rounds already hold each topic, beside its box (with its title) in the topic grid.
    used: dict[str, list[str]] = {}
    for r in round_list:
        for topic_id in r.topics:
            used.setdefault(topic_id, []).append(str(r.number))
    topics = {t.topic_id: t for t in campaign.topics.all()}
    return render(request, "agreement/training_rounds.html", {
        "campaign": campaign, "form": form, "rounds": round_list,
        "topic_boxes": [(box, topics[box.data["value"]], used.get(box.data["value"], [])) for box in form["topics"]],
        "next_round": rounds.training_round_next(campaign=campaign)})


def _group(request: HttpRequest, campaign: Campaign) -> tuple[list[reports.GroupKey], reports.GroupKey | None]:
    """All groups of the campaign and the one ?kind=&round= names (default: the latest training round, else the
    dual assessment); InputError for a kind or round the campaign does not have."""
    groups = reports.agreement_groups(campaign=campaign)
    kind, number = GroupKeyForm(request.GET).key()
    if kind is None and number is None:
        training = [g for g in groups if g.kind == reports.TRAINING]
        return groups, (training[-1] if training else groups[-1] if groups else None)
    selected = reports.group_select(campaign=campaign, kind=kind, round=number, groups=groups)
    if len(selected) != 1:
        raise InputError("name one group: a training round (kind=training&round=R) or the dual assessment "
                         "(kind=dual)" if selected else f"campaign '{campaign.name}' has no {kind} assessment")
    return groups, selected[0]


def _problem_page(request, campaign, exc: InputError) -> HttpResponse:
    return render(request, "agreement/agreement.html", {"campaign": campaign, "problems": exc.messages(),
                                                       "groups": reports.agreement_groups(campaign=campaign)},
                  status=400)


def _llm_context(campaign: Campaign) -> dict[str, Any]:
    """The LLM section of the agreement page: each model's row (against the official qrels, its mean with the
    assessors), its pairs, the confusion matrix against the official qrels and the canaries' flip rates."""
    models = []
    agreements = llm_review.llm_agreement(campaign=campaign)
    stale = calibration.stale_models(campaign=campaign) if agreements else []
    if stale and calibration_refit_request(campaign=campaign):
        stale = calibration.stale_models(campaign=campaign)  # without a broker the refit has run
    fits = calibration.calibration_views(campaign=campaign, models=[a.model for a in agreements], stale=stale)
    for a in agreements:
        official = a.official
        models.append({
            "a": a, "official": official,
            "pairs": [{"other": p.other, "c": p.comparison,
                       "kappas": [llm_review.kappa_of(p.comparison, scale) for scale in llm_review.SCALES]}
                      for p in a.pairs],
            "means": [a.means[scale] for scale in llm_review.SCALES], "fit": fits[a.model],
            "confusion": ([{"grade": g, "cells": row, "total": sum(row)}
                           for g, row in zip(official.categories, official.confusion, strict=True)]
                          if official is not None and official.items else [])})
    return {"llm_models": models, "scheme": campaign.judging_scheme}


def _facet_rows(group: reports.AgreementGroup) -> list[dict[str, Any]]:
    """A scheme's facets, kappa per facet for each pair of assessors (each pair once)."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for p in group.facet_pairs:
        if p.assessor < p.other:
            rows.setdefault((p.assessor, p.other), {"assessor": p.assessor, "other": p.other, "facets": []})[
                "facets"].append((p.scale.removeprefix("facet:"), p.kappa))
    return list(rows.values())


@organizer_required
def agreement_dashboard(request: HttpRequest, pk: int) -> HttpResponse:
    """Kappa per assessor as grouped bars, the pairwise matrix and the numbers, for one round or the dual
    assessment."""
    campaign = get_object_or_404(Campaign, pk=pk)
    try:
        groups, key = _group(request, campaign)
    except InputError as exc:
        return _problem_page(request, campaign, exc)
    context = {"campaign": campaign, "groups": groups, "key": key, **_llm_context(campaign)}
    if key is not None:
        group = reports.agreement_of_group(campaign=campaign, key=key)
        gold = {(r.assessor, r.scale): r.kappa for r in group.gold}
        assessors: list[dict[str, Any]] = []
        for name in group.assessors:
            graded, binary = group.mean(name, "graded"), group.mean(name, "binary")
            assessors.append({"name": name, "graded": graded, "binary": binary,
                              "gold_graded": gold.get((name, "graded")), "gold_binary": gold.get((name, "binary"))})
        matrix = [{"name": a, "cells": [None if a == b else {
            "graded": group.pair(a, b, "graded"), "binary": group.pair(a, b, "binary")} for b in group.assessors]}
            for a in group.assessors]
        context.update(group=group, assessors=assessors, matrix=matrix, facet_rows=_facet_rows(group),
                       facet_names=[f.name for f in campaign.judging_scheme.facets], chart=kappa_bars(
            [(a["name"], a["graded"].value, a["binary"].value) for a in assessors]))
    return render(request, "agreement/agreement.html", context)


CSV_HEADER = (*reports.AGREEMENT_HEADER, "reason")



@organizer_required
def agreement_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The rows of `agreement --format tsv` as CSV, with the reason of each n/a; ?kind=&round= as the command."""
    campaign = get_object_or_404(Campaign, pk=pk)
    try:
        kind, number = GroupKeyForm(request.GET).key()
        groups, llms = llm_review.agreement_with_llm(campaign=campaign, kind=kind, round=number)
    except InputError as exc:
        return HttpResponse("\n".join(exc.messages()) + "\n", status=400, content_type="text/plain")
    reasons: dict[tuple[str, ...], str] = {}  # (kind, round, assessor, other, scale) -> why n/a
    for g in groups:
        round_text = str(g.key.round) if g.key.round is not None else "-"
        for p in g.pairs:
            reasons[(g.key.kind, round_text, p.assessor, p.other, p.scale)] = p.kappa.reason
        for m in g.means:
            reasons[(g.key.kind, round_text, m.assessor, "mean", m.scale)] = m.reason
        for p in g.facet_pairs:  # a scheme's facets (docs/judging.md)
            reasons[(g.key.kind, round_text, p.assessor, p.other, p.scale)] = p.kappa.reason
    for a in llms:
        for pair in a.pairs:
            for scale in llm_review.SCALES:
                reasons[(llm_review.LLM, "-", a.name, pair.other, scale)] = llm_review.kappa_of(pair.comparison,
                                                                                                 scale).reason
        for scale, mean in a.means.items():
            reasons[(llm_review.LLM, "-", a.name, "mean", scale)] = mean.reason
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = attachment("agreement", campaign.name, kind or "",
                                                 str(number) if number is not None else "", extension="csv")
    writer = csv.writer(response)
    writer.writerow(CSV_HEADER)
    for row in [*reports.agreement_rows(groups), *llm_review.llm_agreement_rows(llms)]:
        writer.writerow([spreadsheet_safe(cell) if cell != "-" else cell for cell in (*row, reasons.get(row[:5], ""))])
    return response


def _unit_anchor(topic: str, item_id: str, formula_id: str) -> str:
    return "unit-" + slugify(f"{topic}-{item_id}-{formula_id}")


def _record(request: HttpRequest, campaign: Campaign, key: reports.GroupKey | None) -> AdjudicationForm:
    """The POST of a review item's form: records the agreed grade, or returns the form with its problems."""
    form = AdjudicationForm(request.POST, scheme=campaign.judging_scheme)
    if key is None:
        form.add_error(None, f"campaign '{campaign.name}' has no training round or dual assessment to adjudicate")
    elif form.is_valid():
        assert request.user.is_authenticated  # organizer_required let only a signed-in organizer in
        data = form.cleaned_data
        try:
            adjudication_record(campaign=campaign, kind=key.kind, round=key.round, topic_id=data["topic"],
                                item_id=data["item_id"], formula_id=data["formula_id"], grade=data["grade"],
                                note=data["note"], official=data["official"], user=request.user)
        except InputError as exc:
            exc.add_to_form(form)
    return form


@organizer_required
@require_http_methods(["GET", "POST"])
def disagreements(request: HttpRequest, pk: int) -> HttpResponse:
    """The items of a round (or of the dual assessment) to discuss, each assessor's grade and comment and the gold
    grade side by side with the item, for the discussion meeting (?projector=1: large type, one item per screen);
    POST: the organizer's agreed grade of one item (services.adjudication)."""
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), pk=pk)
    try:
        groups, key = _group(request, campaign)
    except InputError as exc:
        return _problem_page(request, campaign, exc)
    rejected: AdjudicationForm | None = None
    if request.method == "POST":
        rejected = _record(request, campaign, key)
        if not rejected.errors:
            data = rejected.cleaned_data
            messages.info(request, f"Recorded grade {data['grade']} for {data['item_id']}"
                                   + (f" (instance {data['formula_id']})" if data["formula_id"] else "")
                                   + f" of topic {data['topic']}.")
            anchor = _unit_anchor(data["topic"], data["item_id"], data["formula_id"])
            return redirect(f"{request.path}?{request.GET.urlencode()}#{anchor}")
    topic_filter = request.GET.get("topic", "")
    recorded_grades = reports.adjudications_of_group(campaign=campaign, key=key) if key else {}
    listed = (reports.disagreement_list(campaign=campaign, key=key, topic=topic_filter or None,
                                        adjudicated=recorded_grades) if key else [])
    projector = flag(request.GET.get("projector"))
    scheme = campaign.judging_scheme
    # A page of items at a time (the projector: one), as typesetting a round's every item took the browser half a
    # minute; the topic links give each topic's items on their own.
    page = Paginator(listed, 1 if projector else REVIEW_PAGE_ITEMS).get_page(request.GET.get("page"))
    items = list(page.object_list)
    per_topic = Counter(d.topic for d in listed)
    unpaged = request.GET.copy()
    unpaged.pop("page", None)
    collection_pk = campaign.collection_id
    posts = ({p.post_id: p for p in Post.objects.filter(collection_id=collection_pk,
                                                        post_id__in={d.post_id for d in items})}
             if collection_pk is not None else {})
    # ARQMath-3 Task 3 answers are pooled under their answer ids: shown as plain text (the organizer may see the id).
    missing = {d.item_id for d in items if d.post_id not in posts} if campaign.task == Campaign.Task.ANSWERS else set()
    answers = ({a.answer_id: a for a in AnswerText.objects.filter(campaign=campaign, answer_id__in=missing)}
               if missing else {})
    thread_url = _post_url(collection_pk) if collection_pk is not None else None
    topics = {t.topic_id: t for t in campaign.topics.filter(topic_id__in={d.topic for d in items})}
    rejected_unit = ((rejected.data.get("topic", ""), rejected.data.get("item_id", ""),
                      rejected.data.get("formula_id", "")) if rejected is not None else None)
    dual = key is not None and key.kind == reports.DUAL
    # The page's topics and posts, sanitized through the cache in one round trip.
    fragments: dict[tuple, tuple[str, list[str]]] = {}
    for d in items:
        topic = topics[d.topic]
        marks = [topic.formula_id] if topic.formula_id else []
        fragments[("title", d.topic)] = (topic.title, marks)
        fragments[("question", d.topic)] = (topic.question, marks)
        if d.post_id in posts:
            fragments[("body", d.post_id, d.formula_id)] = (posts[d.post_id].body, [d.formula_id] if d.formula_id
                                                             else [])
    safe = dict(zip(fragments, collection_safe_many(list(fragments.values()), collection_pk, new_tab=True),
                    strict=True))
    sections: list[dict] = []
    for d in items:
        if not sections or sections[-1]["topic"].topic_id != d.topic:
            sections.append({"topic": topics[d.topic], "items": [], "title": safe[("title", d.topic)],
                             "question": safe[("question", d.topic)]})
        post = posts.get(d.post_id)
        adjudicated = d.adjudication
        form = rejected if rejected_unit == (d.topic, d.item_id, d.formula_id) else AdjudicationForm(
            scheme=scheme, initial={
            "topic": d.topic, "item_id": d.item_id, "formula_id": d.formula_id,
            "grade": adjudicated.grade if adjudicated else "",
            "note": adjudicated.note if adjudicated else "",
            "official": adjudicated.official if adjudicated else dual})
        sections[-1]["items"].append({
            "d": d, "post": post, "answer": answers.get(d.item_id) if post is None else None,
            "number": page.start_index() + sum(len(s["items"]) for s in sections),
            "anchor": _unit_anchor(d.topic, d.item_id, d.formula_id), "form": form,
            "body": safe[("body", d.post_id, d.formula_id)] if post else "",
            "thread_url": thread_url(post.post_id) if post and thread_url else "",
            "grades": [{"assessor": a, "grade": g, "label": scheme.label(g) if g else "not judged",
                        "comment": c}
                       for a, g, c in d.grades],
            "gold_label": scheme.label(str(d.gold)) if d.gold is not None else ""})
    recorded = list(recorded_grades.values())
    download = ""
    if key is not None:
        download = reverse("evaluation:qrels", args=[campaign.pk]) + "?source=adjudicated" + (
            f"&round={key.round}" if key.kind == reports.TRAINING else "")
    return render(request, "agreement/disagreements.html", {
        "campaign": campaign, "groups": groups, "key": key, "sections": sections, "count": len(listed),
        "page": page, "unpaged": unpaged.urlencode(), "topic_counts": list(per_topic.items()),
        "topic_filter": topic_filter, "projector": projector,
        "formulas": campaign.task == Campaign.Task.FORMULAS, "dual": dual, "recorded": recorded,
        "download": download, "gold_name": reports.gold_name_of_group(campaign=campaign, key=key) if key else "",
        "rejected": rejected, **(_llm_review_context(request, campaign) if not projector else {})},
        status=400 if rejected is not None else 200)


@organizer_required
def progress(request: HttpRequest, pk: int) -> HttpResponse:
    """Per assessor and topic: judged of total, seconds per judgment (server and active time), judgments per hour
    and the projected finish date; per topic, the relevant items left and when to stop."""
    campaign = get_object_or_404(Campaign, pk=pk)
    stamp = progress_reports.campaign_visits_stamp(campaign)  # one aggregate over the visits, for both reads below
    measured = progress_reports.judging_time(campaign, visits_stamp=stamp)
    return render(request, "agreement/progress.html", {
        "campaign": campaign, "report": progress_reports.progress_report(campaign=campaign, visits_stamp=stamp),
        "stopping": progress_reports.stopping_report(campaign=campaign),
        "seconds": measured[0] if measured else None,
        "plan_time": pooling_selectors.plan_seconds_per_judgment(measured=measured),
        "plan_min_judgments": pooling_selectors.PLAN_MIN_JUDGMENTS,
        "formulas": campaign.task == Campaign.Task.FORMULAS})
