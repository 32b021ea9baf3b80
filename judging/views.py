"""Assessor pages (assignments, the judging view, thread views) and the organizer's assignment page."""
from __future__ import annotations

from collections.abc import Callable
from itertools import groupby

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from core.permissions import ORGANIZERS, organizer_required
from ir.problems import InputError
from judging import budgets, selectors, services
from judging.forms import (
    AssessorCreateForm,
    AssignForm,
    BrowserSubmitForm,
    ContinueForm,
    TopicSearchForm,
    grades_posted,
    seen_revision,
)
from judging.judge_page import history_context, judge_context, own_assignment, progress_shown
from judging.models import Assignment
from judging.rendering import collection_safe
from people import services as people_services
from people.pages import password_once
from pooling.models import Campaign, Collection, PoolItem, Topic


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """An assessor's start page: their assignments grouped by campaign, with progress and a Continue button."""
    assert request.user.is_authenticated  # login_required
    assignments = list(selectors.assignment_list(user=request.user))
    for a in assignments:  # counted to its budget, as the judging page counts (asked only where a budget is set)
        if a.campaign.topic_budget is not None or a.campaign.hours_budget is not None:
            a.total = progress_shown(a, selectors.Progress(done=a.done, total=a.total)).total
    done = sum(a.done for a in assignments)
    total = sum(a.total for a in assignments)
    skipped = sum(a.skipped for a in assignments)
    # One group per campaign (the list is in campaign order), open while it has work left: after an import an
    # assessor may hold 75 topics and more.
    groups = []
    for campaign, rows in groupby(assignments, key=lambda a: a.campaign):
        held = list(rows)
        groups.append({"campaign": campaign, "assignments": held, "done": sum(a.done for a in held),
                       "total": sum(a.total for a in held),
                       "open": any(a.done < a.total and not a.closed_at for a in held)})
    return render(request, "judging/home.html", {"assignments": assignments, "groups": groups, "done": done,
                                                  "total": total, "skipped": skipped,
                                                  "not_arrived": selectors.submits_not_arrived(user=request.user)})


@login_required
def assignment_continue(request: HttpRequest, pk: int) -> HttpResponse:
    """Opens the next unjudged item (after ?after=POSITION when given); the start page when none is left."""
    assignment = own_assignment(request, pk)
    if assignment.kind == Assignment.Kind.CHARACTERISATION:  # its sample, with questions instead of grades
        return redirect("characterisation:characterise_continue", pk=pk)
    return _next_item(request, assignment, position_after(request))


def position_after(request: HttpRequest) -> int | None:
    """The `?after=` position a continue URL goes on from; None (from the start) when there is none or it is not a
    number. A position past every item continues from the start too."""
    return ContinueForm(request.GET).position()


def _next_item(request: HttpRequest, assignment: Assignment, after: int | None) -> HttpResponse:
    """A redirect to the next unjudged item after position `after` (in the campaign's judging order), else to the
    start page with a thank-you; the start page, saying so, when the assignment's budget is spent (read only: the
    submit that spent it closed the assignment, budgets.budget_close)."""
    budget = budgets.assignment_budget(assignment=assignment)
    if budget.spent:
        messages.info(request, budgets.budget_message(assignment, budget))
        return redirect("judging:home")
    item = selectors.next_item(assignment=assignment, after=after)
    if item is None:
        messages.info(request, f"Topic {assignment.topic.topic_id}: every item is judged. Thank you!")
        return redirect("judging:home")
    return redirect("judging:judge", pk=assignment.pk, position=item.position)


CONFLICT_CHOICE = ("Submit again to save your grades as a new revision, or leave this item (Next unjudged, or "
                   "reload it) to keep the other tab's.")


def _grade_inputs(request: HttpRequest, item_id: str) -> list[services.GradeInput]:
    """The grades of the form. The form names the item and each instance it showed, so that a page left open
    across a forced pool rebuild cannot put its grades on whatever item or instance now sits at that place."""
    if request.POST.get("item_id") != item_id:
        raise InputError("the pools were rebuilt since this page was shown: reload it and grade again")
    return grades_posted(request.POST)


