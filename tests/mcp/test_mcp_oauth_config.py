"""`mcp_servers.NAME.auth`: its checks (errors name the key), how it resolves (the secret from
its environment variable, never in a repr), the token store's files, and keeping the OAuth code
and the SDK out of `import tooldeck` and `tooldeck --help`."""

from __future__ import annotations

import asyncio
import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import parse_config
from tooldeck._core.sources.mcp.oauth_store import AuthRecord, TokenStore
from tooldeck._core.sources.mcp.settings import server_specs
from tooldeck.errors import ConfigError

URL = "https://mcp.example.com/mcp"
# A complete `identity_assertion` (SEP-990) setting, which the cases below spoil one key at a time.
_ASSERTION = {
    "grant": "identity_assertion",
    "client_id": "c",
    "client_secret_env": "S",
    "issuer": "https://auth.example.com",
    "idp_token_endpoint": "https://idp.example.com/oauth2/token",
    "idp_client_id": "idp",
    "idp_id_token_env": "USER_ID_TOKEN",
}


@pytest.mark.parametrize(
    ("entry", "path", "message"),
    [
        ({"command": "x", "auth": {}}, "mcp_servers.s.auth", "remote servers"),
        (
            {"url": URL, "headers": {"Authorization": "Bearer t"}, "auth": {}},
            "mcp_servers.s.auth",
            "not both",
        ),
        (
            {"url": URL, "auth": {"client_secret_env": "S"}},
            "mcp_servers.s.auth.client_secret_env",
            "`client_id`",
        ),
        (
            {"url": URL, "auth": {"client_id": "c", "client_secret_env": "s3cr3t-value!"}},
            "mcp_servers.s.auth.client_secret_env",
            "name an environment variable",
        ),
        (
            {"url": URL, "auth": {"grant": "client_credentials"}},
            "mcp_servers.s.auth.grant",
            "needs `client_id`",
        ),
        ({"url": URL, "auth": {"grant": "password"}}, "mcp_servers.s.auth.grant", "authorization_code"),
        (
            {"url": URL, "auth": {"client_id": "c", "token_endpoint_auth_method": "client_secret_post"}},
            "mcp_servers.s.auth.token_endpoint_auth_method",
            "client_secret_env",
        ),
        (
            {"url": URL, "auth": {"client_metadata_url": "http://x.example/meta.json"}},
            "mcp_servers.s.auth.client_metadata_url",
            "https://",
        ),
        (
            {"url": URL, "auth": {"client_metadata_url": "https://x.example"}},
            "mcp_servers.s.auth.client_metadata_url",
            "with a path",
        ),
        (
            {"url": URL, "auth": {"issuer": "auth.example.com"}},
            "mcp_servers.s.auth.issuer",
            "http:// or https://",
        ),
        ({"url": URL, "auth": {"scopes": ["a b"]}}, "mcp_servers.s.auth.scopes[0]", "one word"),
        (
            {"url": URL, "auth": {"redirect_port": 0}},
            "mcp_servers.s.auth.redirect_port",
            "greater than or equal to 1",
        ),
        ({"url": URL, "auth": {"colour": "red"}}, "mcp_servers.s.auth.colour", "unknown key"),
        (
            {"url": URL, "auth": {"client_id": "c", "client_key_env": "K"}},
            "mcp_servers.s.auth.client_key_env",
            "client_credentials",
        ),
        (
            {
                "url": URL,
                "auth": {
                    "grant": "client_credentials",
                    "client_id": "c",
                    "client_key_env": "K",
                    "client_secret_env": "S",
                },
            },
            "mcp_servers.s.auth.client_key_env",
            "not both",
        ),
        (
            {
                "url": URL,
                "auth": {"grant": "client_credentials", "client_id": "c", "client_key_env": "-----BEGIN"},
            },
            "mcp_servers.s.auth.client_key_env",
            "name an environment variable",
        ),
        (
            {"url": URL, "auth": {"grant": "identity_assertion", "client_id": "c", "client_secret_env": "S"}},
            "mcp_servers.s.auth.grant",
            "needs `issuer`, `idp_token_endpoint`, `idp_client_id`, `idp_id_token_env`",
        ),
        (
            {"url": URL, "auth": {**_ASSERTION, "client_secret_env": None}},
            "mcp_servers.s.auth.grant",
            "needs `client_secret_env`",
        ),
        (
            {"url": URL, "auth": {**_ASSERTION, "idp_token_endpoint": "idp.example.com/token"}},
            "mcp_servers.s.auth.idp_token_endpoint",
            "http:// or https://",
        ),
        (
            {"url": URL, "auth": {**_ASSERTION, "idp_id_token_env": "eyJhbGciOiJFUzI1NiJ9.s3cr3t-value"}},
            "mcp_servers.s.auth.idp_id_token_env",
            "name an environment variable",
        ),
        (
            {"url": URL, "auth": {**_ASSERTION, "idp_client_secret_env": "s3cr3t-value!"}},
            "mcp_servers.s.auth.idp_client_secret_env",
            "name an environment variable",
        ),
        (
            {"url": URL, "auth": {**_ASSERTION, "token_endpoint_auth_method": "none"}},
            "mcp_servers.s.auth.token_endpoint_auth_method",
            "authenticates the client",
        ),
        (
            {"url": URL, "auth": {**_ASSERTION, "client_key_env": "K"}},
            "mcp_servers.s.auth.client_key_env",
            "client_credentials",
        ),
        (
            {"url": URL, "auth": {"idp_client_id": "idp"}},
            "mcp_servers.s.auth.idp_client_id",
            "is for the identity_assertion grant (`grant` is authorization_code)",
        ),
    ],
)
def test_bad_auth_settings_name_their_key(entry: dict[str, object], path: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"mcp_servers": {"s": entry}})
    assert str(caught.value).startswith(path) and message in str(caught.value)
    assert "s3cr3t-value" not in str(caught.value)


