"""Forms of workflow's pages: a fused baseline, a judging scheme, the pool simulation and a judgments upload."""
from __future__ import annotations

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from ir import fusion as methods
from ir.grades import DEFINITION_MAX, MARK_LABELS, MAX_GRADE
from ir.pools.adaptive import POLICIES
from judging.models import Assignment
from judging.services.imports import ADD, DUAL, REFUSE, SKIP
from pooling.forms import SETTING_LABELS
from pooling.models import Campaign, Run


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


FACETS = 3  # facet rows the page offers (the MathOverflow scheme asks two questions)


class SchemeForm(forms.Form):
    name = forms.CharField(max_length=40, initial="custom", help_text="shown to the organizers")
    marks = forms.MultipleChoiceField(choices=list(MARK_LABELS.items()), required=False,
                                      widget=forms.CheckboxSelectMultiple,
                                      help_text="what an assessor may give instead of a grade, with a comment")
    relevance_level = forms.CharField(max_length=20, required=False, label="Relevance level",
                                      help_text="the lowest grade that counts as relevant (empty: the lowest above 0)")
    table = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 7}), label="Facets to grade",
                            help_text="one line per combination: an option of each facet, in order, then the grade "
                                      "(total direct 3)")


class GradeRow(forms.Form):
    value = forms.CharField(max_length=20, required=False)
    label = forms.CharField(max_length=100, required=False)
    key = forms.CharField(max_length=10, required=False)
    definition = forms.CharField(max_length=DEFINITION_MAX, required=False)


GradeRows = forms.formset_factory(GradeRow, extra=0, min_num=MAX_GRADE + 1, max_num=MAX_GRADE + 1, absolute_max=8)


class FacetRow(forms.Form):
    name = forms.CharField(max_length=40, required=False)
    question = forms.CharField(max_length=200, required=False)
    options = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}),
                              help_text="one line per option: value key label (partial p Partial)")


FacetRows = forms.formset_factory(FacetRow, extra=0, min_num=FACETS, max_num=FACETS, absolute_max=8)


class SimulationForm(forms.Form):
    """The replay's settings, named as on the settings page (CampaignSettingsForm's labels: one wording)."""
    qrels = forms.FileField(help_text="an earlier edition's qrels of the topics the campaign's runs answer: topic 0 "
                                      "item grade")
    depth = forms.IntegerField(validators=[MinValueValidator(1), MaxValueValidator(1000)],
                               help_text="every run's pool depth")
    policies = forms.MultipleChoiceField(choices=[(p, p) for p in POLICIES], widget=forms.CheckboxSelectMultiple,
                                         label="Judging orders")
    warm_up = forms.IntegerField(validators=[MinValueValidator(0), MaxValueValidator(1000)],
                                 label=SETTING_LABELS["warm_up"],
                                 help_text=Campaign._meta.get_field("warm_up").help_text)
    min_depth = forms.IntegerField(validators=[MinValueValidator(0), MaxValueValidator(1000)],
                                   label=SETTING_LABELS["min_depth"],
                                   help_text=Campaign._meta.get_field("min_depth").help_text)
    budget = forms.IntegerField(required=False, validators=[MinValueValidator(1), MaxValueValidator(100_000)],
                                label=SETTING_LABELS["topic_budget"],
                                help_text="items per topic, for Kendall's tau of the runs' nDCG' ranking (optional)")


IMPORTED = "imported"  # the account a qrels file's judgments go to unless another is named


class JudgmentsUploadForm(forms.Form):
    file = forms.FileField(help_text="tab-separated: assessor, topic, item_id, grade, comment[, kind[, round]]; or "
                                     "a TREC qrels file: topic, iteration, item_id, grade")
    assessor = forms.CharField(required=False, initial=IMPORTED, max_length=150, label="Assessor (qrels file)",
                               help_text="whose judgments a qrels file holds: an assessor's account, or 'imported' "
                                         "(made without a usable password if it does not exist)")
    kind = forms.TypedChoiceField(required=False, empty_value=Assignment.Kind.OFFICIAL, label="Kind (qrels file)",
                                  initial=Assignment.Kind.OFFICIAL,
                                  choices=[(Assignment.Kind.OFFICIAL, "official (feeds the qrels)"),
                                           (Assignment.Kind.DUAL, "dual (a second judging, for agreement)"),
                                           (Assignment.Kind.TRAINING, "training")])
    round = forms.IntegerField(required=False, min_value=1, label="Training round (qrels file)",
                               help_text="kind training only (default 1)")
    outside = forms.TypedChoiceField(required=False, empty_value=REFUSE, initial=REFUSE,
                                     label="Items outside the pool",
                                     choices=[(REFUSE, "refuse the file, listing them"), (SKIP, "skip their lines"),
                                              (ADD, "add them to the pool (answers)")])
    assigned = forms.TypedChoiceField(required=False, empty_value=REFUSE, initial=REFUSE,
                                      label="Topics already assigned officially to another assessor",
                                      choices=[(REFUSE, "refuse the file, listing them"),
                                               (DUAL, "import their lines as dual judgments"),
                                               (SKIP, "skip their lines")])

