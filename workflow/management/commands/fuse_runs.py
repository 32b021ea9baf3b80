"""fuse_runs --method rrf|combsum|combmnz|combmax|borda|ibc|wibc [--k K...] [--norm none|min-max|zmuv|sum|rank]
[--weights W...] [--depth N] [--name RUN] [--qrels FILE [--measure M]] [-o FILE] RUN...
fuse_runs --campaign NAME --runs R... [options as above] [--ingest]: docs/evaluation.md."""
import os

from core.commands import ServiceCommand
from evaluation import fusion as services
from evaluation import services as evaluation
from evaluation.management.commands._files import write_whole
from ir import fusion
from ir.prime import NDCG
from ir.problems import InputError
from pooling.selectors import campaign_named
from workflow.fusion import fused_ingest


class Command(ServiceCommand):
    help = ("Fuses runs (run files, or a campaign's stored runs) into one TREC run: RRF, CombSUM, CombMNZ, CombMAX, "
            "Borda, or the MIRMU team's IBC and WIBC; with several --k and --qrels, prints RRF's measure at each k; "
            "with --ingest, stores the fused run in the campaign as a fused baseline.")

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", metavar="RUN", help="run files (any shape the service reads)")
        parser.add_argument("--method", required=True, choices=fusion.METHODS)
        parser.add_argument("--k", nargs="+", default=[], metavar="K",
                            help=f"RRF's k (default {fusion.DEFAULT_K}); several values with --qrels: a sweep")
        parser.add_argument("--norm", choices=fusion.NORMS,
                            help="the score normalization of combsum, combmnz and combmax (default min-max)")
        parser.add_argument("--weights", nargs="+", default=[], metavar="W", help="a weight per run, in order")
        parser.add_argument("--depth", type=int, metavar="N",
                            help=f"documents per topic in the fused run (default {fusion.DEFAULT_DEPTH})")
        parser.add_argument("--name", help="the fused run's name (its run tag; default fused-METHOD)")
        parser.add_argument("--task", choices=[evaluation.ANSWERS, evaluation.FORMULAS],
                            help="run files' task (default: formulas for 6-column ARQMath Task 2 runs, else answers)")
        parser.add_argument("--campaign", help="fuse this campaign's stored runs (--runs)")
        parser.add_argument("--runs", nargs="+", default=[], metavar="R", help="the campaign's runs to fuse, by name")
        parser.add_argument("--ingest", action="store_true",
                            help="store the fused run in the campaign (--campaign), a baseline marked fused")
        parser.add_argument("--qrels", help="with several --k: score RRF at each k against this qrels file")
        parser.add_argument("--measure", default=NDCG,
                            help="the sweep's measure: ndcg_prime (default), map_prime, p10_prime or an ir_measures "
                                 "name")
        parser.add_argument("--all-topics", action="store_true",
                            help="the sweep's means over every qrels topic (ARQMath-1), as evaluate --all-topics")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **o):
        # `--k K... RUN...` and `--weights W... RUN...` (docs/evaluation.md): an option with several values takes every
        # path after it, so the files among its values are runs.
        ks = [int(value) for value in _numbers(o["k"], int, "--k", o["paths"])]
        weights = _numbers(o["weights"], float, "--weights", o["paths"])
        campaign = None
        if o["campaign"]:
            if o["paths"] or o["task"]:
                raise InputError("--campaign fuses the campaign's stored runs (--runs R...): no run files or --task")
            campaign = campaign_named(o["campaign"])
            names = o["runs"]
        else:
            if o["runs"] or o["ingest"]:
                raise InputError("--runs and --ingest go with --campaign NAME")
            names = [os.path.basename(path) for path in o["paths"]]
        sweep = len(ks) > 1 or bool(o["qrels"])
        if sweep and not o["qrels"]:
            raise InputError("several --k values make a sweep: give --qrels FILE to score each")
        if sweep and (o["ingest"] or o["output"]):
            raise InputError("a sweep prints a measure per k: no --ingest or -o")
        how = fusion.settings(method=o["method"], runs=names, k=ks[0] if len(ks) == 1 else None, norm=o["norm"],
                              weights=weights, depth=o["depth"])
        sources = (services.stored_sources(campaign=campaign, names=names) if campaign is not None
                   else services.file_sources(paths=o["paths"], task=o["task"]))
        if sweep:
            rows = services.k_sweep(sources=sources, how=how, ks=ks or [how.k], qrels_path=o["qrels"],
                                    measure=o["measure"], all_topics=o["all_topics"])
            self.stdout.write("".join(services.sweep_lines(rows)), ending="")
            return
        name = o["name"] or services.fused_name(how)
        if o["ingest"]:
            assert campaign is not None
            run = fused_ingest(campaign=campaign, sources=sources, how=how, name=name)
            self.report_warnings(run.warnings)
            self.stdout.write(f"run '{run.name}' (fused baseline, {how.method}): {run.row_count} rows for "
                              f"{run.topic_count} topics")
            return
        text = services.fused_text(sources=sources, how=how, name=name)
        if o["output"]:
            write_whole(o["output"], lambda stream: stream.write(text))
        else:
            self.stdout.write(text, ending="")


def _numbers(values: list[str], kind: type, option: str, paths: list[str]) -> list[float]:
    """The numbers among an option's values; the existing files after them join the run files, anything else is
    refused."""
    numbers: list[float] = []
    runs: list[str] = []
    for value in values:
        try:
            numbers.append(kind(value))
        except ValueError:
            if not os.path.isfile(value):
                raise InputError(f"{option}: '{value[:40]}' is neither a number nor a run file") from None
            runs.append(value)
    paths.extend(runs)
    return numbers
