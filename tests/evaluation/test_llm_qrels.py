"""export_qrels --source people|llm[:MODEL]|combined (issue 26, point 4): the LLM's qrels alone, people's filled with
the LLM's where no person judged and each line's source in a side file; the web download and the API with the same
choices. LLM grades never reach the official qrels."""
import pytest
from django.urls import reverse

from judging import services
from llm.models import Endpoint
from tests.commands import command_output, rejected
from tests.factories import CanaryFactory, LlmGradeFactory

pytestmark = pytest.mark.django_db

MODEL = "qwen2.5:7b"  # a model name with a colon, as Ollama's are: llm:qwen2.5:7b


def llm_grade(**fields):
    """An LLM grade by MODEL unless another model is named."""
    return LlmGradeFactory(**{"model": MODEL, **fields})

TOPIC = {"10": "A.1", "11": "A.1", "12": "A.1", "20": "A.2", "99": "A.2", "55": "A.1"}


def grade(campaign, grades, model="qwen2.5:7b"):
    topics = {t.topic_id: t for t in campaign.topics.all()}
    for item, value in grades.items():
        llm_grade(topic=topics[TOPIC[item]], item_id=item, grade=value, model=model)


@pytest.fixture
def mixed(answers):
    """ada judged A.1 officially: 10 High, 11 System failure (a person looked: not filled), 12 not yet. The model
    graded every pool item, failed on none, and graded 55, which the pools no longer hold (a rebuild)."""
    lines = ["ada\tA.1\t10\t3\t\tofficial", "ada\tA.1\t11\tSF\tbroken\tofficial"]
    services.judgments_import(campaign=answers, lines=lines)
    grade(answers, {"10": 1, "11": 3, "12": 2, "20": 0, "99": 1, "55": 3})
    a1 = answers.topics.get(topic_id="A.1")
    canary = CanaryFactory(topic=a1, source_item_id="12")
    llm_grade(topic=a1, item_id="12", canary=canary, grade=3)  # a canary is never a qrels line
    return answers


def test_people_is_todays_official_qrels(mixed):
    default, _ = command_output("export_qrels", "--campaign", "answers")
    people, _ = command_output("export_qrels", "--campaign", "answers", "--source", "people")
    assert default == people == "A.1\t0\t10\t3\n"


def test_llm_source_writes_the_models_grades_alone(mixed):
    out, err = command_output("export_qrels", "--campaign", "answers", "--source", "llm")
    assert out.splitlines() == ["A.1\t0\t10\t1", "A.1\t0\t11\t3", "A.1\t0\t12\t2", "A.1\t0\t55\t3",
                                "A.2\t0\t20\t0", "A.2\t0\t99\t1"]
    assert "6 LLM grades in 2 topics" in err
    named, _ = command_output("export_qrels", "--campaign", "answers", "--source", "llm:qwen2.5:7b")
    assert named == out


def test_llm_source_takes_the_endpoints_model_by_default(mixed):
    grade(mixed, {"10": 0}, model="gpt-4o")
    assert any("several models" in line for line in rejected("export_qrels", "--campaign", "answers", "--source",
                                                               "llm"))
    Endpoint.objects.create(campaign=mixed, base_url="http://127.0.0.1:1/v1", model="gpt-4o")
    out, _ = command_output("export_qrels", "--campaign", "answers", "--source", "llm")
    assert out == "A.1\t0\t10\t0\n"


def test_unknown_sources_and_models_are_refused(mixed):
    assert any("graded nothing" in line for line in rejected("export_qrels", "--campaign", "answers", "--source",
                                                               "llm:nobody"))
    assert any("unknown source" in line for line in rejected("export_qrels", "--campaign", "answers", "--source",
                                                               "robots"))
    assert any("round" in line for line in rejected("export_qrels", "--campaign", "answers", "--source", "llm",
                                                    "--round", "1"))


