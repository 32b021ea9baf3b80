"""Request input read through Django forms where a page or an API endpoint has no form of its own to show (a query
string, a small POST): the form's problems as one InputError, which pages show and the API answers with 400."""
from __future__ import annotations

from typing import Any

from django import forms

from ir.problems import InputError


def form_values(form: forms.Form) -> dict[str, Any]:
    """The form's cleaned data; InputError with every problem otherwise, worded by the fields' error_messages, in
    which `%(value)s` is the text sent (its first 20 characters)."""
    if form.is_valid():
        return form.cleaned_data
    problems = []
    for name, errors in form.errors.as_data().items():
        sent = str(form.data.get(name, ""))[:20]
        for error in errors:
            problems.append(str(error.message) % {**(error.params or {}), "value": sent})
    raise InputError(problems)


class WholeNumberField(forms.IntegerField):
    """An IntegerField of ASCII digits only: int() takes other scripts' digits too ("٣"), which no page of ours
    sends."""

    def to_python(self, value):
        if isinstance(value, str) and not value.isascii():
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)
