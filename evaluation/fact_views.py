"""Organizer pages of what the overview paper needs besides scores: a run's facts and a campaign's topic
information."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from pooling import services as pooling_services
from pooling.errors import InputError
from pooling.forms import RunFactsForm
from pooling.models import Campaign, Run
from pooling.permissions import organizer_required


@organizer_required
@require_http_methods(["GET", "POST"])
def run_facts(request: HttpRequest, pk: int, run_pk: int) -> HttpResponse:
    """A run's facts (team, primary/alternate, manual, baseline, data used, extracted/generated), edited."""
    run = get_object_or_404(Run.objects.select_related("campaign"), pk=run_pk, campaign_id=pk)
    # The form validates a copy: the service changes the run itself.
    form = RunFactsForm(request.POST or None, instance=Run.objects.get(pk=run.pk))
    if request.method == "POST" and form.is_valid():
        was_alternate = run.alternate
        try:
            pooling_services.run_facts_set(run=run, **{fact: form.cleaned_data[fact] for fact in Run.FACTS})
        except InputError as exc:
            exc.add_to_form(form)
        else:
            messages.success(request, f"The facts of run {run.name} were saved.")
            if run.alternate != was_alternate and pooling_services.pools_built(campaign=run.campaign):
                messages.info(request, f"Run {run.name} is now {run.kind}: rebuild the pools to pool it so.")
            return redirect("pooling:campaign", pk=pk)
    return render(request, "evaluation/run_facts.html", {"campaign": run.campaign, "run": run, "form": form},
                  status=400 if form.errors else 200)


def _campaign(pk: int) -> Campaign:
    return get_object_or_404(Campaign.objects.select_related("collection"), pk=pk)
