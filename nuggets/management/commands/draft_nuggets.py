"""draft_nuggets --campaign NAME [--topic T ...]: the LLM co-assessor drafts nuggets with nuggetizer's creator prompt
(docs/nuggets.md, "Drafting with the LLM")."""
from core.commands import ServiceCommand
from llm.command_options import add_endpoint_arguments, endpoint_from_options
from nuggets.drafting import draft_summary, nuggets_draft
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Drafts nuggets for the campaign's topics (all, or those given) from their pooled answers with the "
            "campaign's LLM endpoint and nuggetizer's creator and scorer prompts; the drafts wait on the bank page "
            "for an organizer to accept or reject.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--topic", action="append", default=[], metavar="T", help="a topic id (repeatable)")
        add_endpoint_arguments(parser)

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        settings = endpoint_from_options(campaign=campaign, options=o)
        result = nuggets_draft(campaign=campaign, settings=settings, topic_ids=o["topic"])
        for topic_id in result.skipped:
            self.stdout.write(self.style.WARNING(f"warning: topic {topic_id}: no pooled answer to draft from"))
        self.stdout.write(draft_summary(result.as_json()))
