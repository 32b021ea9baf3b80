"""The signed-in user of each request, read with one written-out query.

Django's ModelBackend.get_user runs on every request of a signed-in user (the session names the user) and builds
its `.get(pk=...)` through the ORM each time; this backend reads the same row with one SQL statement and applies
the same rule (an inactive account is signed out). Signing in, passwords and permissions are ModelBackend's.
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError
from django.db import connection

from .sql import sql_columns, sql_instance


class UserBackend(ModelBackend):
    def get_user(self, user_id):
        model = get_user_model()
        try:
            pk = model._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        columns, fields = sql_columns(model, "u")
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {columns} FROM {connection.ops.quote_name(model._meta.db_table)} u "
                           f"WHERE u.{connection.ops.quote_name(model._meta.pk.column)} = %s", [pk])
            row = cursor.fetchone()
        if row is None:
            return None
        user = sql_instance(model, fields, row)
        return user if self.user_can_authenticate(user) else None
