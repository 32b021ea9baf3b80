"""REST API of characterisation (docs/judging.md, "Characterising answers"): an assessor's answers and the next item
of their sample; for organizers, a campaign's questions with the per-run report, and characterisation assignments."""
from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, OpenApiTypes, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from characterisation import selectors as characterisation
from characterisation import services
from characterisation.serializers import (
    CharacterisationAnswerSerializer,
    CharacterisationAssignSerializer,
    CharacteriseResultSerializer,
    CharacteriseSerializer,
    NextSampleItemSerializer,
    QuestionAddSerializer,
)
from core.permissions import IsOrganizer
from ir.problems import InputError
from judging.models import Assignment, CharacterisationAnswer, SampleItem
from judging.serializers import assignment_of_query
from people.selectors import accounts_named
from pooling.models import Campaign

ASSIGNMENT = OpenApiParameter("assignment", int, description="one characterisation assignment of yours")


def _assignment_param(request, required: bool) -> int | None:
    assignment = assignment_of_query(request.query_params)
    if assignment is not None:
        return assignment
    if required:
        raise InputError("give ?assignment=ID, a characterisation assignment of yours")
    return None


class CharacterisationViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Your characterisation answers (filter with ?assignment=ID); POST answers questions about one item of your
    sample; `next` gives the next item to answer."""
    permission_classes = [IsAuthenticated]
    serializer_class = CharacterisationAnswerSerializer

    def get_queryset(self):
        user = self.request.user
        assert user.is_authenticated  # IsAuthenticated
        answers = (CharacterisationAnswer.objects.filter(assignment__assessor=user)
                   .select_related("assignment__topic", "question"))
        assignment = _assignment_param(self.request, required=False)
        return answers.filter(assignment_id=assignment) if assignment is not None else answers

    @extend_schema(parameters=[ASSIGNMENT])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=CharacteriseSerializer, responses={
        201: CharacteriseResultSerializer, 200: CharacteriseResultSerializer,
        404: OpenApiResponse(description="no such characterisation assignment of yours, or no such item in its "
                                         "sample")})
    def create(self, request):
        """201 when an answer was created; 200 when the submission revised or repeated answers; 400 with the
        problems."""
        data = CharacteriseSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        try:
            result = services.characterisation_submit(assignment_pk=values["assignment"], item_id=values["item_id"],
                                                      answers=values["answers"], user=request.user, source="api")
        except (Assignment.DoesNotExist, SampleItem.DoesNotExist):
            raise Http404("No such assignment or item") from None
        answers = self.get_queryset().filter(assignment_id=values["assignment"], item_id=values["item_id"])
        body = CharacteriseResultSerializer({"created": result.created, "revised": result.revised,
                                             "unchanged": result.unchanged, "complete": result.complete,
                                             "answers": answers}).data
        return Response(body, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)

    @extend_schema(parameters=[ASSIGNMENT], responses={
        200: NextSampleItemSerializer, 204: None,
        404: OpenApiResponse(description="no such characterisation assignment of yours")})
    @action(detail=False, methods=["get"])
    def next(self, request):
        """The next item of the sample not answered in full, with the questions and your answers so far; 204 when
        every item is answered."""
        pk = _assignment_param(request, required=True)
        assert pk is not None and request.user.is_authenticated
        assignment = characterisation.own_characterisation(user=request.user, assignment_pk=pk)
        if assignment is None:
            raise Http404("No such characterisation assignment")
        sample = characterisation.characterisation_next(assignment=assignment)
        if sample is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        page = characterisation.characterisation_page(user=request.user, assignment_pk=pk, number=sample.number)
        assert page is not None  # the user's own assignment and an item of its sample
        return Response(NextSampleItemSerializer({
            "number": sample.number, "item_id": sample.item_id, "answers": page.answers,
            "questions": [{"label": q.label, "text": q.text} for q in page.questions]}).data)


def _report(campaign: Campaign) -> dict:
    report = characterisation.characterisation_report(campaign=campaign)
    return {"campaign": campaign.name,
            "questions": [{"label": q.label, "text": q.text} for q in report.questions],
            "topics": report.topics,
            "runs": [{"run": r.run, "fractions": r.fractions, "items": r.items} for r in report.runs]}


class CharacterisationApi(APIView):
    """The campaign's yes/no questions and, per run, the share of its characterised answers marked yes to each
    (`fractions`, null for a run with none; `items`: how many were characterised), over the characterised `topics`.
    POST adds a question (`label`, `text`) or ARQMath-3's two (`arqmath`: true). Organizers only."""
    permission_classes = [IsOrganizer]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, pk: int):
        return Response(_report(get_object_or_404(Campaign, pk=pk)))

    @extend_schema(request=QuestionAddSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        data = QuestionAddSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        if values["arqmath"]:
            services.questions_arqmath(campaign=campaign)
        else:
            services.question_add(campaign=campaign, label=values["label"], text=values["text"])
        return Response(_report(campaign), status=status.HTTP_201_CREATED)


class CharacterisationAssignApi(APIView):
    """Gives topics to assessors as characterisation assignments, each with a sample of its pool: `sample` items,
    or `sizes[topic]` for the topics named there. Assigning twice is harmless (the existing assignment keeps its
    sample). Organizers only."""
    permission_classes = [IsOrganizer]

    @extend_schema(request=CharacterisationAssignSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        data = CharacterisationAssignSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        result = services.characterisation_assign(campaign=campaign, assessors=accounts_named(values["assessors"]),
                                                  topic_ids=values["topics"], size=values["sample"],
                                                  sizes=values["sizes"], user=request.user)

        def row(a: Assignment) -> dict:
            return {"id": a.pk, "topic": a.topic.topic_id, "assessor": a.assessor.username,
                    "sample": a.sample.count()}

        return Response({"created": [row(a) for a in result.created], "existing": [row(a) for a in result.existing]},
                        status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)
