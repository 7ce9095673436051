"""What keeps the web app to its user: the access token, the Host and Origin checks, the
cross-site request check, body limits and the pages' Content-Security-Policy.

- Bound to a loopback address, the app answers requests whose ``Host`` names that
  address (or ``localhost``) and its port only: a page of another site whose name is made
  to point at 127.0.0.1 (DNS rebinding) is refused.
- Bound to any other address, every request needs the token (``?token=`` once, which
  sets a cookie, or ``Authorization: Bearer``), compared in constant time.
- Every request that changes something (any method but GET and HEAD) must come from the
  app's own pages: its ``Origin`` (or ``Referer``) is the app's, and its form carries
  the page's CSRF token (checked by :func:`check_csrf`); a run's uploads, which may be
  large, carry it in the address they post to as well, checked before their body is read
  (:func:`upload_token_ok`).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The most digits a number a request gives (an event id, a question's number, a body's
#: length, a form's page count) may have: more is no number the app ever gave.
NUMBER_DIGITS = 15


def whole_number(raw: str | None) -> int | None:
    """The number a request gives as ASCII digits (no sign, no space, at most
    :data:`NUMBER_DIGITS` of them), else None: ``"²"`` and ``"٣"`` are digits to
    :meth:`str.isdigit` but no number here, and a 5,000-digit one is refused before
    :func:`int` reads it."""
    if raw is None or not 0 < len(raw) <= NUMBER_DIGITS or not raw.isascii() or not raw.isdigit():
        return None
    return int(raw)


#: The environment variable that gives the access token.
TOKEN_ENV = "QUARTET_SERVE_TOKEN"
TOKEN_COOKIE = "quartet_token"
#: The app's own pages: scripts and styles from the app only, no inline script.
APP_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
#: Reports and stored pages: no script runs (a sandbox without scripts), nothing is
#: loaded from elsewhere, and only the app may frame them.
DOCUMENT_CSP = (
    "sandbox allow-popups allow-top-navigation-by-user-activation; default-src 'none'; "
    "script-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
)
SAFE_METHODS = frozenset({"GET", "HEAD"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A fresh random token (for the access token and the CSRF token)."""
    return secrets.token_urlsafe(32)


def same(given: str | None, expected: str) -> bool:
    """``given == expected``, in constant time."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


@dataclass
class Guard:
    """The app's security settings.

    Attributes:
        host: the address the app is bound to; port: its port.
        token: the access token (None: none is needed, on a loopback address only).
        csrf: the token the app's forms carry.
        max_body: the largest request body, in bytes: a run's uploads (a multipart form
            sent to one of ``upload_paths``, whose files are spooled to disk as read).
        max_form: the largest body of any other request (a stop, an answer, a form
            without files), which is read whole before its CSRF token can be checked
            (an upload's token is checked before its body: :func:`upload_token_ok`).
    """

    host: str
    port: int
    token: str | None = None
    csrf: str = field(default_factory=new_token)
    max_body: int = 64 * 1024 * 1024
    max_form: int = 256 * 1024
    upload_paths: tuple[str, ...] = ("/jobs",)

    def body_limit(self, path: str, content_type: str) -> int:
        """The largest body a request to ``path`` may send."""
        multipart = content_type.split(";", 1)[0].strip().lower() == "multipart/form-data"
        return self.max_body if multipart and path in self.upload_paths else self.max_form

    def allowed_hosts(self) -> set[str]:
        """The ``Host`` header values the app answers."""
        names = {self.host, f"[{self.host}]" if ":" in self.host else self.host}
        if is_loopback(self.host):
            names |= {"localhost", "127.0.0.1", "[::1]"}
        return {f"{name}:{self.port}" for name in names}

    def host_ok(self, host: str) -> bool:
        if self.host in ("0.0.0.0", "::"):  # any address of the machine: the token guards it
            return bool(host)
        return host.lower() in self.allowed_hosts()


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


async def _refuse(send: Send, status: int, text: str, headers: list[Any] | None = None) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"x-content-type-options", b"nosniff"),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class TooLarge(Exception):
    """A request body over the limit."""


TOO_LARGE = "The request is too large."
#: A header every response of the app has (beside ``nosniff`` and its CSP).
_REFERRER = (b"referrer-policy", b"same-origin")


class GuardMiddleware:
    """ASGI middleware applying a :class:`Guard` to every HTTP request."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app, self.guard = app, guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        guard, headers = self.guard, _headers(scope)
        host = headers.get("host", "")
        if not guard.host_ok(host):
            await _refuse(send, 421, "This server does not answer for that host name.")
            return
        if guard.token is not None:
            passed = await self._token(scope, send, headers)
            if not passed:
                return
        method, sending = scope["method"], _Sending(send)
        if method not in SAFE_METHODS:
            origin = headers.get("origin") or _origin_of(headers.get("referer", ""))
            if origin != f"{scope.get('scheme', 'http')}://{host}":
                await _refuse(send, 403, "Cross-site requests are refused.")
                return
            limit = guard.body_limit(scope.get("path", ""), headers.get("content-type", ""))
            length = headers.get("content-length")
            declared = whole_number(length)
            if length is not None and (declared is None or declared > limit):
                await _refuse(send, 413, TOO_LARGE)
                return
            if limit > guard.max_form and not upload_token_ok(scope, headers, guard):
                await _refuse(send, 403, UPLOAD_REFUSED)
                return
            receive = _capped(receive, limit, sending)
        try:
            await self.app(scope, receive, sending)
        except TooLarge:
            if not sending.started:
                await _refuse(send, 413, TOO_LARGE)

    async def _token(self, scope: Scope, send: Send, headers: dict[str, str]) -> bool:
        """Whether the request carries the token; a redirect that sets the cookie when it
        came in the address (so that it leaves the address bar and the history)."""
        guard = self.guard
        assert guard.token is not None
        cookie = SimpleCookie()
        cookie.load(headers.get("cookie", ""))
        if TOKEN_COOKIE in cookie and same(cookie[TOKEN_COOKIE].value, guard.token):
            return True
        auth = headers.get("authorization", "")
        if auth.startswith("Bearer ") and same(auth[7:], guard.token):
            return True
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.pop("token", None) or [None])[0]
        if scope["method"] in SAFE_METHODS and same(given, guard.token):
            rest = urlencode(query, doseq=True)
            where = scope.get("path", "/") + (f"?{rest}" if rest else "")
            value = f"{TOKEN_COOKIE}={guard.token}; Path=/; HttpOnly; SameSite=Strict"
            await _refuse(
                send,
                303,
                "Signed in.",
                [(b"location", where.encode()), (b"set-cookie", value.encode())],
            )
            return False
        await _refuse(send, 401, "This server needs its access token (printed at its start).")
        return False


