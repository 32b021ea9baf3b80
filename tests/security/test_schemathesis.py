"""Schemathesis over the OpenAPI schema (drf-spectacular's, as /api/schema/ serves it): every operation, with an
organizer's and an assessor's token, valid and invalid data, through the WSGI application. No answer is a 5xx, and
every answer is one the schema documents (status code, content type, body).

Bounded (MAX_EXAMPLES per operation and mode), so that the whole test stays well under a minute; raise it by hand
(SCHEMATHESIS_EXAMPLES=500) for a deeper run. See docs/security.md.
"""
from __future__ import annotations

import json
import os

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, Phase, given, settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.judging.fixtures import assign

MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "10"))
ASSESSOR_PATHS = ("/api/assignments/", "/api/judgments/")
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def keep_connection():
    """The WSGI application runs in the test's thread: keep its database connection across requests (as Django's
    test client does) instead of closing and opening one per request."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _schema():
    document = SchemaGenerator().get_schema(request=None, public=True)
    loaded = schemathesis.openapi.from_dict(json.loads(OpenApiJsonRenderer().render(document)))
    loaded.app = WSGIHandler()
    return loaded


def _run(operation, token: str, mode: GenerationMode, failures: list) -> None:
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, derandomize=True,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    def check(case):
        try:
            case.call_and_validate(headers={"Authorization": f"Token {token}"}, checks=CHECKS)
        except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - collected, reported together below
            failures.append(f"{operation.label} [{mode}]: {str(exc)[:600]}")
            raise

    try:
        check()
    except (Exception, BaseExceptionGroup):  # noqa: BLE001, S110 - the failure is in `failures`
        pass


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_schemathesis_finds_no_5xx_and_no_undocumented_answer(keep_connection, answers, organizer, ada, bob):
    assign(answers, ada, "A.1")
    assign(answers, bob, "A.2")
    tokens = {"organizer": Token.objects.create(user=organizer).key, "assessor": Token.objects.create(user=ada).key}
    schema = _schema()
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 15
    for operation in operations:
        for role, token in tokens.items():
            # An assessor's requests to organizers' operations end at the permission check (403), whatever the
            # data: valid data is enough there, and keeps the run short.
            deep = role == "organizer" or operation.path.startswith(ASSESSOR_PATHS)
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE) if deep else (GenerationMode.POSITIVE,):
                _run(operation, token, mode, failures)
    assert not failures, "\n\n".join(failures)