def test_the_secret_comes_from_its_variable_and_stays_out_of_reprs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTES_CLIENT_SECRET", "very-secret-456")
    config = parse_config(
        {
            "home": "/srv/td-home",
            "mcp_servers": {
                "notes": {
                    "url": URL,
                    "auth": {
                        "client_id": "cid",
                        "client_secret_env": "NOTES_CLIENT_SECRET",
                        "scopes": ["notes:read"],
                    },
                }
            },
        }
    )
    (spec,) = server_specs(config)
    assert spec.auth is not None
    assert spec.auth.client_secret == "very-secret-456" and spec.auth.client_id == "cid"
    assert spec.auth.scopes == ("notes:read",) and spec.auth.store_dir == Path("/srv/td-home/mcp-auth")
    assert "very-secret-456" not in repr(spec) + repr(config)


def test_a_signing_key_comes_from_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOT_KEY_FOR_TEST", "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----")
    auth = {
        "grant": "client_credentials",
        "client_id": "bot",
        "client_key_env": "BOT_KEY_FOR_TEST",
        "signing_algorithm": "ES256",
    }
    (spec,) = server_specs(parse_config({"mcp_servers": {"r": {"url": URL, "auth": auth}}}))
    assert (
        spec.auth is not None and spec.auth.client_key is not None and spec.auth.signing_algorithm == "ES256"
    )
    assert "PRIVATE KEY" not in repr(spec)


def test_a_secret_variable_that_is_not_set_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_SECRET_VAR", raising=False)
    config = parse_config(
        {
            "mcp_servers": {
                "n": {"url": URL, "auth": {"client_id": "c", "client_secret_env": "NO_SUCH_SECRET_VAR"}}
            }
        }
    )
    with pytest.raises(ConfigError) as caught:
        server_specs(config)
    assert str(caught.value).startswith("mcp_servers.n.auth.client_secret_env")
    assert "NO_SUCH_SECRET_VAR" in str(caught.value)


def test_an_identity_assertion_grant_resolves_its_secrets_from_their_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("S", "as-secret-1")
    monkeypatch.setenv("USER_ID_TOKEN", "id-token-2")
    monkeypatch.setenv("IDP_SECRET", "idp-secret-3")
    auth = {**_ASSERTION, "idp_client_secret_env": "IDP_SECRET"}
    config = parse_config({"mcp_servers": {"e": {"url": URL, "auth": auth}}})
    (spec,) = server_specs(config)
    assert spec.auth is not None and spec.auth.grant == "identity_assertion"
    assert (spec.auth.client_secret, spec.auth.id_token, spec.auth.idp_client_secret) == (
        "as-secret-1",
        "id-token-2",
        "idp-secret-3",
    )
    assert spec.auth.issuer == "https://auth.example.com" and spec.auth.idp_client_id == "idp"
    assert not any(s in repr(spec) + repr(config) for s in ("as-secret-1", "id-token-2", "idp-secret-3"))


