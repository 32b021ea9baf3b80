"""The site's 400 page with the problems that refused the request (a GET whose parameters are wrong: a download a
link asked for), in the layout of the other error pages (templates/400.html), and the 503 of a service that does not
answer."""
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework.exceptions import APIException


def bad_request_page(request: HttpRequest, problems: list[str], *, back: str = "", back_label: str = ""
                     ) -> HttpResponse:
    """400 with the site's page naming every problem (InputError.messages()), and a link back to the page whose
    form asked (back, back_label) when given."""
    return render(request, "400.html", {"problems": problems, "back": back, "back_label": back_label}, status=400)


class ServiceUnavailable(APIException):
    """A service the request needs (the job queue's broker) does not answer: 503, nothing saved, try again soon.
    The API answers it as JSON (DRF), the site's pages with templates/503.html
    (config.errors.ServiceUnavailableMiddleware)."""

    status_code = 503
    default_detail = "a service this request needs is unavailable; nothing was saved, try again in a minute"
    default_code = "service_unavailable"
