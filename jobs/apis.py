"""The jobs API: a job's state and progress (what jobs.js polls), its retry and its cancel."""
from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action

from jobs.models import Job
from jobs.runner import job_cancel, job_retry
from jobs.serializers import JobSerializer, job_accepted


class JobViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Job.objects.select_related("campaign", "collection", "created_by")
    serializer_class = JobSerializer

    @extend_schema(request=None, responses={202: JobSerializer, 400: OpenApiResponse(
        description="the job is not to be retried (queued, running, done, or rejected for its input): the reason")})
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        """Queues (sends) again a queued job, a job that failed for another reason than its input, or one whose
        worker stopped (`stale`); 400 with the reason for any other job. The job page's Retry button."""
        with transaction.atomic():
            job = job_retry(job=self.get_object())
        return job_accepted(job, request)

    @extend_schema(request=None, responses={202: JobSerializer, 400: OpenApiResponse(
        description="the job is finished, or of a kind that cannot stop halfway: the reason")})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Cancels a queued job of any kind (a campaign delete that has not begun gives the campaign back), or asks a
        running LLM judging job to stop between two batches (it ends `cancelled`, keeping the grades it stored); 400
        with the reason for any other job."""
        return job_accepted(job_cancel(job=self.get_object()), request)
