"""The planner's simulation form."""
from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from ir.pools.adaptive import POLICIES
from pooling.forms import SETTING_LABELS
from pooling.models import Campaign


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
    llm_grades = forms.FileField(required=False, label="A model's grades (optional)",
                                 help_text="the qrels format, each line optionally followed by one probability per "
                                           "grade, lowest first (make_llm_grades writes one): adds the budget curves, "
                                           "people judging a share of the pool and the calibrated model the rest")
    budget_shares = forms.CharField(required=False, initial="0.1, 0.2, 0.3", max_length=200,
                                    label="Budget shares",
                                    help_text="the shares of the pool people judge, with the model's grades: "
                                              "numbers in (0, 1], separated by commas")
