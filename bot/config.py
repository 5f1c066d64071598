"""Configuration read from the environment and `.env`, as listed in the reference interface.

Every variable is optional at parse time because each command needs a different subset
(`serve` needs Slack and room-service credentials, `digest` needs the dossier token).
`require()` turns the missing ones into one `ConfigError` line naming every one of them, so an
operator fixes the configuration in one go rather than one start-up per variable.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cryptography.fernet import Fernet
from pydantic import AnyHttpUrl, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.requirements import needed, unset_line
from clients.secret_box import SecretBox, fernet_keys
from handlers.i18n import LANGUAGES


class ConfigError(Exception):
    """A configuration problem an operator fixes by setting one variable."""


class Settings(BaseSettings):
    # `NAME=` (as left in a copied .env.example) means unset, not an empty secret sent to a service
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", case_sensitive=False, env_ignore_empty=True)

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_api_url: AnyHttpUrl = AnyHttpUrl("https://slack.com/api/")
    # OAuth installs into many workspaces (without SLACK_BOT_TOKEN)
    slack_client_id: str | None = None
    slack_client_secret: SecretStr | None = None
    # the workspaces (team or enterprise ids) DS_API_TOKEN serves in OAuth mode
    ds_api_token_teams: Annotated[list[str], NoDecode] = Field(default_factory=list)

    meet_api_url: AnyHttpUrl | None = None
    meet_client_id: str | None = None
    meet_client_secret: SecretStr | None = None
    # Where room links point when the service omits `url` (its APPLICATION_BASE_URL unset).
    meet_room_base_url: AnyHttpUrl | None = None
    # how long before a planned room's start Slack delivers its reminders
    room_reminder_minutes: int = Field(default=10, ge=1, le=24 * 60)

    ds_api_url: AnyHttpUrl = AnyHttpUrl("https://demarche.numerique.gouv.fr/api/v2/graphql")
    ds_api_token: SecretStr | None = None
    digest_channel: str | None = None
    digest_demarches: Annotated[list[int], NoDecode] = Field(default_factory=list)
    digest_time: dt.time = dt.time(9, 0)
    digest_timezone: str = "Europe/Paris"
    # a dossier waiting longer than this in en construction or en instruction is late (the service's
    # own weekly e-mail says 7)
    digest_late_days: int = Field(default=7, ge=1, le=365)
    # démarches channels may subscribe to: numbers, or `*` for any the dossier token can read
    digest_allowed_demarches: str = "*"
    ds_requests_per_minute: int = Field(default=400, ge=1)  # the service allows 400 per token
    # how often watched démarches are read for `/dossier watch` (one request each when nothing changed)
    ds_watch_seconds: int = Field(default=300, ge=10, le=86400)
    digest_max_per_person: int = Field(default=10, ge=0)  # démarches one person may have followed with /digest

    albert_api_url: AnyHttpUrl = AnyHttpUrl("https://albert.api.etalab.gouv.fr")
    albert_api_key: SecretStr | None = None
    albert_model: str = "albert-small"

    redis_url: SecretStr | None = None  # may embed a password
    redis_cluster: bool | None = None  # None: asked of the server (INFO cluster) at start
    # Sentinels instead of REDIS_URL's host; REDIS_URL, when set too, still gives the password and db
    redis_sentinels: Annotated[list[tuple[str, int]], NoDecode] = Field(default_factory=list)
    redis_sentinel_master: str = "mymaster"
    data_dir: Path = Path("var")
    default_language: str = "fr"
    token_encryption_key: SecretStr | None = None

    host: str = "0.0.0.0"
    port: int = Field(default=3000, ge=1, le=65535)
    metrics_port: int | None = Field(default=None, ge=1, le=65535)  # /metrics and /healthz apart from Slack's route
    serve_processes: int = Field(default=1, ge=1, le=32)  # `serve` processes sharing the port, one event loop each
    log_level: Literal["CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG"] = "INFO"

    @field_validator("digest_demarches", mode="before")
    @classmethod
    def _split_numbers(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("ds_api_token_teams", mode="before")
    @classmethod
    def _split_ids(cls, value: object) -> object:
        if isinstance(value, str):
            ids = [part.strip() for part in value.split(",") if part.strip()]
            wrong = [part for part in ids if not (part[:1] in ("T", "E") and part.isalnum() and len(part) <= 20)]
            if wrong:
                raise ValueError(f"expected team ids (T…) or enterprise ids (E…), got {', '.join(wrong[:3])}")
            return ids
        return value

    @field_validator("digest_allowed_demarches")
    @classmethod
    def _star_or_numbers(cls, value: str) -> str:
        if value.strip() != "*" and not all(part.strip().isdecimal() for part in value.split(",") if part.strip()):
            raise ValueError("expected * or comma-separated démarche numbers")
        return value.strip()

    @property
    def redis_settings(self) -> str:
        """The variables to check when Redis does not answer (never their values: a URL may hold a password)."""
        return "REDIS_SENTINELS and REDIS_SENTINEL_MASTER" if self.redis_sentinels else "REDIS_URL"

    @property
    def allowed_demarches(self) -> frozenset[int] | None:
        """None: any démarche the token can read."""
        if self.digest_allowed_demarches == "*":
            return None
        return frozenset(int(part) for part in self.digest_allowed_demarches.split(",") if part.strip())

    @field_validator("digest_time", mode="before")
    @classmethod
    def _hh_mm(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                return dt.datetime.strptime(value.strip(), "%H:%M").time()
            except ValueError:
                raise ValueError(f"expected HH:MM, got {value!r}") from None
        return value

    @field_validator("digest_timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown IANA time zone {value!r}") from None
        return value

    @field_validator("default_language")
    @classmethod
    def _has_a_catalog(cls, value: str) -> str:
        if value not in LANGUAGES:
            raise ValueError(f"no catalog for {value!r}: choose one of {', '.join(LANGUAGES)}")
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must start with redis://, rediss:// or unix://")
        return value

    @field_validator("redis_sentinels", mode="before")
    @classmethod
    def _host_ports(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        found = []
        for part in filter(None, (part.strip() for part in value.split(","))):
            host, _, port = part.rpartition(":")
            if not host or not port.isdecimal():
                raise ValueError(f"expected host:port, got {part!r}")
            found.append((host.strip("[]"), int(port)))
        return found

    @field_validator("token_encryption_key")
    @classmethod
    def _fernet_key(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            keys = fernet_keys(value.get_secret_value())
            try:
                if not keys:
                    raise ValueError
                for part in keys:
                    Fernet(part.encode())
            except (ValueError, TypeError):
                raise ValueError("must be a Fernet key, or several separated by commas, the newest first: 32 url-safe "
                                 "base64-encoded bytes each (python -c 'from cryptography.fernet import Fernet; "
                                 "print(Fernet.generate_key().decode())')") from None
        return value

    @property
    def secret_box(self) -> SecretBox:
        return SecretBox(self.token_encryption_key)

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @property
    def digest_enabled(self) -> bool:
        return bool(self.digest_channel and self.digest_demarches and self.ds_api_token)

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.digest_timezone)

    @property
    def socket_mode(self) -> bool:
        return self.slack_app_token is not None

    @property
    def oauth(self) -> bool:
        """Installs into many workspaces by OAuth: a client id and secret, and no single bot token."""
        return bool(self.slack_client_id and self.slack_client_secret) and self.slack_bot_token is None

    def missing(self, *names: str) -> list[str]:
        """The variables among `names` that are unset or empty, in the order given."""
        unset = []
        for name in names:
            value = getattr(self, name)
            if not value or (isinstance(value, SecretStr) and not value.get_secret_value()):
                unset.append(name)
        return unset

    def require(self, *names: str, to: str) -> None:
        """Stops with one line naming every one of `names` that is unset; `to` says what needs them."""
        unset = self.missing(*names)
        if unset:
            raise ConfigError(f"{to}, {unset_line(unset)}")

    def require_for(self, command: str, *, dry_run: bool = False) -> None:
        """Stops with one line when `command` cannot run without an unset variable."""
        names, to = needed(command, dry_run=dry_run, socket_mode=self.socket_mode, oauth=self.oauth)
        self.require(*names, to=to)


def load_settings(**overrides: object) -> Settings:
    """Parse the environment; every malformed variable is named, in one line."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as error:
        problems = []
        for problem in error.errors():
            name = str(problem["loc"][0]).upper() if problem["loc"] else "configuration"
            problems.append(f"{name} is malformed: {problem['msg']}")
        raise ConfigError("; ".join(dict.fromkeys(problems))) from None
