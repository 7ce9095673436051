"""GitHub: REST search of repositories (default), code, or issues and pull requests.

``GET {base}/search/{repositories|code|issues}?q=…&per_page=10`` where ``base`` is the
REST API root: ``https://api.github.com`` by default, ``https://<host>/api/v3`` for GitHub
Enterprise Server (set ``QUARTET_GITHUB_URL`` to that full root). ``GITHUB_TOKEN`` is sent
as ``Authorization: Bearer`` when set; code search needs it. Answers are
``{"total_count", "incomplete_results", "items": [...]}``; with the text-match media type
items carry ``text_matches[].fragment``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx

from ...settings import ToolSettings
from ..http import API_USER_AGENT, SearchUnavailable, get, json_body
from ..render import MAX_RESULTS, Item, clean
from ..run import run_source
from ..sources import Source

if TYPE_CHECKING:
    from agentscope.tool import ToolResponse

#: How messages name the source.
LABEL = "GitHub"
API_BASE = "https://api.github.com"

_PREFIX = re.compile(
    r"^\s*(?P<kind>code|issues?|prs?|pulls?|pull-requests?|repos|repositories)\s*:\s*", re.I
)
_ISSUE_QUALIFIERS = re.compile(
    r"(?:^|\s)(?:is:(?:issue|pr|pull-request|open|closed|merged)|type:(?:issue|pr)|"
    r"(?:label|assignee|author|mentions|commenter|involves|state|milestone):)",
    re.I,
)
_KIND_QUALIFIER = re.compile(r"(?:^|\s)(?:is:(?:issue|pr|pull-request)|type:(?:issue|pr))", re.I)
_CODE_QUALIFIERS = re.compile(r"(?:^|\s)(?:path|filename|extension|symbol):", re.I)


@dataclass(frozen=True)
class Route:
    """Which search endpoint a query goes to, and the ``q`` sent there."""

    kind: str
    q: str


def route(query: str) -> Route:
    """Pick the endpoint from a ``code:`` / ``issues:`` / ``prs:`` prefix or the qualifiers used."""
    match = _PREFIX.match(query)
    if match:
        word, rest = match.group("kind").lower(), query[match.end() :].strip()
        if word == "code":
            return Route("code", rest)
        if word.startswith(("repo", "repositories")):
            return Route("repositories", rest)
        if not _KIND_QUALIFIER.search(rest):
            rest = f"{rest} {'is:issue' if word.startswith('issue') else 'is:pr'}".strip()
        return Route("issues", rest)
    if _ISSUE_QUALIFIERS.search(query):
        q = query if _KIND_QUALIFIER.search(query) else f"{query} is:issue"
        return Route("issues", q.strip())
    if _CODE_QUALIFIERS.search(query):
        return Route("code", query.strip())
    return Route("repositories", query.strip())


def _api_error(response: httpx.Response) -> str | None:
    message = response.json().get("message")
    return str(message) if message else None


async def search(client: httpx.AsyncClient, query: str, settings: ToolSettings) -> list[Item]:
    """Search the endpoint the query asks for."""
    target = route(query)
    if not target.q:
        raise SearchUnavailable(f"{LABEL}: nothing left to search after the {target.kind}: prefix")
    token = settings.keys.get_key("GITHUB_TOKEN")
    headers = {
        "Accept": "application/vnd.github.text-match+json",
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": API_USER_AGENT,
    }
    if token:
        headers["Authorization"] = f"Bearer {token}"
    url = f"{settings.endpoint('github', API_BASE)}/search/{target.kind}"
    try:
        response = await get(
            client,
            url,
            source=LABEL,
            params={"q": target.q, "per_page": MAX_RESULTS},
            headers=headers,
            follow_redirects=not token,
            describe_error=_api_error,
        )
    except SearchUnavailable as exc:
        if token or not any(f"HTTP {c}" in exc.reason for c in (401, 403)):
            raise
        hint = (
            "code search needs GITHUB_TOKEN; search repositories or issues instead"
            if target.kind == "code"
            else "setting GITHUB_TOKEN raises GitHub's rate limit"
        )
        raise SearchUnavailable(f"{exc.reason} ({hint})") from None
    data = json_body(response, LABEL)
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise SearchUnavailable(f"{LABEL} returned JSON without an items list")
    parse = {"repositories": _repository, "code": _code, "issues": _issue}[target.kind]
    return [parse(it) for it in data["items"] if isinstance(it, dict)]


def _fragments(item: dict) -> str:
    matches = item.get("text_matches") or []
    return " … ".join(clean(m.get("fragment")) for m in matches if isinstance(m, dict))


def _repository(item: dict) -> Item:
    facts = [f"★{item.get('stargazers_count', 0)}"]
    if item.get("language"):
        facts.append(str(item["language"]))
    if item.get("updated_at"):
        facts.append(f"updated {str(item['updated_at'])[:10]}")
    description = clean(item.get("description")) or _fragments(item)
    snippet = f"{description} ({', '.join(facts)})" if description else ", ".join(facts)
    return Item(clean(item.get("full_name")), str(item.get("html_url") or ""), snippet)


def _code(item: dict) -> Item:
    repo = (item.get("repository") or {}).get("full_name", "")
    title = f"{repo}: {item.get('path', item.get('name', ''))}"
    return Item(clean(title), str(item.get("html_url") or ""), _fragments(item))


def _issue(item: dict) -> Item:
    repo = "/".join(str(item.get("repository_url", "")).rstrip("/").split("/")[-2:])
    kind = "pull request" if item.get("pull_request") else "issue"
    where = f"{repo}#{item.get('number', '?')}, {kind}, {item.get('state', '?')}"
    title = f"{item.get('title', '')} ({where})"
    snippet = clean(item.get("body")) or _fragments(item)
    return Item(clean(title), str(item.get("html_url") or ""), snippet)


async def search_github(query: str, settings: object = None) -> ToolResponse:
    """Search GitHub; returns a YAML list of results (title, url, snippet, source).

    By default it searches repositories (snippet: description, stars, language, last
    update). Start the query with "code:" to search file contents, "issues:" to search
    issues, or "prs:" to search pull requests. GitHub qualifiers work and also choose the
    kind: language:python, stars:>100, user:NAME, org:NAME, repo:OWNER/NAME, in:readme for
    repositories; is:issue, is:pr, label:, author:, state: search issues; path:, filename:,
    extension: search code. At most 10 results.

    Args:
        query (str): What to find on GitHub, e.g. "vector database language:rust",
            "code: MsgHub repo:agentscope-ai/agentscope" or "issues: memory leak state:open".
    """
    return await run_source("search_github", search, query, settings)


SOURCE = Source("github", search_github, "Search GitHub")
