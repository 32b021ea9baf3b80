"""REST API for organizers: a campaign's qrels (TSV download) and the scores of its runs."""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from characterisation.selectors import characterisation_lines, characterisation_report
from core.api import TSVRenderer, flag
from core.downloads import attachment
from core.forms import form_values
from evaluation import board, hybrid_board, llm_board, selectors, services, snapshots, topic_info
from evaluation.forms import MinRelevantForm
from evaluation.snapshots import Snapshot
from evaluation.views import COMPUTING, RETRY_SECONDS, scores_table
from ir.prime import MEASURES, REPORTED, finite
from ir.problems import InputError
from ir.qrels import QrelsSummary
from ir.rankings import RankCorrelation
from ir.statistics import Comparison
from ir.task3_measures import TASK3_REPORTED
from pooling.models import Campaign


class QrelsApi(APIView):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, TSVRenderer]

    @extend_schema(
        parameters=[OpenApiParameter("level", str, enum=list(selectors.LEVELS),
                                     description="formulas: by visual id (default) or by instance"),
                    OpenApiParameter("min_relevant", int, description="leave out topics with fewer items "
                                                                       "relevant at the campaign's relevance "
                                                                       "level; their ids are in the "
                                                                       "X-Topics-Left-Out header"),
                    OpenApiParameter("complete", bool, description="write System failure and Do not know as grades 5 "
                                                                   "and 6 instead of leaving them out (ARQMath-3's "
                                                                   "complete qrels)"),
                    OpenApiParameter("source", str, description="official or people (default), llm, llm:MODEL "
                                                                "(an LLM's grades alone), combined (people's, and "
                                                                "the LLM's for pool items no person judged) or "
                                                                "hybrid[:MODEL] (the calibrated LLM's there)"),
                    OpenApiParameter("sources", bool, description="instead of the qrels, the TSV naming each "
                                                                  "line's source (topic, item_id, source)")],
        responses={(200, "text/tab-separated-values"): OpenApiResponse(
            response=OpenApiTypes.STR, description="topic<TAB>0<TAB>item<TAB>grade, as `export_qrels` writes it")})
    def get(self, request, pk: int):
        """Downloads the campaign's qrels from its official judgments (SF and DK left out, or 5 and 6 with
        `complete`), streamed; or from another `source` (an LLM's grades, or people's combined with the LLM's)."""
        campaign = get_object_or_404(Campaign, pk=pk)
        level = request.query_params.get("level", selectors.VISUAL)
        minimum = form_values(MinRelevantForm(request.query_params))["min_relevant"]
        options = {"campaign": campaign, "level": level, "min_relevant": minimum,
                   "complete": flag(request.query_params.get("complete")),
                   "source": request.query_params.get("source", services.OFFICIAL)}
        official = services.qrels_source_parse(options["source"]).kind == services.OFFICIAL
        summary = QrelsSummary()
        lines: Iterable[str] = (services.qrels_sources_lines(**options) if flag(request.query_params.get("sources"))
                                else services.qrels_export_lines(**options, summary=summary))
        if not official:  # the topics left out are known once every line is made: another source's are few
            lines = list(lines)
        response = StreamingHttpResponse(lines, content_type="text/tab-separated-values; charset=utf-8")
        response["Content-Disposition"] = attachment(campaign.name, "qrels", extension="txt")
        if minimum is not None and not official:
            response["X-Topics-Left-Out"] = ",".join(topic for topic, _relevant in summary.left_out)
        elif minimum is not None:
            left_out = [topic for topic, _judged, relevant in
                        selectors.qrels_topic_counts(campaign=campaign, level=level) if relevant < minimum]
            response["X-Topics-Left-Out"] = ",".join(left_out)
        return response


def _characterisation() -> serializers.DictField:
    return serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="question label (MG, UI, ...) -> the share of the run's characterised answers marked yes, null when "
                  "none of them was characterised; every question of the campaign (docs/evaluation.md)")


