"""The API's pagination (a module of its own: settings name it, and DRF imports it while it loads)."""
from rest_framework.pagination import LimitOffsetPagination


class Pagination(LimitOffsetPagination):
    """Lists in pages of PAGE_SIZE; `?limit=` asks for more, up to max_limit (a larger limit gives max_limit: before,
    a limit past 2^63 reached the database and answered 500)."""
    max_limit = 1000
