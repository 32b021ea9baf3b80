"""API tokens: issued by /api/token/ with their expiry, refused (401) once expired or revoked on the people page."""
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def token_for(username: str, password: str) -> dict:
    response = APIClient().post("/api/token/", {"username": username, "password": password}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_token_works_until_its_lifetime_ends_then_answers_401(assessor_user):
    issued = token_for("ada", "assessor-pass-1")
    assert with_token(issued["token"]).get("/api/assignments/").status_code == 200
    assert issued["expires"].startswith(str((timezone.now() + timedelta(days=30)).date()))
    Token.objects.filter(key=issued["token"]).update(created=timezone.now() - timedelta(days=31))
    expired = with_token(issued["token"]).get("/api/assignments/")
    assert expired.status_code == 401
    assert "expired" in expired.json()["detail"]
    assert expired["WWW-Authenticate"] == "Token"


def test_asking_again_after_expiry_gives_a_new_token(assessor_user):
    first = token_for("ada", "assessor-pass-1")["token"]
    assert token_for("ada", "assessor-pass-1")["token"] == first  # within its lifetime: the same one
    Token.objects.filter(key=first).update(created=timezone.now() - timedelta(days=31))
    second = token_for("ada", "assessor-pass-1")["token"]
    assert second != first
    assert with_token(second).get("/api/assignments/").status_code == 200
    assert with_token(first).get("/api/assignments/").status_code == 401


@override_settings(TOKEN_LIFETIME=timedelta(hours=1))
def test_the_lifetime_is_a_setting(assessor_user):
    key = token_for("ada", "assessor-pass-1")["token"]
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(hours=2))
    assert with_token(key).get("/api/assignments/").status_code == 401


def test_a_token_revoked_on_the_people_page_answers_401(client, organizer, assessor_user):
    key = token_for("ada", "assessor-pass-1")["token"]
    client.force_login(organizer)
    assert "Revoke token" in client.get("/people/").content.decode()
    assert "Revoke the API token of ada?" in client.get(f"/people/{assessor_user.pk}/revoke/").content.decode()
    response = client.post(f"/people/{assessor_user.pk}/revoke/", follow=True)
    assert "ada&#x27;s API token revoked." in response.content.decode()
    assert with_token(key).get("/api/assignments/").status_code == 401


def test_a_deactivated_account_loses_its_token(client, organizer, assessor_user):
    key = token_for("ada", "assessor-pass-1")["token"]
    client.force_login(organizer)
    client.post(f"/people/{assessor_user.pk}/deactivate/")
    assert with_token(key).get("/api/assignments/").status_code == 401
    assert APIClient().post("/api/token/", {"username": "ada", "password": "assessor-pass-1"}).status_code == 400
