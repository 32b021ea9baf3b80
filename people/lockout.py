"""django-axes' hooks: the client's address a failed login is counted under (AXES_CLIENT_IP_CALLABLE), and what a
locked-out login gets (AXES_LOCKOUT_CALLABLE): the site's page, or JSON under /api/."""
from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render


def client_address(request: HttpRequest) -> str:
    """The address the outermost of TRUSTED_PROXY_COUNT proxies saw: each proxy appends the address it saw to
    X-Forwarded-For, so that entry is the count-th from the right; whatever stands left of it is the client's to
    forge. The header is believed only from a proxy: a connection from an address outside TRUSTED_PROXY_ADDRESSES
    (a request sent to the app port directly, whatever header it forged) is counted under its own address, as is
    one without a declared proxy, or with a header too short to have passed through them all or whose entry is no
    address."""
    remote = request.META.get("REMOTE_ADDR", "")
    count = settings.TRUSTED_PROXY_COUNT
    seen = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    if count and len(seen) >= count and _from_trusted_proxy(remote):
        try:
            return str(ipaddress.ip_address(seen[-count]))
        except ValueError:
            pass
    return remote


def _from_trusted_proxy(remote: str) -> bool:
    try:
        address = ipaddress.ip_address(remote)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:  # a dual-stack socket's IPv4 peer
        address = address.ipv4_mapped
    return any(address in ipaddress.ip_network(entry, strict=False) for entry in settings.TRUSTED_PROXY_ADDRESSES)


def lockout_response(request, original_response=None, credentials=None) -> HttpResponse:
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    minutes = max(1, round(seconds / 60))
    message = (f"Too many failed logins for this account from this address: try again in {minutes} minutes, "
               "or ask an organizer.")
    status = settings.AXES_HTTP_RESPONSE_CODE
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": message}, status=status)
    else:
        response = render(request, "registration/lockout.html", {"message": message, "minutes": minutes},
                          status=status)
    response["Retry-After"] = str(seconds)
    return response
