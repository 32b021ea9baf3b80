"""The LLM page's forms: a campaign's endpoint (never the key itself), a prompt's new version, a judging run."""
from __future__ import annotations

import re
from typing import Any

from django import forms

from core.forms import WholeNumberField
from llm.client import ENV_NAME
from llm.models import Endpoint, Prompt
from pooling.models import Campaign

# Request fields that would carry a key's value: refused, whatever they hold.
KEY_FIELDS = frozenset({"api_key", "apikey", "key", "token", "secret", "api_token", "password", "openai_api_key",
                        "authorization"})
# Values that look like a key rather than a variable's name (OpenAI's, OpenRouter's, Anthropic's prefixes, "Bearer").
_KEY_LIKE = re.compile(r"^(sk-|sk_|or-|rk-|pk-|Bearer\s)|[^A-Za-z0-9_]", re.IGNORECASE)
KEY_REFUSED = ("the key itself is never accepted: set it in an environment variable of the web server and the "
               "worker, and give that variable's NAME in api_key_env")


def key_fields_refused(data: Any) -> list[str]:
    """The problems of a request that sends a key's value: a field named like a key."""
    names = [name for name in getattr(data, "keys", lambda: [])() if str(name).lower() in KEY_FIELDS]
    return [f"'{name}': {KEY_REFUSED}" for name in names]


def clean_api_key_env(value: str) -> str:
    value = (value or "").strip()
    if value and (_KEY_LIKE.search(value) or not ENV_NAME.fullmatch(value)):
        # Not quoted back: what was typed may be the key itself.
        raise forms.ValidationError(f"this is not the name of an environment variable: {KEY_REFUSED}")
    return value


class EndpointForm(forms.ModelForm):
    # Local servers (Ollama, vLLM) answer on plain http: an address typed without a scheme is taken as http://.
    base_url = forms.URLField(max_length=500, assume_scheme="http", label="Base URL",
                              help_text="e.g. http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM)")

    class Meta:
        model = Endpoint
        fields = ["base_url", "model", "api_key_env", "temperature", "concurrency", "timeout", "retries", "samples",
                  "prompt", "mode"]
        labels = {"base_url": "Base URL", "api_key_env": "Key's environment variable (its name)"}
        help_texts = {"samples": "replies per item; the grade is their majority, a tie going to the lower grade "
                                 "(as UMBRELA's ensemble)",
                      "temperature": "0 for the most repeatable grades"}

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        tasks = [Prompt.Task.FORMULAS] if campaign.task == Campaign.Task.FORMULAS else [Prompt.Task.ANSWERS]
        prompt_field = self.fields["prompt"]
        assert isinstance(prompt_field, forms.ModelChoiceField)
        prompt_field.queryset = Prompt.objects.filter(task__in=tasks).order_by("name", "-version")
        prompt_field.empty_label = "the task's default (latest version)"
        for name in ("base_url", "model", "api_key_env"):
            self.fields[name].widget.attrs["autocomplete"] = "off"

    def clean(self) -> dict[str, Any]:
        refused = key_fields_refused(self.data)
        if refused:
            raise forms.ValidationError(refused)
        return super().clean() or {}

    def clean_api_key_env(self) -> str:
        try:
            return clean_api_key_env(self.cleaned_data.get("api_key_env", ""))
        except forms.ValidationError:
            # What was typed may be the key: the page must not send it back in the field.
            self.data = {**self.data.dict(), "api_key_env": ""} if hasattr(self.data, "dict") else {
                **self.data, "api_key_env": ""}
            raise


class PromptEditForm(forms.Form):
    prompt = forms.ModelChoiceField(queryset=Prompt.objects.all(), widget=forms.HiddenInput)
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 14, "cols": 100, "spellcheck": "false"}),
                           strip=False)


class JudgeForm(forms.Form):
    """A judging run started from the page: the endpoint's settings, on some topics, some items, with canaries."""

    topics = forms.CharField(required=False, help_text="topic ids separated by spaces (empty: every topic)")
    limit_per_topic = WholeNumberField(required=False, min_value=1, label="Items per topic",
                                       help_text="the first N pool items of each topic (empty: all)")
    canaries = WholeNumberField(required=False, min_value=0, max_value=100, initial=0, label="Canaries per topic",
                                help_text="non-relevant pool items copied with the topic's words stuffed in and with "
                                          "a planted instruction, never pooled")

    def clean_topics(self) -> list[str]:
        return self.cleaned_data.get("topics", "").split()
