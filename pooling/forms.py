"""Organizer forms: create a campaign, upload topics, runs and collection files."""
from typing import Any

from django import forms

from core.bounds import column_bounds
from ir.grades import PRESETS
from pooling import run_options
from pooling.models import Campaign, Collection, Run, Topic
from pooling.services import BUDGETS, NO_BUDGET, TOPIC_TEXT, CampaignSettings, campaign_settings
from pooling.words import DOCUMENT_TASK, DOCUMENTS, TASK_CHOICES, collection_kind


class CampaignForm(forms.Form):
    """A new campaign. Its collection is picked from the existing ones; creating a collection is a separate,
    explicit choice (NEW_COLLECTION and a name). Instances and selection are Task 2's: ignored for Task 1. A
    document-retrieval track is an answers campaign on a collection of documents (docs/pooling.md, "Document
    retrieval"): its task is 'answers' once cleaned, and its collection gives its pages their words."""
    NEW_COLLECTION = "+new"
    FORMULA_FIELDS = ("instances", "selection")

    name = forms.CharField(max_length=100)
    task = forms.ChoiceField(choices=TASK_CHOICES)
    collection = forms.ChoiceField(required=False, help_text="the posts the runs retrieve from; upload its files on "
                                                             "the Collections page. Runs that name posts this "
                                                             "collection lacks need the real Posts.xml loaded, or a "
                                                             "pool-only corpus collection")
    new_collection = forms.CharField(max_length=100, required=False, label="Name of the new collection",
                                     help_text="only with “Create a new collection”")
    primary_depth = forms.IntegerField(**column_bounds(Campaign, "primary_depth", min_value=1), required=False,
                                        help_text="default 45 (answers) / 25 (formulas)")
    alternate_depth = forms.IntegerField(**column_bounds(Campaign, "alternate_depth", min_value=1), required=False,
                                          help_text="default 20 / 15")
    instances = forms.IntegerField(**column_bounds(Campaign, "instances", min_value=1), required=False,
                                    help_text="instances per formula, default 5")
    selection = forms.ChoiceField(choices=[("", "default (rr-vote)")] + list(Campaign.Selection.choices),
                                  required=False)
    seed = forms.IntegerField(**column_bounds(Campaign, "seed"), required=False, help_text="random seed, default 0")
    scheme = forms.ChoiceField(choices=[(name, name) for name in PRESETS], initial="arqmath", required=False,
                               label="Judging scheme",
                               help_text="the grades assessors give (docs/judging.md, Judging schemes); a custom "
                                         "scheme comes from create_campaign --scheme FILE.json or the API")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = list(Collection.objects.order_by("name").values_list("name", flat=True))
        collection = self.fields["collection"]
        assert isinstance(collection, forms.ChoiceField)
        collection.choices = ([("", "none yet (choose it later)")] + [(n, n) for n in names]
                              + [(self.NEW_COLLECTION, "Create a new collection…")])

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        chosen, new = data.get("collection"), (data.get("new_collection") or "").strip()
        if chosen == self.NEW_COLLECTION:
            if not new:
                self.add_error("new_collection", "give the new collection a name")
            elif Collection.objects.filter(name=new).exists():
                self.add_error("new_collection", f"a collection named '{new}' exists already: pick it from the list")
            data["collection"] = new
        elif new:
            self.add_error("new_collection", "choose “Create a new collection” to create one, or clear this name")
        if data.get("task") == DOCUMENT_TASK:
            data["task"] = Campaign.Task.ANSWERS
            found = Collection.objects.filter(name=data.get("collection") or "").first()
            if found is not None and found.post_count and collection_kind(found) != DOCUMENTS:
                self.add_error("collection", f"collection '{found.name}' holds Stack Exchange posts, not documents: "
                                             "pick a collection of documents, or Answer retrieval (Task 1)")
            elif found is None or collection_kind(found) != DOCUMENTS:
                self.add_error("collection", "a document-retrieval track needs its collection of documents: declare "
                                             "its corpus or load its JSONL documents on the Collections page, then "
                                             "pick it here")
        if data.get("task") != Campaign.Task.FORMULAS:
            for name in self.FORMULA_FIELDS:
                data[name] = None
        return data


class RunUploadForm(forms.Form):
    """A run file and its options (pooling/run_options.py: the same as the API's and ingest_run's)."""
    file = forms.FileField(help_text="ARQMath Task 1 (5 columns), Task 2 (6 columns), TREC (Q0), or ARQMath-3 Task 3 "
                                     "(6 columns, one answer per topic; answers campaigns)")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields.update(run_options.form_fields())


