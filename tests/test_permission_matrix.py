"""Who may reach what, for every route there is: generated from the URLconf (every named route, its path parameters
filled with ids of real objects) and from the OpenAPI schema's generator (every API operation and its methods), asked
as anonymous, an assessor, another assessor and an organizer.

- anonymous gets the login redirect (pages) or 401/403 (API), except on the few PUBLIC routes;
- an assessor reaches only the routes of ASSESSOR_ROUTES, and there only their own things: everything else is 403;
- another assessor asking for the first one's assignment, items, threads or judgments gets 403/404, and no answer of
  theirs holds anything of the first one's;
- an organizer reaches every route; nobody ever gets a 5xx.

A new route is checked the moment it exists: if it is neither public nor on the assessor's allow-list and an assessor
or anonymous can reach it, this test fails; a path parameter it cannot fill fails it too (add the object to PARAMS).
"""
from __future__ import annotations

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from drf_spectacular.generators import SchemaGenerator

from characterisation import services as characterising
from jobs.runner import job_create
from judging import services
from judging.models import Judgment
from judging.tasks import PoolBuildParams
from nuggets.services.support import support_assign
from pooling.models import PoolItem
from tests.judging.fixtures import assign
from tests.nuggets.support_world import make_world

# Routes anyone may reach, signed in or not.
PUBLIC = {"login", "logout", "healthz", "api-token"}
# Routes an assessor may reach (besides PUBLIC): their start page and judging pages, and the assessor API. Keep it
# small: every other route is an organizer's.
ASSESSOR_ROUTES = {
    "home", "judging:home", "judging:continue", "judging:topic", "judging:judge",
    "judging:skip", "judging:ahead", "judging:shown", "judging:thread", "judging:history", "password_change",
    "password_change_done",
    "assignment-list", "assignment-detail", "assignment-next", "judgment-list", "judgment-detail",
    "characterisation:characterise_continue", "characterisation:characterise", "characterisation-list",
    "characterisation-next",
    "support:mine", "support:continue", "support:judge", "api-support-judgments",
}
# Routes every signed-in user may reach, whose parameters name nobody's things: the help pages.
SIGNED_IN = {"help:index", "help:page", "help:image"}
ASSESSOR_ROUTES |= SIGNED_IN
# Django's admin checks is_staff in every view of its own (AdminSite.admin_view); the catch-all JSON 404 of /api/
# (config/urls.py) has no name and answers 404 to everyone.
SKIPPED_NAMESPACES = {"admin"}
PAGE_METHODS = ["get", "post"]
SECRET = "ada-private-comment-7f3a"  # in the first assessor's judgment: no answer to anyone else may hold it


