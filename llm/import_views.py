"""The LLM page's form that imports an LLM's grades made elsewhere (docs/llm.md, "Grades from elsewhere"): POST only,
organizers only; what it did, or why the file was refused (every problem with its line), is said on the LLM page."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from core.bounds import upload_size_check
from core.permissions import organizer_required
from ir.problems import InputError
from llm.forms import LlmImportForm
from llm.imports import llm_grades_import
from pooling.models import Campaign

# How many lines of problems the page shows (each kind of problem is grouped already: ir/problems.py).
SHOWN = 20


@organizer_required
@require_POST
def llm_grades_import_view(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    form = LlmImportForm(request.POST, request.FILES)
    try:
        if not form.is_valid():
            raise InputError([f"{form.fields[name].label}: {error}" if name in form.fields else str(error)
                              for name, errors in form.errors.items() for error in errors])
        upload = form.cleaned_data["file"]
        upload_size_check(upload)
        upload.seek(0)
        result = llm_grades_import(campaign=campaign, model=form.cleaned_data["model"], stream=upload.file,
                                   filename=upload.name)
    except InputError as exc:
        lines = exc.messages()
        messages.error(request, f"Nothing was imported: {exc.total:,} problem{'s' if exc.total != 1 else ''}.")
        for line in lines[:SHOWN]:
            messages.error(request, line)
        if len(lines) > SHOWN:
            messages.error(request, f"... and {len(lines) - SHOWN:,} more lines of problems")
        return redirect("llm:campaign_llm", pk=campaign.pk)
    for warning in result.warnings():
        messages.warning(request, f"Warning: {warning}")
    messages.info(request, result.summary())
    return redirect("llm:campaign_llm", pk=campaign.pk)
