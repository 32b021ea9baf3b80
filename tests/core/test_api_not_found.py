"""An address under /api/ that no route takes answers the API's JSON 404, whatever its segments hold."""
import pytest


@pytest.mark.parametrize("segment", ["nothing", "x%0Ay", "%0A", "%E2%80%A8", "%20"])
def test_any_unknown_api_address_answers_a_json_404(client, db, segment):
    answer = client.get(f"/api/campaigns/1/runs/{segment}/")
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == {"detail": "Not found."}
