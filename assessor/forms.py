"""Organizer forms of the judging app: assign topics, create assessor accounts."""
from django import forms

from .models import Assignment


class AssignForm(forms.Form):
    assessors = forms.ModelMultipleChoiceField(queryset=None, widget=forms.CheckboxSelectMultiple)
    topics = forms.MultipleChoiceField(choices=(), widget=forms.CheckboxSelectMultiple)
    kind = forms.ChoiceField(choices=Assignment.Kind.choices, initial=Assignment.Kind.OFFICIAL)
    # Checked by assignments_create (assessor.rules); the browser's hint only here.
    round = forms.IntegerField(required=False, widget=forms.NumberInput(attrs={"min": 1}),
                               help_text="training round (default 1)")

    def __init__(self, *args, topics, assessors, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assessors"].queryset = assessors
        self.fields["topics"].choices = [(t.topic_id, t.topic_id) for t in topics]


class AssessorCreateForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="a new assessor account; its password is shown once")
