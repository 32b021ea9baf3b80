"""Forms of the agreement pages: a training round, an adjudication and the LLM checks to send."""
from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib.auth import get_user_model

from agreement import rounds
from agreement.models import Adjudication
from core.bounds import max_chars
from core.permissions import ORGANIZERS
from ir.grades import MARK_LABELS, Scheme
from ir.problems import InputError
from judging.rules import MAX_COMMENT
from pooling.models import Campaign, Topic

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _assessor_choices():
    """Who may be given judging work: active accounts that are not organizers."""
    return (get_user_model().objects.filter(is_active=True).exclude(groups__name=ORGANIZERS)
            .exclude(is_superuser=True).order_by("username"))


class TrainingRoundForm(forms.Form):
    number = forms.IntegerField(required=False, label="Round", help_text="default: the next round")
    topics = forms.MultipleChoiceField(choices=(), widget=forms.CheckboxSelectMultiple)
    assessors: forms.ModelMultipleChoiceField[User] = forms.ModelMultipleChoiceField(
        queryset=None, widget=forms.CheckboxSelectMultiple)
    gold = forms.FileField(required=False, label="Gold qrels",
                           help_text="optional: TREC qrels (topic 0 id grade), say last year's official qrels of these "
                                     "topics; formulas by visual id")

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        topics_field, assessors_field = self.fields["topics"], self.fields["assessors"]
        assert isinstance(topics_field, forms.MultipleChoiceField)
        assert isinstance(assessors_field, forms.ModelMultipleChoiceField)
        topics_field.choices = [(t, t) for t in campaign.topics.values_list("topic_id", flat=True)]
        assessors_field.queryset = _assessor_choices()

    def clean_number(self) -> int | None:
        try:
            return rounds.training_round_number_check(self.cleaned_data["number"])
        except InputError as exc:
            raise forms.ValidationError(exc.messages()) from None


class AdjudicationForm(forms.Form):
    """The organizer's agreed grade of one unit of the review, with a note (official: dual assessment only)."""

    topic = forms.CharField(widget=forms.HiddenInput, max_length=max_chars(Topic, "topic_id"))
    item_id = forms.CharField(widget=forms.HiddenInput, max_length=max_chars(Adjudication, "item_id"))
    formula_id = forms.CharField(widget=forms.HiddenInput, required=False,
                                 max_length=max_chars(Adjudication, "formula_id"))
    grade = forms.ChoiceField(label="Agreed grade")
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=MAX_COMMENT,
                           strip=False)
    official = forms.BooleanField(required=False, label="Official grade of this item",
                                  help_text="the official qrels take it instead of the official assessor's grade")

    def __init__(self, *args, scheme: Scheme, **kwargs):
        super().__init__(*args, **kwargs)
        grade = self.fields["grade"]
        assert isinstance(grade, forms.ChoiceField)
        grade.choices = [("", "choose…"), *((str(g.value), g.label) for g in scheme.grades),
                         *((mark, MARK_LABELS[mark]) for mark in scheme.marks)]


class LlmCheckForm(forms.Form):
    """Items of the LLM disagreements (each a unit's key: topic, item and instance joined by tabs) to send to an
    assessor as a check assignment."""
    units = forms.MultipleChoiceField(choices=(), widget=forms.CheckboxSelectMultiple,
                                      error_messages={"required": "choose the items to send"})
    assessor: forms.ModelChoiceField[User] = forms.ModelChoiceField(queryset=None, empty_label="choose…")

    def __init__(self, *args, units: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        units_field, assessor_field = self.fields["units"], self.fields["assessor"]
        assert isinstance(units_field, forms.MultipleChoiceField)
        assert isinstance(assessor_field, forms.ModelChoiceField)
        units_field.choices = [(u, u) for u in units]
        assessor_field.queryset = _assessor_choices()

    def items(self) -> list[tuple[str, str]]:
        """(topic id, item id) of the units chosen: a formula's instances are sent as their visual id."""
        pairs = []
        for unit in self.cleaned_data["units"]:
            topic_id, _, rest = unit.partition("\t")
            pairs.append((topic_id, rest.partition("\t")[0]))
        return list(dict.fromkeys(pairs))
