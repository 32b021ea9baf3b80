"""API representations of campaigns, collections, topics and runs (a job's: jobs/serializers.py)."""
from typing import TYPE_CHECKING

from rest_framework import serializers

from core.bounds import column_bounds
from ir.grades import PRESETS
from pooling import run_options
from pooling.models import Campaign, Collection, Run, Topic
from pooling.services import NO_BUDGET, TOPIC_TEXT

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise


class CollectionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Collection
        fields = ["id", "name", "description", "corpus_path", "created_at"]
        read_only_fields = ["created_at"]


# The judging order, its guards and the budgets (docs/pooling.md): read, created and changed like the other settings.
ORDER_FIELDS = ["judging_order", "warm_up", "min_depth", "topic_budget", "hours_budget", "budget_spread"]


def _budget_field(help_text: "str | _StrPromise",
                  field: type[serializers.IntegerField | serializers.FloatField]) -> serializers.Field:
    """A budget as the API takes it: 0 or null takes it away (services.NO_BUDGET); the model's validators check the
    rest, as for the pages and the commands."""
    return field(min_value=NO_BUDGET, required=False, allow_null=True,
                 help_text=f"{help_text}; 0 or null: none")


class OrderSettings(serializers.Serializer):
    """The order settings of a create or an update; a budget of null is none (NO_BUDGET), not "unchanged"."""

    judging_order = serializers.ChoiceField(choices=Campaign.JudgingOrder.choices, required=False,
                                            help_text=Campaign._meta.get_field("judging_order").help_text)
    warm_up = serializers.IntegerField(**column_bounds(Campaign, "warm_up"), required=False,
                                       help_text=Campaign._meta.get_field("warm_up").help_text)
    min_depth = serializers.IntegerField(**column_bounds(Campaign, "min_depth"), required=False,
                                         help_text=Campaign._meta.get_field("min_depth").help_text)
    topic_budget = _budget_field(Campaign._meta.get_field("topic_budget").help_text, serializers.IntegerField)
    hours_budget = _budget_field(Campaign._meta.get_field("hours_budget").help_text, serializers.FloatField)
    budget_spread = serializers.ChoiceField(choices=Campaign.BudgetSpread.choices, required=False,
                                            help_text=Campaign._meta.get_field("budget_spread").help_text)

    def validate_topic_budget(self, value: int | None) -> int:
        return NO_BUDGET if value is None else value

    def validate_hours_budget(self, value: float | None) -> float:
        return NO_BUDGET if value is None else value


class CampaignSerializer(serializers.ModelSerializer):
    collection: "serializers.SlugRelatedField[Collection]" = serializers.SlugRelatedField(
        slug_field="name", read_only=True, allow_null=True)

    class Meta:
        model = Campaign
        fields = ["id", "name", "task", "collection", "primary_depth", "alternate_depth", "instances", "selection",
                  "seed", "max_depth", "relevance_level", *ORDER_FIELDS, "scheme", "deleting", "created_at"]
        read_only_fields = ["deleting"]

    scheme = serializers.SerializerMethodField(help_text="the judging scheme, as a scheme file writes it")

    def get_scheme(self, campaign: Campaign) -> dict:
        return campaign.judging_scheme.to_json()


class CampaignCreateSerializer(OrderSettings):
    name = serializers.CharField(max_length=100)
    task = serializers.ChoiceField(choices=Campaign.Task.choices)
    collection = serializers.CharField(max_length=100, required=False, allow_blank=True)
    primary_depth = serializers.IntegerField(**column_bounds(Campaign, "primary_depth", min_value=1), required=False)
    alternate_depth = serializers.IntegerField(**column_bounds(Campaign, "alternate_depth", min_value=1),
                                               required=False)
    instances = serializers.IntegerField(**column_bounds(Campaign, "instances", min_value=1), required=False)
    selection = serializers.ChoiceField(choices=Campaign.Selection.choices, required=False)
    seed = serializers.IntegerField(**column_bounds(Campaign, "seed"), required=False)
    max_depth = serializers.IntegerField(**column_bounds(Campaign, "max_depth", min_value=1), required=False)
    relevance_level = serializers.IntegerField(**column_bounds(Campaign, "relevance_level"), required=False,
                                               help_text=Campaign._meta.get_field("relevance_level").help_text)
    scheme = serializers.JSONField(required=False, help_text=f"the judging scheme: a preset's name "
                                                             f"({', '.join(PRESETS)}; default arqmath) or a custom "
                                                             "scheme's object (docs/judging.md, Judging schemes)")


