"""Pages of the people app that other apps' views answer with."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers


def password_once(request: HttpRequest, *, account, password: str, done: str, back_url: str,
                  back_label: str) -> HttpResponse:
    """The one page that shows a new password: the response itself, never stored by a browser or a proxy."""
    response = render(request, "people/password_once.html", {
        "account": account, "password": password, "done": done, "back_url": back_url, "back_label": back_label})
    add_never_cache_headers(response)
    return response