def _routes(resolver=None, namespace: str = "", params: frozenset = frozenset()):
    """Every URLPattern with its full name and the names of all its path parameters."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        found = params | set(entry.pattern.regex.groupindex)
        if isinstance(entry, URLResolver):
            inner = f"{namespace}:{entry.namespace}".strip(":") if entry.namespace else namespace
            yield from _routes(entry, inner, frozenset(found))
        elif isinstance(entry, URLPattern):
            name = f"{namespace}:{entry.name}".strip(":") if entry.name else None
            yield name, entry.callback, sorted(found)


def _methods(callback) -> list[str]:
    """An API route's methods (a viewset's actions, or an APIView's handlers); a page's: GET and POST."""
    if getattr(callback, "actions", None):
        return sorted(callback.actions)
    cls = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
    if cls is not None and hasattr(cls, "permission_classes"):  # an APIView
        return sorted(m for m in cls.http_method_names if hasattr(cls, m) and m not in ("options", "head"))
    return PAGE_METHODS


def _is_api(callback) -> bool:
    cls = getattr(callback, "cls", None)
    return cls is not None and hasattr(cls, "permission_classes")


@pytest.fixture
def world(answers, organizer, ada, bob):
    """The first assessor (ada) has an assignment and a judgment of her own (and a characterisation assignment); the
    other (bob) has nothing in this
    collection; there is a run, a topic and a job."""
    assignment = assign(answers, ada, "A.1")
    item = PoolItem.objects.filter(topic=assignment.topic).order_by("position").first()
    services.judgment_submit(assignment_pk=assignment.pk, item_id=item.item_id, user=ada,
                             grades=[services.GradeInput(grade="2", comment=SECRET)])
    characterising.questions_arqmath(campaign=answers)
    sample = characterising.characterisation_assign(campaign=answers, assessors=[ada], topic_ids=["A.1"],
                                                    size=3).created[0]
    job = job_create(campaign=answers, user=organizer, params=PoolBuildParams(force=False))
    judgment = Judgment.objects.get(assignment=assignment)
    run = answers.runs.get().pk  # before the support world adds its runs
    support = support_assign(campaign=answers, topic=make_world(answers).topic, assessor=ada)[0]
    # The object each path parameter stands for, by the path segment before it.
    by_segment = {
        "campaigns": answers.pk, "jobs": job.pk, "collections": answers.collection_id, "assignments": assignment.pk,
        "judgments": judgment.pk, "runs": run, "topics": assignment.topic_id, "posts": "11",
        "items": item.position, "people": bob.pk, "characterisations": sample.pk,
        "support": support.pk, "answers": 0,
        "help": "judging", "img": sorted(p.name for p in (settings.BASE_DIR / "docs" / "img").glob("*.png"))[0],
    }
    return {"by_segment": by_segment, "users": {"organizer": organizer, "assessor": ada, "other": bob}}


def _path(name: str, params: list[str], by_segment: dict) -> str:
    if not params:
        return reverse(name)
    sentinels = {param: str(970001 + n) for n, param in enumerate(params)}
    template = reverse(name, kwargs=sentinels)
    segments = template.strip("/").split("/")
    values = {}
    for param, sentinel in sentinels.items():
        before = segments[segments.index(sentinel) - 1]
        assert before in by_segment, (f"route {name}: no object for the parameter {param} after '{before}/': add "
                                      "one to the permission matrix's world fixture")
        values[param] = by_segment[before]
    return reverse(name, kwargs=values)


def _ask(method: str, path: str, user) -> tuple[int, str, str]:
    """One request from a fresh browser, undone afterwards (a savepoint rolled back), so that no request changes what
    the next sees."""
    client = Client(raise_request_exception=False)
    with transaction.atomic():
        if user is not None:
            client.force_login(user)
        response = getattr(client, method)(path)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        transaction.set_rollback(True)
    return response.status_code, response.get("Location", ""), body.decode("utf-8", "replace")


def _matrix():
    for name, callback, params in _routes():
        if name is None or name.split(":")[0] in SKIPPED_NAMESPACES:
            continue
        yield name, callback, params, _methods(callback)


def _violation(role: str, name: str, api: bool, status: int, location: str, body: str) -> str | None:
    if status >= 500:
        return f"{status}"
    if role in ("anonymous", "other") and SECRET in body:
        return "shows the first assessor's judgment"
    if name in PUBLIC:
        return None
    if role == "anonymous":
        if api and name != "api-docs":  # the API docs are a page: anonymous is sent to the login page
            return None if status in (401, 403) else f"{status} (want 401/403)"
        return None if status == 302 and location.startswith("/login/") else f"{status} {location} (want login)"
    if role == "organizer":
        return f"{status}" if status in (401, 403) else None
    if name not in ASSESSOR_ROUTES:
        return None if status == 403 else f"{status} (want 403: organizers only)"
    if role == "other":  # the first assessor's things, asked by another: refused or not found
        return None
    return f"{status} (the assessor's own)" if status in (401, 403, 404) else None


@pytest.mark.parametrize("role", ["anonymous", "assessor", "other", "organizer"])
def test_every_route_answers_each_role_as_it_may(world, role):
    user = world["users"].get(role)
    violations = []
    asked = set()
    for name, callback, params, methods in _matrix():
        path = _path(name, params, world["by_segment"])
        for method in methods:
            status, location, body = _ask(method, path, user)
            asked.add((callback, method.upper()))
            problem = _violation(role, name, _is_api(callback), status, location, body)
            if role == "other" and params and name in ASSESSOR_ROUTES - SIGNED_IN and status not in (403, 404, 405):
                # every parameter of these routes names the first assessor's things (405: a method the route never
                # takes, refused before anything is looked up)
                problem = problem or f"{status} (another assessor's: want 403/404)"
            if problem:
                violations.append(f"{role} {method.upper()} {path} ({name}): {problem}")
    # Every operation of the OpenAPI schema was asked.
    generator = SchemaGenerator()
    generator._initialise_endpoints()
    missing = [f"{method} {path}" for path, _regex, method, callback in generator.endpoints
               if (callback, method) not in asked]
    assert not missing, f"schema operations the matrix did not ask: {missing}"
    assert not violations, "\n".join(violations)


def test_the_matrix_covers_pages_and_api(world):
    names = {name for name, *_ in _matrix()}
    assert {"workflow:campaigns", "workflow:run_upload", "judging:judge", "campaign-runs", "job-detail",
            "judgment-list", "api-qrels", "api-agreement"} <= names
    assert ASSESSOR_ROUTES <= names and PUBLIC <= names
