"""The organizer's pages for a topic: editing its text, and deleting it (docs/pooling.md, "Undoing a mistake"): a
GET that says what goes, or why the topic is kept, and a POST that deletes it."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from ir.problems import InputError
from judging import services as assessor_services
from judging.selectors import topic_work
from pooling import services
from pooling.forms import TopicTextForm
from pooling.models import Topic


@organizer_required
@require_http_methods(["GET", "POST"])
def topic_edit(request: HttpRequest, pk: int, topic_pk: int) -> HttpResponse:
    topic = get_object_or_404(Topic.objects.select_related("campaign"), pk=topic_pk, campaign_id=pk)
    form = TopicTextForm(request.POST or None, instance=topic)
    if request.method == "POST" and form.is_valid():
        try:
            services.topic_update(campaign=topic.campaign, topic_id=topic.topic_id, **form.cleaned_data)
        except InputError as exc:
            exc.add_to_form(form)
        else:
            messages.success(request, f"Topic {topic.topic_id} was saved.")
            return redirect("workflow:campaign", pk=pk)
    return render(request, "workflow/topic_edit.html", {"campaign": topic.campaign, "topic": topic, "form": form},
                  status=400 if form.errors else 200)


@organizer_required
@require_http_methods(["GET", "POST"])
def topic_delete(request: HttpRequest, pk: int, topic_pk: int) -> HttpResponse:
    topic = get_object_or_404(Topic.objects.select_related("campaign"), pk=topic_pk, campaign_id=pk)
    problems: list[str] = []
    if request.method == "POST":
        try:
            contents = assessor_services.topic_delete(campaign=topic.campaign, topic_id=topic.topic_id)
        except InputError as exc:
            problems = exc.messages()
        else:
            messages.success(request, f"Topic {topic.topic_id} was deleted ({contents.pool_items} pool items, "
                                      f"{contents.run_rows} run rows).")
            return redirect("workflow:campaign", pk=pk)
    work = topic_work(topic=topic)
    return render(request, "workflow/topic_delete.html", {
        "campaign": topic.campaign, "topic": topic, "problems": problems, "work": work,
        "refusal": work.refusal(topic.topic_id), "contents": services.topic_contents(topic=topic)},
        status=400 if problems else 200)