class RunScoresSerializer(serializers.Serializer):
    run = serializers.CharField()
    kind = serializers.CharField()
    ndcg_prime = serializers.FloatField(allow_null=True)
    map_prime = serializers.FloatField(allow_null=True)
    p10_prime = serializers.FloatField(allow_null=True)
    unjudged_10 = serializers.FloatField(allow_null=True)
    measures = serializers.DictField(child=serializers.FloatField(allow_null=True), required=False,
                                     help_text="the means of the measures asked for by `measure`, by name")
    characterisation = _characterisation()
    topics = serializers.IntegerField()
    per_topic = serializers.DictField(child=serializers.DictField(child=serializers.FloatField()), required=False)
    parents = serializers.DictField(child=serializers.FloatField(allow_null=True), required=False,
                                    help_text="with `parents`: each measure's mean over the parent topics, by name")


class AnswerRunScoresSerializer(serializers.Serializer):
    run = serializers.CharField()
    kind = serializers.CharField()
    ar = serializers.FloatField(allow_null=True, help_text="average relevance of the run's answers")
    p1 = serializers.FloatField(allow_null=True, help_text="share of answers of grade 2 or 3")
    lo = serializers.FloatField(allow_null=True, help_text="lexical overlap with the other teams' relevant answers")
    characterisation = _characterisation()
    topics = serializers.IntegerField()
    per_topic = serializers.DictField(child=serializers.DictField(child=serializers.FloatField()), required=False)


class RankCorrelationSerializer(serializers.Serializer):
    measure = serializers.CharField()
    runs = serializers.IntegerField()
    topics = serializers.IntegerField(help_text="the topics both qrels hold: the rankings compare the runs' means "
                                                "over them")
    kendall_tau = serializers.FloatField(allow_null=True, help_text="Kendall's tau-b; null when undefined")
    tau_low = serializers.FloatField(allow_null=True)
    tau_high = serializers.FloatField(allow_null=True)
    tau_ap = serializers.FloatField(allow_null=True, help_text="AP correlation of the LLM's ranking against the "
                                                               "people's (Yilmaz et al. 2008)")
    tau_ap_low = serializers.FloatField(allow_null=True)
    tau_ap_high = serializers.FloatField(allow_null=True)
    resamples = serializers.IntegerField(help_text="bootstrap resamples of the topics (seeded)")
    level = serializers.FloatField(help_text="the intervals' confidence level (percentile bootstrap)")


class LlmRunSerializer(serializers.Serializer):
    run = serializers.CharField()
    declared_llm = serializers.CharField(help_text="the LLM the run declares it reranks or generates with (a run "
                                                   "fact); empty: none")
    flagged = serializers.BooleanField(help_text="the declared LLM is the judge's own model")
    ndcg_prime = serializers.FloatField(allow_null=True)
    map_prime = serializers.FloatField(allow_null=True)
    p10_prime = serializers.FloatField(allow_null=True)
    unjudged_10 = serializers.FloatField(allow_null=True, help_text="unjudged by the LLM")


class LlmBoardSerializer(serializers.Serializer):
    model = serializers.CharField(help_text="the judge: the model of the campaign's LLM endpoint")
    problem = serializers.CharField(help_text="why there is no comparison (no grade yet); empty otherwise")
    judgments = serializers.IntegerField(help_text="the items the LLM's qrels hold")
    qrels_topics = serializers.IntegerField()
    runs = LlmRunSerializer(many=True, help_text="the Task 1 runs scored with the LLM's qrels")
    correlations = RankCorrelationSerializer(many=True, help_text="per prime measure, every run")
    without = RankCorrelationSerializer(many=True, help_text="per prime measure, without the runs that declare an "
                                                             "LLM")


def _llm(found: llm_board.LlmBoard | None) -> dict | None:
    """The leaderboard's LLM part as the API gives it; None without an endpoint."""
    if found is None or not found.model:
        return None

    def correlation(row: RankCorrelation) -> dict:
        return {key: finite(value) if isinstance(value, float) else value for key, value in asdict(row).items()}

    return {"model": found.model, "problem": found.problem, "judgments": found.judgments,
            "qrels_topics": found.qrels_topics,
            "runs": [{"run": scores.name, "declared_llm": found.declared.get(scores.name, ""),
                      "flagged": found.flagged(scores.name), **{m: finite(scores.means.get(m, math.nan))
                                                                for m in REPORTED}}
                     for scores in found.runs],
            "correlations": [correlation(row) for row in found.correlations],
            "without": [correlation(row) for row in found.without]}


