"""Tools get their settings injected: only the settings and secrets modules read the
environment, and ``ToolSettings.from_env`` maps every variable to its setting."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from subagents.settings import (
    DEFAULT_SEARCH_TIMEOUT,
    NetworkPolicy,
    SettingsError,
    ToolSettings,
    network_policy,
)

SUBAGENTS = Path(__file__).resolve().parent.parent / "subagents"
#: The only modules that may read the process environment.
READERS = {"settings.py", "secrets.py"}
ENV_FUNCTIONS = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def env_uses(source: str) -> list[tuple[int, str]]:
    """``(line, code)`` of every use of ``os.environ``/``os.getenv``… in ``source``."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found: list[int] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ENV_FUNCTIONS
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            if any(alias.name in ENV_FUNCTIONS for alias in node.names):
                found.append(node.lineno)
        elif isinstance(node, ast.Import) and any(
            alias.name == "os" and alias.asname for alias in node.names
        ):
            found.append(node.lineno)  # an alias would hide os.environ from this scan
    return [(n, lines[n - 1].strip()) for n in sorted(set(found))]


def test_the_scan_finds_every_spelling():
    source = (
        "import os\nfrom os import environ\nimport os as system\n"
        "a = os.environ['X']\nb = os.getenv('Y')\nc = os.path.join('a')\n"
    )
    assert [n for n, _ in env_uses(source)] == [2, 3, 4, 5]


def test_only_the_settings_and_secrets_modules_read_the_environment():
    readers = {}
    for path in sorted(SUBAGENTS.rglob("*.py")):
        uses = env_uses(path.read_text(encoding="utf-8"))
        if uses:
            readers[path.relative_to(SUBAGENTS).as_posix()] = uses
    # Tesseract's thread count is set for the process once, not read as a setting.
    images = [code for _, code in readers.pop("file/images.py")]
    assert images == ['os.environ.setdefault("OMP_THREAD_LIMIT", "1")']
    assert set(readers) <= READERS, {k: v for k, v in readers.items() if k not in READERS}
    assert "settings.py" in readers


def test_from_env_maps_every_variable():
    env = {
        "QUARTET_GOOGLE_URL": "http://127.0.0.1:1/google/",
        "QUARTET_WIKI_URL": "http://127.0.0.1:1/wiki",
        "QUARTET_SEARCH_TIMEOUT": "3",
        "QUARTET_WIKI_LANG": "ZH",
        "QUARTET_ALLOW_HOSTS": "127.0.0.1, localhost, 10.0.0.0/8",
        "QUARTET_NETWORK": "allowlist",
        "QUARTET_BROWSER": "/opt/chromium/chrome",
        "QUARTET_VISION_MODEL": "vision-test",
        "OPENAI_BASE_URL": "http://127.0.0.1:2/v1",
        "OPENAI_API_KEY": "sk-settings-canary-1",
        "GITHUB_TOKEN": "ghp_settings_canary_2",
        "HOME": "/root",
    }
    settings = ToolSettings.from_env(env)
    assert settings.endpoints == {
        "google": "http://127.0.0.1:1/google/",
        "wiki": "http://127.0.0.1:1/wiki",
    }
    assert settings.endpoint("google", "https://www.google.com") == "http://127.0.0.1:1/google"
    assert settings.endpoint("bing", "https://www.bing.com") == "https://www.bing.com"
    assert settings.search_timeout == 3.0 and settings.wiki_lang == "zh"
    assert settings.network.only and settings.network.hosts == {"localhost"}
    assert [str(n) for n in settings.network.networks] == ["127.0.0.1/32", "10.0.0.0/8"]
    assert settings.browser_path == "/opt/chromium/chrome"
    assert settings.vision_model == "vision-test"
    assert settings.openai_base_url == "http://127.0.0.1:2/v1"
    assert dict(settings.keys) == {
        "OPENAI_API_KEY": "sk-settings-canary-1",
        "GITHUB_TOKEN": "ghp_settings_canary_2",
    }
    assert "canary" not in repr(settings)


def test_defaults_are_the_real_services_and_the_strictest_network():
    settings = ToolSettings.from_env({})
    assert settings == ToolSettings()
    assert settings.endpoints == {} and settings.search_timeout == DEFAULT_SEARCH_TIMEOUT
    assert settings.wiki_lang == "en" and settings.browser_path is None
    assert settings.network == NetworkPolicy() and not settings.network.only
    assert len(settings.keys) == 0
    assert network_policy(None) == NetworkPolicy() and network_policy("junk") == NetworkPolicy()
    assert network_policy(ToolSettings(network=NetworkPolicy.parse("x", only=True))).only
    assert not ToolSettings.from_env({"QUARTET_NETWORK": "open"}).network.only


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("QUARTET_SEARCH_TIMEOUT", "soon"),
        ("QUARTET_SEARCH_TIMEOUT", "0"),
        ("QUARTET_WIKI_LANG", "en;drop"),
    ],
)
def test_a_malformed_setting_names_its_variable(name, value):
    with pytest.raises(SettingsError, match=name):
        ToolSettings.from_env({name: value})


def test_from_env_reads_the_process_environment_when_given_none(monkeypatch):
    monkeypatch.setenv("QUARTET_WIKI_LANG", "de")
    monkeypatch.setenv("QUARTET_ALLOW_HOSTS", "intranet.example")
    settings = ToolSettings.from_env()
    assert settings.wiki_lang == "de" and settings.network.host_allowed("intranet.example")
