"""REST API for an assessor's own work (scripted clients): assignments, the next item, submitting judgments.

Every query starts from the signed-in user: another assessor's assignment or judgment is a 404.
"""
from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from core.errors import InputError
from pooling.models import PoolInstance, PoolItem

from . import selectors, services
from .models import Assignment
from .serializers import (
    AssignmentSerializer,
    JudgmentSerializer,
    NextItemSerializer,
    SubmitResultSerializer,
    SubmitSerializer,
)


class AssignmentViewSet(viewsets.ReadOnlyModelViewSet):
    """Your assignments with progress (`done` of `total` items)."""
    permission_classes = [IsAuthenticated]
    serializer_class = AssignmentSerializer

    def get_queryset(self):
        user = self.request.user
        assert user.is_authenticated  # IsAuthenticated
        return selectors.assignment_list(user=user)

    @extend_schema(responses={200: NextItemSerializer, 204: None})
    @action(detail=True, methods=["get"])
    def next(self, request, pk=None):
        """The next item to judge (recorded as shown now), or 204 when every item is judged."""
        assignment = self.get_object()
        if assignment.kind == Assignment.Kind.CHARACTERISATION:
            raise InputError(f"assignment {assignment.pk} asks yes/no questions of a sample: GET "
                             f"/api/characterisations/next/?assignment={assignment.pk}")
        item = selectors.next_item(assignment=assignment)
        if item is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        if not assignment.read_only:
            services.item_visit(assignment=assignment, item_id=item.item_id)
        instances = PoolInstance.objects.filter(item=item, selected=True).order_by("-vote", "formula_id")
        judgments = selectors.assessor_judgments(user=request.user, assignment=assignment).filter(
            item_id=item.item_id)
        return Response(NextItemSerializer({
            "position": item.position, "item_id": item.item_id,
            "instances": [{"formula_id": i.formula_id, "post_id": i.post_id} for i in instances],
            "judgments": judgments}).data)


class JudgmentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your judgments (filter with ?assignment=ID); POST submits grades for one item, idempotently."""
    permission_classes = [IsAuthenticated]
    serializer_class = JudgmentSerializer

    def get_queryset(self):
        user = self.request.user
        assert user.is_authenticated  # IsAuthenticated
        judgments = selectors.assessor_judgments(user=user)
        assignment = self.request.query_params.get("assignment", "")
        if assignment.isascii() and assignment.isdigit():  # int() refuses other scripts' digits ("²")
            judgments = judgments.filter(assignment_id=int(assignment))
        return judgments

    @extend_schema(parameters=[OpenApiParameter("assignment", int, description="only this assignment")])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=SubmitSerializer, responses={201: SubmitResultSerializer, 200: SubmitResultSerializer,
                                                        404: OpenApiResponse(description="no such assignment of "
                                                                                         "yours, or no such item")})
    def create(self, request):
        """201 when a judgment was created; 200 when the submission revised or repeated existing ones (a retried
        request never makes a second judgment); 400 with the problems; 404 for an assignment not yours."""
        data = SubmitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        grades = [services.GradeInput(**g) for g in values["grades"]]
        try:
            result = services.judgment_submit(assignment_pk=values["assignment"], item_id=values["item_id"],
                                              grades=grades, user=request.user,
                                              active_seconds=values["active_seconds"], source="api")
        except (Assignment.DoesNotExist, PoolItem.DoesNotExist):
            raise Http404("No such assignment or item") from None
        judgments = selectors.assessor_judgments(user=request.user).filter(assignment_id=values["assignment"],
                                                                           item_id=values["item_id"])
        body = SubmitResultSerializer({"created": result.created, "revised": result.revised,
                                       "unchanged": result.unchanged, "complete": result.complete,
                                       "judgments": judgments}).data
        return Response(body, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)