@login_required
@require_http_methods(["GET", "POST"])
def judge(request: HttpRequest, pk: int, position: int) -> HttpResponse:
    """The two-pane judging view (docs/judging.md); POST submits the grades of the item shown."""
    assert request.user.is_authenticated  # login_required
    if request.method == "GET":
        page = selectors.judging_page(user=request.user, assignment_pk=pk, position=position)
        if page is None:
            raise Http404("No such assignment or item")
        if page.assignment.kind == Assignment.Kind.CHARACTERISATION:  # asked its questions, item by item
            return redirect("characterisation:characterise", pk=pk, number=0)
        if not page.assignment.read_only:
            services.item_visit(assignment=page.assignment, item_id=page.item.item_id)
        return _judge_page(request, page)
    heard = BrowserSubmitForm(request.POST).heard()
    if heard is not None:  # the page's outbox no longer holds it, whatever the answer (docs/judging.md)
        services.browser_submit_heard(user=request.user, browser=heard[0], number=heard[1])
    item_id = selectors.item_id_at(user=request.user, assignment_pk=pk, position=position)
    if item_id is None:
        raise Http404("No such assignment or item")
    try:
        active = float(request.POST.get("active_seconds") or 0)
    except ValueError:
        active = 0.0
    # The page's script asks for JSON (it has moved on to the next item already); a plain form gets pages.
    answer_json = request.headers.get("Accept", "").startswith("application/json")
    try:
        result = services.judgment_submit(assignment_pk=pk, item_id=item_id, grades=_grade_inputs(request, item_id),
                                          user=request.user, active_seconds=active,
                                          key=request.POST.get("submit_key", ""),
                                          seen=seen_revision(request.POST))
    except InputError as exc:
        conflict = exc if isinstance(exc, services.RevisionConflict) else None
        if answer_json:
            if conflict is not None:  # the page asks which to keep (judge-outbox.js)
                return JsonResponse({"saved": False, "errors": exc.messages(),
                                     "conflict": {"revision": conflict.revision}}, status=409)
            return JsonResponse({"saved": False, "errors": exc.messages()}, status=400)
        # A refused submission: the page again, with why and with the choices made (after a conflict, with the
        # server's revision: submitting again replaces it deliberately).
        page = selectors.judging_page(user=request.user, assignment_pk=pk, position=position)
        if page is None:
            raise Http404("No such assignment or item") from None
        errors = exc.messages() + ([CONFLICT_CHOICE] if conflict else [])
        return _judge_page(request, page, errors, request.POST)
    except (Assignment.DoesNotExist, PoolItem.DoesNotExist):
        raise Http404("No such assignment or item") from None
    if answer_json:
        held = Assignment.objects.select_related("campaign").get(pk=pk)
        progress = progress_shown(held, selectors.assignment_progress(assignment=held))
        return JsonResponse({"saved": True, "complete": result.complete, "repeated": result.repeated,
                             "revision": result.revision,
                             "progress": {"done": progress.done, "total": progress.total}})
    if not result.complete:
        messages.info(request, "Saved. Grade every instance to complete this formula.")
        return redirect("judging:judge", pk=pk, position=position)
    # Straight to the next item, as the continue URL would send the browser: one round trip less.
    return _next_item(request, Assignment.objects.select_related("topic", "campaign__llm_endpoint").get(pk=pk),
                      position)


def _judge_page(request: HttpRequest, page: selectors.JudgingPage, errors: list[str] | None = None,
                posted=None) -> HttpResponse:
    return render(request, "judging/judge.html", judge_context(page, errors or [], posted),
                  status=400 if errors else 200)



@login_required
@require_http_methods(["GET"])
def judgment_history(request: HttpRequest, pk: int, position: int) -> HttpResponse:
    """Every revision of the assessor's judgments of one item: grade, comment, facets, the LLM grade on screen."""
    assignment = own_assignment(request, pk)
    item = get_object_or_404(PoolItem, topic_id=assignment.topic_id, position=position)
    return render(request, "judging/history.html", history_context(assignment, item))


@login_required
@require_POST
def skip(request: HttpRequest, pk: int, position: int) -> HttpResponse:
    assignment = own_assignment(request, pk)
    item = get_object_or_404(PoolItem, topic_id=assignment.topic_id, position=position)
    if not assignment.read_only:
        services.item_skip(assignment=assignment, item_id=item.item_id)
    return _next_item(request, assignment, position)


