"""Organizer forms of the judging app: assign topics, create assessor accounts."""
from typing import TYPE_CHECKING

from django import forms

from core.bounds import column_bounds

from .models import Assignment

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class AssignForm(forms.Form):
    assessors: "forms.ModelMultipleChoiceField[User]" = forms.ModelMultipleChoiceField(
        queryset=None, widget=forms.CheckboxSelectMultiple)
    topics = forms.MultipleChoiceField(choices=(), widget=forms.CheckboxSelectMultiple)
    kind = forms.ChoiceField(choices=Assignment.Kind.choices, initial=Assignment.Kind.OFFICIAL)
    round = forms.IntegerField(**column_bounds(Assignment, "round", min_value=1), required=False,
                               help_text="training round (default 1)")

    def __init__(self, *args, topics, assessors, **kwargs):
        super().__init__(*args, **kwargs)
        assessors_field, topics_field = self.fields["assessors"], self.fields["topics"]
        assert isinstance(assessors_field, forms.ModelMultipleChoiceField)
        assert isinstance(topics_field, forms.MultipleChoiceField)
        assessors_field.queryset = assessors
        topics_field.choices = [(t.topic_id, t.topic_id) for t in topics]


class AssessorCreateForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="a new assessor account; its password is shown once")
