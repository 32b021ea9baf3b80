from __future__ import annotations

from django import forms

from judging import rules
from judging.forms import AssessorsTopicsForm


class QuestionForm(forms.Form):
    label = forms.CharField(max_length=rules.LABEL_MAX, help_text="a short name for reports, say MG")
    text = forms.CharField(max_length=rules.QUESTION_MAX, label="Question",
                           help_text="a yes/no question, say: Was this answer machine-generated?")


class CharacteriseForm(AssessorsTopicsForm):
    sample = forms.IntegerField(min_value=1, max_value=rules.SAMPLE_MAX, required=False, label="Sample size",
                                help_text="items of each topic's pool (all of them when the pool is smaller)")
    sizes = forms.CharField(required=False, label="Per-topic sizes",
                            help_text="optional, in place of the sample size for these topics: A.301=10 A.302=5")
