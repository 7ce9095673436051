"""What went wrong with a model request, in one vocabulary for every provider.

The providers' SDKs raise their own types: ``openai``/``anthropic`` raise
``APIStatusError`` (with ``status_code`` and ``response.headers``), ``APITimeoutError`` and
``APIConnectionError``; ``ollama`` raises ``ResponseError`` (with ``status_code``) or a
plain ``ConnectionError``; ``httpx`` raises ``TimeoutException``/``TransportError``; a body
that is not what the provider promised shows up as a JSON or validation error, or as
:class:`MalformedBody` from the HTTP clients' body check (:mod:`host.brains.exchange`).
:func:`classify` turns any of them into a :class:`Fault`: a short cause key for
accounting, a sentence for messages, whether a retry may help, and how long the server
asked us to wait. A refused request (a 4xx no retry can fix) keeps the provider's own
explanation in that sentence ("HTTP 400 (the request was rejected): An assistant message
with 'tool_calls' must be followed by…"), on one line, bounded and with keys scrubbed.
"""

from __future__ import annotations

import email.utils
import json
import socket
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from subagents.failures import plain_reason
from subagents.secrets import scrub

#: Statuses worth another attempt: request timeout, rate limit and every server error.
RETRYABLE_STATUS = frozenset({408, 429})
#: What a refused request most likely means, for the message.
STATUS_HINTS = {
    400: "the request was rejected",
    401: "the key was refused",
    403: "the key may not use this model",
    404: "no such model or endpoint",
}
#: The most of a provider's explanation a refusal's message keeps, in characters.
MAX_EXPLANATION_CHARS = 300
#: The most characters of what a failure said that a fault's message keeps.
MAX_SAID_CHARS = 200
#: What a failed connection to the model's server means, by the kind of error beneath it
#: (the first that matches, from the innermost out).
CONNECTION_WORDS: tuple[tuple[type[BaseException], str], ...] = (
    (socket.gaierror, "its host name could not be resolved"),
    (ConnectionRefusedError, "the connection was refused (nothing listens at its address)"),
    (ConnectionResetError, "the server closed the connection"),
    (ConnectionAbortedError, "the connection was dropped"),
    (TimeoutError, "no connection within the timeout"),
)
#: What a failure that said nothing at all is told as.
SAID_NOTHING = "the model's client failed without saying why"


class MalformedBody(ValueError):
    """A successful HTTP status with a body that is not JSON."""


@dataclass(frozen=True)
class Fault:
    """One failed attempt, classified.

    Attributes:
        cause: a short key for accounting (``timeout``, ``connection``, ``malformed_body``,
            ``http_429``, ``http_503``, ``error``).
        text: the cause in words, for the final message (never carries a key).
        retryable: whether another attempt may succeed.
        retry_after: seconds the server asked us to wait, if it said.
    """

    cause: str
    text: str
    retryable: bool
    retry_after: float | None = None


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from, innermost last."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _types(*names: str) -> tuple[type[BaseException], ...]:
    """The exception classes named ``module:Class`` of the modules already imported (an
    SDK that was never imported raised nothing)."""
    found: list[type[BaseException]] = []
    for name in names:
        module, _, cls = name.partition(":")
        found_cls = getattr(sys.modules.get(module), cls, None)
        if isinstance(found_cls, type) and issubclass(found_cls, BaseException):
            found.append(found_cls)
    return tuple(found)


def _timeouts() -> tuple[type[BaseException], ...]:
    return (
        TimeoutError,
        *_types(
            "openai:APITimeoutError",
            "anthropic:APITimeoutError",
            "httpx:TimeoutException",
            "httpx2:TimeoutException",
        ),
    )


def _connections() -> tuple[type[BaseException], ...]:
    return (
        ConnectionError,
        *_types(
            "openai:APIConnectionError",
            "anthropic:APIConnectionError",
            "httpx:TransportError",
            "httpx2:TransportError",
        ),
    )


