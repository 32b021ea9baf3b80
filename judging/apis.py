"""REST API for an assessor's own work (scripted clients): assignments, the next item, submitting judgments; and for
organizers, giving topics to assessors (one by one or balanced) and training rounds.

Every query of an assessor's starts from the signed-in user: another assessor's assignment or judgment is a 404.
"""
from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from core.permissions import IsOrganizer
from ir.problems import InputError
from judging import budgets, selectors, services, suggestions
from judging.models import Assignment
from judging.serializers import (
    AssignmentSerializer,
    AssignResultSerializer,
    AssignSerializer,
    JudgmentDetailSerializer,
    JudgmentSerializer,
    NextItemSerializer,
    SubmitResultSerializer,
    SubmitSerializer,
    assignment_of_query,
)
from people.selectors import accounts_named
from pooling.models import Campaign, PoolInstance, PoolItem


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
        """The next item to judge in the campaign's judging order (recorded as shown now), or 204 when every item is
        judged or the assignment's budget is spent (the submit that spent it closed it: `closed_at`)."""
        assignment = self.get_object()
        if assignment.kind == Assignment.Kind.CHARACTERISATION:
            raise InputError(f"assignment {assignment.pk} asks yes/no questions of a sample: GET "
                             f"/api/characterisations/next/?assignment={assignment.pk}")
        if budgets.assignment_budget(assignment=assignment).spent:
            return Response(status=status.HTTP_204_NO_CONTENT)
        item = selectors.next_item(assignment=assignment)
        if item is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        if not assignment.read_only:
            services.item_visit(assignment=assignment, item_id=item.item_id)
        instances = PoolInstance.objects.filter(item=item, selected=True).order_by("-vote", "formula_id")
        judgments = selectors.assessor_judgments(user=request.user, assignment=assignment).filter(
            item_id=item.item_id)
        shown = suggestions.suggestions_shown(campaign=assignment.campaign, topic=assignment.topic,
                                              item_ids=[item.item_id], kind=assignment.kind)
        scheme = assignment.campaign.judging_scheme
        return Response(NextItemSerializer({
            "position": item.position, "item_id": item.item_id,
            "instances": [{"formula_id": i.formula_id, "post_id": i.post_id} for i in instances],
            "suggestions": [{"formula_id": g.formula_id, "pk": g.pk, "grade": g.grade,
                             "label": scheme.label(str(g.grade))} for g in shown.values()],
            "judgments": judgments}).data)


class JudgmentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your judgments (filter with ?assignment=ID); POST submits grades for one item, idempotently."""
    permission_classes = [IsAuthenticated]
    serializer_class = JudgmentSerializer

    def get_serializer_class(self):
        return JudgmentDetailSerializer if self.action == "retrieve" else JudgmentSerializer

    def get_queryset(self):
        user = self.request.user
        assert user.is_authenticated  # IsAuthenticated
        judgments = selectors.assessor_judgments(user=user)
        if self.action == "retrieve":
            judgments = judgments.prefetch_related("revisions")
        assignment = assignment_of_query(self.request.query_params)
        return judgments if assignment is None else judgments.filter(assignment_id=assignment)

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


# -- organizers: assigning topics and training rounds (docs/judging.md, "Assigning at scale")


def assigned_body(created: list[Assignment], existing: list[Assignment]) -> dict:
    return AssignResultSerializer({"created": created, "existing": existing}).data


class AssignmentsCreateApi(APIView):
    """Gives topics to assessors: every topic to every assessor, or with `per_topic` N balanced (each topic brought
    up to N assessors of this kind, round-robin over the assessors, the least-loaded first; what each holds counts
    and is never given twice). 201 when an assignment was given, 200 when all were held already. Organizers only."""
    permission_classes = [IsOrganizer]

    @extend_schema(request=AssignSerializer, responses={201: AssignResultSerializer, 200: AssignResultSerializer})
    def post(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        data = AssignSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        chosen = {"campaign": campaign, "assessors": accounts_named(values["assessors"]),
                  "topic_ids": values["topics"], "kind": values["kind"], "round": values["round"],
                  "user": request.user}
        if values["per_topic"] is None:
            result = services.assignments_create(**chosen)
        else:
            result = services.assignments_balance(per_topic=values["per_topic"], **chosen)
        return Response(assigned_body(result.created, result.existing),
                        status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)


