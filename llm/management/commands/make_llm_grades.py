"""make_llm_grades --qrels FILE --confusion M [--favour RUN ...] --seed S RUN... [-o FILE]: a simulated model's grades
of a test collection's judged items (docs/llm_calibration.md, "Replaying a budget")."""
from pathlib import Path

from core.commands import ServiceCommand
from ir.formats.qrels import qrels_by_topic
from ir.formats.runs import run_name
from ir.formats.textio import open_binary
from ir.grades import RELEVANCE_LEVEL
from ir.llm_simulation import confusion_llm_grades, model_lines, parse_confusion, read_ranked_run
from ir.prime import natural_key
from ir.problems import InputError, Problems

MATRIX = ("rows of the true grade 0, 1, ... separated by ';', each row the probabilities of the model's grades 0, "
          "1, ... separated by ',' and summing to 1, e.g. '0.8,0.2;0.3,0.7' for two grades")


class Command(ServiceCommand):
    help = ("Writes a simulated LLM's grades of every item of a qrels file, in the qrels format with one probability "
            "per grade (lowest first): each grade drawn from the confusion row of the item's true grade, biased, "
            "with --favour, towards the favoured runs by drawing their top K's non-relevant items from the favour "
            "matrix. Seeded: the same arguments write the same file. Needs no database.")
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="*", metavar="RUN", help="Task 1 run files (named by their file names)")
        parser.add_argument("--qrels", required=True, metavar="FILE", help="the true grades: topic 0 item grade")
        parser.add_argument("--confusion", required=True, metavar="M", help=f"the model's noise: {MATRIX}")
        parser.add_argument("--favour", action="append", default=[], metavar="RUN",
                            help="a run (file name without extension) whose top K the model over-grades; repeat")
        parser.add_argument("--favour-depth", type=int, default=20, metavar="K", help="default 20")
        parser.add_argument("--favour-confusion", metavar="M",
                            help="the rows used for a favoured run's top-K items below the relevance level, "
                                 "written as --confusion")
        parser.add_argument("--relevance-level", type=int, default=RELEVANCE_LEVEL, metavar="L")
        parser.add_argument("--seed", type=int, required=True, metavar="S")
        parser.add_argument("-o", "--output", metavar="FILE", help="default: standard output")

    def handle(self, *args, **o):
        confusion = parse_confusion(o["confusion"])
        favour = parse_confusion(o["favour_confusion"], option="--favour-confusion") if o["favour_confusion"] \
            else None
        if o["favour"] and favour is None:
            raise InputError("--favour needs --favour-confusion (the rows its top K's non-relevant items are drawn "
                             "from)")
        if favour is not None and favour.shape != confusion.shape:
            raise InputError("--favour-confusion must have as many rows and columns as --confusion")
        problems = Problems(file=Path(o["qrels"]).name)
        with open_binary(o["qrels"]) as stream:
            qrels = qrels_by_topic(stream, problems)
        found = [problems]
        runs = {}
        for path in o["runs"]:
            found.append(Problems(file=Path(path).name))
            with open_binary(path) as stream:
                runs[run_name(Path(path).name)] = read_ranked_run(stream, found[-1], qrels)
        if any(found):
            raise InputError.of(*(p for p in found if p))
        unknown = [name for name in o["favour"] if name not in runs]
        top = max((g for grades in qrels.values() for g in grades.values()), default=0)
        if unknown or top >= len(confusion):
            raise InputError([f"--favour {name}: no run file of that name" for name in unknown]
                             + ([f"the qrels have grade {top}, the matrix {len(confusion)} rows"]
                                if top >= len(confusion) else []))
        items = [(t, i) for t in sorted(qrels, key=natural_key) for i in sorted(qrels[t])]
        said, rows = confusion_llm_grades(qrels, items, seed=o["seed"], confusion=confusion, runs=runs,
                                          favoured=o["favour"], top_k=o["favour_depth"], favour_confusion=favour,
                                          relevance_level=o["relevance_level"])
        lines = model_lines(items, said, rows)
        if o["output"]:
            Path(o["output"]).write_text("".join(lines), encoding="utf-8")
        else:
            self.stdout.write("".join(lines), ending="")
