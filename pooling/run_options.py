"""The options an organizer gives with a run file, declared once (RUN_UPLOAD_OPTIONS): the upload page's form fields,
the API's serializer fields and ingest_run's arguments are derived from it, with one rule and one message for each
value refused (docs/formats.md, Runs)."""
from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from django import forms
from rest_framework import serializers

from core.bounds import column_bounds, max_chars
from ir.problems import InputError
from pooling.models import Run
from pooling.services.runs import RUN_KINDS, RunIngestOptions, run_options

Surface = Literal["page", "api", "command"]
EVERYWHERE: frozenset[Surface] = frozenset(("page", "api", "command"))


@dataclass(frozen=True)
class RunOption:
    """One option: its name (the form's and the API's field, `--name-with-dashes` on the command line, the key of
    services.RunIngestOptions), what it takes (`text`, a `flag`, a `choice` of `choices`, a whole `number` from
    `min_value` to `max_value`) and the messages of a value refused, by Django's and DRF's code ("{value}": the
    value given)."""

    name: str
    type: Literal["text", "flag", "choice", "number"]
    help: str
    label: str | None = None  # the upload page's label; None: the field's name
    command_help: str | None = None  # where the page's help does not fit the command line and the API
    choices: Mapping[str, str] = field(default_factory=dict)  # value -> what the page shows
    max_length: int | None = None
    min_value: int | None = None
    max_value: int | None = None
    messages: Mapping[str, str] = field(default_factory=dict)
    metavar: str | None = None
    surfaces: frozenset[Surface] = EVERYWHERE

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def help_elsewhere(self) -> str:
        return self.command_help or self.help


_DEPTH = column_bounds(Run, "depth", min_value=1)
RUN_UPLOAD_OPTIONS: tuple[RunOption, ...] = (
    RunOption("name", "text", "default: the file name without extension", max_length=max_chars(Run, "name"),
              messages={"max_length": "the run name is longer than %(limit_value)s characters"}),
    RunOption("alternate", "flag", "an alternate run: the same as kind alternate",
              surfaces=frozenset(("api", "command"))),
    RunOption("kind", "choice", "primary runs are pooled to the campaign's primary depth, alternate runs to its "
                                "alternate depth", label="Kind", choices=RUN_KINDS,
              command_help="primary, alternate, or name (the default): what an ARQMath name ends in, -P or -A, "
                           "primary when it says neither",
              messages={"invalid_choice": "kind '{value}' is not a run kind: use " + ", ".join(RUN_KINDS)}),
    RunOption("manual", "flag", "a manual run (automatic when unticked)",
              command_help="a manual run (default: automatic)"),
    RunOption("baseline", "flag", ""),
    RunOption("llm_model", "text", "the LLM the run reranks or generates with, as its team declares it; empty: none",
              label="LLM it uses", max_length=max_chars(Run, "llm_model"), metavar="MODEL",
              messages={"max_length": "the LLM model name is longer than %(limit_value)s characters"}),
    RunOption("depth", "number", "pool this run to this depth instead of the campaign's primary or alternate depth "
                                 "(a manual run pooled deeper, a baseline pooled as primary)", label="Pool depth",
              min_value=_DEPTH["min_value"], max_value=_DEPTH["max_value"],
              messages={"invalid": "a run's pool depth is a whole number",
                        "min_value": "a run's pool depth must be at least %(limit_value)s, not %(value)s",
                        "max_value": "a run's pool depth must be at most %(limit_value)s, not %(value)s"}),
    RunOption("allow_missing", "flag", "a run more than half of whose ids the collection lacks is refused otherwise: "
                                       "it is most likely the run of another collection",
              label="Keep it even if most of its ids are not in the collection",
              command_help="keep the run even when most of its ids are not in the campaign's collection"),
)


def _options(surface: Surface, options: Sequence[RunOption] | None) -> list[RunOption]:
    # Read at each call (not bound at import), so that one option added to the table shows on every surface.
    return [o for o in (RUN_UPLOAD_OPTIONS if options is None else options) if surface in o.surfaces]


def _django_messages(option: RunOption) -> dict[str, str]:
    return {code: text.replace("{value}", "%(value)s") for code, text in option.messages.items()}


def form_field(option: RunOption) -> forms.Field:
    """The upload page's field (every option may be left out)."""
    common: dict[str, Any] = {"required": False, "help_text": option.help, "label": option.label,
                              "error_messages": _django_messages(option)}
    if option.type == "text":
        return forms.CharField(max_length=option.max_length, **common)
    if option.type == "flag":
        return forms.BooleanField(**common)
    if option.type == "choice":
        return forms.ChoiceField(choices=list(option.choices.items()), initial=next(iter(option.choices)),
                                 widget=forms.RadioSelect, **common)
    return forms.IntegerField(min_value=option.min_value, max_value=option.max_value, **common)


def form_fields(options: Sequence[RunOption] | None = None) -> dict[str, forms.Field]:
    return {o.name: form_field(o) for o in _options("page", options)}


def serializer_field(option: RunOption) -> serializers.Field:
    """The API's field: the same rule and the same messages as the page's."""
    messages = {code: text.replace("{value}", "{input}") for code, text in option.messages.items()}
    common: dict[str, Any] = {"help_text": option.help_elsewhere, "error_messages": messages}
    if option.type == "text":
        return serializers.CharField(max_length=option.max_length, required=False, allow_blank=True, **common)
    if option.type == "flag":
        return serializers.BooleanField(default=False, **common)
    if option.type == "choice":
        return serializers.ChoiceField(choices=list(option.choices), required=False, **common)
    return serializers.IntegerField(min_value=option.min_value, max_value=option.max_value, required=False,
                                    allow_null=True, **common)


def serializer_fields(options: Sequence[RunOption] | None = None) -> dict[str, serializers.Field]:
    return {o.name: serializer_field(o) for o in _options("api", options)}


def arguments_add(parser: argparse.ArgumentParser, options: Sequence[RunOption] | None = None) -> None:
    """ingest_run's arguments. Values are taken as text and checked by `command_options`, as the page checks them."""
    for o in _options("command", options):
        if o.type == "flag":
            parser.add_argument(o.flag, action="store_true", help=o.help_elsewhere)
        else:
            metavar = o.metavar or ("{" + ",".join(o.choices) + "}" if o.choices else None)
            parser.add_argument(o.flag, metavar=metavar, help=o.help_elsewhere)


def command_options(values: Mapping[str, Any], options: Sequence[RunOption] | None = None) -> RunIngestOptions:
    """The options among a command's values, checked by the page's fields: InputError with each value refused."""
    chosen = _options("command", options)
    form = forms.Form(data={o.name: values[o.name] for o in chosen if values.get(o.name) is not None})
    form.fields.update({o.name: form_field(o) for o in chosen})
    if not form.is_valid():
        raise InputError([str(message) for errors in form.errors.values() for message in errors])
    return run_options(form.cleaned_data)
