"""evaluate --qrels FILE [--task answers|formulas] [--formula-index FILE...] [--all-topics] RUN...
evaluate --campaign NAME [--all-topics]: docs/evaluation.md; an answers campaign's ARQMath-3 Task 3 runs get ar, p1 and
lo; with characterised topics, rows run<TAB>char:LABEL<TAB>all<TAB>fraction at the end (docs/evaluation.md).
evaluate ... [--relevance-level L] [--measures M...] [--ar-p1] [--significance FILE [--permutations N] [--seed S]
             [--baseline RUN]] [--ci] [--topic-info CSV --by COLUMN]: docs/analysis.md.
evaluate --qrels Q1 --qrels Q2 ... [--label L1 --label L2 ...] RUN...: the runs against each edition's qrels.
evaluate --qrels FILE --answer-ids MAP [--tokenizer JSON] [--team-map FILE] [--bertscore-model DIR] [RUN...]: ARQMath-3
Task 3 runs (docs/evaluation.md)."""
from collections.abc import Iterable
from itertools import chain

from characterisation.selectors import characterisation_lines, characterisation_report
from core.commands import ServiceCommand
from evaluation import analysis_services, board, editions, services, topic_info
from evaluation.answer_files import evaluate_answer_files
from evaluation.management.commands._arguments import formula_indexes, measures_argument, runs_arguments
from evaluation.management.commands._files import write_whole
from ir import statistics as analysis
from ir import task3_measures as answers
from ir.formats.formula_tsv import V2_HEADER
from ir.formats.topic_info import TopicInfo, check_column, read_topic_info
from ir.grades import RELEVANCE_LEVEL
from ir.prime import FIRST_RESULT
from ir.problems import InputError
from ir.scoring import row_lines
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Scores runs with ARQMath's prime measures (nDCG', MAP', P'@10), the unjudged fraction of their top 10 "
            "and any ir_measures measure: run files against a qrels file, or every run of a campaign against its "
            "official judgments; with significance tests, bootstrap intervals and means by topic category.")

    def add_arguments(self, parser):
        files, campaign = runs_arguments(parser, campaign_help="score every run of this campaign against its "
                                                               "judgments", editions=True)
        files.add_argument("--formula-index", nargs="+", default=[], metavar="FILE",
                           help="formula index TSV files mapping formula ids to visual ids (formulas); run files "
                                "after them are told apart by their first line, an index's header")
        campaign.add_argument("--parents", action="store_true",
                              help="add each run's means over parent topics, each the mean of its micro-topics (rows "
                                   "with topic 'parents')")
        scores = parser.add_argument_group("scores")
        scores.add_argument("--all-topics", action="store_true",
                            help="average over every qrels topic, 0 where a run has nothing judged (ARQMath-1)")
        scores.add_argument("--per-topic", action="store_true", help="a row per topic before each mean")
        measures_argument(parser, scores, help="measures beside the prime ones: ir_measures names (nDCG@10 "
                          "'AP(rel=1)' P@10 Bpref Judged@10 RR ...), and ar and p1, AR and P@1 of an answer run's "
                          "first result (ARQMath-3); values written as paths (a / or an extension) are run files")
        scores.add_argument("--ar-p1", action="store_true", help="the same as --measures ar p1")
        scores.add_argument("--relevance-level", type=int, metavar="L",
                            help="the lowest relevant grade for MAP', P'@10, P@1 and binary measures named without "
                                 "one (default 2, a campaign's own setting with --campaign; 1 for TREC's binary qrels)")
        tests = parser.add_argument_group("analysis")
        tests.add_argument("--significance", metavar="FILE",
                           help="write the paired t-test and randomization test of every pair of runs to FILE")
        tests.add_argument("--permutations", type=int, metavar="N",
                           help=f"randomization test permutations (default {analysis.PERMUTATIONS:,})")
        tests.add_argument("--seed", type=int, default=analysis.SEED, metavar="S",
                           help="random seed of the randomization test and the bootstrap (default 0)")
        tests.add_argument("--baseline", metavar="RUN", help="test every run against this one instead of every pair")
        tests.add_argument("--ci", action="store_true", help="add bootstrap 95%% intervals of each run's means")
        tests.add_argument("--topic-info", metavar="CSV", help="topic information: a Topic column and others")
        tests.add_argument("--by", metavar="COLUMN", help="add each run's means per value of this topic column")
        task3 = parser.add_argument_group("ARQMath-3 Task 3 runs (with --qrels: the complete Task 3 qrels)")
        task3.add_argument("--answer-ids", metavar="MAP",
                           help="the answer-id map (run, topic, answer id); without run files, every run of the map "
                                "is scored (AR and P@1)")
        task3.add_argument("--tokenizer", metavar="JSON", help="a Hugging Face tokenizer.json for LO (needs the "
                                                               "tokenizers package); default: a built-in tokenizer")
        task3.add_argument("--team-map", metavar="FILE", help="run<TAB>team lines, for runs not named after their team")
        task3.add_argument("--bertscore-model", metavar="DIR",
                           help="a local model directory: adds CS, BERTScore F1 (needs the bert-score package)")

    def handle(self, *args, **o):
        measures = [*o["measures"], *(FIRST_RESULT if o["ar_p1"] else ())]
        if o["answer_ids"] or o["tokenizer"] or o["team_map"] or o["bertscore_model"]:
            return self._answers(o, measures)
        labelled = self._check(o)
        indexes, index_runs = formula_indexes(o["formula_index"])
        runs = [*o["runs"], *o["runs_after_measures"], *index_runs]
        level = o["relevance_level"]
        campaign, info = None, None
        if o["campaign"]:
            if runs or o["formula_index"] or o["task"]:
                raise InputError("--campaign scores the campaign's own runs: no run files, --task or --formula-index")
            campaign = campaign_named(o["campaign"])
            info = self._topic_info(o, campaign)
            found = [editions.Edition(campaign.name, services.evaluate_campaign(
                campaign=campaign, all_topics=o["all_topics"], measures=measures, relevance_level=level))]
        else:
            if o["formula_index"] and not indexes:
                raise InputError("--formula-index: none of the files after it has a formula index header "
                                 f"({' '.join(V2_HEADER)}, or the v3 one)")
            info = self._topic_info(o, None)
            asked = dict(run_paths=runs, task=o["task"], formula_index_paths=indexes, all_topics=o["all_topics"],
                         measures=measures, relevance_level=RELEVANCE_LEVEL if level is None else level)
            found = (editions.evaluate_editions(qrels_paths=o["qrels"], labels=o["label"], **asked) if labelled else
                     [editions.Edition(o["qrels"][0], services.evaluate_files(qrels_path=o["qrels"][0], **asked))])
        significance = editions.edition_significance_lines(
            found, labelled=labelled, baseline=o["baseline"], seed=o["seed"],
            permutations=analysis.PERMUTATIONS if o["permutations"] is None else o["permutations"])
        self._write(editions.edition_lines(found, per_topic=o["per_topic"], labelled=labelled),
                    significance=(o["significance"], significance) if o["significance"] else None,
                    after=() if labelled else self._after(o, found[0].evaluation, info, campaign))

    def _check(self, o) -> bool:
        """The options' combinations, refused before anything is read; whether the rows carry a label (several
        --qrels, or one named by --label: the editions' form)."""
        if bool(o["qrels"]) == bool(o["campaign"]):
            raise InputError("give either --qrels FILE with run files, or --campaign NAME")
        if o["parents"] and not o["campaign"]:
            raise InputError("--parents goes with --campaign: micro-topics' parents are the campaign's topics")
        labelled = bool(o["qrels"]) and (len(o["qrels"]) > 1 or bool(o["label"]))
        if labelled and (o["ci"] or o["by"] or o["topic_info"]):
            raise InputError("--ci, --by and --topic-info score one qrels: give them with a single --qrels")
        if o["label"] and not o["qrels"]:
            raise InputError("--label names the editions of several --qrels files")
        if (o["permutations"] is not None or o["baseline"]) and not o["significance"]:
            raise InputError("--permutations and --baseline go with --significance FILE")
        if o["topic_info"] and not o["by"]:
            raise InputError("--topic-info goes with --by COLUMN: the column to group the topics by")
        return labelled

    def _after(self, o, result: services.Evaluation, info: TopicInfo | None, campaign) -> Iterable[str]:
        """What follows one qrels' scores: the --ci intervals and --by means of its runs (not of the Task 3 runs),
        the --parents means, and a campaign's characterised topics' yes fractions (ARQMath-3's MG and UI)."""
        yield from analysis_services.extra_lines(result, intervals=o["ci"], info=info, column=o["by"], seed=o["seed"])
        if o["parents"]:
            yield from board.parent_lines(result, board.parents_of(campaign))
        if campaign is not None:
            yield from characterisation_lines(characterisation_report(campaign=campaign))

    def _write(self, table: Iterable[str], *, significance: tuple[str, Iterable[str]] | None = None,
               after: Iterable[str] = ()) -> None:
        """The one writer of every form: the significance file (path, lines: written whole before anything is
        printed, so that a refused baseline prints nothing), then the table, then what follows it."""
        if significance is not None:
            path, lines = significance
            write_whole(path, lambda stream: stream.writelines(lines))
        for line in chain(table, after):
            self.stdout.write(line, ending="")

    def _answers(self, o, measures: list[str]) -> None:
        if (not (o["qrels"] and o["answer_ids"]) or len(o["qrels"]) > 1 or o["label"] or o["campaign"] or o["task"]
                or o["formula_index"]):
            raise InputError("Task 3 runs: give --qrels FILE and --answer-ids MAP (with --tokenizer, --team-map and "
                             "--bertscore-model as needed), one --qrels, no --campaign, --task or --formula-index")
        if (measures or o["relevance_level"] is not None or o["significance"] or o["ci"] or o["topic_info"]
                or o["by"]):
            raise InputError("Task 3 runs are scored by AR, P@1, LO and CS: --measures, --ar-p1, --relevance-level, "
                             "--significance, --ci, --topic-info and --by are for Task 1 and 2 runs")
        result = evaluate_answer_files(qrels_path=o["qrels"][0], answer_ids_path=o["answer_ids"],
                                       run_paths=o["runs"], team_map_path=o["team_map"],
                                       tokenizer_path=o["tokenizer"], bertscore_model=o["bertscore_model"],
                                       all_topics=o["all_topics"])
        self._write(row_lines(result.scores.rows, per_topic=o["per_topic"]),
                    after=answers.correlation_lines(result.correlations))

    def _topic_info(self, o, campaign) -> TopicInfo | None:
        """The topic information --by groups by, its column checked before anything is computed: the file given,
        else the campaign's (ingest_topic_info)."""
        if not o["by"]:
            return None
        info: TopicInfo | None = None
        if o["topic_info"]:
            info = read_topic_info(o["topic_info"])
        elif campaign is not None:
            info = topic_info.campaign_topic_info(campaign=campaign)
            if info is None:
                raise InputError(f"campaign '{campaign.name}' has no topic information: ingest_topic_info it, or "
                                 "give --topic-info CSV")
        else:
            raise InputError("--by COLUMN needs --topic-info CSV (or --campaign with its topic information)")
        check_column(info, o["by"])
        return info
