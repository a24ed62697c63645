"""Which network addresses the web and browser tools may reach (server-side request forgery guard).

A model that can name URLs can aim them at the machine it runs on: `http://127.0.0.1:8080/admin`,
the cloud metadata service at `169.254.169.254`, a router at `192.168.1.1`, or a public name whose
DNS answer is one of those. So a host is resolved first and every address it resolves to is
checked; the connection is then made to a checked address (the caller connects to the address
returned here, never to the name again), so a second DNS answer cannot swap in another address.
Redirects are checked hop by hop by the callers, with the same policy.

Only globally routable addresses pass, unless `web.allow_private_networks` is true or the address
is inside one of `web.allowed_networks`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from tooldeck.errors import AddressDenied as AddressDenied
from tooldeck.errors import ToolError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Cloud metadata services, named in refusals so the reason is plain.
_METADATA = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)


def address_kind(ip: IPAddress) -> str | None:
    """Why `ip` is not a public internet address ("loopback", "private", ...), or None when it is."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip in _METADATA:
        return "cloud metadata"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_multicast:
        return "multicast"
    if ip.is_private:
        return "private"
    if not ip.is_global:
        return "reserved (not globally routable)"
    return None


@dataclass(frozen=True, slots=True)
class NetworkPolicy:
    """What the web tools may connect to."""

    allow_private: bool = False
    allowed_networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def of(cls, allow_private: bool, allowed_networks: Sequence[str] = ()) -> NetworkPolicy:
        nets = tuple(ipaddress.ip_network(n, strict=False) for n in allowed_networks)
        return cls(allow_private, nets)

    def refusal(self, ip: IPAddress) -> str | None:
        """Why a connection to `ip` is refused, or None when it is allowed."""
        if self.allow_private:
            return None
        kind = address_kind(ip)
        if kind is None:
            return None
        plain = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else ip
        if any(plain in net for net in self.allowed_networks if net.version == plain.version):
            return None
        article = "an" if kind[0] in "aeiou" else "a"
        return f"{ip} is {article} {kind} address"

    async def resolve(self, host: str, port: int) -> list[str]:
        """The addresses of `host` to connect to, all checked; raises `AddressDenied` otherwise.

        A host with any refused address is refused as a whole: a name that resolves to both a
        public and a private address is exactly what a rebinding attack looks like.
        """
        host = host.strip("[]")
        try:
            literal: IPAddress | None = ipaddress.ip_address(host)
        except ValueError:
            literal = None
        if literal is not None:
            found = [literal]
        else:
            found = await _lookup(host, port)
        for ip in found:
            why = self.refusal(ip)
            if why is not None:
                via = "" if literal is not None else f"{host} resolves to {ip}; "
                raise AddressDenied(
                    f"refused to connect to {host}: {via}{why}. Private, loopback, link-local and "
                    "metadata addresses are blocked unless web.allow_private_networks is true "
                    "(or the address is in web.allowed_networks)"
                )
        return [str(ip) for ip in found]


async def _lookup(host: str, port: int) -> list[IPAddress]:
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ToolError(f"cannot resolve host {host!r}: {exc.strerror or exc}", retryable=True) from None
    out: list[IPAddress] = []
    for family, _, _, _, sockaddr in infos:
        if family in (socket.AF_INET, socket.AF_INET6):
            ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
            if ip not in out:
                out.append(ip)
    if not out:
        raise ToolError(f"host {host!r} has no IPv4 or IPv6 address", retryable=True)
    return out
