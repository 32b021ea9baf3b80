from __future__ import annotations

from rest_framework import serializers

from judging.models import CharacterisationAnswer


class CharacterisationAnswerSerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="assignment.topic.topic_id")
    question = serializers.CharField(source="question.label")

    class Meta:
        model = CharacterisationAnswer
        fields = ["id", "assignment", "topic", "item_id", "question", "answer", "revision", "submitted_at",
                  "updated_at"]


class CharacteriseSerializer(serializers.Serializer):
    assignment = serializers.IntegerField()
    item_id = serializers.CharField(help_text="an item of the assignment's sample")
    # Checked by characterisation_submit (assessor.rules), as the page's answers are.
    answers = serializers.DictField(child=serializers.CharField(), allow_empty=True,
                                    help_text='question label -> "yes" or "no", say {"MG": "no", "UI": "yes"}')


class CharacteriseResultSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    revised = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    complete = serializers.BooleanField(help_text="every question of the item has an answer")
    answers = CharacterisationAnswerSerializer(many=True)


class QuestionSerializer(serializers.Serializer):
    # DRF's metaclass takes declared fields off the class: `label` does not replace Field.label.
    label = serializers.CharField()  # type: ignore[assignment]
    text = serializers.CharField()


class NextSampleItemSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="the item's place in the sample, from 0")
    item_id = serializers.CharField()
    questions = QuestionSerializer(many=True)
    answers = serializers.DictField(child=serializers.BooleanField(), help_text="your answers so far, by label")


class QuestionAddSerializer(serializers.Serializer):
    arqmath = serializers.BooleanField(required=False, default=False,
                                       help_text="add ARQMath-3's two questions (MG, UI) the campaign lacks")
    label = serializers.CharField(  # type: ignore[assignment]  # a declared field, as in QuestionSerializer
        required=False, allow_blank=True, default="", trim_whitespace=False)
    text = serializers.CharField(required=False, allow_blank=True, default="", trim_whitespace=False)


class CharacterisationAssignSerializer(serializers.Serializer):
    assessors = serializers.ListField(child=serializers.CharField(), help_text="usernames")
    topics = serializers.ListField(child=serializers.CharField())
    sample = serializers.IntegerField(required=False, allow_null=True, default=None,
                                      help_text="items of each topic's pool")
    sizes = serializers.DictField(child=serializers.IntegerField(), required=False, default=dict,
                                  help_text="topic id -> its own sample size")
