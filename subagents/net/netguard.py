"""Network guard: which URLs the Browser may reach.

Only ``http`` and ``https`` URLs pass. The host name is resolved and every address it
resolves to must be a public one: private, loopback, link-local, multicast, reserved and
unspecified addresses are refused (an IPv6 address that carries an IPv4 address, such as
6to4 or NAT64, is judged by the IPv4 address it carries) unless the host name, or a
network containing the address, is listed in ``QUARTET_ALLOW_HOSTS``: comma-separated
host names, addresses or CIDRs, each exempt on every port or, written ``host:port``
(``[v6]:port``), on that port only; empty by default. With ``QUARTET_NETWORK=allowlist``
only the listed hosts and networks may be reached at all (the offline demo uses this, so
nothing leaves the machine). The check runs before any connection is opened, and callers
run it again for every redirect hop.

A host name may resolve differently a moment later (DNS rebinding), so the HTTP client
applies the same rules again when it connects (see :mod:`.netpin`):
:func:`permitted_addresses` gives the addresses it may connect to. Both paths resolve
through :func:`resolve`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

from ..settings import NetworkPolicy
from ..tape import NotRecorded, active_tape

ALLOW_ENV = "QUARTET_ALLOW_HOSTS"
NETWORK_ENV = "QUARTET_NETWORK"
RESOLVE_TIMEOUT = 5.0

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: IPv6 networks whose addresses carry an IPv4 address in their last 32 bits:
#: IPv4-translated (SIIT), NAT64's well-known prefix, IPv4-compatible (``::1`` and ``::``
#: are in it too, and carry the non-public 0.0.0.1 and 0.0.0.0).
_LAST_32_BITS = tuple(
    ipaddress.IPv6Network(n) for n in ("::ffff:0:0:0/96", "64:ff9b::/96", "::/96")
)


class BlockedURLError(ValueError):
    """A URL the Browser must not fetch; ``str()`` says why and what to do."""


class UnresolvableHostError(BlockedURLError):
    """A host name that did not resolve to any address."""


def embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address carries, in the order they appear; () for none.

    IPv4-mapped (``::ffff:a.b.c.d``), IPv4-translated (``::ffff:0:a.b.c.d``),
    IPv4-compatible (``::a.b.c.d``) and NAT64 (``64:ff9b::a.b.c.d``) addresses carry one
    in their last 32 bits, 6to4 (``2002::/16``) in bits 16–47, and Teredo (``2001::/32``)
    two: its server and its client.
    """
    if address.ipv4_mapped is not None:
        return (address.ipv4_mapped,)
    if address.sixtofour is not None:
        return (address.sixtofour,)
    if address.teredo is not None:
        return address.teredo
    if any(address in net for net in _LAST_32_BITS):
        return (ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF),)
    return ()


def is_public(address: IPAddress) -> bool:
    """Whether an address is globally routable (not private, loopback, link-local, …).

    An IPv6 address that carries IPv4 addresses (see :func:`embedded_ipv4`) is public
    only when every address it carries is: the packet ends up at that IPv4 address.
    """
    if isinstance(address, ipaddress.IPv6Address):
        carried = embedded_ipv4(address)
        if carried:
            return all(is_public(v4) for v4 in carried)
    return address.is_global and not (
        address.is_multicast or address.is_reserved or address.is_unspecified
    )


def split_host(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of an http(s) URL, or BlockedURLError."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise BlockedURLError(f"Error: {url!r} is not a valid URL ({exc}).") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise BlockedURLError(
            f"Error: only http and https URLs can be fetched, not {scheme or 'a bare path'!r} "
            f"({url[:200]})."
        )
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise BlockedURLError(f"Error: {url[:200]!r} has no host name.")
    return scheme, host, port or (443 if scheme == "https" else 80)


async def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to (a literal address resolves to itself)."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    tape = active_tape()
    if tape is not None and tape.replaying:  # a replay asks the recording, not the network
        try:
            entry = tape.take("dns", f"{host}:{port}")
        except NotRecorded:
            raise UnresolvableHostError(
                f"Error: the host name {host!r} was not resolved in the recorded run."
            ) from None
        return [ipaddress.ip_address(a) for a in entry["addresses"]]
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT):
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, TimeoutError) as exc:
        raise UnresolvableHostError(
            f"Error: the host name {host!r} could not be resolved ({exc or 'timeout'}). "
            "Check the URL."
        ) from None
    found: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%", 1)[0])
        if address not in found:
            found.append(address)
    if not found:
        raise UnresolvableHostError(f"Error: the host name {host!r} has no address. Check the URL.")
    if tape is not None:
        await tape.save("dns", f"{host}:{port}", {"addresses": [str(a) for a in found]})
    return found


def address_refusal(host: str, port: int, address: IPAddress, allow: NetworkPolicy) -> str | None:
    """Why ``address`` (an address of ``host``) may not be reached on ``port``, or None."""
    if allow.host_allowed(host, port):
        return None
    if allow.only and not allow.address_allowed(address, port):
        return (
            f"the network is limited to the hosts in {ALLOW_ENV} ({NETWORK_ENV}=allowlist) "
            f"and {host} (port {port}) is not one of them."
        )
    if not (is_public(address) or allow.address_allowed(address, port)):
        return (
            f"{host} resolves to the non-public address {address}. Only public web addresses "
            "can be fetched."
        )
    return None


async def check_url(url: str, allow: NetworkPolicy) -> str:
    """Refuse ``url`` unless it is http(s) and every address of its host may be reached.

    Returns the URL unchanged. Raises BlockedURLError with a readable reason otherwise.
    """
    _, host, port = split_host(url)
    if allow.host_allowed(host, port):
        return url
    for address in await resolve(host, port):
        reason = address_refusal(host, port, address, allow)
        if reason is not None:
            raise BlockedURLError(f"Error: refused to fetch {url[:200]}: {reason}")
    return url


async def permitted_addresses(host: str, port: int, allow: NetworkPolicy) -> list[IPAddress]:
    """The addresses of ``host`` that may be connected to on ``port``, in the resolver's order.

    Resolves ``host`` afresh and keeps each address the rules of :func:`check_url` allow.
    Raises BlockedURLError naming the first refused address when none is left, and
    UnresolvableHostError when the name does not resolve.
    """
    host = host.strip("[]").rstrip(".").lower()
    addresses = await resolve(host, port)
    permitted = [a for a in addresses if address_refusal(host, port, a, allow) is None]
    if permitted:
        return permitted
    reason = address_refusal(host, port, addresses[0], allow)
    raise BlockedURLError(f"Error: refused to fetch from {host} (port {port}): {reason}")
