"""The nugget banks in the API (docs/nuggets.md, "Nugget banks"), organizers only: GET
/api/campaigns/<id>/nuggets/ the banks as nuggetizer's create output (?assignments=true: the official support labels
as its assign output), POST a create output file to append to the banks (all or nothing: 400 with every problem and
its line)."""
from __future__ import annotations

import io

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.bounds import upload_size_check
from core.permissions import IsOrganizer
from ir.formats.nuggets import write_nugget_assignments, write_nugget_banks
from nuggets import selectors
from nuggets.serializers import NuggetsExportQuerySerializer, NuggetsImportResultSerializer, NuggetsImportSerializer
from nuggets.services.bank import nuggets_import
from pooling.models import Campaign


class CampaignNuggetsApi(APIView):
    permission_classes = [IsOrganizer]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(parameters=[OpenApiParameter("assignments", bool, description="the official support labels "
                                                "(nuggetizer's assign output) instead of the banks")],
                   responses={200: OpenApiResponse(description="JSON lines (application/x-ndjson)")})
    def get(self, request: Request, pk: int) -> HttpResponse:
        """The campaign's banks (their accepted nuggets) as nuggetizer's create output, one line per topic."""
        campaign = get_object_or_404(Campaign, pk=pk)
        query = NuggetsExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        out = io.StringIO()
        if query.validated_data["assignments"]:
            write_nugget_assignments(selectors.assignments_export(campaign=campaign), out)
        else:
            write_nugget_banks(selectors.banks_export(campaign=campaign), out)
        return HttpResponse(out.getvalue(), content_type="application/x-ndjson; charset=utf-8")

    @extend_schema(request={"multipart/form-data": NuggetsImportSerializer},
                   responses={201: NuggetsImportResultSerializer})
    def post(self, request: Request, pk: int) -> Response:
        """Appends nuggetizer's create output to the banks: 201 with what it added; 400 with every problem (a topic
        the campaign lacks, a malformed line) and nothing written."""
        campaign = get_object_or_404(Campaign, pk=pk)
        data = NuggetsImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        upload_size_check(upload)
        upload.seek(0)
        result = nuggets_import(campaign=campaign, stream=upload.file, filename=upload.name, user=request.user)
        return Response(NuggetsImportResultSerializer({"topics": result.topics, "nuggets": result.nuggets}).data,
                        status=status.HTTP_201_CREATED)
