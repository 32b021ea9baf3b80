"""The organizer's clients the LLM page and API tests share."""
import pytest
from rest_framework.test import APIClient


@pytest.fixture
def organizer_client(client, organizer):
    client.force_login(organizer)
    return client


@pytest.fixture
def api(organizer):
    api = APIClient()
    api.force_authenticate(organizer)
    return api
