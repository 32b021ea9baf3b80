"""The people page's reads: every account with its role, state and API token; accounts named in a command or an
API request."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Sum
from django.utils import timezone
from rest_framework.authtoken.models import Token

from core.permissions import ORGANIZERS
from ir.problems import InputError


def accounts_named(names: list[str]) -> list[User]:
    """The accounts of these usernames, once each in the order given; InputError naming every one that does not
    exist (accounts are created on the assignments or people page first)."""
    wanted = list(dict.fromkeys(names))
    found = {u.username: u for u in get_user_model().objects.filter(username__in=wanted)}
    missing = [name for name in wanted if name not in found]
    if missing:
        raise InputError([f"no account named '{name}': create it first (import_judgments and the assignments "
                          "page create accounts)" for name in missing])
    return [found[name] for name in wanted]


@dataclass(frozen=True)
class Person:
    account: User
    organizer: bool
    token_created: datetime | None
    token_expires: datetime | None
    failed_logins: int = 0
    # The most failures from any one address: django-axes locks a pair of name and address (config/settings/base.py).
    worst_address_failures: int = 0

    @property
    def locked(self) -> bool:
        """Locked from at least one address."""
        return self.worst_address_failures >= settings.AXES_FAILURE_LIMIT

    @property
    def token_expired(self) -> bool:
        return self.token_expires is not None and self.token_expires <= timezone.now()


def token_expires(token: Token) -> datetime:
    return token.created + settings.TOKEN_LIFETIME


def failed_logins() -> dict[str, tuple[int, int]]:
    """Per account name, failed logins within the cool-off time (django-axes' records): (from every address, from
    its worst address)."""
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    rows = (AccessAttempt.objects.filter(attempt_time__gte=since, username__isnull=False)
            .values("username", "ip_address").annotate(failures=Sum("failures_since_start")))
    counts: dict[str, tuple[int, int]] = {}
    for row in rows:
        total, worst = counts.get(row["username"], (0, 0))
        counts[row["username"]] = (total + row["failures"], max(worst, row["failures"]))
    return counts


def people_list() -> tuple[list[Person], list[Person]]:
    """(organizers, assessors), each by name; superusers count as organizers."""
    user_model = get_user_model()
    organizer_pks = set(user_model.objects.filter(groups__name=ORGANIZERS).values_list("pk", flat=True))
    tokens = {t.user_id: t for t in Token.objects.all()}
    failures = failed_logins()
    organizers: list[Person] = []
    assessors: list[Person] = []
    for account in user_model.objects.order_by("username"):
        token = tokens.get(account.pk)
        organizer = account.is_superuser or account.pk in organizer_pks
        total, worst = failures.get(account.get_username(), (0, 0))
        person = Person(account=account, organizer=organizer,
                        token_created=token.created if token else None,
                        token_expires=token_expires(token) if token else None,
                        failed_logins=total, worst_address_failures=worst)
        (organizers if organizer else assessors).append(person)
    return organizers, assessors
