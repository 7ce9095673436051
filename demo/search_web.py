"""A local web of search engines on 127.0.0.1 speaking each service's real wire format.

:class:`SearchWeb` serves a caller-given corpus of :class:`Document` through one threaded
HTTP server, each source under its own prefix (point ``QUARTET_<SOURCE>_URL`` at
``web.urls[source]``, or apply ``web.env()``):

- ``/google/customsearch/v1`` Custom Search JSON API (``key`` param or ``X-goog-api-key``,
  ``cx``, ``q``) and ``/google/search?q=`` a results page in Google's markup;
- ``/bing/v7.0/search`` Web Search API v7 (``Ocp-Apim-Subscription-Key``) and
  ``/bing/search?q=`` a results page in Bing's markup (``li.b_algo``, ``/ck/a`` links);
- ``/sogou/web?query=`` a results page in Sogou's markup with ``/sogou/link?url=`` redirects;
- ``/github/search/{repositories,code,issues}`` GitHub REST search (``Authorization: Bearer``);
- ``/wiki/w/api.php`` the MediaWiki Action API (``generator=search`` with
  ``prop=extracts|info`` and ``list=search``, formatversion 1 or 2).

Faults are opt-in per route (:data:`ROUTES`) with :meth:`SearchWeb.fault`; every request is
recorded (:attr:`SearchWeb.requests`) so tests can check where keys travelled.
"""

from __future__ import annotations

import base64
import html
import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlsplit

#: How often a demo server looks whether it is asked to stop (the standard library's
#: half second made every demo wait that long for each of its servers at its end).
POLL_SECONDS = 0.05

ROUTES = (
    "google-api",
    "google-page",
    "bing-api",
    "bing-page",
    "sogou-page",
    "sogou-link",
    "github",
    "wiki",
)
FAULTS = ("delay", "error", "429", "consent", "captcha", "malformed")
SOURCES = ("google", "bing", "sogou", "github", "wiki")


@dataclass(frozen=True)
class Document:
    """One page of the corpus: what every engine indexes."""

    title: str
    url: str
    text: str


