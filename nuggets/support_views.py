"""Support judging pages (docs/nuggets.md, "Support judging"): the assessor's support assignments, the judging page
of one answer (against the nuggets of a frozen bank, or sentence by sentence against its citations), and the
organizer's page that makes and withdraws support assignments and shows their agreement."""
from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from ir.problems import InputError
from judging.rendering import collection_safe_many
from judging.views import assessor_choices
from nuggets import support_selectors as selectors
from nuggets.bank_views import has_endpoint, problems_shown
from nuggets.forms import NuggetDraftForm, SupportImportForm, form_problems, form_upload
from nuggets.models import SupportAssignment
from nuggets.services import support as services
from nuggets.tasks import NuggetSupportLlmParams, llm_job_queue
from pooling.models import Campaign

LABEL = "label-"  # the page's field of a nugget's label: label-NUGGET_ID
SPAN = "span-"  # and of its span
SUGGESTED = "suggested-"  # the LLM label shown beside it (suggest mode): suggested-NUGGET_ID, the label's id
CITE = "cite-"  # a citation's label: cite-SENTENCE_POSITION-INDEX
SUPPORT_KEYS = {"support": ("1", "s"), "partial_support": ("2", "p"), "not_support": ("3", "n")}
CITATION_KEYS = {"full": ("1", "f"), "partial": ("2", "p"), "none": ("3", "n")}


@login_required
@require_http_methods(["GET"])
def support_mine(request: HttpRequest) -> HttpResponse:
    """The assessor's support assignments, each with its progress and a link to go on."""
    rows = selectors.assessor_support_assignments(user=request.user)
    return render(request, "nuggets/support_mine.html", {"rows": rows})


@login_required
@require_http_methods(["GET"])
def support_continue(request: HttpRequest, pk: int) -> HttpResponse:
    """The first answer of the assignment not labelled in full; the first answer when every one is."""
    assignment = selectors.own_support_assignment(user=request.user, assignment_pk=pk)
    if assignment is None:
        raise Http404("No such assignment")
    progress = selectors.support_progress(assignment=assignment)
    if progress.total == 0:
        raise Http404("This topic has no answers")
    if progress.first_open is None:
        messages.info(request, f"Topic {assignment.topic.topic_id}: every answer is labelled. Thank you!")
    return redirect("support:judge", pk=pk, number=progress.first_open or 0)


def _posted_labels(page: selectors.JudgingPage, data) -> dict:
    """The labels the form gives for the units its page showed (nothing else is read)."""
    if page.assignment.task == SupportAssignment.Task.NUGGETS:
        return {n["id"]: (data.get(f"{LABEL}{n['id']}", ""), data.get(f"{SPAN}{n['id']}", ""))
                for n in page.nuggets if data.get(f"{LABEL}{n['id']}")}
    labels = {}
    for row in page.citations:
        for item in row["cited"]:
            value = data.get(f"{CITE}{row['sentence'].position}-{item['index']}")
            if value:
                labels[(row["sentence"].position, item["id"])] = value
    return labels


def _posted_suggestions(page: selectors.JudgingPage, data) -> dict[int, int]:
    """The LLM labels the page says it showed beside the nuggets the form labels: nugget id -> the label's id."""
    if page.assignment.task != SupportAssignment.Task.NUGGETS:
        return {}
    shown = {}
    field = forms.IntegerField(min_value=1)
    for n in page.nuggets:
        value = data.get(f"{SUGGESTED}{n['id']}")
        if value and data.get(f"{LABEL}{n['id']}"):
            try:
                shown[n["id"]] = field.clean(value)
            except forms.ValidationError:
                raise InputError(f"nugget {n['id']}: the suggestion shown is not an LLM label's id") from None
    return shown


