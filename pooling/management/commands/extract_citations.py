"""extract_citations --collection NAME --topics FILE --link-pattern REGEX [-o FILE]: a candidates file
(docs/formats.md)."""

from core.commands import ServiceCommand
from ir.formats.candidates import read_topic_questions, write_candidates
from pooling.selectors import citation_candidates_compute


class Command(ServiceCommand):
    help = ("Writes candidates (topic<TAB>item_id<TAB>source<TAB>note): for each topic (--topics: topic<TAB>question "
            "post id) whose source question is in the collection, the documents its accepted answer links to "
            "(--link-pattern maps a link to a document id by its group `id` or its first group), with the asker's "
            "comments under that answer as the note.")

    def add_arguments(self, parser):
        parser.add_argument("--collection", required=True)
        parser.add_argument("--topics", required=True)
        parser.add_argument("--link-pattern", required=True)
        parser.add_argument("-o", "--output")

    def handle(self, *args, **o):
        candidates = citation_candidates_compute(collection_name=o["collection"],
                                                 topics=read_topic_questions(o["topics"]),
                                                 pattern=o["link_pattern"])
        if o["output"]:
            with open(o["output"], "w", encoding="utf-8", newline="") as out:
                write_candidates(candidates, out)
            self.stderr.write(f"{len(candidates)} candidates written to {o['output']}")
        else:
            write_candidates(candidates, self.stdout)
