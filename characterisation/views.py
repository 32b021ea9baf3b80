"""Characterisation pages (docs/judging.md, "Characterising answers"): the assessor's page that asks the campaign's
yes/no questions of each item of their sample, and the organizer's page of questions, assignments and the per-run
report."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_http_methods

from characterisation import selectors as characterisation
from characterisation import services
from characterisation.forms import CharacteriseForm, QuestionForm
from core.permissions import organizer_required
from ir.problems import InputError
from judging import rules, selectors
from judging.models import Assignment, CharacterisationQuestion, SampleItem
from judging.rendering import judging_safe_fragments, thread_url
from judging.views import assessor_choices, assigned, position_after, topic_holders
from pooling import selectors as pooling_selectors
from pooling.models import Campaign

ANSWER = "answer-"  # the page's field of a question: answer-LABEL, yes or no


@login_required
@require_http_methods(["GET"])
def characterise_continue(request: HttpRequest, pk: int) -> HttpResponse:
    """Opens the next item of the sample not answered in full (after ?after=NUMBER when given); the start page when
    none is left."""
    assert request.user.is_authenticated  # login_required
    assignment = characterisation.own_characterisation(user=request.user, assignment_pk=pk)
    if assignment is None:
        raise Http404("No such assignment")
    return _next(request, assignment, position_after(request))


def _next(request: HttpRequest, assignment: Assignment, after: int | None) -> HttpResponse:
    sample = characterisation.characterisation_next(assignment=assignment, after=after)
    if sample is None:
        messages.info(request, f"Topic {assignment.topic.topic_id}: every item of the sample is answered. Thank you!")
        return redirect("judging:home")
    return redirect("characterisation:characterise", pk=assignment.pk, number=sample.number)


@login_required
@require_http_methods(["GET", "POST"])
def characterise(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One item of the sample with the campaign's questions; POST saves the answers given and goes on to the next
    item once every question has one."""
    assert request.user.is_authenticated  # login_required
    page = characterisation.characterisation_page(user=request.user, assignment_pk=pk, number=number)
    if page is None:
        raise Http404("No such assignment or item")
    if request.method == "GET":
        return _page(request, page)
    if request.POST.get("item_id") != page.sample.item_id:
        return _page(request, page, ["the sample changed since this page was shown: reload it and answer again"],
                     request.POST)
    given = {label: request.POST[ANSWER + label] for label in (q.label for q in page.questions)
             if request.POST.get(ANSWER + label)}
    try:
        result = services.characterisation_submit(assignment_pk=pk, item_id=page.sample.item_id, answers=given,
                                                  user=request.user)
    except InputError as exc:
        return _page(request, page, exc.messages(), request.POST)
    except (Assignment.DoesNotExist, SampleItem.DoesNotExist):
        raise Http404("No such assignment or item") from None
    if not result.complete:
        messages.info(request, "Saved. Answer every question to complete this item.")
        return redirect("characterisation:characterise", pk=pk, number=number)
    return _next(request, page.assignment, number)


def _page(request: HttpRequest, page: characterisation.CharacterisationPage, errors: list[str] | None = None,
          posted=None) -> HttpResponse:
    assignment = page.assignment
    campaign, topic = assignment.campaign, assignment.topic
    collection_pk = campaign.collection_id
    safe = judging_safe_fragments(selectors.judging_fragments(topic=topic, shown=page.shown),
                                  collection_pk=collection_pk)
    post = page.shown.post
    questions = []
    for q in page.questions:
        saved = page.answers.get(q.label)
        if posted is not None:  # what was just submitted when it was refused, else the saved answer
            shown = posted.get(ANSWER + q.label, "")
        else:
            shown = "" if saved is None else "yes" if saved else "no"
        questions.append({"question": q, "name": ANSWER + q.label, "current": shown, "saved": saved})
    return render(request, "characterisation/characterise.html", {
        "assignment": assignment, "campaign": campaign, "topic": topic, "item": page.item, "sample": page.sample,
        "topic_title": safe["topic_title"], "topic_question": safe["topic_question"],
        "topic_tags": topic.tags.split(), "topic_siblings": pooling_selectors.sibling_topics(topic=topic),
        "post": post, "answer": page.shown.answer, "post_body": safe["post_body"],
        "question_title": safe["question_title"],
        "post_thread_url": thread_url(collection_pk)(post.post_id) if post and collection_pk is not None else "",
        "questions": questions, "progress": page.progress, "previous": page.previous,
        "errors": errors or [], "read_only": assignment.read_only,
    }, status=400 if errors else 200)


# -- organizer


@organizer_required
@require_http_methods(["GET", "POST"])
def characterisation_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's questions (add one, add ARQMath's two, delete an unanswered one), characterisation assignments
    with a sample size per topic, and the per-run report."""
    campaign = get_object_or_404(Campaign, pk=pk)
    topics = list(campaign.topics.all())
    action = request.POST.get("action")
    question_form = QuestionForm(request.POST if action == "question" else None)
    assign_form = CharacteriseForm(request.POST if action == "assign" else None, topics=topics,
                                   assessors=assessor_choices())
    try:
        if action == "arqmath":
            added = services.questions_arqmath(campaign=campaign)
            messages.info(request, f"{len(added)} question{pluralize(len(added))} added"
                                   + (f": {', '.join(q.label for q in added)}." if added else " (both were there)."))
            return redirect("characterisation:characterisation", pk=pk)
        if action == "delete":
            label = request.POST.get("question", "")
            if "\x00" in label:  # no label has one, and PostgreSQL refuses it in a query
                raise Http404("No such question")
            question = get_object_or_404(CharacterisationQuestion, campaign=campaign, label=label)
            services.question_delete(question=question)
            messages.info(request, f"Question {question.label} deleted.")
            return redirect("characterisation:characterisation", pk=pk)
    except InputError as exc:
        for message in exc.messages():
            messages.error(request, message)
        return redirect("characterisation:characterisation", pk=pk)
    if question_form.is_bound and question_form.is_valid():
        try:
            question = services.question_add(campaign=campaign, **question_form.cleaned_data)
        except InputError as exc:
            exc.add_to_form(question_form)
        else:
            messages.info(request, f"Question {question.label} added.")
            return redirect("characterisation:characterisation", pk=pk)
    if assign_form.is_bound and assign_form.is_valid():
        assert request.user.is_authenticated  # organizer_required let only a signed-in organizer in
        data, user = assign_form.cleaned_data, request.user
        if assigned(request, assign_form, lambda: services.characterisation_assign(
                campaign=campaign, assessors=list(data["assessors"]), topic_ids=data["topics"], size=data["sample"],
                sizes=rules.sizes_parse(data["sizes"]), user=user),
                what="characterisation assignment", kept=", samples unchanged"):
            return redirect("characterisation:characterisation", pk=pk)
    assignments = list(selectors.campaign_assignments(campaign=campaign).filter(
        kind=Assignment.Kind.CHARACTERISATION))
    holders = topic_holders(assignments)
    return render(request, "characterisation/characterisation.html", {
        "campaign": campaign, "question_form": question_form, "assign_form": assign_form,
        "questions": characterisation.questions_of(campaign), "assignments": assignments,
        "topic_boxes": [(box, topic, holders.get(topic.pk, []))
                        for box, topic in zip(assign_form["topics"], topics, strict=True)],
        "report": characterisation.characterisation_report(campaign=campaign),
        "answers": campaign.task == Campaign.Task.ANSWERS,
    }, status=400 if action and request.method == "POST" else 200)
