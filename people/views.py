"""The people page (organizers only): every account, create one, deactivate, reactivate, reset a password, revoke
an API token. A new password is shown on the response to the POST that made it and nowhere else."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from ir.problems import InputError
from people import selectors, services
from people.forms import AccountCreateForm
from people.pages import password_once


@organizer_required
@never_cache
@require_http_methods(["GET", "POST"])
def people(request: HttpRequest) -> HttpResponse:
    form = AccountCreateForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            account, password = services.account_create(
                username=form.cleaned_data["username"], organizer=form.cleaned_data["role"] == "organizer")
        except InputError as exc:
            exc.add_to_form(form, "username")
        else:
            return password_once(request, account=account, password=password, done="created",
                                 back_url=reverse("people:list"), back_label="Back to People")
    organizers, assessors = selectors.people_list()
    return render(request, "people/people.html", {"form": form, "organizers": organizers, "assessors": assessors})


ACTIONS = {
    "deactivate": ("Deactivate", "{name} will be signed out and cannot log in or use the API until reactivated. "
                                 "Their assignments and judgments are kept."),
    "reactivate": ("Reactivate", "{name} can log in again with the password they had."),
    "reset": ("Reset the password of", "{name} gets a new password, shown to you once; the old one, their "
                                       "sessions and their API token stop working."),
    "unlock": ("Unlock", "{name}'s failed logins are forgotten and they may log in at once (an address locked by "
                         "failed logins stays locked until its cool-off ends)."),
    "revoke": ("Revoke the API token of", "{name}'s API token stops working at once; they may ask /api/token/ for "
                                          "a new one."),
}


@organizer_required
@never_cache
@require_http_methods(["GET", "POST"])
def person_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """GET: a confirmation page (works without JavaScript); POST: the action."""
    account = get_object_or_404(get_user_model(), pk=pk)
    verb, consequence = ACTIONS[action]
    if request.method == "GET":
        return render(request, "people/confirm.html", {
            "account": account, "action": action, "verb": verb,
            "consequence": consequence.format(name=account.get_username())})
    name = account.get_username()
    by = request.user
    assert by.is_authenticated  # organizer_required let only a signed-in organizer in
    try:
        if action == "reset":
            password = services.account_password_reset(account=account, by=by)
            return password_once(request, account=account, password=password, done="given a new password",
                                 back_url=reverse("people:list"), back_label="Back to People")
        if action == "unlock":
            services.account_unlock(account=account, by=by)
            messages.info(request, f"{name} unlocked.")
        elif action == "revoke":
            had = services.token_revoke(account=account, by=by)
            messages.info(request, f"{name}'s API token revoked." if had else f"{name} had no API token.")
        else:
            services.account_set_active(account=account, active=action == "reactivate", by=by)
            messages.info(request, f"{name} {action}d.")
    except InputError as exc:
        for message in exc.messages():
            messages.error(request, message)
    return redirect("people:list")
