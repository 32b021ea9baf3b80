"""The planner's judging-order curves (docs/pooling.md, "Simulating before the campaign"): the campaign's runs replayed
against an earlier edition's qrels (simulation/services.py), computed by a worker and shown from the last result,
never in the request."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from core.bounds import upload_size_check
from core.permissions import organizer_required
from ir.charts import found_curves
from ir.formats.qrels import qrels_by_topic
from ir.pools.adaptive import POLICIES
from ir.problems import InputError, Problems
from pooling.models import Campaign
from simulation import services as simulation
from simulation.forms import SimulationForm


def _model_params(upload, shares: str, policies: list[str]) -> dict:
    """The budget replay's part of the job: the model's grades read (every problem with its line) and the shares."""
    from ir.budget_simulation import UNCERTAIN, check_replay, read_model  # numpy: not loaded with the URLs

    upload_size_check(upload)
    problems = Problems(file=upload.name)
    model = read_model(upload.file, problems)
    if problems:
        raise InputError.of(problems)
    numbers = check_replay([UNCERTAIN, *policies], [s.strip() for s in (shares or "0.1, 0.2, 0.3").split(",")])
    return {"model": {f"{topic}\t{item}": [float(p) for p in values] for (topic, item), values in model.items()},
            "model_name": upload.name, "shares": numbers}


@organizer_required
@require_http_methods(["GET", "POST"])
def pool_simulation(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    result = simulation.simulation_result(campaign=campaign)
    # The values of the last simulation asked for (to change one and run again), else the campaign's.
    initial = {"depth": campaign.primary_depth, "policies": list(POLICIES), "warm_up": campaign.warm_up,
               "min_depth": campaign.min_depth} | {
        name: value for name, value in (result or {}).get("params", {}).items()
        if name in SimulationForm.base_fields}
    form = SimulationForm(request.POST or None, request.FILES or None, initial=initial)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            field = "qrels"  # the field a refusal is shown under
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
                field = "llm_grades"
                if form.cleaned_data["llm_grades"]:
                    params |= _model_params(form.cleaned_data["llm_grades"], form.cleaned_data["budget_shares"],
                                            params["policies"])
                field = "qrels"
                simulation.simulation_request(campaign=campaign, qrels=qrels, qrels_name=upload.name, params=params)
                return redirect("simulation:pool_simulation", pk=campaign.pk)
            except InputError as exc:
                for message in exc.messages():
                    form.add_error(field, message)
        status = 400
    # The last good result stays shown while a later simulation computes, or beside its failure.
    done = result if result and result["state"] == "done" else simulation.simulation_last_done(campaign=campaign)
    chart = budget_chart = None
    if done and done.get("budget"):
        from ir.budget_simulation import LLM_ONLY

        # Each order's curve starts where the model alone stands (nothing judged by people).
        alone = [(0.0, max(r["tau_b"], 0.0)) for r in done["budget"] if r["policy"] == LLM_ONLY]
        budget_chart = found_curves([(policy, alone + [(r["share"], max(r["tau_b"], 0.0)) for r in done["budget"]
                                                       if r["policy"] == policy])
                                     for policy in dict.fromkeys(r["policy"] for r in done["budget"])
                                     if policy != LLM_ONLY])
    if done:
        chart = found_curves([(r["policy"], [tuple(point) for point in r["curve"]]) for r in done["results"]])
        for r in done["results"]:
            r["percent_for_90"] = None if r["judged_for_90"] is None else round(100 * r["judged_for_90"], 1)
    return render(request, "simulation/pool_simulation.html", {
        "campaign": campaign, "form": form, "result": result, "done": done, "chart": chart,
        "budget_chart": budget_chart}, status=status)
