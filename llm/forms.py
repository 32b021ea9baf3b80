"""The LLM page's forms: a campaign's endpoint (never the key itself), a prompt's new version, a judging run, grades
imported from a file."""
from __future__ import annotations

from typing import Any

from django import forms

from core.bounds import column_bounds
from core.forms import WholeNumberField
from ir.problems import InputError
from llm.client import BASE_URL_MAX, KEY_REFUSED, base_url_normalised, key_env_problem
from llm.imports import MODEL_MAX
from llm.models import Endpoint, Prompt
from llm.services import PROMPT_MAX_CHARS, topics_chosen
from pooling.models import Campaign

# Request fields that would carry a key's value: refused, whatever they hold.
KEY_FIELDS = frozenset({"api_key", "apikey", "key", "token", "secret", "api_token", "password", "openai_api_key",
                        "authorization"})


def key_fields_refused(data: Any) -> list[str]:
    """The problems of a request that sends a key's value: a field named like a key."""
    names = [name for name in getattr(data, "keys", lambda: [])() if str(name).lower() in KEY_FIELDS]
    return [f"'{name}': {KEY_REFUSED}" for name in names]


def clean_api_key_env(value: str) -> str:
    """llm.client.key_env_problem as a form field's check: only an ASSESS_LLM_KEY_... variable (or none)."""
    value = (value or "").strip()
    problem = key_env_problem(value)
    if problem is not None:
        raise forms.ValidationError(problem)
    return value


def clean_base_url(value: str) -> str:
    """llm.client.base_url_normalised as a form field's check."""
    try:
        return base_url_normalised(value)
    except InputError as exc:
        raise forms.ValidationError(exc.messages()) from None


class EndpointForm(forms.ModelForm):
    # Local servers (Ollama, vLLM) answer on plain http: an address typed without a scheme is taken as http://.
    base_url = forms.CharField(max_length=BASE_URL_MAX, label="Base URL",
                               help_text="e.g. http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM); "
                                         "http:// is assumed")

    class Meta:
        model = Endpoint
        fields = ["base_url", "model", "api_key_env", "temperature", "concurrency", "timeout", "retries", "samples",
                  "prompt", "mode"]
        labels = {"base_url": "Base URL", "api_key_env": "Key's environment variable (its name)"}
        help_texts = {"samples": "replies per item; the grade is their majority, a tie going to the lower grade "
                                 "(as UMBRELA's ensemble)",
                      "temperature": "0 for the most repeatable grades",
                      "prompt": "a version of a prompt shared by every campaign of the task; left empty, the task "
                                "default's latest version is pinned when saved"}

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        tasks = [Prompt.Task.FORMULAS] if campaign.task == Campaign.Task.FORMULAS else [Prompt.Task.ANSWERS]
        prompt_field = self.fields["prompt"]
        assert isinstance(prompt_field, forms.ModelChoiceField)
        prompt_field.queryset = Prompt.objects.filter(task__in=tasks).order_by("name", "-version")
        prompt_field.empty_label = "the task's default (its latest version, pinned when saved)"
        for name in ("base_url", "model", "api_key_env"):
            self.fields[name].widget.attrs["autocomplete"] = "off"

    def clean(self) -> dict[str, Any]:
        refused = key_fields_refused(self.data)
        if refused:
            raise forms.ValidationError(refused)
        return super().clean() or {}

    def clean_base_url(self) -> str:
        return clean_base_url(self.cleaned_data.get("base_url", ""))

    def _get_validation_exclusions(self):
        # The model's URLField wants a dotted host ("my-gpu-box:8000" fails it): clean_base_url is the check.
        exclusions = super()._get_validation_exclusions()  # type: ignore[misc]
        exclusions.add("base_url")
        return exclusions

    def clean_api_key_env(self) -> str:
        try:
            return clean_api_key_env(self.cleaned_data.get("api_key_env", ""))
        except forms.ValidationError:
            # What was typed may be the key: the page must not send it back in the field.
            self.data = {**self.data.dict(), "api_key_env": ""} if hasattr(self.data, "dict") else {
                **self.data, "api_key_env": ""}
            raise


class PromptEditForm(forms.Form):
    # An imported grades' row is no template to edit.
    prompt = forms.ModelChoiceField(queryset=Prompt.objects.exclude(task=Prompt.Task.IMPORTED),
                                    widget=forms.HiddenInput)
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 14, "cols": 100, "spellcheck": "false"}),
                           strip=False, max_length=PROMPT_MAX_CHARS,
                           help_text=f"at most {PROMPT_MAX_CHARS:,} characters")


class JudgeForm(forms.Form):
    """A judging run started from the page: the endpoint's settings, on some topics (the campaign's), some items,
    with canaries."""

    topics = forms.CharField(required=False, help_text="topic ids separated by spaces (empty: every topic)")
    limit_per_topic = WholeNumberField(required=False, **column_bounds(Campaign, "topic_budget", min_value=1),
                                       label="Items per topic",
                                       help_text="the first N pool items of each topic (empty: all)")
    canaries = WholeNumberField(required=False, min_value=0, max_value=100, initial=0, label="Canaries per topic",
                                help_text="non-relevant pool items copied with the topic's words stuffed in and with "
                                          "a planted instruction, never pooled")

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign

    def clean_topics(self) -> list[str]:
        wanted = self.cleaned_data.get("topics", "").split()
        try:
            topics_chosen(campaign=self.campaign, topic_ids=wanted)
        except InputError as exc:
            raise forms.ValidationError(exc.messages()) from None
        return list(dict.fromkeys(wanted))


class LlmImportForm(forms.Form):
    """Grades an LLM gave elsewhere, as a TREC qrels file (llm.imports.llm_grades_import)."""

    model = forms.CharField(max_length=MODEL_MAX, label="Model",
                            help_text="whose grades these are: the agreement, the LLM board and export_qrels name it "
                                      "llm:MODEL; an earlier import of this model is replaced")
    file = forms.FileField(label="Qrels file",
                           help_text="topic 0 item grade per line, optionally followed by one probability per grade "
                                     "of the scheme, lowest grade first")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["model"].widget.attrs["autocomplete"] = "off"
