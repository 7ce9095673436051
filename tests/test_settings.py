"""Tools get their settings injected: only the settings and secrets modules read the
environment, and ``ToolSettings.from_env`` maps every variable to its setting."""

from __future__ import annotations

import ast
import os
import re
import tomllib
from pathlib import Path

import pytest

from host.config import ANY, MOST, TOML_KEYS, ConfigError, Settings, load_settings
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
    # Tesseract's own process gets the caller's environment with one OpenMP thread;
    # nothing is read as a setting and the process's environment is left alone.
    images = [code for _, code in readers.pop("file/images.py")]
    assert images == ['env = {**os.environ, "OMP_THREAD_LIMIT": "1"}']
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
        ("QUARTET_SEARCH_TIMEOUT", "nan"),
        ("QUARTET_SEARCH_TIMEOUT", "inf"),
        ("QUARTET_SEARCH_TIMEOUT", "1e9"),
        ("QUARTET_SPREADSHEET_FORMULAS", "sometimes"),
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


# --- quartet.toml ------------------------------------------------------------------------

ROOT = SUBAGENTS.parent
EXAMPLE = ROOT / "quartet.example.toml"


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "quartet.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "named", "hint"),
    [
        ("[quartet]\nmax_page = 3\n", "'max_page' in [quartet]", "did you mean max_pages?"),
        ("[quartett]\nmax_pages = 3\n", "'quartett'", "did you mean quartet?"),
        (
            "[quartet.stage_timeouts]\nbrowsr = 30\n",
            "'browsr' in [quartet.stage_timeouts]",
            "did you mean browser?",
        ),
        (
            '[[quartet.mcp]]\nsubagent = "file"\nname = "x"\ntool = ["a"]\ncommand = "p"\n',
            "'tool' in [quartet.mcp]",
            "did you mean tools?",
        ),
        (
            '[quartet.approve]\ntools = []\ndefualt = "deny"\n',
            "'defualt' in [quartet.approve]",
            "did you mean default?",
        ),
        (
            '[quartet.prices."gpt-4o"]\ninput = 1.0\noutptu = 2.0\n',
            "'outptu' in [quartet.prices.gpt-4o]",
            "did you mean output?",
        ),
        ("[quartet]\nzzz = 1\n", "'zzz' in [quartet]", "valid keys: model, model_timeout"),
    ],
)
def test_an_unknown_toml_key_is_named_with_the_nearest_valid_one(tmp_path, text, named, hint):
    with pytest.raises(ConfigError) as caught:
        load_settings({}, _toml(tmp_path, text))
    message = str(caught.value)
    assert message.startswith(str(tmp_path / "quartet.toml"))
    assert named in message and hint in message


def test_a_table_key_given_a_plain_value_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"stage_timeouts must be a table"):
        load_settings({}, _toml(tmp_path, "[quartet]\nstage_timeouts = 30\n"))
    with pytest.raises(ConfigError, match=r"mcp must be an array of tables"):
        load_settings({}, _toml(tmp_path, '[quartet]\nmcp = "x"\n'))


def test_keys_owned_by_other_settings_are_accepted(tmp_path):
    text = (
        "[quartet]\nmodel_timeout = 30.5\n"
        '[quartet.prices."openai:gpt-4o-mini"]\ninput = 0.15\noutput = 0.6\n'
        '[quartet.approve]\ntools = ["http_download"]\ndefault = "approve"\n'
    )
    assert load_settings({}, _toml(tmp_path, text)).max_pages == 24


def _uncommented(text: str) -> str:
    """The example with every commented-out setting switched on (``#key`` → ``key``)."""
    return re.sub(r"(?m)^#(?=\S)", "", text)


def _keys_of(data: dict, keys: dict, where: str = "") -> set[str]:
    """Every path of :data:`TOML_KEYS` that ``data`` holds (``ANY`` standing for names)."""
    found = set()
    for key, value in data.items():
        name = key if key in keys else ANY
        path = f"{where}.{name}" if where else name
        found.add(path)
        inner = keys[name]
        for entry in [value] if isinstance(inner, dict) else value if inner else []:
            found |= _keys_of(entry, inner if isinstance(inner, dict) else inner[0], path)
    return found


def _all_keys(keys: dict, where: str = "") -> set[str]:
    found = set()
    for key, inner in keys.items():
        path = f"{where}.{key}" if where else key
        found.add(path)
        if inner:
            found |= _all_keys(inner if isinstance(inner, dict) else inner[0], path)
    return found