def _origin_of(url: str) -> str | None:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else None


def _capped(receive: Receive, limit: int, sending: _Sending) -> Receive:
    """``receive`` that raises :class:`TooLarge` once the body passes ``limit`` bytes,
    and again at every later call (a body sent in chunks says no length first, and is
    counted as it comes); ``sending`` is told, so that what the app answers instead is
    the refusal of a body too large."""
    seen = 0

    async def capped() -> Message:
        nonlocal seen
        if seen > limit:
            raise TooLarge
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                sending.too_large = True
                raise TooLarge
        return message

    return capped


class _Sending:
    """The app's ``send``: it adds the headers every response has (the app's CSP unless
    the response set its own) and notes whether a response has started.

    Once the body was found too large, whatever the app answers is that refusal instead:
    the app fails while it parses the body, and Starlette answers such a failure with a
    500 of its own (a form read in a ``try`` with a 400) before the failure reaches
    :class:`GuardMiddleware`."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.started = False
        self.too_large = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
            if self.too_large:
                await _refuse(self.send, 413, TOO_LARGE, [_REFERRER])
                return
            headers = list(message.get("headers", []))
            names = {k.lower() for k, _ in headers}
            headers += [(b"x-content-type-options", b"nosniff"), _REFERRER]
            if b"content-security-policy" not in names:
                headers.append((b"content-security-policy", APP_CSP.encode()))
            message["headers"] = headers
        elif self.too_large:
            return  # the app's body: the refusal was sent whole
        await self.send(message)


#: What an upload without the page's token is told (a page sent from an older start of
#: the server carries an old one).
UPLOAD_REFUSED = "This form is out of date: reload the page and send it again."


def upload_token_ok(scope: Scope, headers: dict[str, str], guard: Guard) -> bool:
    """Whether a request that may send a large body (a run's uploads) carries the page's
    CSRF token before its body: in the address the form posts to (``?csrf=``) or in an
    ``X-CSRF-Token`` header. It is checked before a byte of the body is read, so that a
    page of another site cannot make the server take in 64 MB to refuse it afterwards."""
    given = headers.get("x-csrf-token")
    if given is None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.get("csrf") or [None])[0]
    return same(given, guard.csrf)


def check_csrf(form: Any, guard: Guard) -> bool:
    """Whether a submitted form carries the app's CSRF token."""
    value = form.get("csrf") if form is not None else None
    return isinstance(value, str) and same(value, guard.csrf)