@login_required
def thread(request: HttpRequest, collection_pk: int, post_id: str) -> HttpResponse:
    """A whole thread, opened in its own tab from the judging view or from a link inside another thread."""
    assert request.user.is_authenticated  # login_required
    collection = get_object_or_404(Collection, pk=collection_pk)
    if not selectors.can_view_collection(user=request.user, collection=collection):
        raise Http404("No such thread")
    if "\x00" in post_id:  # no post id has one, and PostgreSQL refuses it in a query (a 500 before)
        raise Http404("No such thread")
    found = selectors.thread_of_post(collection=collection, post_id=post_id)
    if found is None:
        return render(request, "judging/thread_missing.html", {"post_id": post_id}, status=404)

    def render_post(post):
        return {"post": post, "body": collection_safe(post.body, collection.pk, new_tab=False),
                "comments": [{"comment": c, "text": collection_safe(c.text, collection.pk, new_tab=False)}
                             for c in found.comments.get(post.post_id, [])],
                "accepted": post.post_id == found.question.accepted_answer_id}

    return render(request, "judging/thread.html", {
        "question": render_post(found.question),
        "title": collection_safe(found.question.title, collection.pk, new_tab=False),
        "tags": found.question.tags.split(),
        "answers": [render_post(a) for a in found.answers],
        "target": post_id,
    })


@login_required
def topic_view(request: HttpRequest, pk: int) -> HttpResponse:
    """The topic's own thread page (topics are new questions, not posts of the collection)."""
    assignment = own_assignment(request, pk)
    topic = assignment.topic
    collection_pk = assignment.campaign.collection_id
    marks = [topic.formula_id] if topic.formula_id else []
    return render(request, "judging/topic.html", {
        "topic": topic, "tags": topic.tags.split(),
        "title": collection_safe(topic.title, collection_pk, new_tab=False, marks=marks),
        "question": collection_safe(topic.question, collection_pk, new_tab=False, marks=marks),
    })


# -- organizer


@organizer_required
@require_http_methods(["GET", "POST"])
def campaign_assignments(request: HttpRequest, pk: int) -> HttpResponse:
    """Assign topics to assessors in bulk, watch their progress, close topics, withdraw assignments."""
    campaign = get_object_or_404(Campaign, pk=pk)
    topics = list(campaign.topics.all())
    assessors = assessor_choices()
    form = AssignForm(request.POST if request.POST.get("action") == "assign" else None,
                      topics=topics, assessors=assessors)
    account_form = AssessorCreateForm(request.POST if request.POST.get("action") == "account" else None)
    if form.is_bound and form.is_valid():
        assert request.user.is_authenticated  # organizer_required let only a signed-in organizer in
        data = form.cleaned_data
        chosen = {"campaign": campaign, "assessors": list(data["assessors"]), "topic_ids": data["topics"],
                  "kind": data["kind"], "round": data["round"], "user": request.user}
        per_topic = data["per_topic"]
        if assigned(request, form, lambda: services.assignments_create(**chosen) if per_topic is None
                    else services.assignments_balance(per_topic=per_topic, **chosen)):
            return redirect(request.get_full_path())
    if account_form.is_bound and account_form.is_valid():
        try:
            account, password = people_services.account_create(username=account_form.cleaned_data["username"])
        except InputError as exc:
            exc.add_to_form(account_form, "username")
        else:
            # Shown on this response only: a message would keep the password in the session (and its cache).
            return password_once(request, account=account, password=password, done="created",
                                 back_url=reverse("judging:campaign_assignments", args=[pk]),
                                 back_label="Back to the assignments")
    assignments = list(selectors.campaign_assignments(campaign=campaign))
    holders = topic_holders(assignments)
    search = TopicSearchForm(request.GET)
    words = search.words()
    boxes = []
    for box, topic in zip(form["topics"], topics, strict=True):
        text = topic_search_text(topic, holders.get(topic.pk, []))
        if all(word in text for word in words):
            boxes.append((box, topic, holders.get(topic.pk, []), text))
    return render(request, "judging/campaign_assignments.html", {
        "campaign": campaign, "form": form, "account_form": account_form, "assignments": assignments,
        "search": search, "topic_count": len(topics), "topic_boxes": boxes,
    })


