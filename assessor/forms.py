"""Organizer forms of the judging app: assign topics, create assessor accounts, characterisation questions and
assignments."""
from typing import TYPE_CHECKING

from django import forms

from core.bounds import column_bounds
from core.forms import form_values

from . import rules
from .models import Assignment

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class _AssessorsTopicsForm(forms.Form):
    """Assessors and topics to choose, as checkboxes (the topic grid)."""
    assessors: "forms.ModelMultipleChoiceField[User]" = forms.ModelMultipleChoiceField(
        queryset=None, widget=forms.CheckboxSelectMultiple)
    topics = forms.MultipleChoiceField(choices=(), widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, topics, assessors, **kwargs):
        super().__init__(*args, **kwargs)
        assessors_field, topics_field = self.fields["assessors"], self.fields["topics"]
        assert isinstance(assessors_field, forms.ModelMultipleChoiceField)
        assert isinstance(topics_field, forms.MultipleChoiceField)
        assessors_field.queryset = assessors
        topics_field.choices = [(t.topic_id, t.topic_id) for t in topics]


class AssignForm(_AssessorsTopicsForm):
    # Characterisation assignments take a sample size: the Characterisation page makes them.
    kind = forms.ChoiceField(choices=[c for c in Assignment.Kind.choices if c[0] != Assignment.Kind.CHARACTERISATION],
                             initial=Assignment.Kind.OFFICIAL)
    round = forms.IntegerField(**column_bounds(Assignment, "round", min_value=1), required=False,
                               help_text="training round (default 1)")
    per_topic = forms.IntegerField(min_value=1, required=False, label="Assessors per topic",
                                   help_text="empty: every chosen assessor gets every chosen topic; N: each topic "
                                             "goes to N of them, least-loaded first (what they hold counts)")


class TopicSearchForm(forms.Form):
    """The topic grid's search box (GET ?q=): the topics whose id, title or holders hold every word."""
    q = forms.CharField(required=False, max_length=200, label="Search topics")

    def words(self) -> list[str]:
        return self.cleaned_data["q"].lower().split() if self.is_valid() else []


class AssessorCreateForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="a new assessor account; its password is shown once")


class QuestionForm(forms.Form):
    label = forms.CharField(max_length=rules.LABEL_MAX, help_text="a short name for reports, say MG")
    text = forms.CharField(max_length=rules.QUESTION_MAX, label="Question",
                           help_text="a yes/no question, say: Was this answer machine-generated?")


class CharacteriseForm(_AssessorsTopicsForm):
    sample = forms.IntegerField(min_value=1, max_value=rules.SAMPLE_MAX, required=False, label="Sample size",
                                help_text="items of each topic's pool (all of them when the pool is smaller)")
    sizes = forms.CharField(required=False, label="Per-topic sizes",
                            help_text="optional, in place of the sample size for these topics: A.301=10 A.302=5")


class GroupKeyForm(forms.Form):
    """`?kind=&round=`: a group of judgments, a training round or the dual assessment (both optional; the services
    say which kinds they measure). A round is a training round's number."""
    kind = forms.CharField(required=False)
    round = forms.IntegerField(**column_bounds(Assignment, "round", min_value=1), required=False, error_messages={
        "invalid": "round '%(value)s' is not a number",
        "min_value": "round '%(value)s' is not a training round's number (they start at %(limit_value)s)",
        "max_value": "round '%(value)s' is not a training round's number"})

    def key(self) -> tuple[str | None, int | None]:
        """The kind and round given (None for either not given); InputError for a round that is no number."""
        values = form_values(self)
        return values["kind"] or None, values["round"]
