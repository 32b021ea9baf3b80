"""The organizer's page that imports a judgments TSV (SPEC 9) into a campaign, as a job: import_judgments on the web."""
from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from workflow import uploads
from workflow.views import upload_view


class JudgmentsUploadForm(forms.Form):
    file = forms.FileField(help_text="tab-separated: assessor, topic, item_id, grade, comment[, kind[, round]]")


@organizer_required
@require_http_methods(["GET", "POST"])
def judgments_upload(request: HttpRequest, pk: int) -> HttpResponse:
    return upload_view(request, pk, form_class=JudgmentsUploadForm, template="pooling/judgments_upload.html",
                       start=lambda campaign, data: uploads.judgments_upload(
                           campaign=campaign, upload=data["file"], user=request.user))
