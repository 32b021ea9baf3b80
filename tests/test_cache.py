"""The production cache (config/cache.py, Django's Redis cache keeping its client) against the real Redis server."""
import threading
import uuid

import pytest
from django.conf import settings
from django.contrib.sessions.backends.cached_db import SessionStore

from config.cache import RedisCache

pytestmark = pytest.mark.redis


@pytest.fixture
def redis_cache():
    cache = RedisCache(settings.TEST_REDIS_URL, {"KEY_PREFIX": f"test-cache-{uuid.uuid4().hex[:8]}"})
    keys = []
    yield cache, keys
    cache.delete_many(keys)


def test_values_written_are_read_back_by_every_kind_of_call(redis_cache):
    cache, keys = redis_cache
    keys += ["a", "b", "c", "n", "gone"]
    cache.set("a", {"html": "<p>safe</p>"})
    cache.set_many({"b": "two", "c": [3]}, timeout=60)
    assert cache.get("a") == {"html": "<p>safe</p>"}
    assert cache.get_many(["a", "b", "c", "missing"]) == {"a": {"html": "<p>safe</p>"}, "b": "two", "c": [3]}
    assert cache.add("n", 1) and not cache.add("n", 5)
    assert cache.incr("n", 2) == 3
    cache.set("gone", "x")
    cache.delete("gone")
    assert cache.get("gone", "default") == "default"


def test_one_client_serves_every_call_and_every_thread(redis_cache):
    cache, keys = redis_cache
    first = cache._cache.get_client()
    assert cache._cache.get_client(write=True) is first
    errors = []

    def work(n: int) -> None:
        try:
            for k in range(50):
                cache.set(f"t{n}-{k}", k)
                assert cache.get(f"t{n}-{k}") == k
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    keys += [f"t{n}-{k}" for n in range(4) for k in range(50)]
    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert cache._cache.get_client() is first


@pytest.mark.django_db
def test_a_session_is_read_back_through_the_redis_cache(redis_cache, monkeypatch):
    cache, keys = redis_cache
    monkeypatch.setattr("django.contrib.sessions.backends.cached_db.caches", {settings.SESSION_CACHE_ALIAS: cache})
    session = SessionStore()
    session["who"] = "ada"
    session.save()
    keys.append(session.cache_key)
    assert cache.get(session.cache_key) == {"who": "ada"}   # in Redis, not only in the database
    assert SessionStore(session_key=session.session_key).load() == {"who": "ada"}
