"""What the judging page's script asks besides the page itself (docs/judging.md, "The next item at once, and nothing
lost"): the items after the one shown, fetched ahead so that Enter swaps the next one in at once, and its reports of the
items it showed."""
from __future__ import annotations

import time

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, JsonResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from core.forms import form_values
from ir.problems import InputError
from judging import budgets, selectors, services
from judging.forms import AheadForm, ShownForm
from judging.judge_page import judge_context, own_assignment
from judging.models import Assignment
from judging.stamps import shown_at, stamp_read
from pooling.models import PoolItem

# Items fetched ahead: the one Enter opens and two after it, so that an assessor can judge three with the network
# down.
AHEAD = 3


@login_required
@require_GET
def ahead(request: HttpRequest, pk: int, position: int) -> JsonResponse:
    """The items the assessor will judge after the one at `position` (selectors.ahead_of: the campaign's order),
    each as the judging page renders it, and recorded as shown by nobody: fetching an item is not showing it.
    `?have=` lists the pool items the page holds already (comma-separated): those come without their HTML. A pool
    rebuild gives its items new pool item numbers, so a page holding an old one gets the new one in full."""
    assignment = own_assignment(request, pk)
    if assignment.read_only or assignment.kind == Assignment.Kind.CHARACTERISATION:  # nothing to grade ahead
        return JsonResponse({"items": []})
    have = AheadForm(request.GET).pool_items()
    # Every item stamped with the time the request came in (not the moment its own page was rendered, later): the
    # first-shown time the page reports is then at most the network's delay after the true moment.
    asked = time.time()
    # Within the assignment's budget (budgets.py): the item shown is one of the items left, so no further item comes
    # after the last one the budget allows (the continue page then says the budget is spent).
    left = budgets.assignment_budget(assignment=assignment).left
    count = AHEAD if left is None else min(AHEAD, max(0, left - 1))
    if count == 0:
        return JsonResponse({"items": []})
    ahead = selectors.ahead_of(assignment=assignment, position=position, count=count)
    progress = None  # the assignment's, counted once for every item sent in full

    def entry_of(item: PoolItem) -> dict | None:
        nonlocal progress
        entry: dict = {"position": item.position, "pool_item": item.pk,
                       "url": reverse("judging:judge", args=[pk, item.position])}
        if item.pk not in have:
            progress = progress or selectors.assignment_progress(assignment=assignment)
            page = selectors.judging_page_of(assignment=assignment, position=item.position, progress=progress)
            if page is None or page.item.pk != item.pk:  # the pools were rebuilt a moment ago: fetched next time
                return None
            context = judge_context(page, [], rendered_at=asked)
            entry["html"] = render_to_string("judging/_judge_item.html", context, request=request)
        return entry

    items = []
    for item in ahead.items:
        entry = entry_of(item)
        if entry is None:
            break
        items.append(entry)
    answer: dict = {"items": items}
    # An adaptive order: the item that comes next instead when the item shown is judged relevant (judge-ahead.js
    # swaps it in); the page is never told why.
    if ahead.if_relevant is not None and items and (relevant := entry_of(ahead.if_relevant)) is not None:
        answer["if_relevant"] = relevant
        campaign = assignment.campaign
        answer["relevant_grades"] = campaign.judging_scheme.relevant_grades(campaign.relevance_level)
    return JsonResponse(answer)


@login_required
@require_POST
def shown(request: HttpRequest, pk: int, position: int) -> JsonResponse:
    """The page showed an item it had fetched ahead: records when (services.item_shown; the time comes from the
    item's stamp and what the page measured, stamps.shown_at) and answers whether the pool item shown is still the
    one at this position. A stale one (the pools were rebuilt since) is not recorded: `current` false, and the page
    loads the position anew."""
    assignment = own_assignment(request, pk)
    stamp = stamp_read(request.POST.get("stamp", ""))
    if stamp is None or stamp.assignment_pk != assignment.pk or stamp.position != position:
        return JsonResponse({"recorded": False, "errors": ["this item's stamp is not valid: reload the page"]},
                            status=400)
    try:
        elapsed = form_values(ShownForm(request.POST))["elapsed_ms"]
    except InputError as exc:
        return JsonResponse({"recorded": False, "errors": exc.messages()}, status=400)
    item = PoolItem.objects.filter(pk=stamp.pool_item_pk, topic_id=assignment.topic_id, position=position).first()
    if item is None:
        return JsonResponse({"recorded": False, "current": False})
    if assignment.read_only:
        return JsonResponse({"recorded": False, "current": True})
    services.item_shown(assignment=assignment, item_id=item.item_id, at=shown_at(stamp, elapsed))
    return JsonResponse({"recorded": True, "current": True})
