"""The OpenAPI schema's generator (drf-spectacular's), made to tell the whole truth about answers: besides the
successes each view declares, the error answers every operation can give (a 400 for input, 401/403 for who asks,
404 for an id, 413 for an upload's size, 415 for a body's content type), with the error body's shape.
tests/security/test_schemathesis.py holds the schema to the answers the service really gives."""
from __future__ import annotations

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from rest_framework.permissions import AllowAny

# {"detail": "..."} (DRF's errors), {"detail": "rejected input", "problems": [...]} (InputError), or a serializer's
# field errors ({"field": ["..."]}): an object in every case.
ERROR_BODY = {
    "type": "object",
    "properties": {
        "detail": {"type": "string"},
        "problems": {"type": "array", "items": {"type": "string"}, "description": "every problem, with its line"},
    },
    "additionalProperties": {},
}
MULTIPART = "multipart/form-data"


TEXT = {"type": "string"}


class AutoSchema(SpectacularAutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        # An error comes in the format asked for: JSON, or the text of a TSV download (core.api.TSVRenderer).
        content = {media: {"schema": ERROR_BODY if "json" in media else TEXT}
                   for media in self.map_renderers("media_type")}

        def error(description: str) -> dict:
            return {"description": description, "content": content}

        responses = operation.setdefault("responses", {})
        parameters = operation.get("parameters", [])
        body = operation.get("requestBody")
        if body or any(p["in"] == "query" for p in parameters):
            responses.setdefault("400", error("the input is refused: what is wrong, and where"))
        if not any(isinstance(p, AllowAny) for p in self.view.get_permissions()):
            responses.setdefault("401", error("no valid credentials (a token or a signed-in session)"))
            responses.setdefault("403", error("not allowed to this user (most routes are organizers' only)"))
        if body:  # DRF's answer to a body in a content type none of the view's parsers reads
            responses.setdefault("415", error("the request body's content type is not one this operation reads"))
        if any(p["in"] == "path" for p in parameters):
            responses.setdefault("404", error("no such object (or it is not yours)"))
        for code, response in responses.items():  # an error a view declares by its description only
            if str(code).startswith("4") and "content" not in response:
                response["content"] = content
        if body and MULTIPART in body.get("content", {}):
            responses.setdefault("413", {"description": "the request body is larger than the upload limit",
                                         "content": {"text/plain": {"schema": {"type": "string"}}}})
        return operation
