"""The campaign's LLM page (organizers): the endpoint, the mode, the prompts with a form that makes a new version,
what is graded and the commonest failures, the recent judging jobs, and the form that starts a judging job; the same
job from POST /api/campaigns/<id>/llm/judge/, and cancelling a job (the job page's Cancel button). The page lives
here, above llm, because it lists jobs as every job list does (workflow.job_pages.job_view)."""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.forms import form_values
from core.permissions import organizer_required
from ir.problems import InputError
from llm import services as llm_services
from llm.forms import EndpointForm, JudgeForm, PromptEditForm
from llm.models import Endpoint
from llm.pages import failure_reasons, grade_counts, page_extras, prompt_users
from pooling.models import Campaign, Job
from workflow.job_pages import job_view
from workflow.job_params import LlmJudgeParams
from workflow.jobs import job_cancel, job_create
from workflow.serializers import JobSerializer


def _page(request: HttpRequest, campaign: Campaign, *, form: EndpointForm | None = None,
          edited: PromptEditForm | None = None, judge_form: JudgeForm | None = None) -> HttpResponse:
    """The page, with the form that was posted and refused (its errors by field, what was typed kept)."""
    prompts = llm_services.prompts_of_campaign(campaign=campaign)
    endpoint = Endpoint.objects.filter(campaign=campaign).select_related("prompt").first()
    form = form or EndpointForm(campaign=campaign, instance=endpoint or Endpoint(campaign=campaign))
    edit_forms = {p.name: PromptEditForm(initial={"prompt": p.pk, "text": p.text}) for p in prompts}
    if edited is not None and "prompt" in edited.cleaned_data:
        edit_forms[edited.cleaned_data["prompt"].name] = edited
    users = prompt_users(prompts=prompts)
    jobs = Job.objects.filter(campaign=campaign, kind=Job.Kind.LLM_JUDGE).select_related(
        "created_by", "campaign", "collection").order_by("-created_at")[:5]
    return render(request, "llm/campaign_llm.html", {
        "campaign": campaign, "form": form, "endpoint": endpoint,
        "prompts": [(p, edit_forms[p.name], users[p.name]) for p in prompts],
        "judge_form": judge_form or JudgeForm(campaign=campaign), "counts": grade_counts(campaign=campaign),
        "failures": failure_reasons(campaign=campaign), "jobs": [job_view(job=job) for job in jobs],
        # The demo and a single process without Redis run jobs in the request (config/settings/base.py).
        "in_process": settings.CELERY_TASK_ALWAYS_EAGER, "give_up": llm_services.GIVE_UP,
        **page_extras(campaign=campaign)})


@organizer_required
@require_http_methods(["GET", "POST"])
def campaign_llm(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    if request.method == "GET":
        return _page(request, campaign)
    if request.POST.get("action") == "prompt":
        edit = PromptEditForm(request.POST)
        try:
            values = form_values(edit)
            made = llm_services.prompt_edit(prompt=values["prompt"], text=values["text"], campaign=campaign)
        except InputError as exc:
            if edit.is_valid():  # the service's refusal; the form's own are on their fields already
                exc.add_to_form(edit, "text")
            return _page(request, campaign, edited=edit)
        messages.info(request, f"Saved as {made}, which this campaign uses now; other campaigns keep the version "
                               "they were saved with. Grades made with earlier versions keep naming theirs.")
        return redirect("llm:campaign_llm", pk=campaign.pk)
    endpoint = Endpoint.objects.filter(campaign=campaign).first()
    form = EndpointForm(request.POST, campaign=campaign, instance=endpoint or Endpoint(campaign=campaign))
    if not form.is_valid():
        return _page(request, campaign, form=form)
    llm_services.endpoint_update(campaign=campaign, values=form.cleaned_data)
    messages.info(request, "The LLM endpoint is saved.")
    return redirect("llm:campaign_llm", pk=campaign.pk)


def llm_judge_job(*, campaign: Campaign, params: LlmJudgeParams, user) -> Job:
    """Queues a judging job once what it needs is there: an endpoint (with the overrides) and the prompt named."""
    llm_services.endpoint_settings(campaign=campaign, overrides={"base_url": params.base_url, "model": params.model})
    llm_services.topics_chosen(campaign=campaign, topic_ids=params.topics)
    if params.prompt:
        llm_services.prompt_named(name=params.prompt)
    with transaction.atomic():
        return job_create(params=params, user=user, campaign=campaign)


@organizer_required
@require_POST
def llm_judge_start(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    form = JudgeForm(request.POST, campaign=campaign)
    if not form.is_valid():
        return _page(request, campaign, judge_form=form)
    values = form.cleaned_data
    try:
        job = llm_judge_job(campaign=campaign, user=request.user, params=LlmJudgeParams(
            topics=values["topics"], limit_per_topic=values["limit_per_topic"], canaries=values["canaries"] or 0))
    except InputError as exc:
        exc.add_to_form(form)
        return _page(request, campaign, judge_form=form)
    return redirect("workflow:job", pk=job.pk)


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
    return redirect("workflow:job", pk=job.pk)


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
        from llm.client import base_url_normalised
        try:
            return base_url_normalised(value) if value else None
        except InputError as exc:
            raise serializers.ValidationError(exc.messages()) from None

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
        with the job as it is now (queued, or finished where jobs run in-process); POST /api/jobs/<id>/cancel/
        stops it between batches."""
        from llm.forms import key_fields_refused
        campaign = get_object_or_404(Campaign, pk=pk)
        refused = key_fields_refused(request.data)
        if refused:
            raise InputError(refused)
        data = LlmJudgeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = llm_judge_job(campaign=campaign, params=LlmJudgeParams(**data.validated_data), user=request.user)
        job.refresh_from_db()  # run in-process (no broker), it has finished already: say so
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)
