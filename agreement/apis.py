"""Organizer API over the judgments: agreement (the JSON of `agreement --format json`) and progress."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiTypes, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement import llm as llm_review
from agreement import reports, rounds
from agreement.serializers import TrainingRoundCreateSerializer, TrainingRoundResultSerializer, TrainingRoundSerializer
from core.bounds import upload_size_check
from core.permissions import IsOrganizer
from judging import progress
from judging.apis import assigned_body
from judging.forms import GroupKeyForm
from people.selectors import accounts_named
from pooling.models import Campaign


class AgreementApi(APIView):
    """Pairwise Cohen's kappa (graded and binary), per-assessor means, Krippendorff's alpha and the kappas against a
    round's gold qrels; each LLM's agreement with the official qrels and the assessors (`llm`: kappas, weighted kappa,
    alpha, confusion matrices, canaries' flip rates); an undefined kappa is null with its reason. Organizers only."""
    permission_classes = [IsOrganizer]

    @extend_schema(parameters=[
        OpenApiParameter("kind", str, enum=["training", "dual", "llm"],
                         description="default: all (llm: each LLM against the official qrels and the assessors)"),
        OpenApiParameter("round", int, description="one training round")], responses={200: OpenApiTypes.OBJECT})
    def get(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        kind, number = GroupKeyForm(request.query_params).key()
        groups, llms = llm_review.agreement_with_llm(campaign=campaign, kind=kind, round=number)
        return Response({"campaign": campaign.name, "groups": reports.agreement_json(groups),
                         "llm": llm_review.llm_agreement_json(llms)})


class ProgressApi(APIView):
    """Per assessor and topic: judged of total items, seconds per judgment (server and active time), judgments per
    hour and the projected finish date. Organizers only."""
    permission_classes = [IsOrganizer]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        stamp = progress.campaign_visits_stamp(campaign)  # one aggregate over the visits, for both reads below
        report = progress.progress_report(campaign=campaign, visits_stamp=stamp)
        measured = progress.judging_time(campaign, visits_stamp=stamp)

        def row(r: progress.ProgressRow) -> dict:
            return {"assessor": r.assessor, "topic": r.topic, "kind": r.kind, "round": r.round or None,
                    "judged": r.judged, "total": r.total, "server_seconds_mean": r.server_mean,
                    "server_seconds_median": r.server_median, "active_seconds_mean": r.active_mean,
                    "active_seconds_median": r.active_median, "judgments_per_hour": r.per_hour,
                    "projected_finish": r.finish.isoformat() if r.finish else None}

        return Response({"campaign": campaign.name, "rows": [row(r) for r in report.rows],
                         "assessors": [row(r) for r in report.assessors], "total": row(report.total),
                         "seconds_per_judgment": measured[0] if measured else None})


class TrainingRoundsApi(APIView):
    """The campaign's training rounds with their topics, assessors and progress; POST creates a round (its topics,
    the assessors who take it, an optional gold qrels as a multipart upload) and assigns it. Organizers only."""
    permission_classes = [IsOrganizer]
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    @extend_schema(responses={200: TrainingRoundSerializer(many=True)})
    def get(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        return Response(TrainingRoundSerializer(rounds.training_round_list(campaign=campaign), many=True).data)

    @extend_schema(request={"application/json": TrainingRoundCreateSerializer,
                            "multipart/form-data": TrainingRoundCreateSerializer},
                   responses={201: TrainingRoundResultSerializer})
    def post(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        data = TrainingRoundCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        gold = values["gold"]
        if gold is not None:
            upload_size_check(gold)
        result = rounds.training_round_create(
            campaign=campaign, topic_ids=values["topics"], assessors=accounts_named(values["assessors"]),
            number=values["number"], gold=gold.file if gold is not None else None,
            gold_name=gold.name if gold is not None else "", user=request.user)
        return Response({"number": result.round.number, "gold": result.gold,
                         "gold_other_topics": result.gold_other_topics,
                         **assigned_body(result.assignments.created, result.assignments.existing)},
                        status=status.HTTP_201_CREATED)
