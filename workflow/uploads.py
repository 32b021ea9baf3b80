"""Uploaded files: size limits (of the request body, before it is read, and of a file), and the services that put an
upload in the store (jobs/store.py) and queue the job that ingests it (the pages and the API call the same
ones)."""
from __future__ import annotations

from typing import TYPE_CHECKING, cast

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.settings import api_settings

from core.permissions import is_organizer
from jobs.models import Job
from jobs.runner import job_create
from jobs.store import upload_save
from jobs.tasks import CollectionIngestParams, TopicsIngestParams
from judging.tasks import JudgmentsImportParams, RunIngestParams
from pooling.models import Campaign, Collection, Run

if TYPE_CHECKING:
    from collections.abc import Sequence

    from django.contrib.auth.models import AnonymousUser, User
    from rest_framework.authentication import BaseAuthentication

    from pooling.services import RunIngestOptions


@transaction.atomic
def run_upload(*, campaign: Campaign, upload: UploadedFile, options: RunIngestOptions,
               user: User | AnonymousUser | None) -> Job:
    """Stores a run file and queues the job that ingests it into `campaign` with `options`."""
    return job_create(campaign=campaign, user=user, params=RunIngestParams(
        upload=upload_save(file=upload), filename=upload.name or "", options=options))


@transaction.atomic
def run_replace_upload(*, run: Run, upload: UploadedFile, force: bool, user: User | AnonymousUser | None) -> Job:
    """Stores a new file for `run` and queues the job that replaces the run with it (keeping the old run if the file
    is rejected; once judging has started only with `force`)."""
    return job_create(campaign=run.campaign, user=user, params=RunIngestParams.replacing(
        run, upload=upload_save(file=upload), filename=upload.name or "", force=force))


@transaction.atomic
def topics_upload(*, campaign: Campaign, upload: UploadedFile, user: User | AnonymousUser | None) -> Job:
    """Stores a topic file and queues the job that ingests it into `campaign`."""
    return job_create(campaign=campaign, user=user,
                      params=TopicsIngestParams(upload=upload_save(file=upload), filename=upload.name or ""))


@transaction.atomic
def judgments_upload(*, campaign: Campaign, upload: UploadedFile, user: User | AnonymousUser | None,
                     choices: dict | None = None) -> Job:
    """Stores a judgments TSV (docs/formats.md, Judgments) or a TREC qrels file and queues the job that imports it into
    `campaign`, with the organizer's `choices` (JudgmentsImportParams' assessor, judgment_kind, round, outside,
    assigned)."""
    return job_create(campaign=campaign, user=user, params=JudgmentsImportParams(
        upload=upload_save(file=upload), filename=upload.name or "", **(choices or {})))


@transaction.atomic
def collection_upload(*, name: str, uploads: Sequence[UploadedFile], user: User | AnonymousUser | None,
                      collection: Collection | None = None, replace: bool = False) -> Job:
    """Stores collection files and queues one job that ingests them into the collection `name` (created if need
    be; its documents replaced with `replace`); `collection` is that collection when it exists already, for the
    job's link to it."""
    return job_create(collection=collection, user=user, params=CollectionIngestParams(
        collection=name, uploads=[upload_save(file=f) for f in uploads], names=[f.name or "" for f in uploads],
        replace=replace))

# The URLs that take a file upload (URL names as `reverse` knows them): only an organizer may send a body larger
# than REQUEST_BODY_MAX_BYTES there. A new upload URL must be added here, or its uploads are refused with 413.
UPLOAD_URL_NAMES = frozenset({
    "workflow:run_upload", "workflow:run_replace", "workflow:topics_upload", "workflow:judgments_upload",
    "workflow:collections",
    "agreement:training_rounds", "evaluation:topic_info", "evaluation:editions", "campaign-run",
    "campaign-runs", "campaign-topics", "campaign-judgments-import", "collection-files", "api-training-rounds",
    "support:assignments", "api-support-assignments-import", "nuggets:banks", "api-campaign-nuggets",
})


def _api_user(request: HttpRequest) -> User | None:
    """The user of an API request's token (the API's authentication classes other than the session's, which the
    middleware has already read and whose CSRF check would read the body), else None."""
    # api_settings imports the setting's dotted paths; the stubs type them as the strings of settings.py.
    auth_classes = cast("Sequence[type[BaseAuthentication]]", api_settings.DEFAULT_AUTHENTICATION_CLASSES)
    for auth_class in auth_classes:
        if issubclass(auth_class, SessionAuthentication):
            continue
        try:
            found = auth_class().authenticate(Request(request))
        except APIException:
            return None
        if found is not None:
            return found[0]
    return None


def body_limit(request: HttpRequest) -> int:
    """The largest request body this request may send: UPLOAD_MAX_BYTES (plus room for the form's other fields)
    for an organizer's request to an upload URL, REQUEST_BODY_MAX_BYTES for everything else."""
    small = settings.REQUEST_BODY_MAX_BYTES
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return small
    if match.view_name not in UPLOAD_URL_NAMES:
        return small
    user = request.user if request.user.is_authenticated else _api_user(request)
    if user is None or not is_organizer(user):
        return small
    return settings.UPLOAD_MAX_BYTES + UploadLimitMiddleware.FORM_ALLOWANCE


class UploadLimitMiddleware:
    """Refuses (413) a request whose declared body is larger than it may be, before anything reads the body.

    It sits after the session and authentication middleware, so that it knows the user; CSRF middleware reads a POST
    body only in process_view, which Django calls after every middleware has seen the request, so nothing has read
    the body yet. A body without Content-Length (chunked) is read as empty by Django's WSGI request.
    """

    FORM_ALLOWANCE = 1 << 20

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > settings.REQUEST_BODY_MAX_BYTES:
            limit = body_limit(request)
            if length > limit:
                # The body is left unread; the WSGI server skips it (gunicorn, runserver) without storing it.
                if request.path_info.startswith("/api/"):
                    return HttpResponse(f"The request body is {length:,} bytes, more than the limit of {limit:,} "
                                        "bytes for this address.\n", status=413, content_type="text/plain")
                # A page's 413 in the site's layout, like its 404 and 500 (the body is still unread).
                return render(request, "413.html", {"length": length, "limit": limit}, status=413)
        return self.get_response(request)
