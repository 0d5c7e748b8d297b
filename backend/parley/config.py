"""Settings: the only place Parley reads its environment."""

from __future__ import annotations

import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from parley import addresses

# Used only when PARLEY_AUTH_SECRET is unset: tokens then die with the process, which is
# what a local try-out wants and what a deployment must override.
_EPHEMERAL_SECRET = secrets.token_urlsafe(32)


def _entries(raw: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in raw.split(",") if p.strip())


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", populate_by_name=True)

    database_url: str | None = Field(default=None, alias="DATABASE_URL")
    # The embedded PostgreSQL's home: one absolute per-user directory by default, so
    # `parley serve` and `parley mcp` find the same database from any working directory.
    data_dir: Path = Field(
        default_factory=lambda: platformdirs.user_data_path("parley"), alias="PARLEY_DATA_DIR"
    )
    auth_secret: str = Field(default=_EPHEMERAL_SECRET, alias="PARLEY_AUTH_SECRET")
    dev_login: bool = Field(default=False, alias="PARLEY_DEV_LOGIN")
    model: str | None = Field(default=None, alias="PARLEY_MODEL")
    openai_api_key: str | None = Field(default=None, alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, alias="OPENAI_BASE_URL")
    history_limit: int = Field(default=50, ge=1, le=1000, alias="PARLEY_HISTORY_LIMIT")
    max_message_chars: int = Field(default=16_000, ge=1, alias="PARLEY_MAX_MESSAGE_CHARS")
    # Attachments (parley/attachments): the largest file a person may upload, kept in
    # PostgreSQL; the upload route's body may be this large whatever PARLEY_MAX_BODY_BYTES says.
    max_attachment_bytes: int = Field(
        default=5 * 1024 * 1024, ge=1, le=64 * 1024 * 1024, alias="PARLEY_MAX_ATTACHMENT_BYTES"
    )
    # Whether the model takes images: unset, only OpenAI's own models (no OPENAI_BASE_URL) do;
    # the offline model never does, whatever this says.
    model_images_raw: bool | None = Field(default=None, alias="PARLEY_MODEL_IMAGES")
    # The longest a turn may run; the model run itself is cut off a little earlier.
    turn_timeout: float = Field(default=120.0, gt=0, alias="PARLEY_TURN_TIMEOUT")
    # How long a turn's claim lasts unless the live turn renews it (it does, three times as
    # often): a crashed server's conversation is free again after about this long.
    claim_seconds: float = Field(default=5.0, ge=0.5, alias="PARLEY_CLAIM_SECONDS")
    # Seconds the offline model waits before answering: lets benchmarks and crash tests
    # stand in for a slow real model without calling one.
    model_delay: float = Field(default=0.0, ge=0, alias="PARLEY_MODEL_DELAY")
    # How long the provider's model list (`GET /v1/models`) is kept, and how long asking
    # for it may take: the picker lists what is known without it when it is slow or down.
    models_cache_seconds: float = Field(default=60.0, ge=0, alias="PARLEY_MODELS_CACHE_SECONDS")
    models_timeout: float = Field(default=3.0, gt=0, le=30, alias="PARLEY_MODELS_TIMEOUT")
    token_ttl: int = Field(default=7 * 24 * 3600, gt=0, alias="PARLEY_TOKEN_TTL")
    rate_limit_per_minute: int = Field(default=120, ge=0, alias="PARLEY_RATE_LIMIT_PER_MINUTE")
    # Seconds between SSE heartbeat comments, which keep idle streams open through proxies.
    sse_ping_seconds: float = Field(default=15.0, gt=0, alias="PARLEY_SSE_PING_SECONDS")
    # An event stream whose client has taken nothing sent for this long (its socket stays
    # backed up) is dropped; the client reconnects with Last-Event-ID and loses nothing.
    sse_stall_seconds: float = Field(default=30.0, gt=0, alias="PARLEY_SSE_STALL_SECONDS")
    # What one conversation stream may hold queued for a client slower than its messages:
    # past it, stored messages wait in the database until it catches up.
    sse_backlog_bytes: int = Field(
        default=256 * 1024, ge=16 * 1024, alias="PARLEY_SSE_BACKLOG_BYTES"
    )
    # Statements are short (a turn holds a connection for three of about a millisecond each):
    # a small pool serves hundreds of concurrent turns, and on a small machine fewer
    # backends run faster.
    db_pool_size: int = Field(default=20, ge=1, alias="PARLEY_DB_POOL_SIZE")
    # `parley mcp` (stdio) acts for this token's user; verified with auth_secret.
    mcp_token: str | None = Field(default=None, alias="PARLEY_TOKEN")
    # The Parley server `parley hook claude-code` (Claude Code outside Parley) asks, with
    # PARLEY_TOKEN (an agent key or the person's token).
    parley_url: str = Field(default="http://127.0.0.1:8000", alias="PARLEY_URL")
    # What the hook tells Claude Code when that server cannot be reached in time: `ask`
    # (Claude Code asks in its own terminal), `deny` or `allow`.
    hook_unreachable: Literal["ask", "deny", "allow"] = Field(
        default="ask", alias="PARLEY_HOOK_UNREACHABLE"
    )
    # Where clients reach this server: names the `/mcp` resource in its OAuth metadata.
    public_url: str = Field(default="http://127.0.0.1:8000", alias="PARLEY_PUBLIC_URL")
    # Host headers `/mcp` accepts, comma-separated ("api.example.com,127.0.0.1:*"). Empty: any
    # host, because every /mcp request must carry a bearer token anyway, which is what a
    # DNS-rebinding page cannot supply; set it to add the MCP SDK's Host/Origin check on top.
    mcp_allowed_hosts: str = Field(default="", alias="PARLEY_MCP_ALLOWED_HOSTS")
    # Longest `wait=` a REST long-poll accepts (messages, questions); more is a 422.
    long_poll_max: float = Field(default=60.0, gt=0, alias="PARLEY_LONG_POLL_MAX")
    # Longest one MCP tool call waits in-band: clients abort tool calls after ~60 s.
    tool_wait_max: float = Field(default=50.0, gt=0, alias="PARLEY_TOOL_WAIT_MAX")
    # How often an MCP client is asked to poll a task that waits on a person (tasks/get).
    mcp_task_poll_ms: int = Field(default=2000, ge=100, alias="PARLEY_MCP_TASK_POLL_MS")
    # A question nobody answers within this many seconds (unless it says otherwise) times out.
    question_timeout: float = Field(default=3600.0, gt=0, alias="PARLEY_QUESTION_TIMEOUT")
    # A tool call waiting for the person (permission requests of agents outside Parley):
    # a reminder push after this many minutes, then an email with a one-time link as long
    # again later (the person's notification settings permitting). 0: no reminder.
    permission_remind_minutes: float = Field(
        default=10.0, ge=0, le=1440, alias="PARLEY_PERMISSION_REMIND_MINUTES"
    )
    # A running agent run that has not been heard from for this long is marked timed_out.
    run_silence_timeout: float = Field(default=600.0, gt=0, alias="PARLEY_RUN_SILENCE_TIMEOUT")
    # A claimed delegation the child has not acted in yet (its claim may not have reached
    # it) is re-delivered to its claimer until then, and open to all again after this long.
    claim_lease_seconds: float = Field(default=60.0, gt=0, alias="PARLEY_CLAIM_LEASE_SECONDS")
    # How often each instance looks for silent runs and overdue questions.
    sweep_seconds: float = Field(default=5.0, gt=0, alias="PARLEY_SWEEP_SECONDS")
    # How long the audit trail keeps a decision; older ones are deleted by the sweep.
    audit_days: float = Field(default=365.0, gt=0, alias="PARLEY_AUDIT_DAYS")
    # Work sessions run Claude Code, which runs commands on this host: off unless asked for.
    work_enabled: bool = Field(default=False, alias="PARLEY_WORK_ENABLED")
    # The `claude` executable; unset: the one claude-agent-sdk bundles, else one on PATH.
    claude_path: str | None = Field(default=None, alias="PARLEY_CLAUDE_PATH")
    # Claude Code's own: where its user settings live instead of ~/.claude and ~/.claude.json;
    # `parley connect claude-code --scope user` writes where Claude Code will read.
    claude_config_dir: Path | None = Field(default=None, alias="CLAUDE_CONFIG_DIR")
    # Each session runs in a folder under this root (by default one per person).
    workspace_root: Path | None = Field(default=None, alias="PARLEY_WORKSPACE_ROOT")
    work_idle_timeout: float = Field(default=1800.0, gt=0, alias="PARLEY_WORK_IDLE_TIMEOUT")
    work_max_sessions: int = Field(default=3, ge=1, alias="PARLEY_WORK_MAX_SESSIONS")
    # "ask": ask before edits and commands; "edits": edits allowed, commands asked;
    # "none": never ask (Claude Code's bypass mode).
    work_permission_mode: Literal["ask", "edits", "none"] = Field(
        default="ask", alias="PARLEY_WORK_PERMISSION_MODE"
    )
    # How long a permission request waits for the person inside Claude Code's own call
    # (which it aborts after about a minute); past it the tool call is deferred.
    work_permission_wait: float = Field(
        default=45.0, gt=0, le=50, alias="PARLEY_WORK_PERMISSION_WAIT"
    )
    # The operator's model credentials and API: only the model relay (work/relay.py) uses
    # them, adding them to what sessions send; no session ever sees them.
    anthropic_api_key: str | None = Field(default=None, alias="ANTHROPIC_API_KEY")
    anthropic_auth_token: str | None = Field(default=None, alias="ANTHROPIC_AUTH_TOKEN")
    anthropic_base_url: str = Field(default="https://api.anthropic.com", alias="ANTHROPIC_BASE_URL")
    # Each session runs in a bubblewrap sandbox (work/sandbox.py): this executable.
    bwrap_path: str = Field(default="bwrap", alias="PARLEY_BWRAP")
    # A server running as root gives each person a host uid of their own, from this range
    # (kept in work_uids, never reused): a range no other account or /etc/subuid range uses.
    work_uid_min: int = Field(default=1_000_000, ge=1000, lt=2**31, alias="PARLEY_WORK_UID_MIN")
    work_uid_max: int = Field(default=1_999_999, ge=1000, lt=2**31, alias="PARLEY_WORK_UID_MAX")

    # Refusing abuse early (see parley.serving and parley.api.middleware); 0 turns a cap off.
    # A chat message is at most ~100 KB of JSON even when every character is escaped.
    max_body_bytes: int = Field(default=1024 * 1024, ge=0, alias="PARLEY_MAX_BODY_BYTES")
    header_timeout: float = Field(default=10.0, ge=0, alias="PARLEY_HEADER_TIMEOUT")
    body_timeout: float = Field(default=10.0, ge=0, alias="PARLEY_BODY_TIMEOUT")
    keepalive_timeout: float = Field(default=5.0, gt=0, alias="PARLEY_KEEPALIVE_TIMEOUT")
    max_header_bytes: int = Field(default=64 * 1024, ge=0, alias="PARLEY_MAX_HEADER_BYTES")
    max_connections_per_client: int = Field(
        default=256, ge=0, alias="PARLEY_MAX_CONNECTIONS_PER_CLIENT"
    )
    # On SIGTERM: how long in-flight turns (and their streams) get to finish.
    shutdown_grace_seconds: float = Field(default=30.0, ge=0, alias="PARLEY_SHUTDOWN_GRACE")

    # --- accounts and sign-in (parley.accounts) ---
    # Who may create an account: anyone, only holders of an admin's invite, or nobody.
    signup: Literal["open", "invite", "closed"] = Field(default="invite", alias="PARLEY_SIGNUP")
    # The web UI's origins, comma-separated: a cookie-authenticated unsafe request must come
    # from one of them; the first also makes invite links and the OIDC redirect URI, and its
    # host is the passkeys' relying party.
    web_origins_raw: str = Field(
        default="http://127.0.0.1:3000,http://localhost:3000", alias="PARLEY_WEB_ORIGINS"
    )
    # A web session's absolute lifetime, and how long it lasts unused (ASVS 7.3).
    session_days: float = Field(default=30.0, gt=0, alias="PARLEY_SESSION_DAYS")
    session_idle_days: float = Field(default=7.0, gt=0, alias="PARLEY_SESSION_IDLE_DAYS")
    # How recent a sign-in must be to change how the account signs in, make an agent key or
    # connect an app, or end other sessions (ASVS 7.5): else 403 `reauth_required`.
    reauth_minutes: float = Field(default=10.0, gt=0, alias="PARLEY_REAUTH_MINUTES")
    invite_days: float = Field(default=7.0, gt=0, alias="PARLEY_INVITE_DAYS")
    # Peers whose X-Forwarded-For is believed (the web UI's proxy): addresses or networks,
    # comma-separated. The client is the right-most X-Forwarded-For entry that is not one.
    trusted_proxies_raw: str = Field(default="127.0.0.1/8,::1", alias="PARLEY_TRUSTED_PROXIES")
    # Failed sign-ins allowed before each further one makes the account (or address) wait,
    # doubling from login_delay seconds up to login_delay_max.
    login_free_attempts: int = Field(default=5, ge=1, alias="PARLEY_LOGIN_FREE_ATTEMPTS")
    address_free_attempts: int = Field(default=30, ge=1, alias="PARLEY_ADDRESS_FREE_ATTEMPTS")
    login_delay: float = Field(default=1.0, gt=0, alias="PARLEY_LOGIN_DELAY")
    login_delay_max: float = Field(default=300.0, gt=0, alias="PARLEY_LOGIN_DELAY_MAX")
    # Words no password may be little more than, besides "parley", the user id and the
    # email's local part (accounts/passwords.py): the team's or company's name, comma-separated.
    password_words_raw: str = Field(default="", alias="PARLEY_PASSWORD_WORDS")
    # A Pwned Passwords range API (https://api.pwnedpasswords.com/range) new passwords are
    # looked up in (5 hex digits of their SHA-1 leave the server); empty: no such lookup.
    breached_passwords_url: str = Field(default="", alias="PARLEY_BREACHED_PASSWORDS_URL")
    # How stale an instance's view of a credential may be (a revoked key, an ended session).
    credential_cache_seconds: float = Field(
        default=0.5, ge=0, le=1.0, alias="PARLEY_CREDENTIAL_CACHE_SECONDS"
    )
    # OAuth for /mcp (parley.oauth): how long an access token and a refresh token last, and
    # whether a Client ID Metadata Document may be fetched from a private or loopback address
    # (over http too): for tests and a single machine only, never on a server others reach.
    oauth_access_seconds: int = Field(default=3600, ge=1, alias="PARLEY_OAUTH_ACCESS_SECONDS")
    oauth_refresh_days: float = Field(default=30.0, gt=0, alias="PARLEY_OAUTH_REFRESH_DAYS")
    # The longest a connected app keeps access however often it refreshes (ASVS 10.4.8): its
    # refresh tokens never outlive its consent by more than this.
    oauth_grant_days: float = Field(default=90.0, gt=0, alias="PARLEY_OAUTH_GRANT_DAYS")
    oauth_cimd_allow_private: bool = Field(default=False, alias="PARLEY_OAUTH_CIMD_ALLOW_PRIVATE")
    # `parley connect`'s device authorization (RFC 8628): the seconds a program waits
    # between polls of the token endpoint (a faster poll is told `slow_down`).
    device_interval: int = Field(default=5, ge=1, le=60, alias="PARLEY_DEVICE_INTERVAL")
    oidc_issuer: str | None = Field(default=None, alias="PARLEY_OIDC_ISSUER")
    oidc_client_id: str | None = Field(default=None, alias="PARLEY_OIDC_CLIENT_ID")
    oidc_client_secret: str | None = Field(default=None, alias="PARLEY_OIDC_CLIENT_SECRET")
    oidc_name: str | None = Field(default=None, alias="PARLEY_OIDC_NAME")
    oidc_redirect_url: str | None = Field(default=None, alias="PARLEY_OIDC_REDIRECT_URL")

    # --- Web Push and reminders (parley.push) ---
    # The VAPID private key (PEM, or the raw key base64url): unset, the first instance makes
    # one and keeps it in the database, so every instance signs with the same key.
    vapid_private_key: str | None = Field(default=None, alias="PARLEY_VAPID_PRIVATE_KEY")
    # Who push services contact about this server's pushes (a mailto: or https: URL).
    vapid_subject: str = Field(default="mailto:parley@localhost", alias="PARLEY_VAPID_SUBJECT")
    # The only hosts pushes are posted to (a subscription names any URL it likes): the major
    # browsers' push services; "*.example.com" matches subdomains, "host:port" one port.
    push_allowed_hosts_raw: str = Field(
        default=(
            "fcm.googleapis.com,updates.push.services.mozilla.com,*.notify.windows.com,"
            "web.push.apple.com"
        ),
        alias="PARLEY_PUSH_ALLOWED_HOSTS",
    )
    # A push the service refuses with 429/5xx is tried again with backoff, this many times.
    push_max_attempts: int = Field(default=8, ge=1, alias="PARLEY_PUSH_MAX_ATTEMPTS")
    push_retry_base: float = Field(default=1.0, gt=0, alias="PARLEY_PUSH_RETRY_BASE")
    push_timeout: float = Field(default=10.0, gt=0, alias="PARLEY_PUSH_TIMEOUT")
    # Where reminder emails go out: smtp://[user:password@]host[:port] (smtps:// for TLS).
    smtp_url: str | None = Field(default=None, alias="PARLEY_SMTP_URL")
    smtp_from: str = Field(default="parley@localhost", alias="PARLEY_SMTP_FROM")
    # How long an emailed link to a question opens it (once).
    question_link_minutes: float = Field(default=30.0, gt=0, alias="PARLEY_QUESTION_LINK_MINUTES")
    # How long an emailed link that verifies an account's email works (once).
    email_link_minutes: float = Field(default=60.0, gt=0, alias="PARLEY_EMAIL_LINK_MINUTES")

    # --- a Citus cluster on this machine (`parley cluster`, parley.cluster) ---
    # The Citus release source it builds (its sha256 is checked); unset: the repository's
    # vendored copy.
    citus_source: Path | None = Field(default=None, alias="PARLEY_CITUS_SOURCE")
    # Where the build is kept, one per Citus and PostgreSQL version, shared by every clone.
    citus_cache: Path = Field(
        default_factory=lambda: platformdirs.user_cache_path("parley"), alias="PARLEY_CITUS_CACHE"
    )

    @field_validator("data_dir", "citus_cache")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @field_validator("database_url")
    @classmethod
    def _asyncpg_url(cls, value: str | None) -> str | None:
        if not value:
            return None
        for prefix in ("postgresql://", "postgres://"):
            if value.startswith(prefix):
                return "postgresql+asyncpg://" + value[len(prefix) :]
        return value

    @field_validator("trusted_proxies_raw")
    @classmethod
    def _networks(cls, value: str) -> str:
        """A typo here would silently trust nobody (or, worse, somebody else): refuse it."""
        try:
            addresses.networks(_entries(value))
        except ValueError as error:
            raise ValueError(f"PARLEY_TRUSTED_PROXIES: {error}") from None
        return value

    @property
    def model_name(self) -> str:
        """The model actually served: offline unless a key (or a local server) says otherwise."""
        if self.model:
            return self.model
        return "gpt-4.1-mini" if self.openai_api_key else "offline"

    @model_validator(mode="after")
    def _uid_range(self) -> Settings:
        if self.work_uid_min > self.work_uid_max:
            raise ValueError("PARLEY_WORK_UID_MIN must not be above PARLEY_WORK_UID_MAX")
        return self

    @property
    def workspaces(self) -> Path:
        return (self.workspace_root or self.data_dir / "workspaces").resolve()

    @property
    def work_homes(self) -> Path:
        """Each person's Claude Code home (its config, its sessions' transcripts), outside
        every workspace: in the data directory, which no workspace root may contain."""
        return self.data_dir / "work-homes"

    @property
    def auth_secret_configured(self) -> bool:
        """Whether PARLEY_AUTH_SECRET was given (else tokens die with the process)."""
        return "auth_secret" in self.model_fields_set

    @property
    def web_origins(self) -> list[str]:
        return [o.strip().rstrip("/") for o in self.web_origins_raw.split(",") if o.strip()]

    @property
    def password_words(self) -> tuple[str, ...]:
        return _entries(self.password_words_raw)

    @property
    def web_origin(self) -> str:
        """Where people open the web UI: invite links and the OIDC redirect point there."""
        origins = self.web_origins
        return origins[0] if origins else self.public_url.rstrip("/")

    @property
    def trusted_proxies(self) -> tuple[addresses.Network, ...]:
        return addresses.networks(_entries(self.trusted_proxies_raw))

    @property
    def push_allowed_hosts(self) -> list[str]:
        return [h.strip().lower() for h in self.push_allowed_hosts_raw.split(",") if h.strip()]

    @property
    def oidc_enabled(self) -> bool:
        return bool(self.oidc_issuer and self.oidc_client_id)

    @property
    def offline_model(self) -> bool:
        return self.model_name == "offline"

    @property
    def model_images(self) -> bool:
        """Whether the serving model is given images (else a message with one is refused)."""
        if self.offline_model:
            return False
        if self.model_images_raw is not None:
            return self.model_images_raw
        return not self.openai_base_url


