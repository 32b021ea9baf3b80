"""evaluate --qrels FILE [--task answers|formulas] [--formula-index FILE...] [--all-topics] RUN...
evaluate --campaign NAME [--all-topics]: SPEC 9; an answers campaign's ARQMath-3 Task 3 runs get ar, p1 and lo;
with characterised topics, rows run<TAB>char:LABEL<TAB>all<TAB>fraction after the scores (docs/evaluation.md).
evaluate --qrels FILE --answer-ids MAP [--tokenizer JSON] [--team-map FILE] [--bertscore-model DIR] [RUN...]: ARQMath-3
Task 3 runs (issue 17)."""
from assessor.characterisation import characterisation_report
from core.commands import ServiceCommand
from core.errors import InputError
from evaluation import answers, services
from evaluation.answer_files import evaluate_answer_files
from evaluation.characterisation import characterisation_lines
from evaluation.prime import FIRST_RESULT, REPORTED, score_lines
from pooling.formats.formula_tsv import V2_HEADER, is_formula_index_header, tsv_header
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Scores runs with ARQMath's prime measures (nDCG', MAP', P'@10) and the unjudged fraction of their top "
            "10: run files against a qrels file, or every run of a campaign against its official judgments.")

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="*", metavar="RUN", help="run files (with --qrels)")
        parser.add_argument("--qrels", help="qrels file: topic 0 item grade")
        parser.add_argument("--campaign", help="score every run of this campaign against its judgments")
        parser.add_argument("--task", choices=[services.ANSWERS, services.FORMULAS],
                            help="with --qrels; default: formulas for 6-column ARQMath Task 2 runs, else answers")
        parser.add_argument("--formula-index", nargs="+", default=[], metavar="FILE",
                            help="formula index TSV files mapping formula ids to visual ids (formulas)")
        parser.add_argument("--all-topics", action="store_true",
                            help="average over every qrels topic, 0 where a run has nothing judged (ARQMath-1)")
        parser.add_argument("--per-topic", action="store_true", help="a row per topic before each mean")
        parser.add_argument("--ar-p1", action="store_true",
                            help="answer runs: also AR and P@1 of each run's first result (ARQMath-3)")
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
        if o["campaign"]:
            if o["runs"] or o["formula_index"] or o["task"]:
                raise InputError("--campaign scores the campaign's own runs: no run files, --task or --formula-index")
            campaign = campaign_named(o["campaign"])
            result = services.evaluate_campaign(campaign=campaign, all_topics=o["all_topics"])
        else:
            # `--formula-index FILE... RUN...` (SPEC 9): the option takes every path after it, so the files
            # without a formula index header are the runs.
            indexes = [path for path in o["formula_index"] if is_formula_index_header(tsv_header(path))]
            runs = o["runs"] + [path for path in o["formula_index"] if path not in indexes]
            if o["formula_index"] and not indexes:
                raise InputError("--formula-index: none of the files after it has a formula index header "
                                 f"({' '.join(V2_HEADER)}, or the v3 one)")
            result = services.evaluate_files(qrels_path=o["qrels"], run_paths=runs, task=o["task"],
                                              formula_index_paths=indexes, all_topics=o["all_topics"])
        measures = REPORTED + FIRST_RESULT if o["ar_p1"] else REPORTED
        for line in score_lines(result.runs, per_topic=o["per_topic"], measures=measures):
            self.stdout.write(line, ending="")
        # A campaign's ARQMath-3 Task 3 runs: AR, P@1 and LO (evaluation/task3.py).
        for line in score_lines(result.answer_runs, per_topic=o["per_topic"], measures=answers.MEASURES):
            self.stdout.write(line, ending="")
        if o["campaign"]:
            # The characterised topics' yes fractions (ARQMath-3's MG and UI), docs/evaluation.md.
            for line in characterisation_lines(characterisation_report(campaign=campaign)):
                self.stdout.write(line, ending="")

    def _answers(self, o) -> None:
        if not (o["qrels"] and o["answer_ids"]) or o["campaign"] or o["task"] or o["formula_index"]:
            raise InputError("Task 3 runs: give --qrels FILE and --answer-ids MAP (with --tokenizer, --team-map and "
                             "--bertscore-model as needed), no --campaign, --task or --formula-index")
        result = evaluate_answer_files(qrels_path=o["qrels"], answer_ids_path=o["answer_ids"], run_paths=o["runs"],
                                       team_map_path=o["team_map"], tokenizer_path=o["tokenizer"],
                                       bertscore_model=o["bertscore_model"], all_topics=o["all_topics"])
        for line in score_lines(result.runs, per_topic=o["per_topic"], measures=answers.MEASURES):
            self.stdout.write(line, ending="")
        for line in answers.correlation_lines(result.correlations):
            self.stdout.write(line, ending="")
