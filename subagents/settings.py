"""What the tools need to know about their world, as one typed object.

The Host builds a :class:`ToolSettings` once per run (from its configuration, which reads
the environment) and injects it into the tools that need it; no tool reads
``os.environ``. Keys live in :class:`Keys`, whose ``repr`` never shows a value, so a
settings object can be logged or printed without leaking one.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from .registry_value import source_names
from .secrets import SECRET_VARS

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_SEARCH_TIMEOUT = 10.0
#: The longest search request allowed, in seconds (an hour).
MAX_SEARCH_TIMEOUT = 3600.0
_LANG = re.compile(r"^[a-z][a-z0-9-]{1,15}$")


class SettingsError(ValueError):
    """A setting is malformed; the message names it and says what is expected."""


class Keys(Mapping[str, str]):
    """Credential values by variable name; never shown by ``repr`` or ``str``."""

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        self._values = {k: v.strip() for k, v in (values or {}).items() if v and v.strip()}

    def __getitem__(self, name: str) -> str:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Keys({sorted(self._values)})"

    __str__ = __repr__

    def get_key(self, name: str) -> str | None:
        """The value of key ``name``, or None when it is not set."""
        return self._values.get(name)


@dataclass(frozen=True)
class NetworkPolicy:
    """Which hosts the Browser may reach beyond the public web, and whether only those.

    ``hosts`` (names) and ``networks`` (addresses and CIDRs) are exempt from the
    private-address refusal on every port; ``host_ports`` and ``network_ports`` only on
    the one port they name. With ``only`` set, nothing else may be reached at all.
    """

    hosts: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()
    only: bool = False
    host_ports: frozenset[tuple[str, int]] = frozenset()
    network_ports: tuple[tuple[IPNetwork, int], ...] = ()

    @classmethod
    def parse(cls, value: str, only: bool = False) -> NetworkPolicy:
        """``"127.0.0.1,localhost:8080,10.0.0.0/8,[::1]:8443"`` → a policy.

        An entry is a host name, an address or a CIDR, optionally followed by ``:PORT``
        (an IPv6 address or network with a port is written in brackets: ``[::1]:8443``).
        An entry with a port exempts that port only. Raises SettingsError for a port
        that is not a number from 1 to 65535 or an unclosed bracket.
        """
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        host_ports: set[tuple[str, int]] = set()
        network_ports: list[tuple[IPNetwork, int]] = []
        for entry in (e.strip().lower() for e in value.split(",")):
            if not entry:
                continue
            name, port = _split_port(entry)
            try:
                network = ipaddress.ip_network(name, strict=False)
            except ValueError:
                name = name.rstrip(".")
                if port is None:
                    hosts.add(name)
                else:
                    host_ports.add((name, port))
                continue
            if port is None:
                networks.append(network)
            else:
                network_ports.append((network, port))
        return cls(
            frozenset(hosts), tuple(networks), only, frozenset(host_ports), tuple(network_ports)
        )

    def entries(self) -> list[str]:
        """The policy's entries as :meth:`parse` reads them (``only`` aside)."""

        def bracket(net: IPNetwork) -> str:
            text = str(net)
            return f"[{text}]" if net.version == 6 else text

        return [
            *sorted(self.hosts),
            *(str(n) for n in self.networks),
            *(f"{h}:{p}" for h, p in sorted(self.host_ports)),
            *(f"{bracket(n)}:{p}" for n, p in self.network_ports),
        ]

    def host_allowed(self, host: str, port: int | None = None) -> bool:
        """Whether ``host`` is listed by name, for every port or for ``port``."""
        return host in self.hosts or (host, port) in self.host_ports

    def address_allowed(self, address: IPAddress, port: int | None = None) -> bool:
        """Whether a listed network holds ``address``, for every port or for ``port``."""
        return any(_holds(net, address) for net in self.networks) or any(
            p == port and _holds(net, address) for net, p in self.network_ports
        )


def _holds(network: IPNetwork, address: IPAddress) -> bool:
    return network.version == address.version and address in network


def _split_port(entry: str) -> tuple[str, int | None]:
    """``(host, port)`` of an allow-list entry; the port is None when it names none."""
    if entry.startswith("["):
        inside, closed, rest = entry[1:].partition("]")
        if not closed or (rest and not rest.startswith(":")):
            raise SettingsError(
                f"QUARTET_ALLOW_HOSTS entry {entry!r} is malformed: write an IPv6 address "
                "with a port as [ADDRESS]:PORT"
            )
        return inside, _port(rest[1:], entry) if rest else None
    if entry.count(":") == 1:  # host:port; bare IPv6 addresses have two colons or more
        host, _, port = entry.partition(":")
        return host, _port(port, entry)
    return entry, None


def _port(text: str, entry: str) -> int:
    if text.isdigit() and 0 < int(text) < 65536:
        return int(text)
    raise SettingsError(
        f"QUARTET_ALLOW_HOSTS entry {entry!r} has no valid port after the colon "
        "(a number from 1 to 65535)"
    )


_SWITCH = {"1": True, "true": True, "yes": True, "on": True}
_SWITCH |= {"0": False, "false": False, "no": False, "off": False, "": False}


