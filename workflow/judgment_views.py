"""The organizer's page that imports a judgments TSV (docs/formats.md, Judgments) or a TREC qrels file into a campaign,
as a job: import_judgments on the web (docs/judging.md, "Importing judgments")."""
from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from judging.models import Assignment
from judging.services.imports import ADD, DUAL, REFUSE, SKIP
from workflow import uploads
from workflow.views import upload_view

IMPORTED = "imported"  # the account a qrels file's judgments go to unless another is named


class JudgmentsUploadForm(forms.Form):
    file = forms.FileField(help_text="tab-separated: assessor, topic, item_id, grade, comment[, kind[, round]]; or "
                                     "a TREC qrels file: topic, iteration, item_id, grade")
    assessor = forms.CharField(required=False, initial=IMPORTED, max_length=150, label="Assessor (qrels file)",
                               help_text="whose judgments a qrels file holds: an assessor's account, or 'imported' "
                                         "(made without a usable password if it does not exist)")
    kind = forms.TypedChoiceField(required=False, empty_value=Assignment.Kind.OFFICIAL, label="Kind (qrels file)",
                                  initial=Assignment.Kind.OFFICIAL,
                                  choices=[(Assignment.Kind.OFFICIAL, "official (feeds the qrels)"),
                                           (Assignment.Kind.DUAL, "dual (a second judging, for agreement)"),
                                           (Assignment.Kind.TRAINING, "training")])
    round = forms.IntegerField(required=False, min_value=1, label="Training round (qrels file)",
                               help_text="kind training only (default 1)")
    outside = forms.TypedChoiceField(required=False, empty_value=REFUSE, initial=REFUSE,
                                     label="Items outside the pool",
                                     choices=[(REFUSE, "refuse the file, listing them"), (SKIP, "skip their lines"),
                                              (ADD, "add them to the pool (answers)")])
    assigned = forms.TypedChoiceField(required=False, empty_value=REFUSE, initial=REFUSE,
                                      label="Topics already assigned officially to another assessor",
                                      choices=[(REFUSE, "refuse the file, listing them"),
                                               (DUAL, "import their lines as dual judgments"),
                                               (SKIP, "skip their lines")])


@organizer_required
@require_http_methods(["GET", "POST"])
def judgments_upload(request: HttpRequest, pk: int) -> HttpResponse:
    return upload_view(request, pk, form_class=JudgmentsUploadForm, template="workflow/judgments_upload.html",
                       start=lambda campaign, data: uploads.judgments_upload(
                           campaign=campaign, upload=data["file"], user=request.user, choices={
                               "assessor": data["assessor"] or IMPORTED, "judgment_kind": data["kind"],
                               "round": data["round"], "outside": data["outside"], "assigned": data["assigned"]}))
