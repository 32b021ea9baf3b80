"""The organizer's page that imports a judgments TSV (docs/formats.md, Judgments) or a TREC qrels file into a campaign,
as a job: import_judgments on the web (docs/judging.md, "Importing judgments")."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from workflow import uploads
from workflow.forms import IMPORTED, JudgmentsUploadForm
from workflow.views import upload_view


@organizer_required
@require_http_methods(["GET", "POST"])
def judgments_upload(request: HttpRequest, pk: int) -> HttpResponse:
    return upload_view(request, pk, form_class=JudgmentsUploadForm, template="workflow/judgments_upload.html",
                       start=lambda campaign, data: uploads.judgments_upload(
                           campaign=campaign, upload=data["file"], user=request.user, choices={
                               "assessor": data["assessor"] or IMPORTED, "judgment_kind": data["kind"],
                               "round": data["round"], "outside": data["outside"], "assigned": data["assigned"]}))