def _malformed() -> tuple[type[BaseException], ...]:
    return (
        MalformedBody,
        json.JSONDecodeError,
        *_types(
            "pydantic:ValidationError",
            "openai:APIResponseValidationError",
            "anthropic:APIResponseValidationError",
        ),
    )


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an SDK error carries (``status_code`` or Gemini's ``code``)."""
    for attr in ("status_code", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and 100 <= value <= 599:
            return value
    return None


def retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date).

    Args:
        headers: the response headers (case-insensitive mapping, or a plain dict).
        now: the current time as a UNIX timestamp (for tests; default ``time.time()``).

    Returns:
        The wait in seconds (never negative), or None when the server gave none.
    """
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    raw = lowered.get("retry-after", "").strip()
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _headers(exc: BaseException) -> Mapping[str, str] | None:
    response: Any = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return headers if isinstance(headers, Mapping) else None


def _said(body: Any) -> str:
    """The ``message`` of an error body: OpenAI's ``{"error": {"message"}}``, Anthropic's
    ``{"type": "error", "error": {"message"}}`` or an SDK's unwrapped ``{"message"}``."""
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return body
    if not isinstance(body, Mapping):
        return ""
    inner = body.get("error", body)
    if isinstance(inner, Mapping):
        inner = inner.get("message")
    return inner if isinstance(inner, str) else ""


def _explanation_of(exc: BaseException) -> str:
    """What the provider said about one error: the SDK's parsed ``body``, Ollama's
    ``error`` text, or the body of the HTTP response it carries."""
    said = _said(getattr(exc, "body", None)) or _said(getattr(exc, "details", None))
    if said:
        return said
    error = getattr(exc, "error", None)
    if isinstance(error, str) and error:
        return error
    response: Any = getattr(exc, "response", None)
    try:
        text = getattr(response, "text", None)
    except Exception:  # a streamed response whose body was never read
        return ""
    return _said(text) if isinstance(text, str) else ""


def explanation(exc: BaseException, limit: int = MAX_EXPLANATION_CHARS) -> str:
    """The provider's own words on why it refused a request, on one line, keys scrubbed.

    Args:
        exc: the SDK's error (the exceptions it was raised from are searched too).
        limit: the most characters kept; a longer explanation ends in ``…``.

    Returns:
        The explanation, or an empty string when the provider gave none.
    """
    for inner in _causes(exc):
        said = " ".join(_explanation_of(inner).split())
        if said:
            said = scrub(said)  # before cutting, so that no part of a key survives
            return said if len(said) <= limit else said[: limit - 1].rstrip() + "…"
    return ""


def _status_fault(exc: BaseException, status: int) -> Fault:
    """A failed status; a refusal (a 4xx that no retry can fix) keeps the provider's
    explanation, which names what was wrong with the request."""
    retryable = status in RETRYABLE_STATUS or status >= 500
    hint = STATUS_HINTS.get(status)
    text = f"HTTP {status}" + (f" ({hint})" if hint else "")
    said = explanation(exc) if 400 <= status < 500 and not retryable else ""
    text += f": {said}" if said else ""
    return Fault(f"http_{status}", text, retryable, retry_after(_headers(exc)))


def classify(exc: BaseException) -> Fault:
    """The :class:`Fault` behind ``exc``, whichever SDK raised it."""
    for inner in _causes(exc):
        if isinstance(inner, MalformedBody):
            return Fault("malformed_body", f"a malformed response body ({inner})", True)
    if isinstance(exc, _timeouts()):
        return Fault("timeout", "no answer within the request timeout", True)
    status = status_of(exc)
    if status is not None:
        return _status_fault(exc, status)
    if isinstance(exc, _malformed()):
        said = said_by(exc)
        return Fault(
            "malformed_body", "a malformed response body" + (f" ({said})" if said else ""), True
        )
    if isinstance(exc, _connections()):
        return Fault("connection", f"could not reach the model's server: {unreached(exc)}", True)
    return Fault("error", said_by(exc) or SAID_NOTHING, False)


def said_by(exc: BaseException) -> str:
    """What ``exc`` says in words (without its class name), or else the innermost of the
    exceptions it was raised from that says anything; cut to :data:`MAX_SAID_CHARS`,
    keys scrubbed; ``""`` when none says anything."""
    causes = list(_causes(exc))
    for inner in [causes[0], *reversed(causes[1:])]:
        said = plain_reason(inner, "")
        if said:
            said = scrub(said)
            return said if len(said) <= MAX_SAID_CHARS else said[: MAX_SAID_CHARS - 1] + "…"
    return ""


def unreached(exc: BaseException) -> str:
    """Why a connection to the model's server failed, in words: what the error beneath
    the SDK's means (see :data:`CONNECTION_WORDS`), or what the innermost error said."""
    causes = list(_causes(exc))
    for inner in reversed(causes):
        for kind, words in CONNECTION_WORDS:
            if isinstance(inner, kind):
                return words
    innermost = next((c for c in reversed(causes) if plain_reason(c, "")), None)
    return said_by(innermost) if innermost is not None else "no connection was made"
