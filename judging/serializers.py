"""API shapes of the assessor's own work, and of the organizer's assigning (assignments, training rounds)."""
from rest_framework import serializers

from core.bounds import column_bounds
from judging.models import Assignment, Judgment, JudgmentRevision
from llm.models import LlmGrade


class AssignmentSerializer(serializers.ModelSerializer):
    campaign = serializers.CharField(source="campaign.name")
    task = serializers.CharField(source="campaign.task")
    topic = serializers.CharField(source="topic.topic_id")
    closed = serializers.SerializerMethodField()
    done = serializers.IntegerField(read_only=True)
    total = serializers.IntegerField(read_only=True)

    class Meta:
        model = Assignment
        fields = ["id", "campaign", "task", "topic", "kind", "round", "closed", "done", "total"]

    def get_closed(self, obj) -> bool:
        return obj.read_only


class JudgmentSerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="assignment.topic.topic_id")

    class Meta:
        model = Judgment
        fields = ["id", "assignment", "topic", "item_id", "formula_id", "post_id", "grade", "comment", "facets",
                  "suggested", "suggestion", "revision", "first_shown_at", "submitted_at", "updated_at"]


class JudgmentRevisionSerializer(serializers.ModelSerializer):
    """One submission that changed a judgment: the value before and after, the facets answered and the LLM grade on
    screen at that submission."""
    class Meta:
        model = JudgmentRevision
        fields = ["number", "at", "old_grade", "old_comment", "grade", "comment", "facets", "suggested", "suggestion",
                  "active_seconds", "source"]


class JudgmentDetailSerializer(JudgmentSerializer):
    revisions = JudgmentRevisionSerializer(many=True, read_only=True, help_text="every change, the first first")

    class Meta(JudgmentSerializer.Meta):
        fields = [*JudgmentSerializer.Meta.fields, "revisions"]


class GradeSerializer(serializers.Serializer):
    # Checked by judgment_submit (assessor.rules), as the judging page's and the import's grades are.
    grade = serializers.CharField(allow_blank=True, required=False, default="",
                                  help_text="one of the campaign's scheme (ARQMath: 3, 2, 1, 0, SF or DK)")
    comment = serializers.CharField(required=False, allow_blank=True, default="", trim_whitespace=False)
    formula_id = serializers.CharField(required=False, allow_blank=True, default="",
                                       help_text="formulas: the instance judged")
    facets = serializers.DictField(child=serializers.CharField(max_length=64), required=False, default=dict,
                                   help_text="a scheme with facets: facet name -> option (the grade is mapped)")
    suggestion = serializers.IntegerField(required=False, allow_null=True, default=None,
                                          **column_bounds(LlmGrade, "id", min_value=1),
                                          help_text="suggest mode: the id of the LLM grade that was on screen (the "
                                                    "next item's `suggestions`); another item's is refused")


class SubmitSerializer(serializers.Serializer):
    assignment = serializers.IntegerField()
    item_id = serializers.CharField(help_text="post id (answers) or visual id (formulas)")
    grades = GradeSerializer(many=True, help_text="answers: one grade; formulas: one per instance judged")
    active_seconds = serializers.FloatField(required=False, default=0.0, min_value=0.0)


class SubmitResultSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    revised = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    complete = serializers.BooleanField()
    judgments = JudgmentSerializer(many=True)


class InstanceSerializer(serializers.Serializer):
    formula_id = serializers.CharField()
    post_id = serializers.CharField()


class SuggestionSerializer(serializers.Serializer):
    """An LLM grade on screen in suggest mode (docs/judging.md): send its id back as the grade's `suggestion`."""
    formula_id = serializers.CharField(help_text="formulas: the instance it grades ('' for an answer)")
    suggestion = serializers.IntegerField(source="pk", help_text="the LLM grade's id")
    grade = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label


class NextItemSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    item_id = serializers.CharField()
    instances = InstanceSerializer(many=True, help_text="formulas: the instances to judge")
    suggestions = SuggestionSerializer(many=True, help_text="suggest mode: the LLM's grades to show with the item "
                                                            "(always empty in blind mode)")
    judgments = JudgmentSerializer(many=True, help_text="your judgments of this item so far")


# -- characterisation (docs/judging.md, "Characterising answers")
















# -- organizers: assigning topics and training rounds (docs/judging.md, "Assigning at scale")


class AssignSerializer(serializers.Serializer):
    assessors = serializers.ListField(child=serializers.CharField(), help_text="usernames")
    topics = serializers.ListField(child=serializers.CharField(), help_text="topic ids")
    # Characterisation is refused with the reason (it takes a sample: /api/campaigns/{id}/characterisation/assign/);
    # the model's choices keep one enum of kinds in the schema.
    kind = serializers.ChoiceField(choices=Assignment.Kind.choices, default=Assignment.Kind.OFFICIAL)
    round = serializers.IntegerField(**column_bounds(Assignment, "round", min_value=1), required=False,
                                     allow_null=True, default=None, help_text="training round (default 1)")
    per_topic = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, default=None,
        help_text="absent: every assessor gets every topic; N: each topic goes to N of the assessors (what they hold "
                  "counts), round-robin, the least-loaded first")


class AssignmentRowSerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="topic.topic_id")
    assessor = serializers.CharField(source="assessor.username")

    class Meta:
        model = Assignment
        fields = ["id", "topic", "assessor", "kind", "round"]


class AssignResultSerializer(serializers.Serializer):
    created = AssignmentRowSerializer(many=True, help_text="the assignments given now")
    existing = AssignmentRowSerializer(many=True, help_text="asked for and held already (not duplicated)")








class AssignmentQuerySerializer(serializers.Serializer):
    """`?assignment=ID`: one assignment of yours, as the judgment and characterisation lists filter by it. No
    bounds: a number past the column's range is no assignment's, and Django finds no row for it."""
    assignment = serializers.IntegerField(required=False)


def assignment_of_query(query) -> int | None:
    """The `?assignment=` id of a request's query; None when there is none or it is no id."""
    data = AssignmentQuerySerializer(data=query)
    return data.validated_data.get("assignment") if data.is_valid() else None
