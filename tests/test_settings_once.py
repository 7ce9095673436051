"""Settings are one object, read from the environment once: the model providers take
their keys and base URLs from it, and the scrubber masks the secrets collected for the
run without reading the environment again."""

from __future__ import annotations

from host.brains import make_brain
from host.brains.access import ModelAccess
from host.config import load_settings
from subagents import secrets
from subagents.secrets import scrub, scrub_data, secret_scope
from subagents.settings import Keys

KEY = "sk-settings-once-4d1c9a"


def test_the_providers_take_keys_and_base_urls_from_the_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/from-env")
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    settings = load_settings({"runs_dir": str(tmp_path)})
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST"):
        monkeypatch.delenv(name)  # read when the settings were made, not later
    assert settings.models.key_of("openai") == KEY and KEY not in repr(settings)
    brain = make_brain("openai:m", access=settings.models)
    assert str(brain.model.client.base_url).rstrip("/") == "http://127.0.0.1:9/from-env"
    assert brain.model.client.api_key == KEY and brain.secrets == (KEY,)
    other = ModelAccess(Keys({"OPENAI_API_KEY": "sk-other-value"}), {"openai": "http://x.test"})
    assert make_brain("openai:m", access=other).model.client.api_key == "sk-other-value"
    ollama = make_brain("ollama:m", access=settings.models)
    assert "127.0.0.1:9" in str(ollama.model.client._client.base_url)


def test_a_secret_scope_masks_its_values_and_reads_no_environment(monkeypatch):
    reads: list[int] = []
    real = secrets.secret_values
    monkeypatch.setattr(secrets, "secret_values", lambda *a: reads.append(1) or real(*a))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with secret_scope(["replay-placeholder-github_token"]):
        assert scrub(f"a {KEY} b") == f"a {KEY} b"  # set after the scope's secrets were read
        assert scrub("Bearer replay-placeholder-github_token") == "Bearer ***"
        with secret_scope([KEY]):
            assert scrub_data({"k": [f"{KEY} replay-placeholder-github_token"]}) == {
                "k": ["*** ***"]
            }
    assert reads == []
    assert scrub(f"a {KEY} b") == "a *** b"  # outside any scope: the environment now
    assert reads == [1]
