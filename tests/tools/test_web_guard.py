"""The address guard: which addresses are refused, and that names are judged by what they resolve to."""

from __future__ import annotations

import asyncio
import ipaddress
import re

import pytest

from tooldeck import parse_config
from tooldeck.errors import ConfigError
from tooldeck.tools.web.guard import AddressDenied, NetworkPolicy, address_kind


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd12:3456::1", "private"),
        ("169.254.169.254", "cloud metadata"),
        ("fd00:ec2::254", "cloud metadata"),
        ("100.100.100.200", "cloud metadata"),
        ("169.254.10.20", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("100.64.0.1", "reserved (not globally routable)"),
        ("::ffff:127.0.0.1", "loopback"),  # an IPv4-mapped IPv6 address is judged as IPv4
        ("::ffff:10.0.0.1", "private"),
        ("93.184.215.14", None),
        ("2606:4700::1111", None),
    ],
)
def test_address_kinds(address: str, kind: str | None) -> None:
    assert address_kind(ipaddress.ip_address(address)) == kind


def resolve(policy: NetworkPolicy, host: str) -> list[str]:
    return asyncio.run(policy.resolve(host, 80))


def test_literals_and_names_are_checked_after_resolution() -> None:
    strict = NetworkPolicy.of(False)
    with pytest.raises(
        AddressDenied, match=r"refused to connect to 127\.0\.0\.1: 127\.0\.0\.1 is a loopback"
    ):
        resolve(strict, "127.0.0.1")
    with pytest.raises(AddressDenied, match=r"localhost resolves to (127\.0\.0\.1|::1); .* loopback address"):
        resolve(strict, "localhost")
    with pytest.raises(AddressDenied, match=r"169\.254\.169\.254 is a cloud metadata address"):
        resolve(strict, "169.254.169.254")
    with pytest.raises(AddressDenied, match=r"\[?::1\]?: ::1 is a loopback"):
        resolve(strict, "[::1]")
    with pytest.raises(AddressDenied) as caught:
        resolve(strict, "10.0.0.1")
    assert caught.value.type == "denied" and "web.allow_private_networks" in str(caught.value)
    assert resolve(NetworkPolicy.of(True), "localhost")  # allowed: the checked addresses come back
    assert resolve(strict, "93.184.215.14") == ["93.184.215.14"]


def test_allowed_networks_open_only_the_listed_addresses() -> None:
    policy = NetworkPolicy.of(False, ["127.0.0.1/32", "10.1.0.0/16"])
    assert resolve(policy, "127.0.0.1") == ["127.0.0.1"]
    assert resolve(policy, "10.1.200.3") == ["10.1.200.3"]
    assert resolve(policy, "::ffff:127.0.0.1") == ["::ffff:7f00:1"]  # the mapped 127.0.0.1
    for refused in ("127.0.0.2", "10.2.0.1", "169.254.169.254"):
        with pytest.raises(AddressDenied):
            resolve(policy, refused)


def test_an_unknown_host_is_a_clear_error() -> None:
    from tooldeck.errors import ToolError

    with pytest.raises(ToolError, match=r"cannot resolve host 'no-such-host\.invalid'"):
        resolve(NetworkPolicy.of(False), "no-such-host.invalid")


def test_the_web_config_section_is_typed_and_checked() -> None:
    cfg = parse_config({"web": {"allow_private_networks": True, "search": {"provider": "brave"}}})
    assert cfg.web.allow_private_networks and cfg.web.search.provider == "brave"
    assert cfg.web.max_urls == 5 and cfg.web.browser.headless
    cases = {
        "web.search.colour: unknown key": {"search": {"colour": "red"}},
        "web.allowed_networks[0]: not an IP address or network": {"allowed_networks": ["intranet"]},
        "web.search.url: the searxng provider needs the instance's url": {"search": {"provider": "searxng"}},
        "web.search.url: must be an http(s) URL": {"search": {"provider": "brave", "url": "ftp://x"}},
        "web.search.provider: Input should be": {"search": {"provider": "bing"}},
        "web.max_urls: Input should be greater than or equal to 1": {"max_urls": 0},
        "web.browser.headles: unknown key": {"browser": {"headles": False}},
    }
    for message, web in cases.items():
        with pytest.raises(ConfigError, match="^" + re.escape(message)):
            parse_config({"web": web})
