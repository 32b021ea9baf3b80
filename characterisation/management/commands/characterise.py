"""characterise --campaign NAME [--arqmath-questions] [--question LABEL=TEXT]... [--assessor USER... --sample N
[--size TOPIC=N]... TOPIC...]: a campaign's yes/no questions and characterisation assignments (docs/judging.md,
"Characterising answers"). With neither questions nor assessors, lists the questions."""
from django.db import transaction
from django.template.defaultfilters import pluralize

from characterisation import services
from characterisation.selectors import questions_of
from core.commands import ServiceCommand
from ir.problems import InputError
from judging import rules
from people.selectors import accounts_named
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Defines a campaign's yes/no characterisation questions and gives topics to assessors as "
            "characterisation assignments, each with a seeded sample of its pool.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--arqmath-questions", action="store_true",
                            help="add ARQMath-3's two questions, MG (machine-generated?) and UI (unrelated "
                                 "information?), where missing")
        parser.add_argument("--question", action="append", default=[], metavar="LABEL=TEXT",
                            help="add a question, say 'MG=Was this answer machine-generated?'; repeat for several")
        parser.add_argument("--assessor", action="append", default=[],
                            help="an existing account; repeat the option for several assessors")
        parser.add_argument("--sample", type=int, help="items of each topic's pool to characterise")
        parser.add_argument("--size", action="append", default=[], metavar="TOPIC=N",
                            help="a topic's own sample size, in place of --sample; repeat for several")
        parser.add_argument("topics", nargs="*", metavar="TOPIC")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        assigning = bool(o["assessor"] or o["topics"] or o["sample"] is not None or o["size"])
        questions = []
        for given in o["question"]:
            label, sep, text = given.partition("=")
            if not sep:
                raise InputError(f"--question '{given[:40]}' is not LABEL=TEXT")
            questions.append((label, text))
        with transaction.atomic():  # all or nothing: the questions and the assignments
            added = services.questions_arqmath(campaign=campaign) if o["arqmath_questions"] else []
            added += [services.question_add(campaign=campaign, label=label, text=text) for label, text in questions]
            if assigning:
                result = self._assign(campaign, o)
        for question in added:
            self.stdout.write(f"question\t{question.label}\t{question.text}\tadded")
        if not (added or assigning):
            for question in questions_of(campaign):
                self.stdout.write(f"question\t{question.label}\t{question.text}")
        if assigning:
            for a in result.created:
                self.stdout.write(f"{a.topic.topic_id}\t{a.assessor.username}\tsample {a.sample.count()}\tassigned")
            for a in result.existing:
                self.stdout.write(f"{a.topic.topic_id}\t{a.assessor.username}\tsample {a.sample.count()}\t"
                                  "already assigned")
            self.stdout.write(f"{len(result.created)} characterisation assignment{pluralize(len(result.created))} "
                              f"created, {len(result.existing)} already there")

    def _assign(self, campaign, o):
        if not o["assessor"] or not o["topics"]:
            raise InputError("to assign, give --assessor and the topics (with --sample N or --size TOPIC=N)")
        return services.characterisation_assign(
            campaign=campaign, assessors=accounts_named(o["assessor"]), topic_ids=o["topics"],
            size=o["sample"], sizes=rules.sizes_parse(" ".join(o["size"])))