def parse_switch(value: object, name: str) -> bool:
    """An on/off setting: a TOML boolean, or the text of an environment variable.

    Args:
        value: ``True``/``False``, or text such as ``"true"``, ``"1"``, ``"no"`` (empty
            text is off).
        name: the setting's name, for the error.

    Raises:
        SettingsError: ``value`` is neither.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _SWITCH:
        return _SWITCH[value.strip().lower()]
    raise SettingsError(f"{name}: expected true or false, got {value!r}")


def playwright_browsers_dir() -> str:
    """Where Playwright keeps its own browsers: its ``PLAYWRIGHT_BROWSERS_PATH``, else its
    default. Playwright reads that variable itself; this mirrors it so that the browser
    session can tell whether Playwright's Chromium is installed."""
    return os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or "~/.cache/ms-playwright"


def network_policy(settings: object) -> NetworkPolicy:
    """The network policy of injected ``settings`` (the strictest one when there are none)."""
    policy = getattr(settings, "network", None)
    return policy if isinstance(policy, NetworkPolicy) else NetworkPolicy()


def browser_sites(settings: object) -> frozenset[str]:
    """The sites injected ``settings`` name as read in the browser at once (none when
    there are no settings)."""
    sites = getattr(settings, "browser_sites", None)
    return sites if isinstance(sites, frozenset) else frozenset()


@dataclass(frozen=True)
class ToolSettings:
    """Endpoints, limits, network policy and keys the tools use.

    Attributes:
        endpoints: base URL per search source (``google``, ``bing``, …) overriding the
            real service.
        search_timeout: seconds per search request.
        wiki_lang: Wikipedia language code for ``search_wiki``.
        network: what ``viewer_fetch``, ``http_download`` and the browser may reach.
        browser_path: the Chromium to launch, or None for Playwright's own or Debian's.
        vision_model: a vision model name for ``image_qa`` (OpenAI-compatible), or "".
        openai_base_url: where that model is served.
        spreadsheet_formulas: ``csv_write`` and ``xlsx_write_cells`` store text starting
            with "=" as a formula instead of as text. Off by default (formula injection);
            the user's choice, never a tool parameter a model could set.
        keys: credentials, from the environment only.
        browser_sites: the sites (``host`` or ``host:port``) whose pages ``viewer_fetch``
            reads in Chromium at once, without a plain fetch first: those the experience
            logs name as needing the browser (set by the Host for a run, empty otherwise).
    """

    endpoints: Mapping[str, str] = field(default_factory=dict)
    search_timeout: float = DEFAULT_SEARCH_TIMEOUT
    wiki_lang: str = "en"
    network: NetworkPolicy = field(default_factory=NetworkPolicy)
    browser_path: str | None = None
    vision_model: str = ""
    openai_base_url: str = ""
    spreadsheet_formulas: bool = False
    keys: Keys = field(default_factory=Keys)
    browser_sites: frozenset[str] = frozenset()

    def endpoint(self, source: str, default: str) -> str:
        """Base URL of ``source``: its configured endpoint or ``default``, no trailing slash."""
        return (self.endpoints.get(source) or default).rstrip("/")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ToolSettings:
        """Settings from environment variables (SPEC §8); the Host's configuration calls this."""
        env = os.environ if env is None else env

        def get(name: str) -> str:
            return env.get(name, "").strip()

        endpoints = {s: get(f"QUARTET_{s.upper()}_URL") for s in source_names()}
        raw_timeout = get("QUARTET_SEARCH_TIMEOUT")
        try:
            timeout = float(raw_timeout) if raw_timeout else DEFAULT_SEARCH_TIMEOUT
        except ValueError:
            raise SettingsError(
                f"QUARTET_SEARCH_TIMEOUT={raw_timeout!r} is not a number of seconds"
            ) from None
        if not 0 < timeout <= MAX_SEARCH_TIMEOUT:  # False for nan as well
            raise SettingsError(
                f"QUARTET_SEARCH_TIMEOUT must be more than 0 and at most "
                f"{MAX_SEARCH_TIMEOUT:g} seconds, got {raw_timeout!r}"
            )
        lang = get("QUARTET_WIKI_LANG").lower() or "en"
        if not _LANG.match(lang):
            raise SettingsError(
                f"QUARTET_WIKI_LANG={lang!r} is not a wiki language code such as en or zh"
            )
        return cls(
            endpoints={k: v for k, v in endpoints.items() if v},
            search_timeout=timeout,
            wiki_lang=lang,
            network=NetworkPolicy.parse(
                get("QUARTET_ALLOW_HOSTS"), only=get("QUARTET_NETWORK").lower() == "allowlist"
            ),
            browser_path=get("QUARTET_BROWSER") or None,
            vision_model=get("QUARTET_VISION_MODEL"),
            openai_base_url=get("OPENAI_BASE_URL"),
            spreadsheet_formulas=parse_switch(
                get("QUARTET_SPREADSHEET_FORMULAS"), "QUARTET_SPREADSHEET_FORMULAS"
            ),
            keys=Keys({name: env.get(name, "") for name in SECRET_VARS}),
        )