@dataclass
class Fault:
    """A failure a route produces, ``times`` more times (None: every time)."""

    kind: str
    times: int | None = None
    retry_after: str = "0"
    delay: float = 30.0


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it."""

    route: str
    method: str
    target: str
    query: dict[str, list[str]]
    headers: dict[str, str] = field(default_factory=dict)


#: Scripts written without spaces between words that no word list here cuts (Thai, Lao,
#: Khmer): the engine matches them by runs of :data:`RUN` characters, as an engine's
#: segmenter would find their words.
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1780-\u17ff]{5,}")
RUN = 4


def _terms(query: str) -> list[str]:
    """Lowercased search words, without operators (``x:y``), quotes and prefixes; a long
    run of an unspaced script is cut into overlapping pieces of :data:`RUN` characters."""
    words = re.sub(r'["“”?？]', " ", query).split()
    out: list[str] = []
    for w in (w.lower() for w in words if ":" not in w and not w.startswith("-")):
        if _UNSPACED.fullmatch(w):
            out.extend(dict.fromkeys(w[i : i + RUN] for i in range(0, len(w) - RUN + 1, 2)))
        else:
            out.append(w)
    return out


def _excerpt(text: str, terms: Sequence[str], width: int = 160) -> str:
    """A window of ``text`` around the first matched term."""
    lowered = text.lower()
    hits = [lowered.find(t) for t in terms if t in lowered]
    start = max(0, min(hits) - width // 4) if hits else 0
    if start:  # begin at a word boundary
        space = text.rfind(" ", 0, start)
        start = space + 1 if space >= 0 else 0
    piece = text[start : start + width].strip()
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def _mark(escaped: str, term: str, before: str, after: str) -> str:
    """``escaped`` HTML with the first occurrence of ``term`` wrapped in ``before``/``after``."""
    pattern = re.compile(re.escape(html.escape(term)), re.IGNORECASE)
    return pattern.sub(lambda m: f"{before}{m.group(0)}{after}", escaped, count=1)


def _host(url: str) -> str:
    return urlsplit(url).hostname or ""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "page"


class SearchWeb:
    """The server; use as a context manager (``with SearchWeb(corpus) as web: ...``).

    Args:
        corpus: the documents every engine searches.
        google_key, google_cx, bing_key, github_token: when given, the API routes refuse
            requests that do not carry exactly these values, as the real services do.
        results_per_page: most hits any engine returns for one request.
        port: the port to listen on (default: a free one).
    """

    def __init__(
        self,
        corpus: Sequence[Document],
        *,
        google_key: str | None = None,
        google_cx: str | None = None,
        bing_key: str | None = None,
        github_token: str | None = None,
        results_per_page: int = 10,
        port: int = 0,
    ) -> None:
        self.corpus = list(corpus)
        self.port = port
        self.google_key, self.google_cx = google_key, google_cx
        self.bing_key, self.github_token = bing_key, github_token
        self.results_per_page = results_per_page
        self.requests: list[Recorded] = []
        self._faults: dict[str, Fault] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------
    def __enter__(self) -> SearchWeb:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Bind :attr:`port` (or a free one) on 127.0.0.1 and serve in a background thread."""
        web = self

        class Handler(_Handler):
            owner = web

        self._stopping.clear()
        self._server = _Server(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(POLL_SECONDS,), daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Release delayed requests, stop serving and close the socket."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    @property
    def base(self) -> str:
        """``http://127.0.0.1:<port>``."""
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def urls(self) -> dict[str, str]:
        """Base URL of each source (the value for ``QUARTET_<SOURCE>_URL``)."""
        return {s: f"{self.base}/{s}" for s in SOURCES}

    def env(self) -> dict[str, str]:
        """``QUARTET_<SOURCE>_URL`` for every source."""
        return {f"QUARTET_{s.upper()}_URL": url for s, url in self.urls.items()}

    # -- faults and records -----------------------------------------------------------
    def fault(
        self,
        route: str,
        kind: str,
        *,
        times: int | None = None,
        retry_after: str | int = 0,
        delay: float = 30.0,
    ) -> None:
        """Make ``route`` fail with ``kind`` (one of :data:`FAULTS`) ``times`` times (None: always).

        ``delay`` holds the answer that many seconds (or until the server stops);
        ``429`` sends ``Retry-After: retry_after``.
        """
        if route not in ROUTES or kind not in FAULTS:
            raise ValueError(f"unknown route {route!r} or fault {kind!r}")
        with self._lock:
            self._faults[route] = Fault(kind, times, str(retry_after), delay)

    def clear(self) -> None:
        """Remove every fault and forget recorded requests."""
        with self._lock:
            self._faults.clear()
            self.requests.clear()

    def _take_fault(self, route: str) -> Fault | None:
        with self._lock:
            fault = self._faults.get(route)
            if fault is None:
                return None
            if fault.times is not None:
                fault.times -= 1
                if fault.times <= 0:
                    del self._faults[route]
            return fault

    def _record(self, entry: Recorded) -> None:
        with self._lock:
            self.requests.append(entry)

    def requests_to(self, route: str) -> list[Recorded]:
        """Recorded requests of one route."""
        with self._lock:
            return [r for r in self.requests if r.route == route]

    # -- search ------------------------------------------------------------------------
    def search(self, query: str) -> list[tuple[int, Document]]:
        """Corpus documents matching any query word, best first (then corpus order)."""
        terms = _terms(query)
        scored = []
        for index, doc in enumerate(self.corpus):
            haystack = f"{doc.title}\n{doc.text}".lower()
            score = sum(1 for t in terms if t in haystack) if terms else 1
            if score:
                scored.append((-score, index, doc))
        scored.sort(key=lambda s: (s[0], s[1]))
        return [(index, doc) for _, index, doc in scored]


# -- pages shared by several routes ----------------------------------------------------
CONSENT_PAGE = """<!DOCTYPE html><html lang="en"><head><title>Before you continue to Google</title>
</head><body><div class="saveButtonContainer"><h1>Before you continue to Google</h1>
<p>We use cookies and data to deliver and maintain Google services.</p>
<form action="https://consent.google.com/save" method="POST">
<input type="hidden" name="set_eom" value="true"><button>Reject all</button></form>
<form action="https://consent.google.com/save" method="POST">
<input type="hidden" name="set_eom" value="false"><button>Accept all</button></form>
</div></body></html>"""

CAPTCHA_PAGE = """<!DOCTYPE html><html><head><title>https://www.google.com/search</title></head>
<body><div style="max-width:400px;"><hr noshade size="1"><br>
<form id="captcha-form" action="index" method="post">
<script src="https://www.google.com/recaptcha/api.js" async defer></script>
<div id="recaptcha" class="g-recaptcha" data-sitekey="6LfwuyUTAAAAAOAmoS0fdqijC2PbbdH4kjq62Y1b">
</div><input type="hidden" name="q" value="EgS"><input type="hidden" name="continue"></form>
<hr noshade size="1"><div style="font-size:13px;"><b>About this page</b><br><br>
Our systems have detected unusual traffic from your computer network.</div></div></body></html>"""

SOGOU_ANTISPIDER_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<title>搜狗搜索</title></head><body><div class="content-box"><p class="p2">
用户您好，我们的系统检测到您网络中存在异常访问请求。<br>此验证码用于确认这些请求是您的正常行为而不是自动程序发出的，需要您协助验证。</p>
<form name="authform" method="POST" id="seccodeForm" action="/"><img id="seccodeImage"
src="util/seccode.php"><input type="text" name="c" id="seccodeInput" placeholder="请输入验证码">
<a id="submit" href="javascript:void(0);">提交</a></form></div></body></html>"""

MALFORMED_HTML = "<html><head><title>Oops</title></head><body><div><p>Something <b>unexpected"
MALFORMED_JSON = '{"items": [{"title": "truncated'


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # bursts of concurrent searches must not overflow the backlog


class _Handler(BaseHTTPRequestHandler):
    owner: SearchWeb
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes

    def log_message(self, format: str, *args: object) -> None:  # quiet server
        return

    # -- plumbing --------------------------------------------------------------------
    def _send(
        self,
        status: int,
        body: str | bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _json(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload, ensure_ascii=False)
        self._send(status, body, "application/json; charset=utf-8", headers)

    def _html(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
        self._send(status, body, "text/html; charset=UTF-8", headers)

    def _redirect(self, location: str) -> None:
        self._send(302, "", "text/html; charset=UTF-8", {"Location": location})

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        route, handler = self._route(parts.path)
        self.owner._record(
            Recorded(
                route or "other",
                "GET",
                self.path,
                query,
                {k.lower(): v for k, v in self.headers.items()},
            )
        )
        if handler is None:
            self._blocked_pages(parts.path)
            return
        fault = self.owner._take_fault(route)
        if fault is not None and self._apply(fault, route):
            return
        handler(parts.path, query)

    def _route(self, path: str):
        table = {
            "/google/customsearch/v1": ("google-api", self.google_api),
            "/google/search": ("google-page", self.google_page),
            "/bing/v7.0/search": ("bing-api", self.bing_api),
            "/bing/search": ("bing-page", self.bing_page),
            "/sogou/web": ("sogou-page", self.sogou_page),
            "/sogou/link": ("sogou-link", self.sogou_link),
            "/wiki/w/api.php": ("wiki", self.wiki_api),
        }
        if path in table:
            return table[path]
        if path.startswith("/github/search/"):
            return "github", self.github_search
        return None, None

    def _blocked_pages(self, path: str) -> None:
        if path.startswith("/google/sorry/"):
            self._html(429, CAPTCHA_PAGE)
        elif path.startswith("/google/consent"):
            self._html(200, CONSENT_PAGE)
        elif path.startswith("/sogou/antispider"):
            self._html(200, SOGOU_ANTISPIDER_PAGE)
        else:
            self._html(404, "<html><body><h1>404 Not Found</h1></body></html>")

    def _apply(self, fault: Fault, route: str) -> bool:
        """Produce ``fault``; False when the request should then be served normally."""
        api = route in ("google-api", "bing-api", "github", "wiki")
        kind = fault.kind
        if kind == "delay":
            self.owner._stopping.wait(fault.delay)
            return False
        if kind == "error":
            if api:
                self._json(500, {"message": "Server Error"})
            else:
                self._html(500, "<html><body><h1>500 Internal Server Error</h1></body></html>")
        elif kind == "429":
            headers = {"Retry-After": fault.retry_after}
            if api:
                self._json(429, {"message": "Too Many Requests"}, headers)
            else:
                self._html(429, "<html><body>Too Many Requests</body></html>", headers)
        elif kind == "consent":
            if route == "google-page":
                self._redirect(f"/google/consent/ml?continue={quote(self.path)}")
            else:
                self._html(200, CONSENT_PAGE)
        elif kind == "captcha":
            if route == "google-page":
                self._redirect(f"/google/sorry/index?continue={quote(self.path)}")
            elif route.startswith("sogou"):
                self._redirect(f"/sogou/antispider/?from={quote(self.path)}")
            else:
                self._html(200, CAPTCHA_PAGE)
        elif kind == "malformed":
            if api:
                self._send(200, MALFORMED_JSON, "application/json; charset=utf-8")
            else:
                self._html(200, MALFORMED_HTML)
        return True

    def _hits(self, q: str) -> list[tuple[int, Document]]:
        return self.owner.search(q)[: self.owner.results_per_page]

    @staticmethod
    def _arg(query: dict[str, list[str]], name: str) -> str:
        return query.get(name, [""])[0]

    # -- Google ------------------------------------------------------------------------
    def _google_error(self, message: str) -> None:
        """A 400 in the Custom Search API's error shape."""
        error = {"message": message, "domain": "global", "reason": "badRequest"}
        self._json(
            400,
            {
                "error": {
                    "code": 400,
                    "message": message,
                    "errors": [error],
                    "status": "INVALID_ARGUMENT",
                }
            },
        )

    def google_api(self, path: str, query: dict[str, list[str]]) -> None:
        web = self.owner
        key = self.headers.get("X-goog-api-key") or self._arg(query, "key")
        if web.google_key is not None and key != web.google_key:
            self._google_error("API key not valid. Please pass a valid API key.")
            return
        cx, q = self._arg(query, "cx"), self._arg(query, "q")
        if (web.google_cx is not None and cx != web.google_cx) or not q:
            self._google_error("Request contains an invalid argument.")
            return
        num = min(int(self._arg(query, "num") or 10), 10)
        hits = web.search(q)
        page = hits[:num]
        total = str(len(hits))
        payload: dict[str, object] = {
            "kind": "customsearch#search",
            "url": {
                "type": "application/json",
                "template": "https://www.googleapis.com/customsearch/v1?q={searchTerms}"
                "&num={count?}&start={startIndex?}&cx={cx?}&alt=json",
            },
            "queries": {
                "request": [
                    {
                        "title": f"Google Custom Search - {q}",
                        "totalResults": total,
                        "searchTerms": q,
                        "count": len(page),
                        "startIndex": 1,
                        "inputEncoding": "utf8",
                        "outputEncoding": "utf8",
                        "safe": "off",
                        "cx": cx,
                    }
                ]
            },
            "context": {"title": "Quartet"},
            "searchInformation": {
                "searchTime": 0.21,
                "formattedSearchTime": "0.21",
                "totalResults": total,
                "formattedTotalResults": total,
            },
        }
        if page:
            terms = _terms(q)
            payload["items"] = [
                {
                    "kind": "customsearch#result",
                    "title": doc.title,
                    "htmlTitle": html.escape(doc.title),
                    "link": doc.url,
                    "displayLink": urlsplit(doc.url).hostname,
                    "snippet": _excerpt(doc.text, terms),
                    "htmlSnippet": html.escape(_excerpt(doc.text, terms)),
                    "formattedUrl": doc.url,
                    "htmlFormattedUrl": html.escape(doc.url),
                }
                for _, doc in page
            ]
        self._json(200, payload)

    def google_page(self, path: str, query: dict[str, list[str]]) -> None:
        q = self._arg(query, "q")
        terms = _terms(q)
        blocks = []
        for n, (_, doc) in enumerate(self._hits(q)):
            host = urlsplit(doc.url).hostname or ""
            snippet = html.escape(_excerpt(doc.text, terms))
            for t in terms:
                snippet = _mark(snippet, t, "<em>", "</em>")
            blocks.append(
                f'<div class="MjjYud"><div class="g Ww4FFb vt6azd tF2Cxc asEBEc"'
                f' lang="en" data-hveid="CA{n}QAA"><div class="N54PNb BToiNc cvP2Ce"'
                f' data-snc="ih6Jnb_{n}"><div class="kb0PBd cvP2Ce A9Y9g jGGQ5e"'
                f' data-snf="x5WNvb" data-snhf="0"><div class="yuRUbf"><div><span'
                f' jscontroller="msmzHf"><a jsname="UWckNb" href="{html.escape(doc.url)}"'
                f' data-ved="2ahUKEwi{n}" ping="/url?sa=t&amp;source=web&amp;rct=j"><br>'
                f'<h3 class="LC20lb MBeuO DKV0Md">{html.escape(doc.title)}</h3>'
                f'<div class="notranslate HGLrXd NJjxre iUh30 ojE3Fb"><div class="q0vns">'
                f'<div class="CA5RN"><div><span class="VuuXrf">{html.escape(host)}</span></div>'
                f'<div class="byrV5b"><cite class="qLRx3b tjvcx GvPZzd cHaqb" role="text">'
                f"{html.escape(doc.url)}</cite></div></div></div></div></a></span></div></div>"
                f'</div><div class="kb0PBd cvP2Ce A9Y9g" data-sncf="1" data-snf="nke7rc">'
                f'<div class="VwiC3b yXK7lf p4wth r025kc hJNv6b Hdw6tb"'
                f' style="-webkit-line-clamp:2"><span>{snippet}</span></div></div></div>'
                f"</div></div>"
            )
        if blocks:
            center = (
                '<div id="rso" class="dURPMd" data-async-context="query:'
                + html.escape(quote(q))
                + '">'
                + "".join(blocks)
                + "</div>"
            )
        else:
            center = (
                '<div id="topstuff"><div class="card-section"><p role="heading" aria-level="3">'
                f"Your search - <b>{html.escape(q)}</b> - did not match any documents.</p>"
                "</div></div>"
            )
        page = (
            '<!doctype html><html itemscope="" itemtype="http://schema.org/SearchResultsPage"'
            f' lang="en"><head><meta charset="UTF-8"><title>{html.escape(q)} - Google Search'
            '</title></head><body jsmodel="hspDDf"><div class="main" id="main"><div id="cnt">'
            '<div id="rcnt"><div id="center_col"><div id="res" role="main"><div id="search">'
            f'<div data-hveid="CAEQAA">{center}</div></div></div></div></div></div></div>'
            '<a href="/search?q=related+search&amp;sa=X"><h3>Related searches</h3></a>'
            "</body></html>"
        )
        self._html(200, page)

    # -- Bing --------------------------------------------------------------------------
    def bing_api(self, path: str, query: dict[str, list[str]]) -> None:
        web = self.owner
        key = self.headers.get("Ocp-Apim-Subscription-Key")
        if web.bing_key is not None and key != web.bing_key:
            self._json(
                401,
                {
                    "error": {
                        "code": "401",
                        "message": "Access denied due to invalid subscription key or wrong API"
                        " endpoint. Make sure to provide a valid key for an active subscription"
                        " and use a correct regional API endpoint for your resource.",
                    }
                },
            )
            return
        q = self._arg(query, "q")
        if not q:
            self._json(
                400,
                {
                    "_type": "ErrorResponse",
                    "errors": [
                        {
                            "code": "InvalidRequest",
                            "subCode": "ParameterMissing",
                            "message": "Required parameter is missing.",
                            "parameter": "q",
                        }
                    ],
                },
            )
            return
        count = min(int(self._arg(query, "count") or 10), 50)
        hits = web.search(q)
        terms = _terms(q)
        payload: dict[str, object] = {
            "_type": "SearchResponse",
            "queryContext": {"originalQuery": q},
        }
        if hits:
            payload["webPages"] = {
                "webSearchUrl": f"https://www.bing.com/search?q={quote(q)}",
                "totalEstimatedMatches": len(hits),
                "value": [
                    {
                        "id": f"https://api.bing.microsoft.com/api/v7/#WebPages.{n}",
                        "name": doc.title,
                        "url": doc.url,
                        "isFamilyFriendly": True,
                        "displayUrl": doc.url,
                        "snippet": _excerpt(doc.text, terms),
                        "dateLastCrawled": "2024-05-01T08:00:00.0000000Z",
                        "language": "en",
                        "isNavigational": False,
                    }
                    for n, (_, doc) in enumerate(hits[:count])
                ],
            }
            payload["rankingResponse"] = {
                "mainline": {
                    "items": [
                        {
                            "answerType": "WebPages",
                            "resultIndex": n,
                            "value": {"id": f"https://api.bing.microsoft.com/api/v7/#WebPages.{n}"},
                        }
                        for n in range(min(count, len(hits)))
                    ]
                }
            }
        self._json(200, payload, {"BingAPIs-Market": "en-US"})

    def bing_page(self, path: str, query: dict[str, list[str]]) -> None:
        q = self._arg(query, "q")
        terms = _terms(q)
        items = []
        for n, (_, doc) in enumerate(self._hits(q)):
            if n % 2:  # Bing wraps some links in its click-tracking redirect
                token = base64.urlsafe_b64encode(doc.url.encode()).decode().rstrip("=")
                href = (
                    f"https://www.bing.com/ck/a?!&amp;&amp;p=5f1c{n}JmltdHM9MTcxNDUyMTYwMA"
                    f"&amp;ptn=3&amp;ver=2&amp;hsh=3&amp;u=a1{token}&amp;ntb=1"
                )
            else:
                href = html.escape(doc.url)
            items.append(
                f'<li class="b_algo" data-id="" iid="SERP.{5000 + n}" data-bm="{n + 6}">'
                f'<div class="b_tpcn"><a class="tilk" href="{href}" h="ID=SERP,{5000 + n}.1">'
                f'<div class="tptxt"><div class="tptt">{html.escape(_host(doc.url))}'
                f'</div><div class="tpmeta"><div class="b_attribution"><cite>{html.escape(doc.url)}'
                f"</cite></div></div></div></a></div>"
                f'<h2><a href="{href}" h="ID=SERP,{5000 + n}.2">{html.escape(doc.title)}</a></h2>'
                f'<div class="b_caption" role="contentinfo"><p class="b_lineclamp2">'
                f'<span class="algoSlug_icon" data-priority="2">WEB</span>'
                f"{html.escape(_excerpt(doc.text, terms))}</p></div></li>"
            )
        if not items:
            items.append(
                f'<li class="b_no"><h1>There are no results for <strong>{html.escape(q)}</strong>'
                "</h1><ul><li><span>Check your spelling or try different keywords</span></li>"
                "</ul></li>"
            )
        page = (
            f'<!DOCTYPE html><html dir="ltr" lang="en"><head><meta charset="utf-8"><title>'
            f'{html.escape(q)} - Search</title></head><body><div id="b_content">'
            '<main aria-label="Search Results"><ol id="b_results" class="">'
            + "".join(items)
            + '<li class="b_pag"><nav role="navigation" aria-label="More results"></nav></li>'
            "</ol></main></div></body></html>"
        )
        self._html(200, page)

    # -- Sogou -------------------------------------------------------------------------
    def sogou_page(self, path: str, query: dict[str, list[str]]) -> None:
        q = self._arg(query, "query")
        terms = _terms(q)
        blocks = []
        for n, (_, doc) in enumerate(self._hits(q)):
            token = base64.urlsafe_b64encode(doc.url.encode()).decode().rstrip("=")
            data_url = f' data-url="{html.escape(doc.url)}"' if n % 2 else ""
            title = html.escape(doc.title)
            for t in terms:
                title = _mark(title, t, "<em><!--red_beg-->", "<!--red_end--></em>")
            blocks.append(
                f'<div class="vrwrap" id="sogou_vr_30000000_{n}"><div class="vr-title-box">'
                f'<h3 class="vr-title"><a id="sogou_vr_30000000_title_{n}" target="_blank"'
                f' href="/link?url={token}">{title}</a></h3></div>'
                '<div class="space-txt"><div class="fz-mid space-txt"'
                f' id="cacheresult_summary_{n}">'
                f"{html.escape(_excerpt(doc.text, terms))}</div></div>"
                f'<div class="citeurl"><span>{html.escape(_host(doc.url))}</span>'
                f'<span class="cite-date">&nbsp;-&nbsp;2024-5-1</span></div>'
                f'<div class="r-sech ext_query click-better-sugg"{data_url}'
                f' data-id="{n}"></div></div>'
            )
        if blocks:
            body = f'<div class="results">{"".join(blocks)}</div>'
        else:
            body = (
                '<div id="noresult_part1_container"><div class="no-result"><p>抱歉，没有找到与'
                f"“<em>{html.escape(q)}</em>”相关的网页。</p></div></div>"
            )
        page = (
            '<!DOCTYPE html><html><head><meta charset="utf-8"><title>'
            f'{html.escape(q)} - 搜狗搜索</title></head><body><div id="wrap">'
            f'<div id="main" class="main">{body}</div></div></body></html>'
        )
        self._html(200, page)

    def sogou_link(self, path: str, query: dict[str, list[str]]) -> None:
        token = self._arg(query, "url")
        try:
            target = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        except ValueError:
            self._html(404, "<html><body>404</body></html>")
            return
        page = (
            '<meta content="always" name="referrer"><script>'
            f'window.location.replace("{target}")</script><noscript>'
            f'<META http-equiv="refresh" content="0;URL=\'{html.escape(target)}\'"></noscript>'
        )
        self._html(200, page)

    # -- GitHub ------------------------------------------------------------------------
    def github_search(self, path: str, query: dict[str, list[str]]) -> None:
        web = self.owner
        kind = path.rsplit("/", 1)[-1]
        rate = {
            "X-RateLimit-Limit": "30" if self.headers.get("Authorization") else "10",
            "X-RateLimit-Remaining": "29",
            "X-RateLimit-Resource": "search",
            "X-GitHub-Media-Type": "github.v3; param=text-match; format=json",
        }
        auth = self.headers.get("Authorization")
        if (
            auth is not None
            and web.github_token is not None
            and auth != f"Bearer {web.github_token}"
        ):
            self._json(
                401,
                {
                    "message": "Bad credentials",
                    "documentation_url": "https://docs.github.com/rest",
                    "status": "401",
                },
            )
            return
        if kind == "code" and auth is None:
            self._json(
                401,
                {
                    "message": "Requires authentication",
                    "errors": [
                        {
                            "message": "Must be authenticated to access the code search API",
                            "resource": "Search",
                            "field": "q",
                            "code": "invalid",
                        }
                    ],
                    "documentation_url": "https://docs.github.com/v3/search/#search-code",
                    "status": "401",
                },
            )
            return
        q = self._arg(query, "q")
        if kind not in ("repositories", "code", "issues") or not q:
            self._json(
                422,
                {
                    "message": "Validation Failed",
                    "errors": [{"resource": "Search", "field": "q", "code": "missing"}],
                    "documentation_url": "https://docs.github.com/v3/search",
                    "status": "422",
                },
            )
            return
        per_page = min(int(self._arg(query, "per_page") or 30), 100)
        hits = web.search(q)
        text_match = "text-match" in (self.headers.get("Accept") or "")
        pulls = bool(re.search(r"(?:^|\s)(?:is|type):(?:pr|pull-request)\b", q))
        build = {"repositories": _gh_repo, "code": _gh_code, "issues": _gh_issue}[kind]
        items = []
        for index, doc in hits[:per_page]:
            item = build(index, doc, pulls)
            if text_match:
                fragment = _excerpt(doc.text, _terms(q), 120)
                item["text_matches"] = [
                    {
                        "object_url": item.get("url", ""),
                        "object_type": {"repositories": "Repository", "code": "FileContent"}.get(
                            kind, "Issue"
                        ),
                        "property": "content" if kind == "code" else "description",
                        "fragment": fragment,
                        "matches": [],
                    }
                ]
            items.append(item)
        self._json(
            200, {"total_count": len(hits), "incomplete_results": False, "items": items}, rate
        )

    # -- MediaWiki ---------------------------------------------------------------------
    def wiki_api(self, path: str, query: dict[str, list[str]]) -> None:
        web = self.owner
        if self._arg(query, "action") != "query" or self._arg(query, "format") != "json":
            self._json(
                200,
                {
                    "error": {
                        "code": "badvalue",
                        "info": 'Unrecognized value for parameter "action".',
                        "docref": "See https://en.wikipedia.org/w/api.php for API usage.",
                    },
                    "servedby": "mw-api-ext.local",
                },
            )
            return
        v2 = self._arg(query, "formatversion") == "2"
        props = set(self._arg(query, "prop").split("|")) - {""}
        lists = set(self._arg(query, "list").split("|")) - {""}
        result: dict[str, object] = {}
        more = False
        if self._arg(query, "generator") == "search":
            q = self._arg(query, "gsrsearch")
            limit = int(self._arg(query, "gsrlimit") or 10)
            hits = web.search(q)
            more = more or len(hits) > limit
            pages = [
                _wiki_page(index, rank, doc, props, query)
                for rank, (index, doc) in enumerate(hits[:limit], 1)
            ]
            if pages:
                result["pages"] = pages if v2 else {str(p["pageid"]): p for p in pages}
        if "search" in lists:
            q = self._arg(query, "srsearch")
            limit = int(self._arg(query, "srlimit") or 10)
            hits = web.search(q)
            more = more or len(hits) > limit
            terms = _terms(q)
            result["searchinfo"] = {"totalhits": len(hits)}
            result["search"] = [
                {
                    "ns": 0,
                    "title": doc.title,
                    "pageid": 1000 + index,
                    "snippet": re.sub(
                        "|".join(re.escape(html.escape(t)) for t in terms) or "$^",
                        lambda m: f'<span class="searchmatch">{m.group(0)}</span>',
                        html.escape(_excerpt(doc.text, terms)),
                        flags=re.I,
                    ),
                }
                for index, doc in hits[:limit]
            ]
        payload: dict[str, object] = {"batchcomplete": True if v2 else ""}
        if more:
            payload["continue"] = {"gsroffset": 10, "sroffset": 10, "continue": "gsroffset||"}
        if result.get("pages") or result.get("search"):
            payload["query"] = result
        self._json(200, payload)


def _owner_repo(doc: Document) -> str:
    parts = urlsplit(doc.url)
    segments = [s for s in parts.path.split("/") if s]
    if parts.hostname == "github.com" and len(segments) >= 2:
        return f"{segments[0]}/{segments[1]}"
    return f"quartet-demo/{_slug(doc.title)}"


def _gh_owner(full: str) -> dict[str, object]:
    login = full.split("/")[0]
    return {
        "login": login,
        "id": 1000,
        "type": "Organization",
        "url": f"https://api.github.com/users/{login}",
        "html_url": f"https://github.com/{login}",
    }


def _gh_repo(index: int, doc: Document, pulls: bool) -> dict[str, object]:
    full = _owner_repo(doc)
    html_url = doc.url  # a document off github.com stands for a repository at its own page
    return {
        "id": 5000 + index,
        "node_id": f"R_kgDO{index:06d}",
        "name": full.split("/")[1],
        "full_name": full,
        "owner": _gh_owner(full),
        "private": False,
        "html_url": html_url,
        "description": doc.text.split("\n")[0][:200],
        "fork": False,
        "url": f"https://api.github.com/repos/{full}",
        "created_at": "2023-01-10T08:00:00Z",
        "updated_at": "2024-05-01T08:00:00Z",
        "pushed_at": "2024-05-01T08:00:00Z",
        "homepage": None,
        "size": 1024,
        "stargazers_count": 100 * (index + 1),
        "watchers_count": 100 * (index + 1),
        "language": "Python",
        "forks_count": 10 * (index + 1),
        "open_issues_count": index,
        "default_branch": "main",
        "topics": [],
        "visibility": "public",
        "score": 1.0,
    }


def _gh_code(index: int, doc: Document, pulls: bool) -> dict[str, object]:
    full = _owner_repo(doc)
    return {
        "name": "README.md",
        "path": "README.md",
        "sha": f"{index:040x}",
        "url": f"https://api.github.com/repositories/{5000 + index}/contents/README.md",
        "git_url": f"https://api.github.com/repositories/{5000 + index}/git/blobs/{index:040x}",
        "html_url": f"https://github.com/{full}/blob/main/README.md",
        "repository": {
            "id": 5000 + index,
            "name": full.split("/")[1],
            "full_name": full,
            "owner": _gh_owner(full),
            "private": False,
            "html_url": f"https://github.com/{full}",
            "description": doc.title,
        },
        "score": 1.0,
    }


def _gh_issue(index: int, doc: Document, pulls: bool) -> dict[str, object]:
    full = _owner_repo(doc)
    number = index + 1
    kind = "pull" if pulls else "issues"
    item: dict[str, object] = {
        "url": f"https://api.github.com/repos/{full}/issues/{number}",
        "repository_url": f"https://api.github.com/repos/{full}",
        "html_url": f"https://github.com/{full}/{kind}/{number}",
        "id": 9000 + index,
        "node_id": f"I_kwDO{index:06d}",
        "number": number,
        "title": doc.title,
        "user": {"login": "octocat", "id": 1},
        "labels": [],
        "state": "open",
        "locked": False,
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "comments": index,
        "created_at": "2024-04-01T08:00:00Z",
        "updated_at": "2024-05-01T08:00:00Z",
        "closed_at": None,
        "author_association": "NONE",
        "body": doc.text,
        "score": 1.0,
    }
    if pulls:
        item["pull_request"] = {
            "url": f"https://api.github.com/repos/{full}/pulls/{number}",
            "html_url": f"https://github.com/{full}/pull/{number}",
            "diff_url": f"https://github.com/{full}/pull/{number}.diff",
            "patch_url": f"https://github.com/{full}/pull/{number}.patch",
        }
    return item


def _wiki_page(
    index: int, rank: int, doc: Document, props: set[str], query: dict[str, list[str]]
) -> dict[str, object]:
    page: dict[str, object] = {"pageid": 1000 + index, "ns": 0, "title": doc.title, "index": rank}
    if "info" in props:
        page.update(
            {
                "contentmodel": "wikitext",
                "pagelanguage": "en",
                "pagelanguagehtmlcode": "en",
                "pagelanguagedir": "ltr",
                "touched": "2024-05-01T08:00:00Z",
                "lastrevid": 120000 + index,
                "length": len(doc.text),
            }
        )
        if "url" in query.get("inprop", [""])[0].split("|"):
            page["fullurl"] = doc.url
            page["editurl"] = f"{doc.url}?action=edit"
            page["canonicalurl"] = doc.url
    if "extracts" in props:
        text = doc.text.split("\n\n")[0] if "exintro" in query else doc.text
        page["extract"] = text if "explaintext" in query else f"<p>{html.escape(text)}</p>"
    return page
