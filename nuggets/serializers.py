"""The nugget banks' API bodies (nuggets/apis.py)."""
from __future__ import annotations

from rest_framework import serializers


class NuggetsImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="nuggetizer's create output: JSON lines of qid, query, nuggets "
                                           "[{text, importance}]")


class NuggetsImportResultSerializer(serializers.Serializer):
    topics = serializers.IntegerField(help_text="banks the file added to")
    nuggets = serializers.IntegerField(help_text="nuggets added")


class NuggetsExportQuerySerializer(serializers.Serializer):
    assignments = serializers.BooleanField(required=False, default=False,
                                           help_text="the official support labels (nuggetizer's assign output) "
                                                     "instead of the banks")
