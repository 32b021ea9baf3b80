"""The nugget bank pages (docs/nuggets.md, "Nugget banks"), organizers only: a campaign's banks (sizes, drafts
waiting, versions; a nuggetizer file's import, the export's download, the LLM's drafting) and one topic's bank beside
the topic and its pooled answers, with a form for every change and the bank's history and frozen versions. A change
is a POST naming its `action`; done, the page is shown again (302); refused, the page says why (400); a nugget or
answer that is not the topic's is a 404."""
from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from core.api import flag
from core.downloads import attachment
from core.permissions import organizer_required
from ir.formats.nuggets import write_nugget_assignments, write_nugget_banks
from ir.problems import InputError
from llm import services as llm_services
from nuggets import selectors
from nuggets.forms import (
    NuggetAddForm,
    NuggetDraftForm,
    NuggetEditForm,
    NuggetImportanceForm,
    NuggetMergeForm,
    NuggetMoveForm,
    NuggetPickForm,
    NuggetSelectForm,
    NuggetsImportForm,
    form_problems,
    form_upload,
)
from nuggets.models import Nugget
from nuggets.services import bank as services
from nuggets.tasks import NuggetDraftParams, llm_job_queue
from pooling.models import Campaign, RunAnswer, Topic

SHOWN = 20  # lines of problems a refused import shows (each kind grouped already: ir/problems.py)


# -- the campaign's banks


