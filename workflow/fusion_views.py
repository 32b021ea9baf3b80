"""The campaign page's "Add a fused baseline" (docs/evaluation.md, "Fused runs"): the campaign's runs fused
(workflow/fusion.py) and the fused run queued for ingest as a baseline marked fused; the job page follows, as after a
run upload."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from evaluation.fusion import fused_name
from ir import fusion as methods
from ir.problems import InputError
from pooling.models import Campaign
from workflow import fusion
from workflow.forms import FusedBaselineForm


@organizer_required
@require_http_methods(["GET", "POST"])
def run_fuse(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    form = FusedBaselineForm(request.POST or None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            how = methods.settings(method=data["method"], runs=data["runs"],
                                   k=data["k"] if data["method"] == methods.RRF else None, norm=data["norm"] or None,
                                   weights=data["weights"], depth=data["depth"])
            job = fusion.fused_upload(campaign=campaign, names=data["runs"], how=how,
                                      name=data["name"].strip() or fused_name(how), user=request.user)
        except InputError as exc:
            exc.add_to_form(form)
        else:
            return redirect("jobs:job", pk=job.pk)
    return render(request, "workflow/run_fuse.html", {"campaign": campaign, "form": form})