class HybridRowSerializer(serializers.Serializer):
    run = serializers.CharField()
    official = serializers.FloatField(allow_null=True, help_text="the mean under the official qrels")
    official_rank = serializers.IntegerField(allow_null=True, help_text="1 the best; tied runs share the better one")
    hybrid = serializers.FloatField(help_text="the mean under the hybrid qrels (filled items at their calibrated "
                                              "most probable grade)")
    low = serializers.FloatField(help_text="the hybrid mean's 95% interval (percentile bootstrap)")
    high = serializers.FloatField()
    rank_best = serializers.IntegerField(help_text="the rank's 95% interval under the hybrid qrels")
    rank_worst = serializers.IntegerField()


class HybridBoardSerializer(serializers.Serializer):
    model = serializers.CharField()
    calibration_version = serializers.IntegerField()
    humans = serializers.IntegerField(help_text="the judged items the calibration was fitted on")
    measure = serializers.CharField()
    replicates = serializers.IntegerField(help_text="bootstrap replicates (HYBRID_BOARD_REPLICATES, fewer for a "
                                                    "large campaign)")
    topics = serializers.IntegerField(help_text="the hybrid qrels' topics, over which the hybrid means are")
    official_topics = serializers.IntegerField(help_text="the official qrels' topics, over which the official are")
    filled = serializers.IntegerField(help_text="items no person judged, their grades drawn in each replicate")
    judged = serializers.IntegerField()
    rows = HybridRowSerializer(many=True, help_text="best hybrid mean first")


class HybridSerializer(serializers.Serializer):
    computing = serializers.BooleanField(help_text="not computed yet: `board` is null")
    computed_at = serializers.DateTimeField(allow_null=True)
    updating = serializers.BooleanField()
    problem = serializers.CharField(help_text="why there is no board; empty otherwise")
    board = HybridBoardSerializer(allow_null=True)


def _hybrid(found: Snapshot | None) -> dict | None:
    """The runs under hybrid qrels as the API gives them; None without a calibration."""
    if found is None:
        return None
    value: hybrid_board.HybridBoard | None = found.value
    return {"computing": found.computing, "computed_at": found.computed_at, "updating": found.updating,
            "problem": found.problem, "board": asdict(value) if value is not None else None}


class EvaluationSerializer(serializers.Serializer):
    judgments = serializers.IntegerField(help_text="what the qrels hold, as exported: judged posts (answers) or "
                                                   "visual ids (formulas); SF and DK are unjudged and left out")
    instances = serializers.IntegerField(allow_null=True, help_text="formulas: judged formula instances (the "
                                                                    "instance-level qrels); null for answers")
    version = serializers.CharField(help_text="the state of the judgments and runs these scores are for; while a "
                                                "new state is being scored, the previous scores are given")
    computed_at = serializers.DateTimeField(allow_null=True, help_text="when these scores were computed; null when "
                                                                       "there is nothing to score (no run, or no "
                                                                       "official judgment yet: runs is empty)")
    updating = serializers.BooleanField(help_text="newer judgments are being scored: these scores are the last "
                                                  "ones computed, not yet theirs")
    qrels_topics = serializers.IntegerField()
    all_topics = serializers.BooleanField()
    relevance_level = serializers.IntegerField(help_text="MAP', P'@10 and binary measures named without a level "
                                                         "count grades from this one up (the campaign's setting)")
    runs = RunScoresSerializer(many=True)
    answer_runs = AnswerRunScoresSerializer(many=True, help_text="an answers campaign's ARQMath-3 Task 3 runs")
    llm = LlmBoardSerializer(allow_null=True, help_text="the runs scored with the qrels of the campaign's LLM judge "
                                                        "and how that ranking agrees with the people's (Kendall's tau, "
                                                        "tau_ap, bootstrap intervals); null without an LLM endpoint")
    hybrid = HybridSerializer(allow_null=True, help_text="the runs under the hybrid qrels of a calibrated model (the "
                                                         "latest, or ?model=) with 95% intervals of their means and "
                                                         "ranks; null without a calibration")