@organizer_required
@require_http_methods(["GET", "POST"])
def campaign_nuggets(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    action = request.POST.get("action", "")
    problems: list[str] = []
    import_form = NuggetsImportForm(request.POST if action == "import" else None,
                                    request.FILES if action == "import" else None)
    draft_form = NuggetDraftForm(request.POST if action == "draft" else None)
    if request.method == "POST":
        try:
            if action == "import":
                stream, filename = form_upload(import_form)
                result = services.nuggets_import(campaign=campaign, stream=stream, filename=filename,
                                                 user=request.user)
                messages.info(request, result.summary())
                return redirect("nuggets:banks", pk=pk)
            if action == "draft":
                if not draft_form.is_valid():
                    raise InputError(form_problems(draft_form))
                job = llm_job_queue(params=NuggetDraftParams(topics=draft_form.cleaned_data["topics"]),
                                    campaign=campaign, user=request.user)
                return redirect("jobs:job", pk=job.pk)
            raise InputError(f"no such action '{action[:40]}' on this page")
        except InputError as exc:
            problems = problems_shown(exc)
    return render(request, "nuggets/banks.html", {
        "campaign": campaign, "rows": selectors.campaign_banks(campaign=campaign), "import_form": import_form,
        "draft_form": draft_form, "problems": problems, "action": action,
        "has_endpoint": has_endpoint(campaign),
    }, status=400 if problems else 200)


def problems_shown(exc: InputError) -> list[str]:
    """A refused import's problems as a page shows them: the first SHOWN lines, then how many more."""
    lines = exc.messages()
    return [*lines[:SHOWN], *([f"... and {len(lines) - SHOWN:,} more lines of problems"] if len(lines) > SHOWN
                              else [])]


def has_endpoint(campaign: Campaign) -> bool:
    """Whether the campaign's LLM endpoint is set (the pages offer the LLM's jobs only then)."""
    try:
        llm_services.endpoint_settings(campaign=campaign)
    except InputError:
        return False
    return True


@organizer_required
@require_GET
def nuggets_export(request: HttpRequest, pk: int) -> HttpResponse:
    """The banks as nuggetizer's create output; ?assignments=1: the official support labels as its assign output."""
    campaign = get_object_or_404(Campaign, pk=pk)
    response = HttpResponse(content_type="application/x-ndjson; charset=utf-8")
    if flag(request.GET.get("assignments")):
        write_nugget_assignments(selectors.assignments_export(campaign=campaign), response)
        response["Content-Disposition"] = attachment(campaign.name, "nugget-assignments", extension="jsonl")
    else:
        write_nugget_banks(selectors.banks_export(campaign=campaign), response)
        response["Content-Disposition"] = attachment(campaign.name, "nuggets", extension="jsonl")
    return response


# -- one topic's bank

ACTIONS = ("add", "select", "edit", "importance", "move", "merge", "delete", "accept", "reject", "freeze")


@organizer_required
@require_http_methods(["GET", "POST"])
def bank(request: HttpRequest, pk: int, topic_pk: int) -> HttpResponse:
    topic = get_object_or_404(Topic.objects.select_related("campaign"), pk=topic_pk, campaign_id=pk)
    if request.method == "GET":
        return _page(request, topic)
    action = request.POST.get("action", "")
    user = request.user
    problems: list[str] = []
    forms: dict[str, object] = {}
    try:
        if action not in ACTIONS:
            raise InputError(f"no such action '{action[:40]}' on this page")
        done = _act(request, topic, action, user, forms)
    except InputError as exc:
        problems = exc.messages()
    else:
        messages.info(request, done)
        return redirect("nuggets:bank", pk=pk, topic_pk=topic_pk)
    return _page(request, topic, problems=problems, forms=forms, status=400)


def _nugget(topic: Topic, pk: int) -> Nugget:
    """A nugget of the topic (any status: the service says what it cannot do with it), else 404."""
    return get_object_or_404(Nugget.objects.select_related("topic"), pk=pk, topic=topic)


def _valid(form, forms: dict, name: str):
    forms[name] = form
    if not form.is_valid():
        raise InputError(form_problems(form))
    return form.cleaned_data


def _act(request: HttpRequest, topic: Topic, action: str, user, forms: dict) -> str:
    post = request.POST
    if action == "add":
        data = _valid(NuggetAddForm(post), forms, "add")
        nugget = services.nugget_add(topic=topic, text=data["text"], importance=data["importance"], user=user)
        return f"Nugget {nugget.pk} added."
    if action == "select":
        data = _valid(NuggetSelectForm(post), forms, "select")
        answer = get_object_or_404(RunAnswer.objects.select_related("run"), pk=data["answer"], topic=topic)
        nugget = services.nugget_add(topic=topic, text=data["text"], importance=data["importance"], user=user,
                                     answer=answer)
        return f"Nugget {nugget.pk} added from the answer of run {answer.run.name}."
    if action == "freeze":
        version = services.bank_freeze(topic=topic, user=user)
        return f"The bank is frozen as v{version.number}."
    if action == "merge":
        ids = list(selectors.bank_nuggets(topic=topic).values_list("pk", flat=True))
        data = _valid(NuggetMergeForm(post, nugget_ids=ids), forms, "merge")
        keep = _nugget(topic, data["keep"])
        others = [_nugget(topic, other) for other in data["merge"]]
        services.nugget_merge(keep=keep, others=others, text=data["text"] or None, user=user)
        return f"{len(others)} nugget{'s' if len(others) != 1 else ''} merged into nugget {keep.pk}."
    form_class = {"edit": NuggetEditForm, "importance": NuggetImportanceForm, "move": NuggetMoveForm}.get(
        action, NuggetPickForm)
    data = _valid(form_class(post), forms, action)
    nugget = _nugget(topic, data["nugget"])
    if action == "edit":
        services.nugget_edit(nugget=nugget, text=data["text"], user=user)
        return f"Nugget {nugget.pk} edited."
    if action == "importance":
        services.nugget_importance(nugget=nugget, importance=data["importance"], user=user)
        return f"Nugget {nugget.pk} is {data['importance']}."
    if action == "move":
        services.nugget_move(nugget=nugget, position=data["position"], user=user)
        return f"Nugget {nugget.pk} moved."
    if action == "delete":
        services.nugget_delete(nugget=nugget, user=user)
        return f"Nugget {nugget.pk} deleted."
    if action == "accept":
        services.draft_accept(nugget=nugget, user=user)
        return f"Draft {nugget.pk} accepted into the bank."
    if action == "reject":
        services.draft_reject(nugget=nugget, user=user)
        return f"Draft {nugget.pk} rejected."
    raise Http404("No such action")  # ACTIONS were checked above


def _page(request: HttpRequest, topic: Topic, *, problems: list[str] | None = None, forms: dict | None = None,
          status: int = 200) -> HttpResponse:
    forms = forms or {}
    nuggets = list(selectors.bank_nuggets(topic=topic).select_related("answer__run"))
    versions = list(selectors.bank_versions(topic=topic))
    latest = versions[0] if versions else None
    return render(request, "nuggets/bank.html", {
        "campaign": topic.campaign, "topic": topic, "query": selectors.topic_query(topic),
        "nuggets": nuggets, "last": len(nuggets) - 1,
        "drafts": list(selectors.bank_drafts(topic=topic)),
        "answers": selectors.pooled_answers(topic=topic),
        "history": list(selectors.bank_history(topic=topic)[:200]),
        "versions": versions, "latest": latest,
        "changed": selectors.bank_changed_since(topic=topic, version=latest),
        "add_form": forms.get("add") or NuggetAddForm(),
        "select_form": forms.get("select") or NuggetSelectForm(),
        "problems": problems or [], "importances": Nugget._meta.get_field("importance").choices,
    }, status=status)
