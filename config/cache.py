"""Django's Redis cache with one redis-py client per connection pool, made once instead of on every cache call.

django.core.cache.backends.redis builds a new `redis.Redis` around its (kept) connection pool for every get, set or
get_many; building one fills a table of about 170 response callbacks, which costs about as much as the command
itself. A client over a pool is safe to share between threads (each command takes a connection from the pool), so
this backend keeps the one it made. Pools, connections, serialization and every method are Django's.
"""
from __future__ import annotations

from django.core.cache.backends import redis as django_redis


class RedisCacheClient(django_redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}  # id of a pool in self._pools (kept for the process's life) -> its client

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            # Two threads may both make one here: the second simply replaces the first.
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
