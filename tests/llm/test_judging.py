"""llm_judge against a chat-completions server of the test's own: what is sent, what is stored, what is retried."""
from __future__ import annotations

import json
import logging
import re

import pytest
from django.core import serializers
from django.db import connection

from ir.problems import InputError
from llm import services
from llm.client import EndpointSettings
from llm.models import Canary, LlmGrade, Prompt
from pooling.models import PoolInstance
from tests.llm.server import Answer, ChatServer

pytestmark = pytest.mark.django_db


def settings_for(server: ChatServer, **more) -> EndpointSettings:
    return EndpointSettings(**{"base_url": server.url, "model": "test-model", "retries": 2, "timeout": 5.0, **more})


def grades(campaign) -> dict[str, int | None]:
    return {f"{g.topic.topic_id}/{g.item_id}{'/' + g.formula_id if g.formula_id else ''}": g.grade
            for g in LlmGrade.objects.filter(campaign=campaign, canary__isnull=True).select_related("topic")}


def test_grades_are_parsed_and_stored_with_their_provenance(answers):
    by_item = {"It is": "M: 2\n##final score: 3", "Riemann": "##final score: 1"}

    def answer(prompt, n):
        return Answer(next((text for needle, text in by_item.items() if needle in prompt), "##final score: 0"))

    with ChatServer(answer) as server:
        result = services.llm_judge(campaign=answers, settings=settings_for(server))
    # A.2's item 99 is not in the collection: nothing sent for it, and no failure to try again: it is missing.
    assert server.requests == 4
    assert grades(answers) == {"A.1/10": 3, "A.1/11": 0, "A.1/12": 1, "A.2/20": 0, "A.2/99": None}
    assert (result.judged, result.failed, result.missing, result.skipped) == (4, 0, 1, 0)
    from llm.tasks import llm_judge_summary
    said = llm_judge_summary(result.as_json())
    assert said.startswith("Judged 4 items with test-model, 0 failures (tried again by the next run), 1 item whose "
                           "text the collection lacks (not sent, and not until its text is loaded), 0 already graded")
    stored = LlmGrade.objects.get(item_id="10")
    assert stored.model == "test-model" and str(stored.prompt) == "umbrela-bing v1"
    assert stored.replies == ["M: 2\n##final score: 3"] and stored.sample_grades == [3]
    assert stored.tokens_in > 100 and stored.tokens_out == 5 and stored.latency > 0
    assert result.tokens_in == sum(g.tokens_in for g in LlmGrade.objects.all())
    assert "not in the collection" in LlmGrade.objects.get(item_id="99").failure


def test_the_prompt_holds_topic_and_item_as_text_with_their_latex(answers):
    with ChatServer() as server:
        services.llm_judge(campaign=answers, settings=settings_for(server), topics=["A.1"])
    [prompt] = [prompt for prompt in server.prompts if "power rule" in prompt]
    assert "Query: How do I integrate $x^2$?\n\nI need $\\int x^2$ explained." in prompt
    assert "Passage: It is $\\frac{1}{3}$ by the power rule." in prompt
    assert "<p>" not in prompt and "##final score: score" in prompt


def test_unparseable_replies_are_failures_with_their_text_and_tried_again(answers):
    with ChatServer(lambda prompt, n: Answer("This passage seems relevant.")) as server:
        result = services.llm_judge(campaign=answers, settings=settings_for(server), topics=["A.1"])
    assert (result.judged, result.failed) == (0, 3)
    failure = LlmGrade.objects.get(item_id="10")
    assert failure.grade is None and failure.replies == ["This passage seems relevant."]
    assert "no grade in the reply" in failure.failure
    with ChatServer() as server:
        again = services.llm_judge(campaign=answers, settings=settings_for(server), topics=["A.1"])
    assert server.requests == 3 and again.judged == 3
    assert grades(answers) == {"A.1/10": 2, "A.1/11": 2, "A.1/12": 2}


