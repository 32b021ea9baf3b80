"""export_answer_ids --campaign NAME [-o FILE]: the answer id of each Task 3 run's answer to each topic
(docs/formats.md)."""
from core.commands import ServiceCommand
from pooling import selectors


class Command(ServiceCommand):
    help = ("Writes the answer id (d_N) of every ARQMath-3 Task 3 run's answer to each topic, run<TAB>topic<TAB>"
            "answer_id, the shape of the organizers' map that `evaluate --answer-ids` reads (no header).")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **o):
        # InputError (no such campaign, no Task 3 run) before any file is made.
        rows = selectors.answer_id_rows(campaign=selectors.campaign_named(o["campaign"]))
        lines = (f"{run}\t{topic}\t{answer_id}\n" for run, topic, answer_id in rows.iterator(chunk_size=5000))
        if o["output"]:
            with open(o["output"], "w", encoding="utf-8", newline="\n") as stream:
                stream.writelines(lines)
        else:
            for line in lines:
                self.stdout.write(line, ending="")