def _scores(campaign: Campaign, all_topics: bool, measures: list[str]) -> Snapshot:
    """The last scores (InputError when there are none: no run, or no official judgment); `.computing` before the
    first are in."""
    snapshot = snapshots.leaderboard(campaign=campaign, all_topics=all_topics, measures=measures)
    if not snapshot.computing and snapshot.value is None:
        raise InputError(snapshot.problem)
    return snapshot


COMPUTING_RESPONSE = OpenApiResponse(description="the first scores of what is asked are being computed: ask again "
                                                "after the Retry-After header's seconds")


def _computing() -> Response:
    """202: the first scores of what is asked are being computed; ask again after Retry-After seconds."""
    return Response({"detail": COMPUTING, "computing": True}, status=202, headers={"Retry-After": str(RETRY_SECONDS)})


class EvaluationApi(APIView):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, TSVRenderer]

    @extend_schema(
        parameters=[OpenApiParameter("all_topics", bool, description="average over every qrels topic (ARQMath-1)"),
                    OpenApiParameter("per_topic", bool, description="include every topic's values"),
                    OpenApiParameter("parents", bool, description="a campaign with micro-topics: each run's means "
                                                                  "over the parent topics (each the mean of its "
                                                                  "micro-topics), under `parents`; 400 without "
                                                                  "micro-topics"),
                    OpenApiParameter("measure", str, many=True, description="an ir_measures measure to add "
                                                                             "(nDCG@10, AP(rel=1), ...); repeatable"),
                    OpenApiParameter("model", str, description="the calibrated model of `hybrid` (default: the "
                                                               "latest calibration); 400 for one without")],
        responses={200: EvaluationSerializer, 202: COMPUTING_RESPONSE,
                   (200, "text/tab-separated-values"): OpenApiResponse(
            response=OpenApiTypes.STR, description="run<TAB>measure<TAB>topic<TAB>value, as `evaluate --campaign` "
                                                 "writes it (char:MG and char:UI rows last)")})
    def get(self, request, pk: int):
        """Every run of the campaign scored against its official judgments (nDCG', MAP', P'@10, and the unjudged
        fraction of the top 10; an answers campaign's ARQMath-3 Task 3 runs, under answer_runs: AR, P@1 and LO;
        each run's characterisation fractions, MG and UI): the last ones computed, recomputed in the background after
        each change of the judgments (`updating` meanwhile). A campaign with no run or no official judgment yet
        answers an empty table at once (`runs` empty, `computed_at` null); 202 (Retry-After) until the first scores
        of what is asked are computed."""
        campaign = get_object_or_404(Campaign, pk=pk)
        all_topics = flag(request.query_params.get("all_topics"))
        per_topic = flag(request.query_params.get("per_topic"))
        asked = [name for name in request.query_params.getlist("measure") if name.strip()]
        parents = board.parents_of(campaign) if flag(request.query_params.get("parents")) else None
        snapshot = snapshots.leaderboard(campaign=campaign, all_topics=all_topics, measures=asked)
        if snapshot.computing:
            return _computing()
        evaluation = snapshots.scores_or_empty(snapshot, campaign=campaign, all_topics=all_topics)
        characterised = characterisation_report(campaign=campaign)
        if request.accepted_renderer.format == "tsv":
            return Response("".join(evaluation.lines(per_topic=per_topic))
                            + "".join(board.parent_lines(evaluation, parents) if parents else ())
                            + "".join(characterisation_lines(characterised)))
        extra = [name for name in evaluation.measures if name not in REPORTED]
        means_of_parents = board.parent_table(evaluation, parents) if parents else {}

        def described(task3: bool) -> list[dict]:
            reported = TASK3_REPORTED if task3 else REPORTED
            return [{"run": row.name, "kind": row.kind, **{m: row.means.get(m) for m in reported},
                     **({"measures": {m: row.means.get(m) for m in extra}} if extra and not task3 else {}),
                     "characterisation": characterised.fractions_of(row.name),
                     "topics": row.topics, **({"per_topic": row.per_topic} if per_topic else {}),
                     **({"parents": {m: finite(v) for m, v in means_of_parents.get(row.name, {}).items()}}
                        if parents and not task3 else {})}
                    for row in scores_table(campaign=campaign, evaluation=evaluation, task3=task3)]

        data = {"judgments": evaluation.judgments, "instances": evaluation.instances, "version": evaluation.version,
                "computed_at": snapshot.computed_at, "updating": snapshot.updating,
                "qrels_topics": evaluation.qrels_topics, "all_topics": all_topics,
                "relevance_level": evaluation.relevance_level,
                "runs": described(False), "answer_runs": described(True), "llm": _llm(snapshot.llm),
                "hybrid": _hybrid(snapshots.hybrid(campaign=campaign, model=request.query_params.get("model") or None))}
        return Response(EvaluationSerializer(data).data)


