"""Organizer forms: create a campaign, upload topics, runs and collection files."""
from django import forms

from .models import Campaign


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=100)
    task = forms.ChoiceField(choices=Campaign.Task.choices)
    collection = forms.CharField(max_length=100, required=False, help_text="created if it does not exist")
    primary_depth = forms.IntegerField(min_value=1, required=False, help_text="default 45 (answers) / 25 (formulas)")
    alternate_depth = forms.IntegerField(min_value=1, required=False, help_text="default 20 / 15")
    instances = forms.IntegerField(min_value=1, required=False, help_text="instances per formula, default 5")
    selection = forms.ChoiceField(choices=[("", "default (rr-vote)")] + list(Campaign.Selection.choices),
                                  required=False)
    seed = forms.IntegerField(required=False, help_text="random seed, default 0")


class RunUploadForm(forms.Form):
    file = forms.FileField(help_text="ARQMath Task 1 (5 columns), Task 2 (6 columns) or TREC (Q0)")
    name = forms.CharField(max_length=200, required=False, help_text="default: the file name without extension")
    alternate = forms.BooleanField(required=False, help_text="an alternate run (primary when unticked)")
    manual = forms.BooleanField(required=False, help_text="a manual run (automatic when unticked)")
    baseline = forms.BooleanField(required=False)
    depth = forms.IntegerField(min_value=1, required=False, label="Pool depth",
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


class CampaignSettingsForm(forms.ModelForm):
    """A campaign's settings; the model's validators keep each number within its column (docs/pooling.md)."""

    collection = forms.CharField(max_length=100, required=False,
                                 help_text="changes only while the campaign has no run; created if it does not exist")
    force = forms.BooleanField(required=False, label="Rebuild the pools with the new pooling settings",
                               help_text="the pools are built: a new depth, instance count, selection or seed "
                                         "changes only with a rebuild (every judgment is kept)")

    class Meta:
        model = Campaign
        fields = ["name", "primary_depth", "alternate_depth", "instances", "selection", "seed", "max_depth"]
        labels = {"max_depth": "Maximum run depth"}
        help_texts = {"max_depth": "most rows a run may have per topic; only rises once runs are in"}

    def __init__(self, *args, pools_built: bool = False, has_runs: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.task == Campaign.Task.ANSWERS:  # pooling answers reads neither
            del self.fields["instances"], self.fields["selection"]
        if not pools_built:
            del self.fields["force"]
        if self.instance.collection_id:
            self.initial.setdefault("collection", self.instance.collection.name)
        # Shown but fixed once runs are in (they were checked against the collection); the service says so too.
        self.fields["collection"].disabled = has_runs


class RunReplaceForm(forms.Form):
    file = forms.FileField(help_text="the new file; the run keeps its name, kind, manual and baseline marks and depth")
    force = forms.BooleanField(required=False, label="Replace it although judging has started",
                               help_text="the pools are rebuilt and every judgment is kept")
