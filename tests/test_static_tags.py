"""{% load static %} (config/static_tags.py: Django's library, each path's URL found once per process)."""
from django.template import Context, Template
from django.templatetags.static import static
from django.test import override_settings

PAGE = Template("{% load static %}{% static 'assessor/js/judge.js' %} {% get_static_prefix %} "
                "{% static 'pooling/css/site.css' as css %}{{ css }}")


def test_the_static_tag_gives_django_s_urls():
    assert PAGE.render(Context()) == f"{static('assessor/js/judge.js')} /static/ {static('pooling/css/site.css')}"
    assert static("assessor/js/judge.js") == "/static/assessor/js/judge.js"


def test_the_urls_follow_a_changed_static_url():
    PAGE.render(Context())
    with override_settings(STATIC_URL="/assets/"):
        assert PAGE.render(Context()) == "/assets/assessor/js/judge.js /assets/ /assets/pooling/css/site.css"
    assert PAGE.render(Context()) == "/static/assessor/js/judge.js /static/ /static/pooling/css/site.css"