class ComparisonSerializer(serializers.Serializer):
    diff = serializers.FloatField(help_text="mean of the per-topic differences, this run minus the other")
    p_ttest = serializers.FloatField()
    p_randomization = serializers.FloatField()
    p_ttest_holm = serializers.FloatField()
    p_randomization_holm = serializers.FloatField()
    significant = serializers.BooleanField(help_text="p_randomization_holm below alpha")


class RunAnalysisSerializer(serializers.Serializer):
    run = serializers.CharField()
    mean = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    vs_best = ComparisonSerializer(allow_null=True)
    vs_baseline = ComparisonSerializer(allow_null=True)


class AnalysisSerializer(serializers.Serializer):
    version = serializers.CharField()
    measure = serializers.CharField()
    best = serializers.CharField(allow_null=True)
    baseline = serializers.CharField(allow_null=True)
    alpha = serializers.FloatField()
    permutations = serializers.IntegerField()
    runs = RunAnalysisSerializer(many=True, help_text="best mean first")
    column = serializers.CharField(allow_null=True)
    groups = serializers.ListField(child=serializers.CharField())
    categories = serializers.DictField(child=serializers.DictField(child=serializers.FloatField()),
                                       help_text="run -> group -> mean over the group's topics")


def _comparison(found: Comparison | None) -> dict | None:
    if found is None:
        return None
    return {"diff": found.diff, "p_ttest": found.p_ttest, "p_randomization": found.p_randomization,
            "p_ttest_holm": found.p_ttest_holm, "p_randomization_holm": found.p_randomization_holm,
            "significant": found.p_randomization_holm < board.ALPHA}


class AnalysisApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("measure", str, description="a prime measure (default ndcg_prime) or an "
                                                                 "ir_measures name"),
                    OpenApiParameter("baseline", str, description="a run to compare every other run with"),
                    OpenApiParameter("by", str, description="a column of the campaign's topic information"),
                    OpenApiParameter("all_topics", bool, description="the means over every qrels topic")],
        responses={200: AnalysisSerializer, 202: COMPUTING_RESPONSE})
    def get(self, request, pk: int):
        """The leaderboard's analysis of one measure: each run's bootstrap 95% interval, the paired t-test and
        randomization test (Holm) against the best run and against a baseline, means per topic category. Over
        every qrels topic, a missing topic counting 0."""
        campaign = get_object_or_404(Campaign, pk=pk)
        measure = request.query_params.get("measure", "").strip() or MEASURES[0]
        snapshot = _scores(campaign, flag(request.query_params.get("all_topics")),
                           [] if measure in REPORTED else [measure])
        if snapshot.computing:
            return _computing()
        evaluation = snapshot.value
        baseline = request.query_params.get("baseline", "").strip() or None
        column = request.query_params.get("by", "").strip() or None
        info = topic_info.campaign_topic_info(campaign=campaign)
        problems = [p for p in (board.baseline_problem(evaluation, baseline), board.column_problem(info, column)) if p]
        if problems:
            raise InputError(problems)
        found = board.cached_board_analysis(evaluation, campaign_pk=campaign.pk, measure=measure, baseline=baseline,
                                            info=info, column=column)
        return Response(AnalysisSerializer({
            "version": evaluation.version, "measure": found.measure, "best": found.best, "baseline": found.baseline,
            "alpha": found.alpha, "permutations": found.permutations, "column": found.column, "groups": found.groups,
            "categories": found.categories,
            "runs": [{"run": row.run, "mean": row.mean, "ci_low": row.low, "ci_high": row.high,
                      "vs_best": _comparison(row.vs_best), "vs_baseline": _comparison(row.vs_baseline)}
                     for row in found.runs]}).data)