class CampaignUpdateSerializer(OrderSettings, serializers.ModelSerializer):
    """PATCH of a campaign: any of these; ranges from the model's validators, as the create form and command."""

    collection = serializers.CharField(max_length=100, required=False, allow_blank=True,
                                       help_text="only while the campaign has no run")
    force = serializers.BooleanField(default=False, help_text="change pooling settings of built pools: the pools "
                                                              "are rebuilt at once, every judgment kept")
    scheme = serializers.JSONField(required=False, help_text=f"the judging scheme: a preset's name "
                                                             f"({', '.join(PRESETS)}) or a custom scheme's object; "
                                                             "only until judging starts")

    class Meta:
        model = Campaign
        fields = ["name", "collection", "primary_depth", "alternate_depth", "instances", "selection", "seed",
                  "max_depth", "relevance_level", *ORDER_FIELDS, "force", "scheme"]


class PoolsAfterSerializer(serializers.Serializer):
    rebuilt = serializers.BooleanField(help_text="false when the pools had not been built (nothing to redo)")
    items = serializers.IntegerField(allow_null=True, help_text="pool items after the rebuild")
    unpooled = serializers.ListField(child=serializers.ListField(child=serializers.CharField()),
                                     help_text="[topic id, item id] of judged items the new pools leave out "
                                               "(their judgments are kept)")


class CampaignUpdateResultSerializer(serializers.Serializer):
    campaign = CampaignSerializer()
    pools = PoolsAfterSerializer()


class RunDeleteResultSerializer(serializers.Serializer):
    deleted = serializers.CharField(help_text="the run's name")
    pools = PoolsAfterSerializer()


class TopicSerializer(serializers.ModelSerializer):
    class Meta:
        model = Topic
        fields = ["id", "topic_id", "position", "title", "question", "tags", "formula_id", "latex", "description",
                  "narrative", "prelude", "parent", "parent_title"]


class TopicTextSerializer(serializers.ModelSerializer):
    """PATCH of a topic: any of its text fields."""

    class Meta:
        model = Topic
        fields = list(TOPIC_TEXT)


class RunSerializer(serializers.ModelSerializer):
    kind = serializers.CharField(read_only=True)

    class Meta:
        model = Run
        fields = ["id", "name", "tag", "kind", "alternate", "manual", "baseline", "team", "data_used", "answer_type",
                  "llm_model", "depth", "format", "checksum", "row_count", "topic_count", "warnings", "created_at"]


class RunFactsSerializer(serializers.ModelSerializer):
    """PATCH of a run: any of its facts (what the overview paper says of it)."""

    class Meta:
        model = Run
        fields = list(Run.FACTS)


class FileUploadSerializer(serializers.Serializer):
    file = serializers.FileField()


class RunUploadSerializer(FileUploadSerializer):
    """A run file and its options (pooling/run_options.py: the same as the upload page's and ingest_run's)."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {**super().get_fields(), **run_options.serializer_fields()}


class CollectionUploadSerializer(serializers.Serializer):
    files = serializers.ListField(child=serializers.FileField(), allow_empty=False)


class PoolTopicSizeSerializer(serializers.Serializer):
    topic = serializers.CharField(help_text="topic id, e.g. A.301")
    items = serializers.IntegerField(help_text="pool items: post ids (answers) or visual ids (formulas)")
    selected = serializers.IntegerField(allow_null=True,
                                        help_text="formulas: formula instances selected to judge; null for answers")


class PoolSizesSerializer(serializers.Serializer):
    campaign = serializers.CharField()
    task = serializers.ChoiceField(choices=Campaign.Task.choices)
    built = serializers.BooleanField(help_text="false until the pools have been built")
    items = serializers.IntegerField(help_text="pool items of all topics")
    selected = serializers.IntegerField(allow_null=True,
                                        help_text="formulas: instances to judge in all topics; null for answers")
    topics = PoolTopicSizeSerializer(many=True, help_text="every topic of the campaign, in campaign order")


class RunReplaceSerializer(FileUploadSerializer):
    force = serializers.BooleanField(default=False, help_text="replace although judging has started: the pools "
                                                              "are rebuilt, every judgment kept")


def pools_after_data(after) -> dict:
    """services.PoolsAfter as PoolsAfterSerializer shows it."""
    return {"rebuilt": after.rebuilt is not None,
            "items": after.rebuilt.items if after.rebuilt is not None else None, "unpooled": after.unpooled}