# What a session's `claude` takes from the server's environment: locale, time zone,
# terminal and Claude Code's own non-secret switches; everything else inside its sandbox is
# Parley's (see `work/cli.environment`). Never PARLEY_*, DATABASE_URL, proxies, credentials.
CLAUDE_ENV_NAMES = frozenset(
    {
        "LANG",
        "LANGUAGE",
        "TERM",
        "TZ",
        "ANTHROPIC_MODEL",
        "ANTHROPIC_SMALL_FAST_MODEL",
        "ANTHROPIC_DEFAULT_OPUS_MODEL",
        "ANTHROPIC_DEFAULT_SONNET_MODEL",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    }
)
CLAUDE_ENV_PREFIXES = ("CLAUDE_CODE_", "LC_")
# A CLAUDE_CODE_* name carrying a credential (CLAUDE_CODE_OAUTH_TOKEN, say) stays here.
_SECRET_WORDS = ("TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL", "AUTH")


def claude_environment() -> dict[str, str]:
    """The allowlisted part of the server's environment that every session's `claude` (and
    so every command it runs) starts with."""
    return {
        name: value
        for name, value in os.environ.items()
        if (name in CLAUDE_ENV_NAMES or name.startswith(CLAUDE_ENV_PREFIXES))
        and not any(word in name for word in _SECRET_WORDS)
    }


@lru_cache
def get_settings() -> Settings:
    return Settings()
