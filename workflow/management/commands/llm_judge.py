"""llm_judge --campaign NAME: docs/llm.md."""
from core.commands import ServiceCommand
from llm.command_options import add_endpoint_arguments
from llm.tasks import LlmJudgeParams
from pooling.selectors import campaign_named
from workflow.tasks import campaign_llm_judge


def _positive(text: str) -> int:
    from argparse import ArgumentTypeError
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise ArgumentTypeError(f"'{text}' is not a whole number of at least 1")
    return int(text)


class Command(ServiceCommand):
    help = ("Grades a campaign's pool items (Task 2: each selected instance) with its LLM endpoint, storing every "
            "grade apart from people's; items this model and prompt version graded already are not sent again.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        add_endpoint_arguments(parser)
        parser.add_argument("--prompt", metavar="NAME[@VERSION]",
                            help="a prompt by name, its latest version unless @VERSION (default: the campaign's, or "
                                 "the task's default)")
        parser.add_argument("--topics", nargs="+", metavar="T", help="only these topics")
        parser.add_argument("--limit-per-topic", type=_positive, metavar="N",
                            help="only the first N pool items of each topic, in display order")
        parser.add_argument("--concurrency", type=_positive, metavar="N", help="requests in flight at most")
        parser.add_argument("--samples", type=_positive, metavar="N",
                            help="replies per item; the grade is their majority, a tie going to the lower grade")
        parser.add_argument("--canaries", type=int, default=0, metavar="N",
                            help="per topic, N non-relevant pool items copied as canaries (keywords stuffed, an "
                                 "instruction planted), never pooled, graded too")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        params = LlmJudgeParams(base_url=o["base_url"], model=o["model"], api_key_env=o["api_key_env"],
                                concurrency=o["concurrency"], samples=o["samples"], prompt=o["prompt"] or "",
                                topics=o["topics"] or [], limit_per_topic=o["limit_per_topic"],
                                canaries=o["canaries"])
        r = campaign_llm_judge(campaign=campaign, params=params)
        for topic_id, source in r.canary_sources.items():
            self.stdout.write(f"{topic_id}\tcanaries from {source} zeros" if source != "none"
                              else f"{topic_id}\tno canaries: no item graded 0")
        self.stdout.write(f"campaign '{campaign.name}', model {r.model}, prompts {', '.join(r.prompts)}: "
                          f"judged {r.judged}, failed {r.failed}, not in the collection {r.missing}, "
                          f"already graded {r.skipped}, "
                          f"canaries made {r.canaries_created}, tokens in {r.tokens_in}, tokens out {r.tokens_out}, "
                          f"{r.seconds:.1f} s")
