"""The LLM endpoint of a campaign in the API: GET, PUT or PATCH /api/campaigns/<id>/llm/ (organizers), and a judging
job started by POST /api/campaigns/<id>/llm/judge/. The key's value is never accepted: a field named like one is
refused (400), and `api_key_env` must be a variable's name."""
from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ir.problems import InputError
from jobs.serializers import JobSerializer, job_accepted
from llm import services
from llm.client import BASE_URL_MAX, base_url_normalised
from llm.forms import clean_api_key_env, key_fields_refused
from llm.models import Endpoint, Prompt
from llm.tasks import LlmJudgeParams
from llm.views import llm_judge_job
from pooling.models import Campaign


class EndpointSerializer(serializers.ModelSerializer):
    base_url = serializers.CharField(max_length=BASE_URL_MAX, help_text="e.g. http://localhost:11434/v1; http:// is "
                                                                        "assumed")
    prompt = serializers.PrimaryKeyRelatedField(
        queryset=Prompt.objects.all(), allow_null=True, required=False,
        help_text="a prompt version's id (null when saving: the task's default, its latest version, pinned then)")
    prompt_name = serializers.SerializerMethodField(help_text="the prompt in use, NAME vVERSION")

    class Meta:
        model = Endpoint
        fields = ["base_url", "model", "api_key_env", "temperature", "concurrency", "timeout", "retries", "samples",
                  "prompt", "prompt_name", "mode"]

    def get_prompt_name(self, endpoint: Endpoint) -> str:
        prompt = endpoint.prompt or services.prompt_default(task=endpoint.campaign.task)
        return str(prompt)

    def validate_base_url(self, value: str) -> str:
        try:
            return base_url_normalised(value)
        except InputError as exc:
            raise serializers.ValidationError(exc.messages()) from None

    def validate_api_key_env(self, value: str) -> str:
        try:
            return clean_api_key_env(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None

    def validate_prompt(self, value: Prompt | None) -> Prompt | None:
        campaign: Campaign = self.context["campaign"]
        tasks = [Prompt.Task.FORMULAS] if campaign.task == Campaign.Task.FORMULAS else [Prompt.Task.ANSWERS]
        if value is not None and value.task not in tasks:
            raise serializers.ValidationError(f"{value} is a {value.get_task_display()} prompt")
        return value


class CampaignLlmApi(APIView):
    serializer_class = EndpointSerializer

    def _campaign(self, pk: int) -> Campaign:
        return get_object_or_404(Campaign, pk=pk)

    @extend_schema(responses={200: EndpointSerializer})
    def get(self, request: Request, pk: int) -> Response:
        """The campaign's LLM endpoint (404 until one is set)."""
        endpoint = get_object_or_404(Endpoint.objects.select_related("prompt", "campaign"), campaign_id=pk)
        return Response(EndpointSerializer(endpoint).data)

    @extend_schema(request=EndpointSerializer, responses={200: EndpointSerializer})
    def put(self, request: Request, pk: int) -> Response:
        """Sets the campaign's LLM endpoint (base_url and model required)."""
        return self._save(request, pk, partial=False)

    @extend_schema(request=EndpointSerializer, responses={200: EndpointSerializer})
    def patch(self, request: Request, pk: int) -> Response:
        """Changes some fields of the campaign's LLM endpoint."""
        return self._save(request, pk, partial=True)

    def _save(self, request: Request, pk: int, *, partial: bool) -> Response:
        campaign = self._campaign(pk)
        refused = key_fields_refused(request.data)
        if refused:
            raise InputError(refused)
        endpoint = Endpoint.objects.filter(campaign=campaign).first()
        serializer = EndpointSerializer(endpoint, data=request.data, partial=partial and endpoint is not None,
                                        context={"campaign": campaign})
        serializer.is_valid(raise_exception=True)
        saved = services.endpoint_update(campaign=campaign, values=serializer.validated_data)
        return Response(EndpointSerializer(saved).data)


class LlmJudgeSerializer(serializers.Serializer):
    base_url = serializers.CharField(required=False, allow_null=True, max_length=500,
                                     help_text="default: the campaign's endpoint; http:// is assumed")
    model = serializers.CharField(required=False, allow_null=True, max_length=200)
    api_key_env = serializers.CharField(required=False, allow_null=True, max_length=100,
                                        help_text="the NAME of the environment variable holding the key")
    concurrency = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=256)
    samples = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=20)
    prompt = serializers.CharField(required=False, allow_blank=True, default="", help_text="NAME or NAME@VERSION")
    topics = serializers.ListField(child=serializers.CharField(max_length=64), required=False, default=list)
    limit_per_topic = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    canaries = serializers.IntegerField(required=False, default=0, min_value=0, max_value=100)

    def validate_base_url(self, value: str | None) -> str | None:
        try:
            return base_url_normalised(value) if value else None
        except InputError as exc:
            raise serializers.ValidationError(exc.messages()) from None

    def validate_api_key_env(self, value: str | None) -> str | None:
        try:
            return clean_api_key_env(value or "") or None
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None


class CampaignLlmJudgeApi(APIView):
    serializer_class = LlmJudgeSerializer

    @extend_schema(request=LlmJudgeSerializer, responses={202: JobSerializer})
    def post(self, request: Request, pk: int) -> Response:
        """Starts a judging job with the campaign's LLM endpoint (the fields given override it for this run): 202
        with the job as it is now (queued, or finished where jobs run in-process); POST /api/jobs/<id>/cancel/
        stops it between batches."""
        campaign = get_object_or_404(Campaign, pk=pk)
        refused = key_fields_refused(request.data)
        if refused:
            raise InputError(refused)
        data = LlmJudgeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = llm_judge_job(campaign=campaign, params=LlmJudgeParams(**data.validated_data), user=request.user)
        job.refresh_from_db()  # run in-process (no broker), it has finished already: say so
        return job_accepted(job, request)
