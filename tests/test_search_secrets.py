"""Keys never leave through a schema, a result, a log line or an error, and travel only in
the header or parameter of their own service."""

from __future__ import annotations

import json
import logging

import pytest
from scripted import call_tool
from search_support import CASES, CORPUS, point_at, text

from demo.search_web import SearchWeb
from subagents import all_schemas, build_toolkit, schema_toolkit
from subagents.search.tools import search_github
from subagents.settings import ToolSettings

MARK = "Q7canary"
CANARY = {
    "GOOGLE_API_KEY": f"AIza{MARK}GoogleApiKey0001",
    "GOOGLE_CSE_ID": f"cx{MARK}SearchEngine0002",
    "BING_API_KEY": f"bing{MARK}Subscription0003",
    "GITHUB_TOKEN": f"ghp_{MARK}PersonalAccess0004",
}
OUTCOMES = ("ok", "none", "delay", "error", "429", "429-once", "consent", "captcha", "malformed")


def keys_for(case: str) -> dict[str, str]:
    """Every canary the mode allows: page modes keep one of their keys unset on purpose."""
    keys = dict(CANARY)
    if case == "google-page":
        del keys["GOOGLE_CSE_ID"]  # an API key alone must not switch modes or leak
    if case == "bing-page":
        del keys["BING_API_KEY"]
    return keys


@pytest.fixture(scope="module")
def web():
    with SearchWeb(
        CORPUS,
        google_key=CANARY["GOOGLE_API_KEY"],
        google_cx=CANARY["GOOGLE_CSE_ID"],
        bing_key=CANARY["BING_API_KEY"],
        github_token=CANARY["GITHUB_TOKEN"],
    ) as server:
        yield server


def test_schemas_hold_no_key():
    dumped = json.dumps(all_schemas(schema_toolkit("search")))
    assert MARK not in dumped
    assert not any(name in dumped for name in CANARY)


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("case", sorted(CASES))
async def test_no_key_in_results_logs_or_errors(web, monkeypatch, caplog, case, outcome):
    tool, _, route = CASES[case]
    web.clear()
    point_at(monkeypatch, web, keys_for(case))
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "subagents"):
        caplog.set_level(logging.DEBUG, logger=name)
    query = "qwxzzy" if outcome == "none" else "solar"
    if outcome == "429-once":
        web.fault(route, "429", times=1, retry_after=0)
    elif outcome not in ("ok", "none"):
        web.fault(route, outcome, delay=5.0)
    # the keys reach the tool as the Host passes them: settings read from the environment
    response = await tool(query, settings=ToolSettings.from_env())

    if outcome in ("ok", "none", "429-once"):
        assert response.metadata["status"] == "ok", text(response)
    else:
        assert response.metadata["status"] == "unavailable"
    exposed = [text(response), json.dumps(response.metadata), repr(response)]
    for record in caplog.records:
        exposed += [record.getMessage(), str(record.msg), repr(record.args), record.exc_text or ""]
    assert caplog.records, "the HTTP libraries should have logged at DEBUG"
    leaks = [line for line in exposed if MARK in line]
    assert leaks == []


async def test_rejected_token_does_not_leak(web, monkeypatch, caplog):
    web.clear()
    point_at(monkeypatch, web, {"GITHUB_TOKEN": f"ghp_{MARK}WrongValue9999"})
    caplog.set_level(logging.DEBUG)
    response = await search_github("code: MsgHub", settings=ToolSettings.from_env())
    assert response.metadata["status"] == "unavailable"
    assert "Bad credentials" in response.metadata["reason"]
    assert MARK not in text(response) + json.dumps(response.metadata)
    assert not any(MARK in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("case", sorted(CASES))
async def test_keys_travel_only_to_their_own_service(web, monkeypatch, case):
    tool, _, _ = CASES[case]
    web.clear()
    point_at(monkeypatch, web, keys_for(case))
    await tool("code: solar" if case == "github" else "solar", settings=ToolSettings.from_env())
    assert web.requests
    allowed = {  # (route, where) pairs a canary may appear in
        "GOOGLE_API_KEY": {("google-api", "header:x-goog-api-key")},
        "GOOGLE_CSE_ID": {("google-api", "query:cx"), ("google-api", "target")},
        "BING_API_KEY": {("bing-api", "header:ocp-apim-subscription-key")},
        "GITHUB_TOKEN": {("github", "header:authorization")},
    }
    for req in web.requests:
        places = [(f"header:{k}", v) for k, v in req.headers.items()]
        places += [(f"query:{k}", " ".join(v)) for k, v in req.query.items()]
        places.append(("target", req.target))
        for name, value in CANARY.items():
            for where, content in places:
                if value in content:
                    assert (req.route, where) in allowed[name], (name, req.route, where)


def test_a_toolkit_built_without_settings_reads_no_environment(web, monkeypatch):
    point_at(monkeypatch, web, {"GITHUB_TOKEN": CANARY["GITHUB_TOKEN"]})
    toolkit = build_toolkit("search")
    settings = toolkit.tools["search_github"].preset_kwargs["settings"]
    assert settings == ToolSettings() and not settings.keys and not settings.endpoints


async def test_settings_from_the_environment_are_read_once_when_built(web, monkeypatch):
    web.clear()
    point_at(monkeypatch, web, {"GITHUB_TOKEN": CANARY["GITHUB_TOKEN"]})
    toolkit = build_toolkit("search", settings=ToolSettings.from_env())
    monkeypatch.delenv("GITHUB_TOKEN")  # read when the toolkit was built, not at call time
    response = await call_tool(toolkit, "search_github", query="code: MsgHub")
    assert response.metadata["status"] == "ok", text(response)
    (req,) = web.requests_to("github")
    assert req.headers["authorization"] == f"Bearer {CANARY['GITHUB_TOKEN']}"
    assert MARK not in text(response)
