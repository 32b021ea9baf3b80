"""The campaign's earlier editions page (docs/evaluation.md, "Results across editions"): the qrels files of earlier
editions added under a label, listed, and removed; `report --campaign` then adds the results across editions
(evaluation/editions.py)."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from core.words import counted
from evaluation.editions import edition_add
from evaluation.forms import EditionForm
from evaluation.models import EditionQrels
from ir.problems import InputError
from pooling.models import Campaign


@organizer_required
@require_http_methods(["GET", "POST"])
def editions_page(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    form = EditionForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and "remove" in request.POST:
        edition = get_object_or_404(EditionQrels, campaign=campaign, pk=request.POST["remove"])
        edition.delete()
        messages.success(request, f"The edition {edition.label} was removed.")
        return redirect("evaluation:editions", pk=pk)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            edition = edition_add(campaign=campaign, label=form.cleaned_data["label"], data=upload.read(),
                                  filename=upload.name or "", user=request.user)
        except InputError as exc:
            exc.add_to_form(form)
        else:
            judged = f"{counted(edition.judgments, 'judgment')} of {counted(edition.topics, 'topic')}"
            messages.success(request, f"The edition {edition.label} was added: {judged}.")
            return redirect("evaluation:editions", pk=pk)
    return render(request, "evaluation/editions.html", {
        "campaign": campaign, "editions": EditionQrels.objects.filter(campaign=campaign), "form": form},
        status=400 if form.errors else 200)