def test_the_example_toml_loads_and_covers_every_key(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("QUARTET_"):
            monkeypatch.delenv(name)
    text = EXAMPLE.read_text(encoding="utf-8")
    # As shipped, everything is commented out: the file gives the defaults.
    assert load_settings({}, EXAMPLE) == load_settings({}, tmp_path / "none.toml")
    # Every setting switched on, the file still loads ...
    on = _toml(tmp_path, _uncommented(text))
    (tmp_path / "inputs").mkdir()
    settings = load_settings({}, on)
    assert settings.stage_timeouts and len(settings.mcp_servers) == 2
    # ... and shows every key there is, and each key's documented default is the real one.
    data = tomllib.loads(on.read_text(encoding="utf-8"))
    assert _keys_of(data, TOML_KEYS) == _all_keys(TOML_KEYS)
    defaults = Settings()
    for key, value in data["quartet"].items():
        unset = key in ("input", "max_tokens", "max_cost")  # no default: shown with an example
        if hasattr(defaults, key) and not isinstance(value, dict | list) and not unset:
            shown = ",".join(defaults.formats) if key == "formats" else getattr(defaults, key)
            assert value == shown or str(value) == str(shown), key


def test_a_glossary_is_read_from_quartet_toml_and_a_malformed_one_is_refused(tmp_path):
    good = _toml(
        tmp_path,
        '[quartet]\n[[quartet.glossary]]\nsame = ["build", "construct"]\nrelated = ["dig"]\n',
    )
    assert load_settings({}, good).glossary == (
        {"same": ("build", "construct"), "related": ("dig",)},
    )
    bad = _toml(tmp_path, '[quartet]\n[[quartet.glossary]]\nsame = "build construct"\n')
    with pytest.raises(ConfigError, match=r"glossary: expected tables such as"):
        load_settings({}, bad)


# --- numbers and switches -------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MOST))
@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
def test_every_number_in_quartet_toml_must_be_finite(tmp_path, clean_env, name, value):
    with pytest.raises(ConfigError, match=rf"^{name}: expected a finite number, got {value}"):
        load_settings({}, _toml(tmp_path, f"[quartet]\n{name} = {value}\n"))


@pytest.mark.parametrize("name", sorted(MOST))
def test_every_number_has_a_range(tmp_path, clean_env, name):
    too_big = int(MOST[name]) * 10
    for shown in (too_big, 0, -1):
        with pytest.raises(ConfigError, match=rf"^{name}: must be positive and at most"):
            load_settings({}, _toml(tmp_path, f"[quartet]\n{name} = {shown}\n"))
    assert getattr(load_settings({}, _toml(tmp_path, f"[quartet]\n{name} = 1\n")), name) == 1


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("max_pages = 2.5", "max_pages: expected a whole number, got 2.5"),
        ("max_pages = true", "max_pages: expected a number, got True"),
        ('max_pages = "many"', "max_pages: expected a number, got 'many'"),
        ("stage_timeout = 1e400", "stage_timeout: expected a finite number, got inf"),
        ("[quartet.stage_timeouts]\nbrowser = nan", "stage_timeouts.browser: expected a finite"),
        ("[quartet.stage_timeouts]\nfile = 1e9", "stage_timeouts.file: must be positive and"),
        ('[quartet.prices."openai:m"]\ninput = nan\noutput = 1', "finite, non-negative number"),
        ('[quartet.prices."openai:m"]\ninput = 1\noutput = inf', "finite, non-negative number"),
        ("spreadsheet_formulas = 1", "spreadsheet_formulas: expected true or false"),
    ],
)
def test_a_malformed_number_in_quartet_toml_is_named(tmp_path, clean_env, line, says):
    with pytest.raises(ConfigError, match=re.escape(says)):
        load_settings({}, _toml(tmp_path, f"[quartet]\n{line}\n"))


def test_numbers_from_the_environment_and_flags_are_checked_the_same_way(tmp_path, clean_env):
    none = tmp_path / "none.toml"
    clean_env.setenv("QUARTET_STAGE_TIMEOUT", "nan")
    with pytest.raises(ConfigError, match="stage_timeout: expected a finite number"):
        load_settings({}, none)
    clean_env.setenv("QUARTET_STAGE_TIMEOUT", "90.5")
    assert load_settings({}, none).stage_timeout == 90.5
    clean_env.setenv("QUARTET_MAX_PAGES", "inf")
    with pytest.raises(ConfigError, match="max_pages: expected a finite number"):
        load_settings({}, none)
    assert load_settings({"max_pages": 7}, none).max_pages == 7  # the flag beats it
    with pytest.raises(ConfigError, match="max_pages: must be positive and at most 10,000"):
        load_settings({"max_pages": 10**6}, none)


def test_spreadsheet_formulas_are_off_unless_the_user_turns_them_on(tmp_path, clean_env):
    none = tmp_path / "none.toml"
    assert load_settings({}, none).tools.spreadsheet_formulas is False
    on = _toml(tmp_path, "[quartet]\nspreadsheet_formulas = true\n")
    assert load_settings({}, on).tools.spreadsheet_formulas is True
    clean_env.setenv("QUARTET_SPREADSHEET_FORMULAS", "false")  # the environment beats the file
    assert load_settings({}, on).tools.spreadsheet_formulas is False
    clean_env.setenv("QUARTET_SPREADSHEET_FORMULAS", "1")
    assert load_settings({}, none).tools.spreadsheet_formulas is True
    assert ToolSettings.from_env({"QUARTET_SPREADSHEET_FORMULAS": "yes"}).spreadsheet_formulas