def test_a_rerun_sends_nothing_for_what_this_model_and_prompt_version_graded(answers):
    with ChatServer() as server:
        services.llm_judge(campaign=answers, settings=settings_for(server))
        first = server.requests
        rerun = services.llm_judge(campaign=answers, settings=settings_for(server))
        assert server.requests == first == 4
        assert (rerun.judged, rerun.skipped) == (0, 4)
        services.llm_judge(campaign=answers, settings=settings_for(server, model="other-model"))
        assert server.requests == 8
        edited = services.prompt_edit(prompt=services.prompt_default(task="answers"),
                                      text="Q {query}\nP {passage}\n##final score: N")
        assert edited.version == 2
        services.llm_judge(campaign=answers, settings=settings_for(server), prompt=edited)
        assert server.requests == 12
    assert LlmGrade.objects.filter(model="test-model").count() == 10  # 5 per prompt version, 99 a failure each


def test_429_with_retry_after_is_waited_for_and_retried(answers):
    def answer(prompt, n):
        return Answer("rate limited", status=429, headers={"Retry-After": "1"}) if n == 0 else Answer()

    with ChatServer(answer) as server:
        result = services.llm_judge(campaign=answers, settings=settings_for(server), topics=["A.1"],
                                    limit_per_topic=1)
    assert server.requests == 2 and result.judged == 1
    # The client's own backoff without the header is at most 0.5 s here; it waited the second asked for.
    assert server.times[1] - server.times[0] >= 1.0


def test_5xx_is_retried_and_a_lasting_one_is_a_failure(answers):
    with ChatServer(lambda prompt, n: Answer("overloaded", status=503) if n < 2 else Answer()) as server:
        result = services.llm_judge(campaign=answers, settings=settings_for(server, retries=2), topics=["A.1"],
                                    limit_per_topic=1)
    assert server.requests == 3 and result.judged == 1
    with ChatServer(lambda prompt, n: Answer("broken", status=500)) as server:
        result = services.llm_judge(campaign=answers, settings=settings_for(server, retries=1, model="m2"),
                                    topics=["A.1"], limit_per_topic=1)
    assert server.requests == 2 and result.failed == 1
    assert LlmGrade.objects.get(model="m2").failure.startswith("HTTP 500 after 2 tries")


def test_a_timeout_is_a_failure_after_the_retries(answers):
    with ChatServer(lambda prompt, n: Answer(delay=1.0)) as server:
        result = services.llm_judge(campaign=answers, settings=settings_for(server, timeout=0.2, retries=1),
                                    topics=["A.1"], limit_per_topic=1)
    assert server.requests == 2 and result.failed == 1
    assert LlmGrade.objects.get().failure == "timed out after 0.2 s, 2 tries"


def test_samples_and_their_majority_ties_going_lower(answers):
    replies = {"10": ["##final score: 3", "##final score: 2", "##final score: 3"],
               "11": ["##final score: 3", "##final score: 1", "nothing"],
               "12": ["nothing", "nothing", "nothing"]}
    seen: dict[str, int] = {}

    def answer(prompt, n):
        item = "10" if "power rule" in prompt else "11" if "Wikipedia" in prompt else "12"
        seen[item] = seen.get(item, 0) + 1
        return Answer(replies[item][seen[item] - 1])

    with ChatServer(answer) as server:
        services.llm_judge(campaign=answers, settings=settings_for(server, samples=3, concurrency=1),
                           topics=["A.1"])
    assert server.requests == 9
    assert grades(answers) == {"A.1/10": 3, "A.1/11": 1, "A.1/12": None}
    assert LlmGrade.objects.get(item_id="11").sample_grades == [3, 1, None]
    assert "no grade in any of the 3 replies" in LlmGrade.objects.get(item_id="12").failure


def test_concurrency_is_never_exceeded(answers, task3):
    with ChatServer(lambda prompt, n: Answer(delay=0.05)) as server:
        services.llm_judge(campaign=task3, settings=settings_for(server, concurrency=2, samples=3))
    assert server.requests == 3 * 7  # A.1: 10, 11, 12, d_1, d_3; A.2: 20, d_2 (99 is not in the collection)
    assert server.most_in_flight == 2


