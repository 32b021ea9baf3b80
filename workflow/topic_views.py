"""The organizer's page for deleting a topic (docs/pooling.md, "Undoing a mistake"): a GET that says what goes, or
why the topic is kept, and a POST that deletes it."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from assessor import services as assessor_services
from assessor.selectors import topic_work
from core.permissions import organizer_required
from ir.problems import InputError
from pooling import services
from pooling.models import Topic


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
            return redirect("pooling:campaign", pk=pk)
    work = topic_work(topic=topic)
    return render(request, "pooling/topic_delete.html", {
        "campaign": topic.campaign, "topic": topic, "problems": problems, "work": work,
        "refusal": work.refusal(topic.topic_id), "contents": services.topic_contents(topic=topic)},
        status=400 if problems else 200)
