"""The range of an integer column, for the form and API fields that feed it: a number past it is the sender's
mistake (a form error, a 400), never a database error (a 500). And the largest upload."""
from __future__ import annotations

from typing import TypedDict

from django.conf import settings
from django.core.files import File
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

from ir.problems import InputError


class Bounds(TypedDict):
    min_value: int
    max_value: int


def column_bounds(model: type[models.Model], field_name: str, *, min_value: int | None = None) -> Bounds:
    """`min_value` and `max_value` for a forms.IntegerField or a serializers.IntegerField that fills the integer
    column `model.field_name`: the column type's range (PostgreSQL's, the narrowest of the databases we run on, so
    that SQLite refuses the same values), narrowed by the field's own Min/MaxValueValidators (the model's rule, which
    `full_clean` applies too) and at the bottom to `min_value` when given."""
    field = model._meta.get_field(field_name)
    assert isinstance(field, models.IntegerField), f"{field_name} is no IntegerField"
    low, high = BaseDatabaseOperations.integer_field_ranges[field.get_internal_type()]
    # The validators the model declares, not the connection's range: Field._validators, which the stubs leave out.
    for validator in field._validators:  # type: ignore[attr-defined]
        if isinstance(validator, MinValueValidator):
            low = max(low, validator.limit_value)
        elif isinstance(validator, MaxValueValidator):
            high = min(high, validator.limit_value)
    return {"min_value": low if min_value is None else max(low, min_value), "max_value": high}


def max_chars(model: type[models.Model], field_name: str) -> int:
    """The most characters the text column `model.field_name` holds (its CharField's max_length)."""
    field = model._meta.get_field(field_name)
    assert isinstance(field, models.CharField) and field.max_length is not None, f"{field_name} is no CharField"
    return field.max_length


def upload_size_check(file: File) -> None:
    """Refuses a file over UPLOAD_MAX_BYTES, with its name and size."""
    limit = settings.UPLOAD_MAX_BYTES
    if file.size is not None and file.size > limit:
        raise InputError(f"{file.name}: the file is {file.size:,} bytes, more than the upload limit of {limit:,} bytes")
