"""PATCH and DELETE /api/campaigns/<id>/topics/<topic_id>/: the topics page's Edit and Delete, for API clients
(docs/pooling.md)."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from core.permissions import IsOrganizer
from judging import services as assessor_services
from pooling import services
from pooling.models import Topic
from workflow.serializers import TopicSerializer, TopicTextSerializer

TOPIC_ID = OpenApiParameter("topic_id", str, OpenApiParameter.PATH,
                            description="the topic's id as its file gives it (A.301)")
NOT_FOUND = OpenApiResponse(description="no such campaign, or no such topic in it")


class TopicApi(APIView):
    permission_classes = [IsOrganizer]

    @extend_schema(parameters=[TOPIC_ID], request=TopicTextSerializer, responses={200: TopicSerializer, 404: NOT_FOUND})
    def patch(self, request, pk: int, topic_id: str):
        """Changes a topic's text: any of its title, question, description, narrative and prelude."""
        topic = get_object_or_404(Topic.objects.select_related("campaign"), campaign_id=pk, topic_id=topic_id)
        data = TopicTextSerializer(topic, data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        topic = services.topic_update(campaign=topic.campaign, topic_id=topic.topic_id, **data.validated_data)
        return Response(TopicSerializer(topic).data)

    @extend_schema(
        parameters=[TOPIC_ID],
        responses={204: None, 400: OpenApiResponse(description="something is judged or shown on the topic: it is "
                                                               "kept, and the reason is in `problems`"),
                   404: NOT_FOUND})
    def delete(self, request, pk: int, topic_id: str):
        """Deletes a topic with its pool items, its rows in every run and its assignments that hold no work, while
        nothing is judged or shown on it (400 with the reason otherwise). The other topics' pools stay as they
        are."""
        topic = get_object_or_404(Topic.objects.select_related("campaign"), campaign_id=pk, topic_id=topic_id)
        assessor_services.topic_delete(campaign=topic.campaign, topic_id=topic.topic_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
