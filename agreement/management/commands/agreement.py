"""agreement --campaign NAME [--kind training|dual|llm] [--round R] [--format json|tsv] (docs/agreement.md)."""
import json

from agreement import llm as llm_review
from agreement import reports
from core.commands import ServiceCommand
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Cohen's kappa of every pair of assessors (the scheme's grades and H+M binary, SF and DK left out) and "
            "each assessor's mean, per training round and for the dual assessment; with --kind llm (and by default, "
            "after them), each LLM (llm:MODEL) against the official qrels and each assessor, with linear-weighted "
            "kappa and Krippendorff's alpha. The JSON adds the reasons of n/a, Krippendorff's alpha, the kappas "
            "against a round's gold qrels, the LLMs' confusion matrices and their canaries' flip rates.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--kind", choices=["training", "dual", llm_review.LLM], help="default: all of them")
        parser.add_argument("--round", type=int, help="one training round (implies --kind training)")
        parser.add_argument("--format", default="tsv", choices=["json", "tsv"])

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        groups, llms = llm_review.agreement_with_llm(campaign=campaign, kind=o["kind"], round=o["round"])
        if o["format"] == "json":
            self.stdout.write(json.dumps(reports.agreement_json(groups) + llm_review.llm_agreement_json(llms),
                                         indent=2))
            return
        self.stdout.write("\t".join(reports.AGREEMENT_HEADER))
        for row in [*reports.agreement_rows(groups), *llm_review.llm_agreement_rows(llms)]:
            self.stdout.write("\t".join(row))