@login_required
@require_http_methods(["GET", "POST"])
def support_judge(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One answer of the assignment with its labels; POST submits them (the page's outbox asks for JSON)."""
    page = selectors.judging_page(user=request.user, assignment_pk=pk, number=number)
    if page is None:
        raise Http404("No such assignment or answer")
    if request.method == "GET":
        return _page(request, page)
    answer_json = request.headers.get("Accept", "").startswith("application/json")
    try:
        posted = request.POST.get("answer", "")
        if str(page.answer.pk) != posted:
            # The answers were numbered anew since the page was shown (a run ingested meanwhile): the submit is of
            # the answer it names, wherever it now stands, so that a resend of a saved submit is answered as saved.
            moved = next((n for n, a in enumerate(page.answers) if str(a.pk) == posted), None)
            if moved is None:
                raise InputError("the answer submitted is not one of this topic's: reload the page and label again")
            found = selectors.judging_page(user=request.user, assignment_pk=pk, number=moved)
            if found is None:
                raise Http404("No such assignment or answer")
            page, number = found, moved
        labels = _posted_labels(page, request.POST)
        key = request.POST.get("submit_key", "")
        if page.assignment.task == SupportAssignment.Task.NUGGETS:
            result = services.support_submit(assignment=page.assignment, answer=page.answer, labels=labels, key=key,
                                             user=request.user, source="web",
                                             suggestions=_posted_suggestions(page, request.POST))
        else:
            result = services.citation_submit(assignment=page.assignment, answer=page.answer, labels=labels,
                                              key=key, user=request.user, source="web")
    except InputError as exc:
        if answer_json:
            return JsonResponse({"saved": False, "errors": exc.messages()}, status=400)
        return _page(request, page, exc.messages(), request.POST)
    if answer_json:
        return JsonResponse(result.as_dict(page.answer.pk))
    if not result.complete:
        messages.info(request, "Saved. Label every one to complete this answer.")
        return redirect("support:judge", pk=pk, number=number)
    if page.next is None:
        messages.info(request, f"Topic {page.assignment.topic.topic_id}: that was the last answer.")
        return redirect("support:mine")
    return redirect("support:judge", pk=pk, number=page.next)


def _page(request: HttpRequest, page: selectors.JudgingPage, errors: list[str] | None = None,
          posted=None) -> HttpResponse:
    assignment = page.assignment
    citations = assignment.task == SupportAssignment.Task.CITATIONS
    context = {
        "assignment": assignment, "topic": assignment.topic, "campaign": assignment.campaign, "page": page,
        "answer": page.answer, "sentences": page.sentences, "progress": page.progress,
        "read_only": assignment.read_only, "errors": errors or [],
        "url": reverse("support:judge", args=[assignment.pk, page.number]),
        "previous_url": (reverse("support:judge", args=[assignment.pk, page.previous])
                         if page.previous is not None else ""),
        "next_url": (reverse("support:judge", args=[assignment.pk, page.next]) if page.next is not None
                     else reverse("support:mine")),
    }
    if citations:
        items = [item for row in page.citations for item in row["cited"]]
        bodies = collection_safe_many([(item["post"].body, ()) for item in items if item["post"]],
                                      assignment.campaign.collection_id, new_tab=True)
        shown = iter(bodies)
        rows = []
        for row in page.citations:
            cited = []
            for item in row["cited"]:
                name = f"{CITE}{row['sentence'].position}-{item['index']}"
                current = posted.get(name, "") if posted is not None else item["label"]
                cited.append({**item, "name": name, "current": current,
                              "body": next(shown) if item["post"] else ""})
            rows.append({"sentence": row["sentence"], "cited": cited})
        context.update(rows=rows, keys=[(label, *CITATION_KEYS[label]) for label in CITATION_KEYS])
        template = "nuggets/citation_judge.html"
    else:
        nuggets = []
        for n in page.nuggets:
            label = posted.get(f"{LABEL}{n['id']}", "") if posted is not None else n["label"]
            span = posted.get(f"{SPAN}{n['id']}", "") if posted is not None else n["span"]
            nuggets.append({**n, "current": label, "current_span": span, "name": f"{LABEL}{n['id']}",
                            "span_name": f"{SPAN}{n['id']}", "suggestion_name": f"{SUGGESTED}{n['id']}"})
        context.update(nuggets=nuggets, keys=[(label, *SUPPORT_KEYS[label]) for label in SUPPORT_KEYS])
        template = "nuggets/support_judge.html"
    return render(request, template, context, status=400 if errors else 200)


# -- organizer


class SupportAssignForm(forms.Form):
    topic = forms.ChoiceField()
    assessor: forms.ModelChoiceField = forms.ModelChoiceField(queryset=None, to_field_name="username")
    task = forms.ChoiceField(choices=SupportAssignment.Task.choices, initial=SupportAssignment.Task.NUGGETS)
    kind = forms.ChoiceField(choices=SupportAssignment.Kind.choices, initial=SupportAssignment.Kind.OFFICIAL)
    round = forms.IntegerField(min_value=1, max_value=1000, required=False, help_text="training only (default 1)")

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        topic = self.fields["topic"]
        assessor = self.fields["assessor"]
        assert isinstance(topic, forms.ChoiceField) and isinstance(assessor, forms.ModelChoiceField)
        topic.choices = [(t.topic_id, t.topic_id) for t in campaign.topics.all()]
        assessor.queryset = assessor_choices()


class WithdrawForm(forms.Form):
    assignment = forms.IntegerField(min_value=1)


@organizer_required
@require_http_methods(["GET", "POST"])
def support_assignments(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's support assignments with their progress and agreement; a form to make one, a button to
    withdraw one, a form to import nuggetizer's assign output as an assessor's official labels."""
    campaign = get_object_or_404(Campaign, pk=pk)
    action = request.POST.get("action")
    form = SupportAssignForm(request.POST if action == "assign" else None, campaign=campaign)
    llm_form = NuggetDraftForm(request.POST if action == "llm_assign" else None)
    llm_problems: list[str] = []
    if action == "llm_assign":
        try:
            if not llm_form.is_valid():
                raise InputError(form_problems(llm_form))
            job = llm_job_queue(params=NuggetSupportLlmParams(topics=llm_form.cleaned_data["topics"]),
                                campaign=campaign, user=request.user)
            return redirect("jobs:job", pk=job.pk)
        except InputError as exc:
            llm_problems = exc.messages()
    import_form = SupportImportForm(request.POST if action == "import" else None,
                                    request.FILES if action == "import" else None, auto_id="import-%s")
    import_problems: list[str] = []
    if action == "import":
        try:
            stream, filename = form_upload(import_form)
            assessor = import_form.cleaned_data["assessor"]
            result = services.support_import(campaign=campaign, assessor=assessor, stream=stream,
                                             filename=filename, by=request.user)
        except InputError as exc:
            import_problems = problems_shown(exc)
        else:
            messages.info(request, f"Imported {filename} as {assessor.username}'s official labels: "
                                   f"{result.summary()}.")
            return redirect("support:assignments", pk=pk)
    if action == "withdraw":
        withdraw = WithdrawForm(request.POST)
        if not withdraw.is_valid():
            raise Http404("No such assignment")
        assignment = get_object_or_404(SupportAssignment, pk=withdraw.cleaned_data["assignment"], campaign=campaign)
        services.support_withdraw(assignment=assignment)
        messages.info(request, f"Withdrawn: {assignment}.")
        return redirect("support:assignments", pk=pk)
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        try:
            made, created = services.support_assign(
                campaign=campaign, topic=campaign.topics.get(topic_id=data["topic"]), assessor=data["assessor"],
                task=data["task"], kind=data["kind"], round=data["round"], by=request.user)
        except InputError as exc:
            exc.add_to_form(form)
        else:
            messages.info(request, f"{'Assigned' if created else 'Already assigned'}: {made}.")
            return redirect("support:assignments", pk=pk)
    held = list(selectors.campaign_support_assignments(campaign=campaign))
    agreement = selectors.support_agreement(campaign=campaign)
    progress = selectors.support_progress_many(held)
    rows = [{"assignment": a, "progress": progress[a.pk], "agreement": agreement.by_assignment.get(a.pk)}
            for a in held]
    return render(request, "nuggets/support_assignments.html", {
        "campaign": campaign, "form": form, "rows": rows,
        "topics": sorted(agreement.by_topic.items()), "overall": sorted(agreement.overall.items()),
        "import_form": import_form, "import_problems": import_problems,
        "llm_form": llm_form, "llm_problems": llm_problems, "has_endpoint": has_endpoint(campaign),
        "llm_agreement": selectors.llm_support_agreement(campaign=campaign),
    }, status=400 if action and request.method == "POST" else 200)