class TopicsUploadForm(forms.Form):
    file = forms.FileField(help_text="a topic file of one of the formats above, told by its shape")


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
    # The form's metaclass moves declared fields into base_fields, so `self.files` stays the uploaded files' dict;
    # the stubs cannot know that and see this field shadow BaseForm.files.
    files = MultipleFileField(  # type: ignore[assignment]
        help_text="Posts.xml, Comments.xml, formula index TSV(s), JSONL")
    replace = forms.BooleanField(required=False, label="Replace the collection's documents",
                                 help_text="delete what the collection holds and load these files instead (only while "
                                           "no campaign of it has runs; a rejected file keeps the old documents)")


# A campaign setting's name wherever a page asks for it (the settings page, the judging-order simulation).
SETTING_LABELS = {"max_depth": "Maximum run depth", "judging_order": "Judging order", "warm_up": "Warm-up items",
                  "min_depth": "Minimum depth per run", "topic_budget": "Budget per topic (items)",
                  "hours_budget": "Budget of the campaign (assessor hours)", "budget_spread": "Hours spread"}


class CampaignSettingsForm(forms.ModelForm):
    """A campaign's settings; the model's validators keep each number within its column (docs/pooling.md)."""

    collection = forms.CharField(max_length=100, required=False,
                                 help_text="changes only while the campaign has no run; created if it does not exist")
    force = forms.BooleanField(required=False, label="Rebuild the pools with the new pooling settings",
                               help_text="the pools are built: a new depth, instance count, selection or seed "
                                         "changes only with a rebuild (every judgment is kept)")
    scheme = forms.ChoiceField(required=False, label="Judging scheme",
                               help_text="the grades assessors give (docs/judging.md, Judging schemes); changes only "
                                         "until judging starts")

    class Meta:
        model = Campaign
        fields = ["name", "primary_depth", "alternate_depth", "instances", "selection", "seed", "max_depth",
                  "relevance_level", "judging_order", "warm_up", "min_depth", "topic_budget", "hours_budget",
                  "budget_spread"]
        labels = SETTING_LABELS
        help_texts = {"max_depth": "most rows a run may have per topic; only rises once runs are in",
                      "topic_budget": "the most items judged per topic and assignment (0 or empty: the whole pool)",
                      "hours_budget": "assessor hours for the campaign's judging, spread over its topics (0 or "
                                      "empty: no campaign budget)",
                      "judging_order": "the order of each assessor's next items (docs/pooling.md, Live order and "
                                       "budgets); it may change at any time: it decides only the items to come. "
                                       "uncertain: the items the calibrated LLM is least sure of; random until the "
                                       "agreement page has calibrated the LLM (docs/llm_calibration.md)"}

    def __init__(self, *args, pools_built: bool = False, has_runs: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.task == Campaign.Task.ANSWERS:  # pooling answers reads neither
            del self.fields["instances"], self.fields["selection"]
        if not pools_built:
            del self.fields["force"]
        for name in ("relevance_level", "judging_order", "warm_up", "min_depth", "budget_spread"):
            self.fields[name].required = False  # left empty (or not sent): as it is (the service's None)
        if self.instance.pk and not self.instance.words.arqmath:  # a TREC track's words (pooling/words.py)
            self.fields["relevance_level"].help_text = ("evaluation: the lowest grade counted relevant by MAP', "
                                                        "P'@10 and binary measures (1 for TREC's binary qrels)")
        if self.instance.collection_id:
            self.initial.setdefault("collection", self.instance.collection.name)
        # Shown but fixed once runs are in (they were checked against the collection); the service says so too.
        self.fields["collection"].disabled = has_runs
        # A preset by name; a custom scheme (from a file or the API) is kept unless a preset replaces it.
        current = self.instance.judging_scheme.name
        scheme = self.fields["scheme"]
        assert isinstance(scheme, forms.ChoiceField)
        scheme.choices = ([] if current in PRESETS else [("", f"{current} (as it is)")]) + [(n, n) for n in PRESETS]
        self.initial.setdefault("scheme", current if current in PRESETS else "")

    def _no_budget(self, name: str) -> Any:
        """A budget of 0 is none, as an empty field (docs/pooling.md "Budgets"; the API and commands take 0 too)."""
        value = self.cleaned_data.get(name)
        return None if value == NO_BUDGET else value

    def clean_topic_budget(self) -> int | None:
        return self._no_budget("topic_budget")

    def clean_hours_budget(self) -> float | None:
        return self._no_budget("hours_budget")

    def settings(self) -> CampaignSettings:
        """The settings chosen, for the service: a budget sent empty (or 0) is no budget (services.NO_BUDGET), where an
        empty relevance level leaves it as it is."""
        data = self.cleaned_data
        return campaign_settings({**data, **{key: NO_BUDGET for key in BUDGETS
                                             if key in self.data and data.get(key) is None}})


class RunFactsForm(forms.ModelForm):
    """What the overview paper says of a run; `services.run_facts_set` saves it."""

    class Meta:
        model = Run
        fields = list(Run.FACTS)
        labels = {"alternate": "Alternate run", "manual": "Manual run", "baseline": "Baseline",
                  "data_used": "Data used", "answer_type": "Answers", "llm_model": "LLM it uses"}
        help_texts = {"alternate": "primary when unticked; pooled so at the next build of the pools",
                      "manual": "automatic when unticked"}


class RunReplaceForm(forms.Form):
    file = forms.FileField(help_text="the new file; the run keeps its name, its facts (team, kind, marks, data) and "
                                     "its depth")
    force = forms.BooleanField(required=False, label="Replace it although judging has started",
                               help_text="the pools are rebuilt and every judgment is kept")


class RunDepthForm(forms.Form):
    """The pools page's per-run depth: a whole number (its least is the service's rule), or empty for the campaign's
    depth."""
    depth = forms.IntegerField(**column_bounds(Run, "depth", min_value=1), required=False, error_messages={
        "invalid": "a pool depth is a whole number, not '%(value)s'",
        "min_value": "a pool depth is at least %(limit_value)s, not %(value)s",
        "max_value": "a pool depth is at most %(limit_value)s, not %(value)s"})


class PoolPlanForm(forms.Form):
    """The pool planner's `?depths=&seconds=` (both optional): the depths to plan, up to PLAN_MAX_DEPTHS whole numbers
    from 1 to the campaign's depth, and the seconds a judgment takes. A value refused is left out of cleaned_data:
    the plan uses the default for it and says why."""
    PLAN_MAX_DEPTHS = 20
    DEPTHS_RULE = "up to %(most)s whole numbers from 1 to %(max_depth)s, separated by commas"
    SECONDS_PROBLEM = "seconds per judgment: give a number above 0 and at most 3600"
    depths = forms.CharField(required=False)
    seconds = forms.FloatField(required=False, max_value=3600, error_messages=dict.fromkeys(
        ("invalid", "max_value"), SECONDS_PROBLEM))

    def __init__(self, *args, max_depth: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.depth = forms.IntegerField(min_value=1, max_value=max_depth, error_messages={
            "invalid": "not a whole number", "min_value": "a depth is at least 1",
            "max_value": "past the campaign's maximum run depth, %(limit_value)s"})
        self.depths_rule = self.DEPTHS_RULE % {"most": self.PLAN_MAX_DEPTHS, "max_depth": max_depth}

    def clean_depths(self) -> list[int]:
        """The depths asked for; each one refused is named (the first few), then what the field takes."""
        parts = self.cleaned_data["depths"].replace(",", " ").split()
        if len(parts) > self.PLAN_MAX_DEPTHS:
            raise forms.ValidationError(f"depths: {len(parts)} depths are too many: give {self.depths_rule}")
        depths, refused = set(), []
        for part in parts:
            try:
                depths.add(self.depth.clean(part))
            except forms.ValidationError as exc:
                refused.append(f"{part[:20]} ({exc.messages[0]})")
        if refused:
            named = "; ".join(refused[:3]) + (f"; and {len(refused) - 3} more" if len(refused) > 3 else "")
            raise forms.ValidationError(f"depths: {named}. Give {self.depths_rule}")
        return sorted(depths)

    def clean_seconds(self) -> float | None:
        seconds = self.cleaned_data["seconds"]
        if seconds is not None and seconds <= 0:
            raise forms.ValidationError(self.SECONDS_PROBLEM)
        return seconds

    def problems(self) -> list[str]:
        return [str(problem) for problems in self.errors.values() for problem in problems]


class TopicTextForm(forms.ModelForm):
    """A topic's text, as an organizer corrects it; `services.topic_update` saves it."""

    class Meta:
        model = Topic
        fields = list(TOPIC_TEXT)
        widgets = {name: forms.Textarea(attrs={"rows": 2 if name == "title" else 5}) for name in TOPIC_TEXT}
