"""The nugget bank pages' forms (docs/nuggets.md, "Nugget banks"): each names the nugget it changes by id (the page
looks it up in the topic's bank: another id is a 404); what a form cannot take is a 400 with the reason. The import
forms (banks, support labels) share one upload handling, form_upload."""
from __future__ import annotations

from typing import BinaryIO, cast

from django import forms
from django.core.files.uploadedfile import UploadedFile

from core.bounds import upload_size_check
from ir.problems import InputError
from judging.views import assessor_choices
from nuggets.models import Importance
from nuggets.services.bank import TEXT_MAX

IMPORTANCE = forms.ChoiceField(choices=Importance.choices, initial=Importance.OKAY, label="Importance")


def _text(required: bool = True, label: str = "Nugget") -> forms.CharField:
    return forms.CharField(max_length=TEXT_MAX, required=required, label=label, strip=True,
                           widget=forms.Textarea(attrs={"rows": 2, "cols": 60}))


class NuggetAddForm(forms.Form):
    text = _text(label="New nugget")
    importance = IMPORTANCE


class NuggetSelectForm(forms.Form):
    """A nugget selected from one of the topic's answers: the selection (or what is typed) must be a part of it."""

    answer = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    text = _text(label="Selected text")
    importance = IMPORTANCE


class NuggetPickForm(forms.Form):
    """The nugget an action (delete, accept, reject) is about."""

    nugget = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class NuggetEditForm(NuggetPickForm):
    text = _text(label="Text")


class NuggetImportanceForm(NuggetPickForm):
    importance = IMPORTANCE


class NuggetMoveForm(NuggetPickForm):
    position = forms.IntegerField(min_value=0, max_value=1_000_000, label="Position (from 0)")


class NuggetMergeForm(forms.Form):
    keep = forms.IntegerField(min_value=1, label="Keep")
    merge = forms.TypedMultipleChoiceField(coerce=int, label="Merge into it", choices=())
    text = _text(required=False, label="The kept nugget's text (empty: as it is)")

    def __init__(self, *args, nugget_ids: list[int] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        merge = self.fields["merge"]
        assert isinstance(merge, forms.TypedMultipleChoiceField)
        merge.choices = [(pk, str(pk)) for pk in nugget_ids or []]


class NuggetsImportForm(forms.Form):
    file = forms.FileField(label="nuggetizer create output (JSON lines)",
                           help_text="one line per topic: qid, query, nuggets [{text, importance}]; appended to the "
                                     "banks, all or nothing")


class SupportImportForm(forms.Form):
    """nuggetizer's assign output as an assessor's official support labels (docs/nuggets.md, "Importing
    nuggetizer's assignments"): the assessor from the accounts the page's assign form offers."""

    assessor: forms.ModelChoiceField = forms.ModelChoiceField(queryset=None, to_field_name="username",
                                                              label="Assessor", help_text="the labels are theirs")
    file = forms.FileField(label="nuggetizer assign output (JSON lines)",
                           help_text="one line per topic and run: qid, run_id, nuggets [{text, importance, "
                                     "assignment}]; all or nothing")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        assessor = self.fields["assessor"]
        assert isinstance(assessor, forms.ModelChoiceField)
        assessor.queryset = assessor_choices()


def form_problems(form: forms.Form) -> list[str]:
    """A form's errors as problems, each with its field's label."""
    return [f"{form.fields[name].label}: {error}" if name in form.fields else str(error)
            for name, errors in form.errors.items() for error in errors]


def form_upload(form: forms.Form, field: str = "file") -> tuple[BinaryIO, str]:
    """The upload of a bound import form, read from its start, and its name (for the problems); InputError with the
    form's problems, or for a file over the upload limit."""
    if not form.is_valid():
        raise InputError(form_problems(form))
    upload: UploadedFile = form.cleaned_data[field]
    upload_size_check(upload)
    upload.seek(0)
    return cast("BinaryIO", upload.file), upload.name or "upload"


class NuggetDraftForm(forms.Form):
    topics = forms.CharField(required=False, max_length=10_000, label="Topics (empty: all)",
                             help_text="topic ids separated by spaces")

    def clean_topics(self) -> list[str]:
        return self.cleaned_data["topics"].split()
