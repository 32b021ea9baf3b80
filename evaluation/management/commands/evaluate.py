"""evaluate --qrels FILE [--task answers|formulas] [--formula-index FILE...] [--all-topics] RUN...
evaluate --campaign NAME [--all-topics]: SPEC 9; an answers campaign's ARQMath-3 Task 3 runs get ar, p1 and lo;
with characterised topics, rows run<TAB>char:LABEL<TAB>all<TAB>fraction at the end (docs/evaluation.md).
evaluate ... [--relevance-level L] [--measures M...] [--ar-p1] [--significance FILE [--permutations N] [--seed S]
             [--baseline RUN]] [--ci] [--topic-info CSV --by COLUMN]: SPEC 9, docs/analysis.md.
evaluate --qrels FILE --answer-ids MAP [--tokenizer JSON] [--team-map FILE] [--bertscore-model DIR] [RUN...]: ARQMath-3
Task 3 runs (issue 17)."""
import os

from characterisation.selectors import characterisation_report
from core.commands import ServiceCommand
from evaluation import analysis_services, board, editions, services, topic_info
from evaluation.answer_files import evaluate_answer_files
from evaluation.characterisation import characterisation_lines
from evaluation.management.commands._arguments import runs_arguments
from evaluation.management.commands._files import write_whole
from ir import statistics as analysis
from ir import task3_measures as answers
from ir.formats.formula_tsv import V2_HEADER, is_formula_index_header, tsv_header
from ir.formats.topic_info import TopicInfo, check_column, read_topic_info
from ir.grades import RELEVANCE_LEVEL
from ir.prime import FIRST_RESULT, score_lines
from ir.problems import InputError
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Scores runs with ARQMath's prime measures (nDCG', MAP', P'@10), the unjudged fraction of their top 10 "
            "and any ir_measures measure: run files against a qrels file, or every run of a campaign against its "
            "official judgments; with significance tests, bootstrap intervals and means by topic category.")

    def add_arguments(self, parser):
        runs_arguments(parser, campaign_help="score every run of this campaign against its judgments", editions=True)
        parser.add_argument("--formula-index", nargs="+", default=[], metavar="FILE",
                            help="formula index TSV files mapping formula ids to visual ids (formulas)")
        parser.add_argument("--all-topics", action="store_true",
                            help="average over every qrels topic, 0 where a run has nothing judged (ARQMath-1)")
        parser.add_argument("--per-topic", action="store_true", help="a row per topic before each mean")
        parser.add_argument("--measures", nargs="+", default=[], metavar="M",
                            help="measures beside the prime ones: ir_measures names (nDCG@10 'AP(rel=1)' P@10 Bpref "
                                 "Judged@10 RR ...), and ar and p1, AR and P@1 of an answer run's first result "
                                 "(ARQMath-3)")
        parser.add_argument("--ar-p1", action="store_true", help="the same as --measures ar p1")
        parser.add_argument("--relevance-level", type=int, metavar="L",
                            help="the lowest relevant grade for MAP', P'@10, P@1 and binary measures named without "
                                 "one (default 2, a campaign's own setting with --campaign; 1 for TREC's binary qrels)")
        parser.add_argument("--significance", metavar="FILE",
                            help="write the paired t-test and randomization test of every pair of runs to FILE")
        parser.add_argument("--permutations", type=int, metavar="N",
                            help=f"randomization test permutations (default {analysis.PERMUTATIONS:,})")
        parser.add_argument("--seed", type=int, default=analysis.SEED, metavar="S",
                            help="random seed of the randomization test and the bootstrap (default 0)")
        parser.add_argument("--baseline", metavar="RUN", help="test every run against this one instead of every pair")
        parser.add_argument("--ci", action="store_true", help="add bootstrap 95%% intervals of each run's means")
        parser.add_argument("--topic-info", metavar="CSV", help="topic information: a Topic column and others")
        parser.add_argument("--by", metavar="COLUMN", help="add each run's means per value of this topic column")
        parser.add_argument("--parents", action="store_true",
                            help="with --campaign: add each run's means over parent topics, each the mean of its "
                                 "micro-topics (rows with topic 'parents')")
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
        if o["answer_ids"] or o["tokenizer"] or o["team_map"] or o["bertscore_model"]:
            return self._answers(o)
        if bool(o["qrels"]) == bool(o["campaign"]):
            raise InputError("give either --qrels FILE with run files, or --campaign NAME")
        if o["parents"] and not o["campaign"]:
            raise InputError("--parents goes with --campaign: micro-topics' parents are the campaign's topics")
        if o["qrels"] and (len(o["qrels"]) > 1 or o["label"]):
            return self._editions(o)
        if o["label"]:
            raise InputError("--label names the editions of several --qrels files")
        qrels: str = o["qrels"][0] if o["qrels"] else ""
        if (o["permutations"] is not None or o["baseline"]) and not o["significance"]:
            raise InputError("--permutations and --baseline go with --significance FILE")
        if o["topic_info"] and not o["by"]:
            raise InputError("--topic-info goes with --by COLUMN: the column to group the topics by")
        measures, indexes, runs = self._runs(o)
        if o["campaign"]:
            if runs or o["formula_index"] or o["task"]:
                raise InputError("--campaign scores the campaign's own runs: no run files, --task or --formula-index")
            campaign = campaign_named(o["campaign"])
            info = self._topic_info(o, campaign)
            result = services.evaluate_campaign(campaign=campaign, all_topics=o["all_topics"], measures=measures,
                                                relevance_level=o["relevance_level"])
        else:
            if o["formula_index"] and not indexes:
                raise InputError("--formula-index: none of the files after it has a formula index header "
                                 f"({' '.join(V2_HEADER)}, or the v3 one)")
            info = self._topic_info(o, None)
            level = RELEVANCE_LEVEL if o["relevance_level"] is None else o["relevance_level"]
            result = services.evaluate_files(qrels_path=qrels, run_paths=runs, task=o["task"],
                                              formula_index_paths=indexes, all_topics=o["all_topics"],
                                              measures=measures, relevance_level=level)
        if o["significance"]:
            rows = analysis_services.significance_table(
                result, baseline=o["baseline"], seed=o["seed"],
                permutations=analysis.PERMUTATIONS if o["permutations"] is None else o["permutations"])
            write_whole(o["significance"], lambda stream: stream.writelines(analysis.significance_lines(rows)))
        for line in score_lines(result.runs, per_topic=o["per_topic"], measures=result.measures):
            self.stdout.write(line, ending="")
        # A campaign's ARQMath-3 Task 3 runs: AR, P@1 and LO (evaluation/task3.py); the analysis (`# ` lines) is of
        # the others.
        for line in score_lines(result.answer_runs, per_topic=o["per_topic"], measures=answers.MEASURES):
            self.stdout.write(line, ending="")
        for line in analysis_services.extra_lines(result, intervals=o["ci"], info=info, column=o["by"],
                                                  seed=o["seed"]):
            self.stdout.write(line, ending="")
        if o["parents"]:
            for line in board.parent_lines(result, board.parents_of(campaign)):
                self.stdout.write(line, ending="")
        if o["campaign"]:
            # The characterised topics' yes fractions (ARQMath-3's MG and UI), docs/evaluation.md.
            for line in characterisation_lines(characterisation_report(campaign=campaign)):
                self.stdout.write(line, ending="")

    def _runs(self, o) -> tuple[list[str], list[str], list[str]]:
        """(measures, formula index files, run files): `--measures M... RUN...` and `--formula-index FILE... RUN...`
        (SPEC 9): an option with several values takes every path after it, so the files among its values are runs
        (measure names are not files) and the files after --formula-index without a formula index header too."""
        measures = [name for name in o["measures"] if not os.path.isfile(name)] + (
            list(FIRST_RESULT) if o["ar_p1"] else [])
        indexes = [path for path in o["formula_index"] if is_formula_index_header(tsv_header(path))]
        runs = (o["runs"] + [name for name in o["measures"] if name not in measures]
                + [path for path in o["formula_index"] if path not in indexes])
        return measures, indexes, runs

    def _editions(self, o) -> None:
        """`evaluate --qrels Q1 --qrels Q2 ... [--label L1 --label L2 ...] RUN...`: run, label, measure, topic,
        value; --significance FILE: each edition's tests, a label column first (docs/evaluation.md)."""
        if o["ci"] or o["by"] or o["topic_info"]:
            raise InputError("--ci, --by and --topic-info score one qrels: give them with a single --qrels")
        if (o["permutations"] is not None or o["baseline"]) and not o["significance"]:
            raise InputError("--permutations and --baseline go with --significance FILE")
        measures, indexes, runs = self._runs(o)
        level = RELEVANCE_LEVEL if o["relevance_level"] is None else o["relevance_level"]
        found = editions.evaluate_editions(qrels_paths=o["qrels"], labels=o["label"], run_paths=runs, task=o["task"],
                                           formula_index_paths=indexes, all_topics=o["all_topics"],
                                           measures=measures, relevance_level=level)
        if o["significance"]:
            lines = editions.edition_significance_lines(
                found, baseline=o["baseline"], seed=o["seed"],
                permutations=analysis.PERMUTATIONS if o["permutations"] is None else o["permutations"])
            write_whole(o["significance"], lambda stream: stream.writelines(lines))
        for line in editions.edition_lines(found, per_topic=o["per_topic"]):
            self.stdout.write(line, ending="")

    def _answers(self, o) -> None:
        if (not (o["qrels"] and o["answer_ids"]) or len(o["qrels"]) > 1 or o["label"] or o["campaign"] or o["task"]
                or o["formula_index"]):
            raise InputError("Task 3 runs: give --qrels FILE and --answer-ids MAP (with --tokenizer, --team-map and "
                             "--bertscore-model as needed), one --qrels, no --campaign, --task or --formula-index")
        if (o["measures"] or o["ar_p1"] or o["relevance_level"] is not None or o["significance"] or o["ci"]
                or o["topic_info"] or o["by"]):
            raise InputError("Task 3 runs are scored by AR, P@1, LO and CS: --measures, --ar-p1, --relevance-level, "
                             "--significance, --ci, --topic-info and --by are for Task 1 and 2 runs")
        result = evaluate_answer_files(qrels_path=o["qrels"][0], answer_ids_path=o["answer_ids"], run_paths=o["runs"],
                                       team_map_path=o["team_map"], tokenizer_path=o["tokenizer"],
                                       bertscore_model=o["bertscore_model"], all_topics=o["all_topics"])
        for line in score_lines(result.runs, per_topic=o["per_topic"], measures=answers.MEASURES):
            self.stdout.write(line, ending="")
        for line in answers.correlation_lines(result.correlations):
            self.stdout.write(line, ending="")

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
