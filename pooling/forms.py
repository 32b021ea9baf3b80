"""Organizer forms: create a campaign, upload topics, runs and collection files."""
from django import forms

from .bounds import column_bounds
from .models import Campaign, Run


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=100)
    task = forms.ChoiceField(choices=Campaign.Task.choices)
    collection = forms.CharField(max_length=100, required=False, help_text="created if it does not exist")
    primary_depth = forms.IntegerField(**column_bounds(Campaign, "primary_depth", min_value=1), required=False,
                                        help_text="default 45 (answers) / 25 (formulas)")
    alternate_depth = forms.IntegerField(**column_bounds(Campaign, "alternate_depth", min_value=1), required=False,
                                          help_text="default 20 / 15")
    instances = forms.IntegerField(**column_bounds(Campaign, "instances", min_value=1), required=False,
                                    help_text="instances per formula, default 5")
    selection = forms.ChoiceField(choices=[("", "default (rr-vote)")] + list(Campaign.Selection.choices),
                                  required=False)
    seed = forms.IntegerField(**column_bounds(Campaign, "seed"), required=False, help_text="random seed, default 0")


class RunUploadForm(forms.Form):
    file = forms.FileField(help_text="ARQMath Task 1 (5 columns), Task 2 (6 columns) or TREC (Q0)")
    name = forms.CharField(max_length=200, required=False, help_text="default: the file name without extension")
    alternate = forms.BooleanField(required=False, help_text="an alternate run (primary when unticked)")
    manual = forms.BooleanField(required=False, help_text="a manual run (automatic when unticked)")
    baseline = forms.BooleanField(required=False)
    depth = forms.IntegerField(**column_bounds(Run, "depth", min_value=1), required=False, label="Pool depth",
                               help_text="pool this run to this depth instead of the campaign's primary or alternate "
                                         "depth (a manual run pooled deeper, a baseline pooled as primary)")


class TopicsUploadForm(forms.Form):
    file = forms.FileField(help_text="ARQMath topic XML")


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(d, initial) for d in data]
        return [single(data, initial)]


class CollectionUploadForm(forms.Form):
    collection = forms.CharField(max_length=100, help_text="created if it does not exist")
    files = MultipleFileField(help_text="Posts.xml, Comments.xml, formula index TSV(s), JSONL")
