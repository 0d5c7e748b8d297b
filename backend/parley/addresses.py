"""Client addresses as Parley compares them: one spelling per host, and one group per client.

A host reaches us in several spellings: a dual-stack socket reports an IPv4 client as
`::ffff:192.0.2.7` (Node's `remoteAddress` does too), proxies write ports and brackets. Every
comparison (the dev sign-in's loopback check, the trusted proxies, the sign-in limits, the
connection cap) goes through `parse`, so `::ffff:127.0.0.1` is loopback and `[2001:db8::1]:443`
is `2001:db8::1`. Anything that is not an address is None: callers treat it as unknown, never
as trusted or local.

An IPv6 client is counted by its /64: that is the block one subscriber (one machine, often)
gets, and an attacker holding a /64 could otherwise be 2^64 clients.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from functools import lru_cache

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# The prefix that IPv6 clients are grouped by.
IPV6_GROUP_PREFIX = 64
# The address of a client whose address could not be read (a proxy's garbage, no socket).
UNKNOWN = "unknown"

# `1.2.3.4:80`: an IPv4 address with a port (an IPv6 one with a port is bracketed).
_IPV4_PORT = re.compile(r"^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$")
# `[2001:db8::1]` or `[2001:db8::1]:443`.
_BRACKETED = re.compile(r"^\[([^\]]+)\](?::\d{1,5})?$")


def parse(text: str | None) -> Address | None:
    """The address `text` names (a bare address, with a port, in brackets, IPv4-mapped, with
    an IPv6 zone), as one canonical value; None if it names none."""
    if not text:
        return None
    text = text.strip()
    if (match := _BRACKETED.match(text)) or (match := _IPV4_PORT.match(text)):
        text = match.group(1)
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.scope_id is not None:  # fe80::1%eth0: the zone names our interface, not them
            return ipaddress.IPv6Address(text.split("%", 1)[0])
    return address


def canonical(text: str | None) -> str:
    """`text` as one spelling per host, or UNKNOWN."""
    address = parse(text)
    return UNKNOWN if address is None else str(address)


def group(text: str | None) -> str:
    """What one client is counted as: its IPv4 address, its IPv6 /64, or UNKNOWN."""
    address = parse(text)
    if address is None:
        return UNKNOWN
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, IPV6_GROUP_PREFIX), strict=False))
    return str(address)


def is_loopback(text: str | None) -> bool:
    address = parse(text)
    return address is not None and address.is_loopback


@lru_cache(maxsize=16)
def networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    """Addresses and networks (`10.0.0.0/8`, `::1`), parsed once; ValueError for a bad one."""
    parsed: list[Network] = []
    for entry in entries:
        network = ipaddress.ip_network(entry.strip(), strict=False)
        if isinstance(network, ipaddress.IPv6Network) and network.prefixlen >= 96:
            mapped = network.network_address.ipv4_mapped
            if mapped is not None:  # ::ffff:10.0.0.1 names the IPv4 host parse() gives
                network = ipaddress.IPv4Network((mapped, network.prefixlen - 96), strict=False)
        parsed.append(network)
    return tuple(parsed)


def within(address: Address, nets: Iterable[Network]) -> bool:
    return any(address.version == net.version and address in net for net in nets)
