"""Settings: defaults that do not depend on where a command is started."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest

from parley.config import Settings

pytestmark = pytest.mark.unit


def test_the_default_data_dir_is_the_same_absolute_directory_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.delenv("PARLEY_DATA_DIR", raising=False)
    first = Settings().data_dir
    monkeypatch.chdir(tmp_path)
    assert Settings().data_dir == first == platformdirs.user_data_path("parley")
    assert first.is_absolute()


def test_a_relative_data_dir_is_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PARLEY_DATA_DIR", ".parley")
    assert Settings().data_dir == tmp_path.resolve() / ".parley"


def test_whether_the_auth_secret_was_configured(monkeypatch):
    monkeypatch.delenv("PARLEY_AUTH_SECRET", raising=False)
    assert not Settings().auth_secret_configured
    monkeypatch.setenv("PARLEY_AUTH_SECRET", "x" * 32)
    assert Settings().auth_secret_configured
    assert os.environ["PARLEY_AUTH_SECRET"] == Settings().auth_secret


def test_every_setting_is_documented_in_the_readme():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    names = [field.alias for field in Settings.model_fields.values()]
    assert [name for name in names if f"`{name}`" not in readme] == []
