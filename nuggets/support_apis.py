"""REST API of support judging (docs/nuggets.md, "Support judging"): an assessor's labels of one answer (against the
nuggets, or by its citations), and, for organizers, a campaign's support assignments with their agreement and the
import of nuggetizer's assign output as an assessor's official labels."""
from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.bounds import upload_size_check
from core.permissions import IsOrganizer
from nuggets import support_selectors as selectors
from nuggets.models import SupportAssignment
from nuggets.serializers import SupportImportResultSerializer, SupportImportSerializer
from nuggets.services import support as services
from people.selectors import accounts_named
from pooling.models import Campaign, RunAnswer


class NuggetLabelSerializer(serializers.Serializer):
    nugget = serializers.IntegerField(help_text="a nugget of the assignment's bank version")
    label = serializers.CharField(help_text="support, partial_support or not_support")  # type: ignore[assignment]
    span = serializers.CharField(required=False, allow_blank=True, default="",
                                 help_text="the words of the answer that support it")


class CitationLabelSerializer(serializers.Serializer):
    sentence = serializers.IntegerField(min_value=0, help_text="the sentence's place in the answer, from 0")
    citation = serializers.CharField(help_text="an id the sentence cites")
    label = serializers.CharField(help_text="full, partial or none")  # type: ignore[assignment]


class SupportSubmitSerializer(serializers.Serializer):
    assignment = serializers.IntegerField(help_text="a support assignment of yours")
    answer = serializers.IntegerField(help_text="an answer (its id) to the assignment's topic")
    labels = NuggetLabelSerializer(many=True, required=False, default=list, help_text="task nuggets")
    citations = CitationLabelSerializer(many=True, required=False, default=list, help_text="task citations")
    key = serializers.CharField(required=False, allow_blank=True, default="",
                                help_text="a submit key: sent again, it is answered as the first time, nothing "
                                          "written twice")


class SupportResultSerializer(serializers.Serializer):
    saved = serializers.BooleanField()
    answer = serializers.IntegerField()
    created = serializers.IntegerField()
    revised = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    complete = serializers.BooleanField(help_text="every nugget (or citation) of the answer has a label")
    revision = serializers.IntegerField(help_text="the sum of the answer's labels' revisions")
    repeated = serializers.BooleanField(help_text="the key had been seen: nothing written")


class SupportJudgmentsApi(APIView):
    """Labels one answer of your support assignment: `labels` (nugget, label, optional span) for a nugget
    assignment, `citations` (sentence, citation, label) for a citation assignment. A changed label is revised (its
    revision +1). 201 when a label was created, 200 otherwise (a key sent again: `repeated`, nothing written). 400
    with the problems: a nugget outside the bank version, a label of another scale, a closed assignment."""
    permission_classes = [IsAuthenticated]

    @extend_schema(request=SupportSubmitSerializer, responses={
        200: SupportResultSerializer, 201: SupportResultSerializer,
        404: OpenApiResponse(description="no such support assignment of yours, or no such answer to its topic")})
    def post(self, request):
        data = SupportSubmitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        assignment = selectors.own_support_assignment(user=request.user, assignment_pk=values["assignment"])
        if assignment is None:
            raise Http404("No such support assignment")
        answer = (RunAnswer.objects.filter(pk=values["answer"], topic_id=assignment.topic_id,
                                           run__campaign_id=assignment.campaign_id).select_related("run").first())
        if answer is None:
            raise Http404("No such answer to the assignment's topic")
        if assignment.task == SupportAssignment.Task.NUGGETS:
            result = services.support_submit(
                assignment=assignment, answer=answer, key=values["key"], user=request.user, source="api",
                labels={x["nugget"]: (x["label"], x["span"]) for x in values["labels"]})
        else:
            result = services.citation_submit(
                assignment=assignment, answer=answer, key=values["key"], user=request.user, source="api",
                labels={(x["sentence"], x["citation"]): x["label"] for x in values["citations"]})
        return Response(result.as_dict(answer.pk),
                        status=status.HTTP_201_CREATED if result.created and not result.repeated
                        else status.HTTP_200_OK)


class KappaSerializer(serializers.Serializer):
    kappa = serializers.FloatField(allow_null=True, help_text="Cohen's kappa; null when undefined")
    items = serializers.IntegerField(help_text="units labelled by both")
    reason = serializers.CharField(help_text="why kappa is undefined")
    labels = serializers.ListField(child=serializers.CharField())
    confusion = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()),
                                      help_text="rows: the official label, columns: the other's")


class SupportAssignmentRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    topic = serializers.CharField()
    assessor = serializers.CharField()
    task = serializers.CharField()
    kind = serializers.CharField()
    round = serializers.IntegerField()
    bank_version = serializers.IntegerField(allow_null=True)
    done = serializers.IntegerField(help_text="answers labelled in full")
    total = serializers.IntegerField()
    closed = serializers.BooleanField()
    withdrawn = serializers.BooleanField()
    agreement = KappaSerializer(allow_null=True, help_text="dual and training: against the official assignment")


def _cell(cell: selectors.AgreementCell | None) -> dict | None:
    if cell is None:
        return None
    return {"kappa": cell.kappa.value, "items": cell.kappa.items, "reason": cell.kappa.reason,
            "labels": cell.labels, "confusion": cell.confusion}


class SupportAssignmentsApi(APIView):
    """The campaign's support assignments with their progress and, for dual and training ones, Cohen's kappa
    against the official assignment of the topic. Organizers only."""
    permission_classes = [IsOrganizer]

    @extend_schema(responses={200: SupportAssignmentRowSerializer(many=True)})
    def get(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        agreement = selectors.support_agreement(campaign=campaign)
        rows = []
        held = list(selectors.campaign_support_assignments(campaign=campaign))
        progresses = selectors.support_progress_many(held)
        for a in held:
            progress = progresses[a.pk]
            rows.append({"id": a.pk, "topic": a.topic.topic_id, "assessor": a.assessor.username, "task": a.task,
                         "kind": a.kind, "round": a.round, "bank_version": a.bank.number if a.bank else None,
                         "done": progress.done, "total": progress.total, "closed": a.closed_at is not None,
                         "withdrawn": a.withdrawn_at is not None,
                         "agreement": _cell(agreement.by_assignment.get(a.pk))})
        return Response(SupportAssignmentRowSerializer(rows, many=True).data)


class SupportAssignmentsImportApi(APIView):
    """nuggetizer's assign output (multipart: `assessor`, `file`) as the assessor's official nugget labels, as
    import_nugget_assignments does: 201 when a label was created, 200 otherwise, with the counts; 400 with every
    problem and its line (an unknown run, topic or nugget text, an official assignment another assessor holds) and
    nothing written. Organizers only."""
    permission_classes = [IsOrganizer]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": SupportImportSerializer},
                   responses={200: SupportImportResultSerializer, 201: SupportImportResultSerializer})
    def post(self, request: Request, pk: int) -> Response:
        campaign = get_object_or_404(Campaign, pk=pk)
        data = SupportImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        assessor = accounts_named([values["assessor"]])[0]
        upload = values["file"]
        upload_size_check(upload)
        upload.seek(0)
        result = services.support_import(campaign=campaign, assessor=assessor, stream=upload.file,
                                         filename=upload.name or "upload", by=request.user)
        return Response(SupportImportResultSerializer(result.as_dict()).data,
                        status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)
