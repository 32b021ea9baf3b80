"""Accounts: create one, deactivate or reactivate it, reset its password, issue and revoke its API token.

A new password is returned to the caller once, to be shown on the response that made it; it is never kept in the
session, the cache or a message (the database keeps only its hash).
"""
from __future__ import annotations

import secrets

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from core.bounds import max_chars
from core.permissions import ORGANIZERS
from ir.problems import InputError

# secrets.token_urlsafe(12): 16 characters, 96 random bits.
PASSWORD_BYTES = 12


def username_valid(name: str) -> bool:
    """Django's own rule for an account name: its validator and the column's length."""
    user_model = get_user_model()
    try:
        user_model.username_validator(name)
    except ValidationError:
        return False
    return len(name) <= max_chars(user_model, user_model.USERNAME_FIELD)


def _new_password() -> str:
    return secrets.token_urlsafe(PASSWORD_BYTES)


@transaction.atomic
def account_create(*, username: str, organizer: bool = False) -> tuple[User, str]:
    """A new account (an assessor's, or an organizer's) with a fresh random password, returned once."""
    username = username.strip()
    if not username_valid(username):
        raise InputError(f"'{username[:40]}' cannot be an account name: at most 150 letters, digits and @ . + - _")
    user_model = get_user_model()
    if user_model.objects.filter(username=username).exists():
        raise InputError(f"an account named {username} exists already")
    password = _new_password()
    account = user_model.objects.create_user(username=username, password=password)
    if organizer:
        account.groups.add(Group.objects.get_or_create(name=ORGANIZERS)[0])
    return account, password


def _check_may_act(*, account: User, by: User) -> None:
    """Every action of the People page (deactivate, reactivate, reset, unlock, revoke) on a superuser's account is
    for a superuser only: an organizer may not act on it."""
    if account.is_superuser and not by.is_superuser:
        raise InputError(f"{account.get_username()} is a superuser: only a superuser may change that account")


def _check_may_change(*, account: User, by: User) -> None:
    if account.pk == by.pk:
        raise InputError("this is your own account: change your own password on the Password page")
    _check_may_act(account=account, by=by)


@transaction.atomic
def account_set_active(*, account: User, active: bool, by: User) -> None:
    """Deactivating signs the account out everywhere (its sessions stop at their next request, its token is
    deleted) and keeps everything it did; reactivating lets it log in again with the password it had."""
    _check_may_change(account=account, by=by)
    account.is_active = active
    account.save(update_fields=["is_active"])
    if not active:
        Token.objects.filter(user=account).delete()


@transaction.atomic
def account_password_reset(*, account: User, by: User) -> str:
    """A new random password, returned once. The old one stops working, and so do the account's sessions (Django
    checks a hash of the password on every request) and its API token."""
    _check_may_change(account=account, by=by)
    password = _new_password()
    account.set_password(password)
    account.save(update_fields=["password"])
    Token.objects.filter(user=account).delete()
    return password


@transaction.atomic
def token_issue(*, user: User) -> Token:
    """The account's API token: the one it has while that is within TOKEN_LIFETIME, else a new one."""
    Token.objects.filter(user=user, created__lte=timezone.now() - settings.TOKEN_LIFETIME).delete()
    token, _ = Token.objects.get_or_create(user=user)
    return token


@transaction.atomic
def token_revoke(*, account: User, by: User) -> bool:
    """Deletes the account's API token; True if it had one. The account may ask /api/token/ for a new one."""
    _check_may_act(account=account, by=by)
    deleted, _ = Token.objects.filter(user=account).delete()
    return deleted > 0


def account_unlock(*, account: User, by: User) -> int:
    """Forgets the account's failed logins (django-axes' records of its name), so it may log in at once; an address
    locked by failures stays locked until its cool-off ends (docs/accounts.md). Returns how many records went."""
    _check_may_act(account=account, by=by)
    return axes_reset(username=account.get_username())
