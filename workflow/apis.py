"""REST API for organizers: campaigns, collections, topics, runs and pools. Uploads and pool builds answer 202 with a
job (a job's own API: jobs/apis.py)."""
from __future__ import annotations

from django.db import transaction
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from core.api import TSVRenderer, flag
from core.downloads import attachment
from ir.formats.pools import pool_tsv_lines
from ir.grades import scheme_given
from jobs.models import Job
from jobs.runner import job_create
from jobs.serializers import JobSerializer, job_accepted
from judging import services as assessor_services
from judging.tasks import PoolBuildParams, campaign_delete_job
from pooling import selectors, services
from pooling.models import Campaign, Collection
from workflow.serializers import (
    CampaignCreateSerializer,
    CampaignSerializer,
    CampaignUpdateResultSerializer,
    CampaignUpdateSerializer,
    CollectionSerializer,
    CollectionUploadSerializer,
    FileUploadSerializer,
    PoolSizesSerializer,
    RunDeleteResultSerializer,
    RunFactsSerializer,
    RunReplaceSerializer,
    RunSerializer,
    RunUploadSerializer,
    TopicSerializer,
    pools_after_data,
)
from workflow.uploads import collection_upload, judgments_upload, run_replace_upload, run_upload, topics_upload


def _accepted(job: Job, request) -> Response:
    return job_accepted(job, request)


class CollectionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                        viewsets.GenericViewSet):
    queryset = Collection.objects.all()
    serializer_class = CollectionSerializer
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    def perform_create(self, serializer):
        data = serializer.validated_data
        if data.get("corpus_path"):  # a pool-only collection: its documents are read from the corpus at pool builds
            serializer.instance = services.collection_corpus_set(
                name=data["name"], corpus_path=data["corpus_path"], description=data.get("description", ""))
        else:
            serializer.instance = services.collection_get_or_create(
                name=data["name"], description=data.get("description", ""))

    @extend_schema(request=CollectionUploadSerializer, responses={202: JobSerializer})
    @action(detail=True, methods=["post"], parser_classes=[MultiPartParser])
    def files(self, request, pk=None):
        """Uploads collection files (Posts.xml, Comments.xml, formula TSVs, JSONL), ingested as one job."""
        collection = self.get_object()
        upload = CollectionUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        job = collection_upload(name=collection.name, uploads=upload.validated_data["files"], user=request.user,
                                collection=collection)
        return _accepted(job, request)


class CampaignViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = Campaign.objects.select_related("collection")
    serializer_class = CampaignSerializer
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    @extend_schema(request=CampaignCreateSerializer, responses={201: CampaignSerializer})
    def create(self, request):
        data = CampaignCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        campaign = services.campaign_create(name=values["name"], task=values["task"],
                                            collection_name=values.get("collection") or None, user=request.user,
                                            scheme=scheme_given(values.get("scheme"), values["task"]),
                                            **services.campaign_settings(values))
        return Response(CampaignSerializer(campaign).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=CampaignUpdateSerializer, responses={200: CampaignUpdateResultSerializer})
    def partial_update(self, request, pk=None):
        """Changes settings (any of them; the task never changes). Pooling settings of built pools change only with
        `force`, which rebuilds the pools at once and keeps every judgment (docs/pooling.md)."""
        campaign = self.get_object()
        data = CampaignUpdateSerializer(campaign, data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        campaign, after = assessor_services.campaign_update(
            campaign=campaign, name=values.get("name"), collection_name=values.get("collection"),
            force=values.get("force", False),
            scheme=scheme_given(values["scheme"], campaign.task) if "scheme" in values else None,
            **services.campaign_settings(values))
        return Response({"campaign": CampaignSerializer(campaign).data, "pools": pools_after_data(after)})

    @extend_schema(responses={202: JobSerializer, 400: OpenApiResponse(
        description="the campaign has judgments (it is kept), or is already being deleted")})
    def destroy(self, request, pk=None):
        """Deletes a campaign with its topics, runs, pools, jobs and assignments: at once marked as being deleted
        (`deleting`; nothing new starts on it), then deleted by a job, in batches with progress (202 with the job).
        Refused (400) once any item is judged: nothing an assessor submitted is ever deleted. Asked again while the
        campaign is being deleted by a job that is not running (queued, failed, its worker lost), that job is sent
        again (202); while it runs, 400."""
        return _accepted(campaign_delete_job(campaign=self.get_object(), user=request.user), request)

    @extend_schema(methods=["get"], responses=TopicSerializer(many=True))
    @extend_schema(methods=["post"], request=FileUploadSerializer, responses={202: JobSerializer})
    @action(detail=True, methods=["get", "post"], parser_classes=[MultiPartParser, FormParser])
    def topics(self, request, pk=None):
        """GET lists the topics; POST uploads an ARQMath topic XML file (a job)."""
        campaign = self.get_object()
        if request.method == "GET":
            page = self.paginate_queryset(campaign.topics.all())
            return self.get_paginated_response(TopicSerializer(page, many=True).data)
        upload = FileUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        job = topics_upload(campaign=campaign, upload=upload.validated_data["file"], user=request.user)
        return _accepted(job, request)

    @extend_schema(request=FileUploadSerializer, responses={202: JobSerializer})
    @action(detail=True, methods=["post"], url_path="judgments/import", url_name="judgments-import",
            parser_classes=[MultiPartParser, FormParser])
    def judgments_import(self, request, pk=None):
        """Uploads a judgments TSV (docs/formats.md: assessor, topic, item_id, grade, comment[, kind[, round]]) to
        import (a job): a file with any problem changes nothing, and the failed job lists them with their lines."""
        upload = FileUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        job = judgments_upload(campaign=self.get_object(), upload=upload.validated_data["file"], user=request.user)
        return _accepted(job, request)

    @extend_schema(methods=["get"], responses=RunSerializer(many=True))
    @extend_schema(methods=["post"], request=RunUploadSerializer, responses={202: JobSerializer})
    @action(detail=True, methods=["get", "post"], parser_classes=[MultiPartParser, FormParser])
    def runs(self, request, pk=None):
        """GET lists the runs with their warnings; POST uploads a run file (a job)."""
        campaign = self.get_object()
        if request.method == "GET":
            page = self.paginate_queryset(campaign.runs.all())
            return self.get_paginated_response(RunSerializer(page, many=True).data)
        upload = RunUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        values = upload.validated_data
        job = run_upload(campaign=campaign, upload=values["file"], options=services.run_options(values),
                         user=request.user)
        return _accepted(job, request)

    @extend_schema(methods=["get"], responses=PoolSizesSerializer)
    @extend_schema(methods=["post"], request=None, responses={202: JobSerializer, 400: OpenApiResponse(
        description="the campaign is being deleted: nothing new starts on it")})
    @action(detail=True, methods=["get", "post"])
    def pools(self, request, pk=None):
        """GET gives the pool size of every topic (items; for formulas also the instances selected to judge);
        POST builds the campaign's pools from its runs (a job whose result is the sizes and, for formulas, the
        visual ids per topic with more candidate instances than judged), replacing any earlier pools. Once
        judging has started the job fails unless `force` is true; judgments are always kept."""
        campaign = self.get_object()
        if request.method == "GET":
            return Response(PoolSizesSerializer(selectors.pool_sizes(campaign=campaign)).data)
        with transaction.atomic():
            job = job_create(campaign=campaign, user=request.user,
                             params=PoolBuildParams(force=flag(request.data.get("force"))))
        return _accepted(job, request)

    @extend_schema(responses={(200, "text/tab-separated-values"): OpenApiResponse(
        response=OpenApiTypes.STR,
        description="The items to judge, as `export_pools` writes them (docs/pooling.md): a header line, then "
                    "topic<TAB>post_id (answers) or topic<TAB>visual_id<TAB>formula_id<TAB>post_id, one row per "
                    "selected instance (formulas). 400 when the pools have not been built.")})
    @action(detail=True, methods=["get"], url_path="pools/export",
            renderer_classes=[JSONRenderer, BrowsableAPIRenderer, TSVRenderer])
    def pools_export(self, request, pk=None):
        """Downloads the campaign's pools as TSV, the same file as `export_pools`."""
        campaign = self.get_object()
        rows = selectors.pool_export_rows(campaign=campaign)
        next(rows)  # the header; InputError (400) when there are no pools yet
        # Streamed: the first rows go out while the database still reads the rest (docs/benchmarks.md).
        response = StreamingHttpResponse(pool_tsv_lines(rows, campaign.task),
                                         content_type="text/tab-separated-values; charset=utf-8")
        response["Content-Disposition"] = attachment(campaign.name, "pools", extension="tsv")
        return response


# The campaign's id is `id` in the schema, as on the campaign's own routes (drf-spectacular's name for a pk).
CAMPAIGN_ID = OpenApiParameter("id", int, OpenApiParameter.PATH,
                               description="A unique integer value identifying this campaign.")
RUN_PK = OpenApiParameter("run_pk", int, OpenApiParameter.PATH, description="the run's id")


@extend_schema(tags=["campaigns"], parameters=[CAMPAIGN_ID, RUN_PK])
class RunViewSet(viewsets.GenericViewSet):
    """One run of a campaign, at /api/campaigns/<id>/runs/<run_pk>/ (the campaign lists and uploads its runs)."""
    serializer_class = RunSerializer
    parser_classes = [JSONParser, MultiPartParser, FormParser]
    lookup_url_kwarg = "run_pk"
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        # The campaign first: an unknown one is a 404 that names the campaign.
        return get_object_or_404(Campaign, pk=self.kwargs["pk"]).runs.all()

    def retrieve(self, request, pk=None, run_pk=None):
        """One run, with its warnings."""
        return Response(RunSerializer(self.get_object()).data)

    @extend_schema(request=RunFactsSerializer)
    def partial_update(self, request, pk=None, run_pk=None):
        """Changes the run's facts (team, alternate, manual, baseline, data_used, answer_type; a new kind is pooled
        so at the next build)."""
        run = self.get_object()
        facts = RunFactsSerializer(run, data=request.data, partial=True)
        facts.is_valid(raise_exception=True)
        return Response(RunSerializer(services.run_facts_set(run=run, **facts.validated_data)).data)

    @extend_schema(request=RunReplaceSerializer, responses={202: JobSerializer})
    def update(self, request, pk=None, run_pk=None):
        """Uploads a new file for the run, same name and options (a job; a rejected file keeps the old run; once
        judging has started only with `force`)."""
        run = self.get_object()
        upload = RunReplaceSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        job = run_replace_upload(run=run, upload=upload.validated_data["file"], force=upload.validated_data["force"],
                                 user=request.user)
        return _accepted(job, request)

    @extend_schema(responses={200: RunDeleteResultSerializer}, parameters=[OpenApiParameter(
        "force", bool, description="delete although judging has started: the pools are rebuilt, judgments kept")])
    def destroy(self, request, pk=None, run_pk=None):
        """Deletes the run; built pools are rebuilt (once judging has started only with `?force=true`)."""
        run = self.get_object()
        after = assessor_services.run_delete(run=run, force=flag(request.query_params.get("force")))
        return Response({"deleted": run.name, "pools": pools_after_data(after)})
