"""The planner's judging-order curves (issue 27): the campaign's runs replayed against an earlier edition's qrels
(evaluation/simulation.py), computed by a worker and shown from the last result, never in the request."""
from __future__ import annotations

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from core.bounds import upload_size_check
from core.permissions import organizer_required
from evaluation import simulation
from ir.charts import found_curves
from ir.formats.qrels import qrels_by_topic
from ir.pools.adaptive import POLICIES
from ir.problems import InputError, Problems
from pooling.models import Campaign


class SimulationForm(forms.Form):
    qrels = forms.FileField(help_text="an earlier edition's qrels of the topics the campaign's runs answer: topic 0 "
                                      "item grade")
    depth = forms.IntegerField(validators=[MinValueValidator(1), MaxValueValidator(1000)],
                               help_text="every run's pool depth")
    policies = forms.MultipleChoiceField(choices=[(p, p) for p in POLICIES], widget=forms.CheckboxSelectMultiple)
    warm_up = forms.IntegerField(validators=[MinValueValidator(0), MaxValueValidator(1000)],
                                 help_text="items judged in random order first")
    min_depth = forms.IntegerField(validators=[MinValueValidator(0), MaxValueValidator(1000)],
                                   help_text="every run's top items judged before any other")
    budget = forms.IntegerField(required=False, validators=[MinValueValidator(1), MaxValueValidator(100_000)],
                                help_text="items per topic, for Kendall's tau of the runs' nDCG' ranking (optional)")


@organizer_required
@require_http_methods(["GET", "POST"])
def pool_simulation(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    initial = {"depth": campaign.primary_depth, "policies": list(POLICIES), "warm_up": campaign.warm_up,
               "min_depth": campaign.min_depth}
    form = SimulationForm(request.POST or None, request.FILES or None, initial=initial)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                upload = form.cleaned_data["qrels"]
                upload_size_check(upload)
                problems = Problems(file=upload.name)
                qrels = qrels_by_topic(upload.file, problems)
                if problems:
                    raise InputError.of(problems)
                if not qrels:
                    raise InputError(f"{upload.name}: the qrels file has no judgments")
                params = {name: form.cleaned_data[name]
                          for name in ("depth", "warm_up", "min_depth", "budget")} | {
                    "policies": [p for p in POLICIES if p in form.cleaned_data["policies"]], "seed": campaign.seed}
                simulation.simulation_request(campaign=campaign, qrels=qrels, qrels_name=upload.name, params=params)
                return redirect("pooling:pool_simulation", pk=campaign.pk)
            except InputError as exc:
                for message in exc.messages():
                    form.add_error("qrels", message)
        status = 400
    result = simulation.simulation_result(campaign=campaign)
    chart = None
    if result and result["state"] == "done":
        chart = found_curves([(r["policy"], [tuple(point) for point in r["curve"]]) for r in result["results"]])
        for r in result["results"]:
            r["percent_for_90"] = None if r["judged_for_90"] is None else round(100 * r["judged_for_90"], 1)
    return render(request, "pooling/pool_simulation.html", {
        "campaign": campaign, "form": form, "result": result, "chart": chart}, status=status)
