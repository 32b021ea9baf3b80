"""Bulk loading: what goes in through COPY (PostgreSQL) or batched inserts comes out unchanged."""
from datetime import UTC, datetime

import pytest
from django.db import connection

from pooling.bulk import bulk_insert, copy_value
from pooling.models import Collection, Post

pytestmark = pytest.mark.django_db

AWKWARD = "a\\frac{1}{2}\tb\nc\r\nd \\N \\\\ é ∞ <span class=\"math-container\">$x$</span>"


def test_copy_text_format_escapes_what_postgresql_would_misread():
    assert copy_value(None) == "\\N"
    assert copy_value("\\N") == "\\\\N"
    assert copy_value("a\tb\nc\\") == "a\\tb\\nc\\\\"
    assert copy_value(3) == "3" and copy_value(2.5) == "2.5"


def _round_trip(use_copy=None) -> Post:
    collection = Collection.objects.create(name="c")
    when = datetime(2010, 7, 20, 19, 9, 27, 200000, tzinfo=UTC)
    rows = [(collection.pk, str(i), "answer", "1", f"title {i}", AWKWARD, "", None, when, "", "") for i in range(3000)]
    n = bulk_insert(Post, ["collection", "post_id", "kind", "thread_id", "title", "body", "tags", "score",
                           "created_at", "owner_user_id", "accepted_answer_id"], iter(rows), use_copy=use_copy)
    assert n == 3000 == Post.objects.count()
    post = Post.objects.get(post_id="2999")
    assert post.created_at == when
    return post


@pytest.mark.postgresql
def test_copy_path_on_postgresql_keeps_every_character():
    assert connection.vendor == "postgresql"
    post = _round_trip()
    assert post.body == AWKWARD and post.score is None


def test_batched_insert_path_keeps_every_character():
    post = _round_trip(use_copy=False)
    assert post.body == AWKWARD
