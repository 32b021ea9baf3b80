"""The jobs pages: the jobs list, a job's page, and its Retry and Cancel buttons."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from core.permissions import organizer_required
from ir.problems import InputError
from jobs import selectors
from jobs.models import Job
from jobs.pages import job_view
from jobs.runner import job_cancel, job_retry


@organizer_required
def job_list(request: HttpRequest) -> HttpResponse:
    return render(request, "jobs/job_list.html", {"jobs": [job_view(job=job) for job in selectors.job_list()]})


@organizer_required
def job_detail(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(Job.objects.select_related("campaign", "collection", "created_by"), pk=pk)
    return render(request, "jobs/job_detail.html", {"job": job, "view": job_view(job=job)})


@organizer_required
@require_POST
def job_retry_view(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(Job, pk=pk)
    try:
        job_retry(job=job)
    except InputError as exc:
        messages.error(request, "; ".join(exc.messages()))
    else:
        messages.info(request, f"Job #{job.pk} is queued again.")
    return redirect("jobs:job", pk=job.pk)


@organizer_required
@require_POST
def job_cancel_view(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(Job, pk=pk)
    try:
        job = job_cancel(job=job)
    except InputError as exc:
        messages.error(request, "; ".join(exc.messages()))
    else:
        messages.info(request, f"Job #{job.pk} is cancelled." if job.finished else
                      f"Job #{job.pk} stops after the batch it is judging; what it judged stays.")
    return redirect("jobs:job", pk=job.pk)