def assigned(request: HttpRequest, form: forms.Form, assign: Callable[[], services.AssignResult], *,
             what: str = "assignment", kept: str = "") -> bool:
    """Runs an assigning service: True with a message of the assignments it created and those that existed (with
    `kept`, what they keep), False with its problems on the form."""
    try:
        result = assign()
    except InputError as exc:
        exc.add_to_form(form)
        return False
    created, existing = len(result.created), len(result.existing)
    note = f" ({existing} {'was' if existing == 1 else 'were'} already assigned{kept})" if existing else ""
    messages.info(request, f"{created} {what}{pluralize(created)} created{note}.")
    return True


def topic_search_text(topic: Topic, holders: list[str]) -> str:
    """What the topic grid's search looks in: the topic's id, its title and who holds it, in lower case (the page's
    script reads the same text from the box's data-search)."""
    return " ".join([topic.topic_id, topic.title, *holders]).lower()


def topic_holders(assignments) -> dict[int, list[str]]:
    """Who holds each topic (topic pk -> usernames, each once) among these assignments, withdrawn ones left out:
    shown beside its box in a topic grid. An assessor who holds the topic other than officially (dual, training)
    is named with those kinds: "assessor1 (official, training)"."""
    kinds: dict[int, dict[str, list[str]]] = {}
    for a in assignments:
        if a.withdrawn_at is None:
            held = kinds.setdefault(a.topic_id, {}).setdefault(a.assessor.username, [])
            if a.kind not in held:
                held.append(a.kind)
    return {topic: [name if held == [Assignment.Kind.OFFICIAL] else f"{name} ({', '.join(held)})"
                    for name, held in by_name.items()]
            for topic, by_name in kinds.items()}


def assessor_choices():
    return get_user_model().objects.filter(is_active=True).exclude(groups__name=ORGANIZERS).exclude(
        is_superuser=True).order_by("username")


@organizer_required
@require_http_methods(["GET", "POST"])
def assignment_withdraw(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    """GET asks for confirmation (a page, so that it works without JavaScript); POST withdraws."""
    assignment = get_object_or_404(Assignment.objects.select_related("campaign", "topic", "assessor"),
                                   pk=assignment_pk, campaign_id=pk)
    if request.method == "GET":
        judged = assignment.judgments.count()
        return render(request, "judging/confirm.html", {
            "campaign": assignment.campaign, "title": f"Withdraw {assignment.topic.topic_id} from "
                                                      f"{assignment.assessor.username}?",
            "explanation": (f"{assignment.assessor.username} has {judged} judgment{pluralize(judged)} on this topic: "
                            "the assignment becomes read-only and every judgment is kept." if judged else
                            f"{assignment.assessor.username} has judged nothing on this topic yet: the assignment "
                            "is removed."),
            "button": "Withdraw", "fields": {}})
    outcome = services.assignment_withdraw(assignment=assignment)
    if outcome == "deleted":
        messages.info(request, f"Assignment {assignment} removed (nothing was judged yet).")
    else:
        messages.info(request, f"Assignment {assignment} withdrawn; its judgments are kept.")
    return redirect("judging:campaign_assignments", pk=pk)


@organizer_required
@require_http_methods(["GET", "POST"])
def topic_close(request: HttpRequest, pk: int, topic_pk: int) -> HttpResponse:
    """GET asks for confirmation before closing (a page, so that it works without JavaScript); POST closes, or
    reopens with closed=0."""
    topic = get_object_or_404(Topic.objects.select_related("campaign"), pk=topic_pk, campaign_id=pk)
    if request.method == "GET":
        open_ = Assignment.objects.filter(topic=topic, withdrawn_at__isnull=True, closed_at__isnull=True).count()
        return render(request, "judging/confirm.html", {
            "campaign": topic.campaign, "title": f"Close topic {topic.topic_id}?",
            "explanation": f"{open_} open assignment{pluralize(open_)} of this topic become{pluralize(open_, 's,')} "
                           "read-only: assessors can read their judgments but no longer change them. You can reopen "
                           "the topic later.",
            "button": "Close topic", "fields": {"closed": "1"}})
    closed = request.POST.get("closed") != "0"
    count = services.topic_close(topic=topic, closed=closed)
    messages.info(request, f"Topic {topic.topic_id} {'closed' if closed else 'reopened'} "
                           f"({count} assignment{pluralize(count)}).")
    return redirect("judging:campaign_assignments", pk=pk)
