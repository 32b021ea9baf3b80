"""Assessor pages."""
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """An assessor's start page: their assignments (none can exist before the judging app)."""
    return render(request, "assessor/home.html")
