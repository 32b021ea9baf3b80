"""Organizer API over the judgments: agreement (the JSON of `agreement --format json`) and progress."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiTypes, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from assessor import llm_review, progress, reports
from assessor.forms import GroupKeyForm
from core.permissions import IsOrganizer
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
