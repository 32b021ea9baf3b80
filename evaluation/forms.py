"""The query strings of the evaluation pages and API, read by Django forms (core.forms.form_values)."""
from django import forms

from assessor.forms import GroupKeyForm


class MinRelevantForm(forms.Form):
    """The qrels download's ?min_relevant= (the service says which minimums it takes)."""
    min_relevant = forms.IntegerField(required=False, error_messages={
        "invalid": "min_relevant must be a whole number, not '%(value)s'"})


class QrelsQueryForm(MinRelevantForm, GroupKeyForm):
    """The qrels page's query: ?min_relevant= and, for an organizer's adjudicated grades, ?round= (the training
    round's; none: the dual assessment's)."""