def test_task3_answers_take_the_task3_prompt(task3):
    with ChatServer() as server:
        services.llm_judge(campaign=task3, settings=settings_for(server), topics=["A.2"])
    prompts = {str(g.prompt) for g in LlmGrade.objects.filter(item_id="d_2")}
    assert prompts == {"arqmath-task3 v1"}
    assert any("Answer: Because $e^{i\\pi}=-1$." in prompt for prompt in server.prompts)


def test_formulas_are_judged_per_selected_instance(formulas):
    with ChatServer() as server:
        services.llm_judge(campaign=formulas, settings=settings_for(server))
    selected = set(PoolInstance.objects.filter(item__campaign=formulas, selected=True)
                   .values_list("item__item_id", "formula_id"))
    assert {(g.item_id, g.formula_id) for g in LlmGrade.objects.all()} == selected
    assert server.requests == len(selected)
    # The topic has no <Latex>: the query formula is its span in the question.
    assert all("Query formula: $e^{i\\pi}+1=0$" in prompt and "Candidate formula: $x$" in prompt
               for prompt in server.prompts)


def test_the_key_is_read_from_the_environment_and_found_nowhere(answers, monkeypatch, caplog, capsys):
    secret = "sk-test-5ecret-value-0123456789"
    monkeypatch.setenv("ASSESS_LLM_KEY_TEST", secret)
    caplog.set_level(logging.DEBUG)
    # The server echoes what it was sent, the key with it, into a failure and a reply.
    with ChatServer(lambda prompt, n: Answer(f"echo {secret}", status=400) if n == 0
                    else Answer(f"key {secret}\n##final score: 1")) as server:
        services.llm_judge(campaign=answers, settings=settings_for(server, api_key_env="ASSESS_LLM_KEY_TEST"),
                           topics=["A.1"])
    assert set(server.keys) == {f"Bearer {secret}"}
    out = capsys.readouterr()
    assert secret not in caplog.text and secret not in out.out + out.err
    dumped = serializers.serialize("json", [*LlmGrade.objects.all(), *Prompt.objects.all()])
    assert secret not in dumped and "[key]" in dumped
    with connection.cursor() as cursor:
        for table in ("llm_endpoint", "llm_llmgrade", "llm_prompt", "llm_canary", "pooling_job"):
            cursor.execute(f"SELECT * FROM {table}")
            assert secret not in json.dumps(cursor.fetchall(), default=str)


def test_a_key_named_but_not_set_sends_nothing(answers, monkeypatch):
    monkeypatch.delenv("ASSESS_LLM_KEY_UNSET", raising=False)
    with ChatServer() as server, pytest.raises(Exception, match="ASSESS_LLM_KEY_UNSET.*not set"):
        services.llm_judge(campaign=answers, settings=settings_for(server, api_key_env="ASSESS_LLM_KEY_UNSET"))
    assert server.requests == 0 and not LlmGrade.objects.exists()


def test_a_key_given_instead_of_its_variable_is_refused_and_not_repeated(answers):
    with ChatServer() as server, pytest.raises(InputError) as info:
        services.llm_judge(campaign=answers, settings=settings_for(server, api_key_env="sk-pasted-key-value"))
    assert server.requests == 0 and "sk-pasted" not in " ".join(info.value.messages())
    assert "not the name of an environment variable" in info.value.messages()[0]


def test_no_key_named_sends_a_placeholder(answers):
    with ChatServer() as server:
        services.llm_judge(campaign=answers, settings=settings_for(server), topics=["A.2"])
    assert set(server.keys) == {"Bearer no-key"}


def test_cancel_stops_between_batches_and_keeps_what_was_judged(answers, monkeypatch):
    monkeypatch.setattr(services, "BATCH_SECONDS", 0.05)

    def cancelled():  # the organizer cancels once the first grades are stored
        return LlmGrade.objects.exists()

    with ChatServer(lambda prompt, n: Answer(delay=0.1)) as server:
        result = services.llm_judge(campaign=answers, settings=settings_for(server, concurrency=1),
                                    cancelled=cancelled)
    assert result.cancelled
    stored = LlmGrade.objects.count()
    assert 1 <= stored < 5 and result.judged + result.failed + result.missing == stored
    with ChatServer() as server:
        rest = services.llm_judge(campaign=answers, settings=settings_for(server))
    assert rest.skipped == stored - result.failed - result.missing and LlmGrade.objects.count() == 5


