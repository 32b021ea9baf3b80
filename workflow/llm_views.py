"""Starting an LLM judging job (the campaign's LLM page and POST /api/campaigns/<id>/llm/judge/) and cancelling a
job (the job page's Cancel button); the LLM page itself is llm/views.py."""
from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.forms import form_values
from core.permissions import organizer_required
from ir.problems import InputError
from llm import services as llm_services
from llm.forms import JudgeForm
from pooling.models import Campaign, Job
from workflow.job_params import LlmJudgeParams
from workflow.jobs import job_cancel, job_create
from workflow.serializers import JobSerializer


def llm_judge_job(*, campaign: Campaign, params: LlmJudgeParams, user) -> Job:
    """Queues a judging job once what it needs is there: an endpoint (with the overrides) and the prompt named."""
    llm_services.endpoint_settings(campaign=campaign, overrides={"base_url": params.base_url, "model": params.model})
    if params.prompt:
        llm_services.prompt_named(name=params.prompt)
    with transaction.atomic():
        return job_create(params=params, user=user, campaign=campaign)


@organizer_required
@require_POST
def llm_judge_start(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    try:
        values = form_values(JudgeForm(request.POST))
        job = llm_judge_job(campaign=campaign, user=request.user, params=LlmJudgeParams(
            topics=values["topics"], limit_per_topic=values["limit_per_topic"], canaries=values["canaries"] or 0))
    except InputError as exc:
        messages.error(request, "; ".join(exc.messages()))
        return redirect("llm:campaign_llm", pk=campaign.pk)
    return redirect("pooling:job", pk=job.pk)


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
    return redirect("pooling:job", pk=job.pk)


class LlmJudgeSerializer(serializers.Serializer):
    base_url = serializers.URLField(required=False, allow_null=True, help_text="default: the campaign's endpoint")
    model = serializers.CharField(required=False, allow_null=True, max_length=200)
    api_key_env = serializers.CharField(required=False, allow_null=True, max_length=100,
                                        help_text="the NAME of the environment variable holding the key")
    concurrency = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=256)
    samples = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=20)
    prompt = serializers.CharField(required=False, allow_blank=True, default="", help_text="NAME or NAME@VERSION")
    topics = serializers.ListField(child=serializers.CharField(max_length=64), required=False, default=list)
    limit_per_topic = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    canaries = serializers.IntegerField(required=False, default=0, min_value=0, max_value=100)

    def validate_api_key_env(self, value: str | None) -> str | None:
        from django import forms

        from llm.forms import clean_api_key_env
        try:
            return clean_api_key_env(value or "") or None
        except forms.ValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None


class CampaignLlmJudgeApi(APIView):
    serializer_class = LlmJudgeSerializer

    @extend_schema(request=LlmJudgeSerializer, responses={202: JobSerializer})
    def post(self, request: Request, pk: int) -> Response:
        """Starts a judging job with the campaign's LLM endpoint (the fields given override it for this run): 202
        with the job; POST /api/jobs/<id>/cancel/ stops it between batches."""
        from llm.forms import key_fields_refused
        campaign = get_object_or_404(Campaign, pk=pk)
        refused = key_fields_refused(request.data)
        if refused:
            raise InputError(refused)
        data = LlmJudgeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = llm_judge_job(campaign=campaign, params=LlmJudgeParams(**data.validated_data), user=request.user)
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)
