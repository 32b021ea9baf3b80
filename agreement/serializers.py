from __future__ import annotations

from rest_framework import serializers

from agreement import rounds
from ir.problems import InputError
from judging.serializers import AssignmentRowSerializer


class TrainingRoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    topics = serializers.ListField(child=serializers.CharField())
    assessors = serializers.ListField(child=serializers.CharField())
    done = serializers.IntegerField(help_text="items judged")
    total = serializers.IntegerField(help_text="items of all the round's assignments")
    gold_name = serializers.CharField(allow_blank=True)
    gold = serializers.IntegerField(help_text="gold judgments")
    set_up = serializers.BooleanField(help_text="created as a round (not only by training assignments)")


class TrainingRoundCreateSerializer(serializers.Serializer):
    topics = serializers.ListField(child=serializers.CharField(), help_text="topic ids")
    assessors = serializers.ListField(child=serializers.CharField(), help_text="usernames")
    number = serializers.IntegerField(required=False, allow_null=True, default=None,
                                      help_text="default: the next round")
    gold = serializers.FileField(required=False, allow_null=True, default=None,
                                 help_text="optional TREC qrels (topic 0 id grade, grades 0 to 3; formulas by visual "
                                           "id); lines for other topics are left out")

    def validate_number(self, number: int | None) -> int | None:
        try:
            return rounds.training_round_number_check(number)
        except InputError as exc:
            raise serializers.ValidationError(exc.messages()) from None


class TrainingRoundResultSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    gold = serializers.IntegerField(help_text="gold qrels lines kept")
    gold_other_topics = serializers.IntegerField(help_text="gold qrels lines for topics not in the round, left out")
    created = AssignmentRowSerializer(many=True)
    existing = AssignmentRowSerializer(many=True)