def test_which_servers_use_oauth() -> None:
    config = parse_config(
        {
            "mcp_servers": {
                "remote": {"url": URL},
                "static": {"url": URL, "headers": {"authorization": "Bearer x"}},
                "local": {"command": "x"},
            }
        }
    )
    uses = {s.name: s.auth is not None for s in server_specs(config)}
    assert uses == {"remote": True, "static": False, "local": False}


def _record_store(tmp_path: Path, url: str = URL) -> TokenStore:
    return TokenStore(tmp_path / "home" / "mcp-auth", name="notes", url=url)


def test_the_store_writes_private_files_and_forgets_a_changed_url(tmp_path: Path) -> None:
    from mcp.shared.auth import OAuthToken

    store = _record_store(tmp_path)
    asyncio.run(store.set_tokens(OAuthToken(access_token="at-1", refresh_token="rt-1", expires_in=60)))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700
    loaded = asyncio.run(store.get_tokens())
    assert loaded is not None and loaded.access_token == "at-1"
    assert "at-1" not in repr(store) + repr(store.load())
    # The same name at another URL: the tokens were not issued for it.
    moved = _record_store(tmp_path, "https://elsewhere.example.com/mcp")
    assert asyncio.run(moved.get_tokens()) is None
    assert moved.delete() and not store.path.exists() and not moved.delete()


def test_a_registration_with_another_issuer_drops_what_the_old_one_issued(tmp_path: Path) -> None:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    store = _record_store(tmp_path)

    def client(issuer: str, client_id: str) -> OAuthClientInformationFull:
        return OAuthClientInformationFull(
            client_id=client_id, redirect_uris=["http://127.0.0.1:5000/callback"], issuer=issuer
        )

    asyncio.run(store.set_client_info(client("https://as1.example.com", "c1")))
    asyncio.run(store.set_tokens(OAuthToken(access_token="at-as1")))
    asyncio.run(store.set_client_info(client("https://as1.example.com", "c1b")))
    assert store.has_tokens()  # the same issuer keeps its tokens
    asyncio.run(store.set_client_info(client("https://as2.example.com", "c2")))
    record = store.load()
    assert record.tokens is None and record.issuer == "https://as2.example.com"
    assert record.client_info is not None and record.client_info["client_id"] == "c2"


def test_a_damaged_or_foreign_record_reads_as_empty(tmp_path: Path) -> None:
    store = _record_store(tmp_path)
    store.folder.mkdir(parents=True)
    store.path.write_text("{not json")
    assert store.load() == AuthRecord(URL)
    store.path.write_text(json.dumps({"version": 99, "url": URL, "tokens": {"access_token": "x"}}))
    assert store.load().tokens is None


def test_oauth_code_and_the_sdk_load_only_when_a_server_connects(tmp_path: Path) -> None:
    config = tmp_path / "tooldeck.yaml"
    config.write_text(json.dumps({"mcp_servers": {"n": {"url": URL, "auth": {"scopes": ["a"]}}}}))
    code = (
        "import sys, tooldeck\n"
        "from tooldeck import load_config\nfrom tooldeck.core import mcp_server_specs\n"
        f"specs = mcp_server_specs(load_config({str(config)!r}))\n"
        "assert specs[0].auth is not None\n"
        "print(sorted(m for m in ('mcp', 'httpx2', 'jwt', 'tooldeck._core.sources.mcp.oauth_login',"
        " 'tooldeck._core.sources.mcp.oauth_assertion') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    help_code = (
        "import sys\nfrom tooldeck.cli.main import main\n"
        "try:\n    main(['mcp', 'login', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('mcp', 'httpx2', 'tooldeck._core.sources.mcp.oauth') if m in sys.modules), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", help_code], capture_output=True, text=True, check=True)
    assert done.stderr.strip().splitlines()[-1] == "[]"
