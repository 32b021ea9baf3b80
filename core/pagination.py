"""The API's pagination (a module of its own: settings name it, and DRF imports it while it loads)."""
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination


class PageSerializer(serializers.Serializer):
    """`?limit=` and `?offset=` as given: whole numbers, or a 400 (DRF's own paginator took junk for the default)."""

    limit = serializers.IntegerField(min_value=1, required=False)
    offset = serializers.IntegerField(min_value=0, required=False)  # past the count: an empty page


class Pagination(LimitOffsetPagination):
    """Lists in pages of PAGE_SIZE; `?limit=` asks for more, up to max_limit (a larger limit gives max_limit: before,
    a limit past 2^63 reached the database and answered 500). A limit or an offset that is not a whole number in
    range is refused (400)."""
    max_limit = 1000

    def paginate_queryset(self, queryset, request, view=None):
        PageSerializer(data=request.query_params).is_valid(raise_exception=True)
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        bounds = {"limit": {"minimum": 1}, "offset": {"minimum": 0}}  # PageSerializer's
        for parameter in parameters:
            parameter["schema"].update(bounds.get(parameter["name"], {}))
        return parameters
