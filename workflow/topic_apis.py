"""DELETE /api/campaigns/<id>/topics/<topic_id>/: the topics page's Delete, for API clients (docs/pooling.md)."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from assessor import services as assessor_services
from core.permissions import IsOrganizer
from pooling.models import Topic


class TopicDeleteApi(APIView):
    permission_classes = [IsOrganizer]

    @extend_schema(
        parameters=[OpenApiParameter("topic_id", str, OpenApiParameter.PATH,
                                     description="the topic's id as its file gives it (A.301)")],
        responses={204: None, 400: OpenApiResponse(description="something is judged or shown on the topic: it is "
                                                               "kept, and the reason is in `problems`"),
                   404: OpenApiResponse(description="no such campaign, or no such topic in it")})
    def delete(self, request, pk: int, topic_id: str):
        """Deletes a topic with its pool items, its rows in every run and its assignments that hold no work, while
        nothing is judged or shown on it (400 with the reason otherwise). The other topics' pools stay as they
        are."""
        topic = get_object_or_404(Topic.objects.select_related("campaign"), campaign_id=pk, topic_id=topic_id)
        assessor_services.topic_delete(campaign=topic.campaign, topic_id=topic.topic_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
