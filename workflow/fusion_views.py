"""The campaign page's "Add a fused baseline" (docs/evaluation.md, "Fused runs"): the campaign's runs fused
(workflow/fusion.py) and the fused run queued for ingest as a baseline marked fused; the job page follows, as after a
run upload."""
from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from evaluation.fusion import fused_name
from ir import fusion as methods
from ir.problems import InputError
from pooling.models import Campaign, Run
from workflow import fusion


class FusedBaselineForm(forms.Form):
    runs = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple, help_text="two runs or more")
    method = forms.ChoiceField(choices=[(m, m) for m in methods.METHODS], initial=methods.RRF,
                               help_text="RRF, CombSUM/MNZ/MAX, Borda, or the MIRMU team's IBC and WIBC")
    k = forms.IntegerField(min_value=0, required=False, label="RRF's k", help_text=f"default {methods.DEFAULT_K}")
    norm = forms.ChoiceField(choices=[("", "default")] + [(n, n) for n in methods.NORMS], required=False,
                             label="Normalization", help_text="CombSUM, CombMNZ and CombMAX only (default min-max)")
    weights = forms.CharField(required=False, help_text="a weight per ticked run, in the list's order, separated by "
                                                        "spaces (WIBC needs them)")
    depth = forms.IntegerField(min_value=1, required=False, help_text=f"default {methods.DEFAULT_DEPTH} per topic")
    name = forms.CharField(max_length=200, required=False, help_text="default fused-METHOD")

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        names = (Run.objects.filter(campaign=campaign).exclude(format=Run.Format.ARQMATH_TASK3).order_by("name")
                 .values_list("name", flat=True))
        field = self.fields["runs"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = [(name, name) for name in names]

    def clean_weights(self) -> list[float]:
        try:
            return [float(value) for value in self.cleaned_data["weights"].split()]
        except ValueError:
            raise forms.ValidationError("weights are numbers separated by spaces") from None


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
