"""The query strings of the evaluation pages and API, read by Django forms (core.forms.form_values)."""
from django import forms

from core.bounds import column_bounds
from judging.forms import GroupKeyForm
from pooling.models import Campaign


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
