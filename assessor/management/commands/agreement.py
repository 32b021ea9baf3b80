"""agreement --campaign NAME [--kind training|dual|llm] [--round R] [--format json|tsv]: SPEC 9."""
import json

from assessor import llm_review, reports
from core.commands import ServiceCommand
from ir.problems import InputError
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Cohen's kappa of every pair of assessors (four grades and H+M binary, SF and DK left out) and each "
            "assessor's mean, per training round and for the dual assessment; with --kind llm (and by default, after "
            "them), each LLM (llm:MODEL) against the official qrels and each assessor, with linear-weighted kappa "
            "and Krippendorff's alpha. The JSON adds the reasons of n/a, Krippendorff's alpha, the kappas against a "
            "round's gold qrels, the LLMs' confusion matrices and their canaries' flip rates.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--kind", choices=["training", "dual", llm_review.LLM], help="default: all of them")
        parser.add_argument("--round", type=int, help="one training round (implies --kind training)")
        parser.add_argument("--format", default="tsv", choices=["json", "tsv"])

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        llm_only = o["kind"] == llm_review.LLM
        if llm_only and o["round"] is not None:
            raise InputError("a round is given for training rounds only, not for the LLM's agreement")
        groups = [] if llm_only else reports.agreement_compute(campaign=campaign, kind=o["kind"], round=o["round"])
        every = o["kind"] is None and o["round"] is None
        llms = llm_review.llm_agreement(campaign=campaign) if llm_only or every else []
        if o["format"] == "json":
            self.stdout.write(json.dumps(reports.agreement_json(groups) + llm_review.llm_agreement_json(llms),
                                         indent=2))
            return
        self.stdout.write("\t".join(reports.AGREEMENT_HEADER))
        for row in [*reports.agreement_rows(groups), *llm_review.llm_agreement_rows(llms)]:
            self.stdout.write("\t".join(row))
