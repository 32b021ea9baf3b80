"""The API's representation of a job."""
from typing import TYPE_CHECKING

from rest_framework import serializers, status
from rest_framework.response import Response

from jobs.models import Job
from jobs.pages import job_progress

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from pooling.models import Campaign, Collection


class JobSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    stale = serializers.SerializerMethodField(help_text="running, but its worker stopped: it will be taken "
                                                        "again, or can be retried")
    campaign: "serializers.SlugRelatedField[Campaign]" = serializers.SlugRelatedField(
        slug_field="name", read_only=True, allow_null=True)
    collection: "serializers.SlugRelatedField[Collection]" = serializers.SlugRelatedField(
        slug_field="name", read_only=True, allow_null=True)
    created_by: "serializers.SlugRelatedField[User]" = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = Job
        fields = ["id", "kind", "status", "stale", "progress", "message", "problems", "warnings", "result", "campaign",
                  "collection", "created_by", "created_at", "started_at", "finished_at"]

    def get_progress(self, job: Job) -> float:
        return job_progress(job=job)

    def get_stale(self, job: Job) -> bool:
        return job.stale


def job_accepted(job: Job, request) -> Response:
    """A job as the API answers a request that queued (or retried, or cancelled) it: 202 with the job."""
    return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)
