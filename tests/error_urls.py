"""The site's URL map plus one page that fails, for the tests of the 500 page."""
from django.urls import path

from config.urls import handler500
from config.urls import urlpatterns as site


def _fails(request):
    raise RuntimeError("a bug in a view")


urlpatterns = [path("fails/", _fails), *site]
__all__ = ["handler500", "urlpatterns"]
