"""The query strings of the evaluation pages and API, read by Django forms (core.forms.form_values)."""
from django import forms

from core.bounds import column_bounds
from ir import fusion as methods
from judging.forms import GroupKeyForm
from pooling.models import Campaign, Run


class MinRelevantForm(forms.Form):
    """The qrels download's ?min_relevant= (the service says which minimums it takes)."""
    min_relevant = forms.IntegerField(required=False, error_messages={
        "invalid": "min_relevant must be a whole number, not '%(value)s'"})


class QrelsQueryForm(MinRelevantForm, GroupKeyForm):
    """The qrels page's query: ?min_relevant= and, for an organizer's adjudicated grades, ?round= (the training
    round's; none: the dual assessment's)."""


class DepthForm(forms.Form):
    """The reusability page's ?depth= (empty: the campaign's primary depth; the service says which depths it takes)."""
    depth = forms.IntegerField(**column_bounds(Campaign, "primary_depth"), required=False,
                               error_messages=dict.fromkeys(("invalid", "min_value", "max_value"),
                                                            "the depth is a whole number, not '%(value)s'"))


class EditionForm(forms.Form):
    label = forms.CharField(max_length=100, help_text="the edition's name in the tables, such as 2021")
    file = forms.FileField(help_text="the edition's qrels: topic 0 item grade lines (SF and DK lines, 5 and 6, are "
                                     "left out)")


class TopicInfoForm(forms.Form):
    file = forms.FileField(help_text="CSV, UTF-8: a Topic column and any others (ARQMath-3: Category, Difficulty, "
                                     "Dependency, Multi-Part, ...); replaces the campaign's topic information")


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
