"""The nugget banks' API bodies (nuggets/apis.py)."""
from __future__ import annotations

from rest_framework import serializers


class NuggetsImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="nuggetizer's create output: JSON lines of qid, query, nuggets "
                                           "[{text, importance}]")


class NuggetsImportResultSerializer(serializers.Serializer):
    topics = serializers.IntegerField(help_text="banks the file added to")
    nuggets = serializers.IntegerField(help_text="nuggets added")


class SupportImportSerializer(serializers.Serializer):
    assessor = serializers.CharField(max_length=150, help_text="the username whose official labels these become")
    file = serializers.FileField(help_text="nuggetizer's assign output: JSON lines of qid, run_id, nuggets "
                                           "[{text, importance, assignment}]")


class SupportImportResultSerializer(serializers.Serializer):
    topics = serializers.ListField(child=serializers.CharField(), help_text="the topics of the official "
                                                                            "assignments labelled")
    created = serializers.IntegerField(help_text="labels created")
    revised = serializers.IntegerField(help_text="labels changed (each a revision with source import)")
    unchanged = serializers.IntegerField()
    left_out = serializers.IntegerField(help_text="nuggets nuggetizer labelled failed: no label stored")


class NuggetsExportQuerySerializer(serializers.Serializer):
    assignments = serializers.BooleanField(required=False, default=False,
                                           help_text="the official support labels (nuggetizer's assign output) "
                                                     "instead of the banks")
