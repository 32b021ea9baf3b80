"""The people page's reads: every account with its role, state and API token."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone
from rest_framework.authtoken.models import Token

from pooling.permissions import ORGANIZERS


@dataclass(frozen=True)
class Person:
    account: AbstractBaseUser
    organizer: bool
    token_created: datetime | None
    token_expires: datetime | None

    @property
    def token_expired(self) -> bool:
        return self.token_expires is not None and self.token_expires <= timezone.now()


def token_expires(token: Token) -> datetime:
    return token.created + settings.TOKEN_LIFETIME


def people_list() -> tuple[list[Person], list[Person]]:
    """(organizers, assessors), each by name; superusers count as organizers."""
    User = get_user_model()
    organizer_pks = set(User.objects.filter(groups__name=ORGANIZERS).values_list("pk", flat=True))
    tokens = {t.user_id: t for t in Token.objects.all()}
    organizers, assessors = [], []
    for account in User.objects.order_by("username"):
        token = tokens.get(account.pk)
        organizer = account.is_superuser or account.pk in organizer_pks
        person = Person(account=account, organizer=organizer,
                        token_created=token.created if token else None,
                        token_expires=token_expires(token) if token else None)
        (organizers if organizer else assessors).append(person)
    return organizers, assessors
