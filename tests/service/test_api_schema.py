"""The OpenAPI document the real server serves is true: schemathesis generates requests for every
operation from it (valid ones and invalid ones), sends them with a verified user's token and then with an
API key, and checks that nothing is a server error, that every status is a documented one, and that every
answer matches its documented schema. Bounded and deterministic: a fixed number of examples per operation,
derandomized, no shrinking."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .conftest import RunningService

MAX_EXAMPLES = 30
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
FUZZ = settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure is reported as first found
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture(scope="module")
def schema(service: RunningService) -> Any:
    return schemathesis.openapi.from_url(f"{service.url}/openapi.json")


def fuzz(service: RunningService, schema: Any, token: str) -> tuple[list[str], int]:
    """Runs every operation in both generation modes; returns the failures and the requests sent."""
    headers = {"Authorization": f"Bearer {token}"}
    failures: list[str] = []
    sent = [0]
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            run = _runner(service, operation, mode, headers, failures, sent)
            try:
                run()
            except Unsatisfiable:  # nothing to make invalid (an operation without inputs)
                assert mode is GenerationMode.NEGATIVE, operation.label
    return failures, sent[0]


def _runner(
    service: RunningService,
    operation: Any,
    mode: GenerationMode,
    headers: dict[str, str],
    failures: list[str],
    sent: list[int],
) -> Callable[[], None]:
    @FUZZ
    @given(operation.as_strategy(generation_mode=mode, headers=headers))
    def run(case: Any) -> None:
        sent[0] += 1
        try:
            case.call_and_validate(base_url=service.url, headers=headers, checks=CHECKS)
        except BaseException as exc:  # schemathesis raises a BaseExceptionGroup of failures
            if isinstance(exc, KeyboardInterrupt):
                raise
            failures.append(f"{operation.label} [{mode.value}]\n{str(exc)[:1500]}")

    return run


def test_the_document_names_every_route(service: RunningService) -> None:
    with service.client() as http:
        doc = http.get("/openapi.json").json()
    paths = set(doc["paths"])
    for path in (
        "/api/v1/memory/remember",
        "/api/v1/memory/recall",
        "/api/v1/memory/open",
        "/api/v1/memory/list",
        "/api/v1/memory/forget",
        "/api/v1/memory/store",
        "/api/v1/memory/fetch",
        "/api/v1/memory/get",
        "/api/v1/memory/explore",
        "/api/v1/memory/tools",
        "/api/v1/memory/tools/call",
        "/api/v1/memory/context",
        "/api/v1/memory/ingest",
        "/api/v1/memory/tool-guidance",
        "/api/v1/agents",
        "/api/v1/agents/{name}",
        "/healthz",
        "/readyz",
        "/metrics",
    ):
        assert path in paths, path
    assert doc["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            assert "422" not in operation["responses"], f"{method} {path}: the service never answers 422"
            if path.startswith("/api/v1/memory/"):  # each memory operation documents the bearer header
                assert operation["security"] == [{"HTTPBearer": []}], f"{method} {path}"


@pytest.mark.parametrize("who", ["user", "api-key"])
def test_every_operation_keeps_its_documented_contract(
    service: RunningService, schema: Any, who: str
) -> None:
    token = service.token("fuzz", "fiona") if who == "user" else service.token("fuzz", None)
    with service.client(token) as http:  # something to find, so reads answer with items too
        if who == "user":
            http.post("/api/v1/memory/remember", json={"content": "Fiona likes string theory"})
            http.post("/api/v1/memory/store", json={"document": {"title": "T", "text": "string text"}})
        else:
            http.post("/api/v1/memory/ingest", json={"name": "doc.md", "text": "# Strings\n\nA string."})
            http.put("/api/v1/agents/string", json={"notes": "strings"})
    failures, sent = fuzz(service, schema, token)
    assert sent >= 20 * MAX_EXAMPLES  # every operation ran (both modes where they exist)
    assert not failures, f"{len(failures)} failing runs:\n\n" + "\n\n".join(failures[:10])