def test_combined_fills_unjudged_pool_items_and_lists_each_source(mixed, tmp_path):
    output = tmp_path / "combined.qrels"
    _, err = command_output("export_qrels", "--campaign", "answers", "--source", "combined", "-o", str(output))
    # 10: ada's 3 (not the LLM's 1); 11: ada said SF, so a person looked: left out, not filled; 12, 20, 99: the
    # LLM's; 55: not in the pools, not filled.
    assert output.read_text().splitlines() == ["A.1\t0\t10\t3", "A.1\t0\t12\t2", "A.2\t0\t20\t0", "A.2\t0\t99\t1"]
    sources = (tmp_path / "combined.qrels.sources").read_text().splitlines()
    assert sources == ["topic\titem_id\tsource", "A.1\t10\tpeople", "A.1\t12\tllm:qwen2.5:7b",
                       "A.2\t20\tllm:qwen2.5:7b", "A.2\t99\tllm:qwen2.5:7b"]
    assert "combined.qrels.sources" in err
    # The official qrels are unchanged by it.
    official, _ = command_output("export_qrels", "--campaign", "answers")
    assert official == "A.1\t0\t10\t3\n"


def test_combined_with_complete_keeps_the_persons_marks_and_min_relevant_filters_sources(mixed, tmp_path):
    output, side = tmp_path / "q", tmp_path / "side.tsv"
    command_output("export_qrels", "--campaign", "answers", "--source", "combined", "--complete", "-o", str(output),
                   "--sources", str(side))
    assert "A.1\t0\t11\t5" in output.read_text().splitlines()
    assert "A.1\t11\tpeople" in side.read_text().splitlines()
    # A.2 has no relevant item (0 and 1): the filter leaves it out of both files.
    command_output("export_qrels", "--campaign", "answers", "--source", "combined", "--min-relevant", "1",
                   "-o", str(output), "--sources", str(side))
    assert [line.split("\t")[0] for line in output.read_text().splitlines()] == ["A.1", "A.1"]
    assert side.read_text().splitlines()[1:] == ["A.1\t10\tpeople", "A.1\t12\tllm:qwen2.5:7b"]


def test_combined_needs_a_place_for_its_sources(mixed):
    assert any("-o FILE" in line for line in rejected("export_qrels", "--campaign", "answers", "--source",
                                                      "combined"))


def test_formula_llm_qrels_take_the_highest_grade_of_the_instances(formulas):
    b1 = formulas.topics.get(topic_id="B.1")
    llm_grade(topic=b1, item_id="100", formula_id="1", grade=1)
    llm_grade(topic=b1, item_id="100", formula_id="2", grade=3)
    llm_grade(topic=b1, item_id="300", formula_id="3", grade=0)
    visual, _ = command_output("export_qrels", "--campaign", "formulas", "--source", "llm")
    assert visual.splitlines() == ["B.1\t0\t100\t3", "B.1\t0\t300\t0"]
    instance, _ = command_output("export_qrels", "--campaign", "formulas", "--source", "llm", "--level", "instance")
    assert instance.splitlines() == ["B.1\t0\t1\t1", "B.1\t0\t2\t3", "B.1\t0\t3\t0"]


def test_web_download_and_api_offer_the_same_sources(mixed, client, organizer):
    client.force_login(organizer)
    url = reverse("evaluation:qrels", args=[mixed.pk])
    page = client.get(reverse("evaluation:leaderboard", args=[mixed.pk]))
    assert b'value="combined:qwen2.5:7b"' in page.content and b'value="llm:qwen2.5:7b"' in page.content
    response = client.get(url, {"source": "combined:qwen2.5:7b"})
    assert response.status_code == 200
    assert b"".join(response.streaming_content).decode().splitlines()[1] == "A.1\t0\t12\t2"
    assert "combined-qwen2.5-7b" in response["Content-Disposition"]
    sources = client.get(url, {"source": "combined", "sources": "1"})
    assert b"".join(sources.streaming_content).decode().splitlines()[:2] == ["topic\titem_id\tsource",
                                                                            "A.1\t10\tpeople"]
    assert client.get(url, {"source": "llm:nobody"}).status_code == 400
    api = client.get(f"/api/campaigns/{mixed.pk}/qrels/", {"source": "llm", "format": "tsv"})
    assert api.status_code == 200
    assert b"".join(api.streaming_content).decode().count("\n") == 6
    api_sources = client.get(f"/api/campaigns/{mixed.pk}/qrels/", {"source": "combined", "sources": "true",
                                                                   "format": "tsv"})
    assert b"llm:qwen2.5:7b" in b"".join(api_sources.streaming_content)
    assert client.get(f"/api/campaigns/{mixed.pk}/qrels/", {"source": "robots"}).status_code == 400
