"""A run's page: every topic it retrieved has its row, and each mean in the footer is over the rows it says."""
import re

from django.core.cache import cache
from django.urls import reverse

from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
from tests.pooling.run_files import ingest, task1_lines


def test_a_topic_with_nothing_judged_retrieved_has_its_unjudged_row_under_the_mean(judged_answers, tmp_path,  # noqa: F811
                                                                                  client, organizer):
    cache.clear()
    # A.1: post 10, judged; A.2: post 99 only, which its assessor marked DK (unjudged): nothing judged retrieved.
    run = ingest(judged_answers, tmp_path, "r3", task1_lines("A.1", ["10"], "r3") + task1_lines("A.2", ["99"], "r3"))
    client.force_login(organizer)
    page = client.get(reverse("evaluation:run_scores", args=[judged_answers.pk, run.pk])).content.decode()
    body = page.split("<tbody>")[1].split("</tbody>")[0]
    rows = {cells[0]: cells[2:] for cells in (re.findall(r"<td[^>]*>(.*?)</td>", row)
                                               for row in body.split("</tr>") if "<td" in row)}
    assert rows == {"A.1": ["1.0000", "1.0000", "0.1000", "0.0000"], "A.2": ["n/a", "n/a", "n/a", "1.0000"]}
    foot = page.split("<tfoot>")[1].split("</tfoot>")[0]
    assert "Mean of 1 (Unjudged@10: of 2)" in foot
    assert re.findall(r'<td class="num">(.*?)</td>', foot) == ["1.0000", "1.0000", "0.1000", "0.5000"]
