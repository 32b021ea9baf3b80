"""The site's 400 page with the problems that refused the request (a GET whose parameters are wrong: a download a
link asked for), in the layout of the other error pages (templates/400.html)."""
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def bad_request_page(request: HttpRequest, problems: list[str], *, back: str = "", back_label: str = ""
                     ) -> HttpResponse:
    """400 with the site's page naming every problem (InputError.messages()), and a link back to the page whose
    form asked (back, back_label) when given."""
    return render(request, "400.html", {"problems": problems, "back": back, "back_label": back_label}, status=400)
