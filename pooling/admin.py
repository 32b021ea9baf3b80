"""Django admin for the models of the pooling app (read-mostly: ingestion goes through the services).

RunEntry is not here: Django 5.2's admin cannot register a model with a composite primary key.
"""
from django.contrib import admin

from pooling.models import Campaign, Collection, Comment, Formula, PoolInstance, PoolItem, Post, Run, Topic


@admin.register(Collection)
class CollectionAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name"]


@admin.register(Post)
class PostAdmin(admin.ModelAdmin):
    list_display = ["post_id", "kind", "thread_id", "collection", "score"]
    list_filter = ["kind", "collection"]
    search_fields = ["=post_id", "=thread_id", "title"]
    show_full_result_count = False


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ["comment_id", "post_id", "collection", "score"]
    search_fields = ["=comment_id", "=post_id"]
    show_full_result_count = False


@admin.register(Formula)
class FormulaAdmin(admin.ModelAdmin):
    list_display = ["formula_id", "post_id", "type", "visual_id", "collection"]
    list_filter = ["type", "collection"]
    search_fields = ["=formula_id", "=post_id", "=visual_id"]
    show_full_result_count = False


class TopicInline(admin.TabularInline):
    model = Topic
    fields = ["topic_id", "formula_id", "tags"]
    extra = 0
    show_change_link = True


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "task", "collection", "primary_depth", "alternate_depth", "instances", "selection"]
    list_filter = ["task"]
    inlines = [TopicInline]


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["topic_id", "campaign", "formula_id"]
    list_filter = ["campaign"]
    search_fields = ["topic_id", "title"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "alternate", "depth", "manual", "baseline", "format", "row_count",
                    "created_at"]
    list_filter = ["campaign", "alternate", "manual", "baseline"]
    readonly_fields = ["checksum", "row_count", "topic_count", "warnings"]


class PoolInstanceInline(admin.TabularInline):
    model = PoolInstance
    fields = readonly_fields = ("formula_id", "post_id", "vote", "selected")
    extra = 0
    can_delete = False


@admin.register(PoolItem)
class PoolItemAdmin(admin.ModelAdmin):
    list_display = ["item_id", "topic", "position", "campaign"]
    list_filter = ["campaign"]
    search_fields = ["=item_id", "=topic__topic_id"]
    list_select_related = ["topic", "campaign"]
    readonly_fields = ["campaign", "topic", "item_id", "position", "provenance"]
    inlines = [PoolInstanceInline]
    show_full_result_count = False


@admin.register(PoolInstance)
class PoolInstanceAdmin(admin.ModelAdmin):
    list_display = ["formula_id", "post_id", "item", "vote", "selected"]
    list_filter = ["selected"]
    search_fields = ["=formula_id", "=post_id", "=item__item_id"]
    list_select_related = ["item"]
    readonly_fields = ["item", "formula_id", "post_id", "vote", "selected"]
    show_full_result_count = False