def test_canaries_copy_official_zeros_and_are_judged(answers):
    with ChatServer(lambda prompt, n: Answer("##final score: 3" if "perfectly relevant" in prompt
                                             else "##final score: 0")) as server:
        result = services.llm_judge(campaign=answers, settings=settings_for(server), canaries=1,
                                    official_zeros={"A.1": ["12"]})
    assert result.canary_sources == {"A.1": "official", "A.2": "llm"}
    canaries = {(c.topic.topic_id, c.source_item_id, c.kind) for c in Canary.objects.select_related("topic")}
    assert canaries == {("A.1", "12", "stuffed"), ("A.1", "12", "instruction"), ("A.2", "20", "stuffed"),
                        ("A.2", "20", "instruction")}
    stuffed = Canary.objects.get(topic__topic_id="A.1", kind="stuffed").text
    assert "Riemann sums" in stuffed and "integrate" in stuffed
    flipped = {c.kind: c.grades.get().grade for c in Canary.objects.filter(topic__topic_id="A.1")}
    assert flipped == {"stuffed": 0, "instruction": 3}
    assert not answers.pool_items.filter(item_id__startswith="canary").exists()
    requests = server.requests
    with ChatServer() as server:
        again = services.llm_judge(campaign=answers, settings=settings_for(server), canaries=1,
                                   official_zeros={"A.1": ["12"]})
    assert server.requests == 0 and again.canaries_created == 0 and requests == 4 + 4


def test_unknown_topics_and_prompts_are_refused(answers):
    with pytest.raises(Exception, match=re.escape("topic 'A.9' is not a topic")):
        services.llm_judge(campaign=answers, settings=EndpointSettings(base_url="http://127.0.0.1:9/v1", model="m"),
                           topics=["A.9"])
    with pytest.raises(Exception, match="no prompt named 'nope'"):
        services.prompt_named(name="nope")
    with pytest.raises(Exception, match="formulas prompt|Task 2 formulas prompt"):
        services.llm_judge(campaign=answers, settings=EndpointSettings(base_url="http://127.0.0.1:9/v1", model="m"),
                           prompt=services.prompt_default(task="formulas"))


def test_formula_canaries_copy_the_post_of_a_zero_graded_formula(formulas):
    with ChatServer(lambda prompt, n: Answer("##final score: 0")) as server:
        result = services.llm_judge(campaign=formulas, settings=settings_for(server), canaries=1)
    assert result.canary_sources == {"B.1": "llm"} and result.canaries_created == 2
    source = Canary.objects.first().source_item_id
    graded = LlmGrade.objects.filter(canary__isnull=False)
    assert graded.count() == 2 and {g.item_id for g in graded} == {source}
    instance = PoolInstance.objects.filter(item__campaign=formulas, item__item_id=source, selected=True).order_by(
        "-vote", "formula_id").first()
    assert {g.formula_id for g in graded} == {instance.formula_id}
    planted = [prompt for prompt in server.prompts if "perfectly relevant" in prompt]
    assert len(planted) == 1 and "Candidate formula: $x$" in planted[0]


def test_a_prompt_version_is_chosen_by_name_at_version(answers):
    first = services.prompt_default(task="answers")
    second = services.prompt_edit(prompt=first, text="{query} {passage} ##final score: N")
    assert services.prompt_named(name="umbrela-bing") == second
    assert services.prompt_named(name="umbrela-bing@1") == first
    assert services.prompt_edit(prompt=first, text=second.text) == second  # the same text makes nothing new
    with pytest.raises(InputError, match="no prompt named 'umbrela-bing@7'"):
        services.prompt_named(name="umbrela-bing@7")
    with pytest.raises(InputError, match=re.escape("must name {passage}")):
        services.prompt_edit(prompt=first, text="only {query}")
