"""IP network functions: cidrhost cidrnetmask cidrsubnet cidrsubnets."""
from __future__ import annotations

import ipaddress
import re

from ..types import NUMBER, STRING, ListType
from ..values import TList
from . import FunctionError, Param, register
from ._util import whole


def parse_cidr(s: str):
    m = re.fullmatch(r"([0-9a-fA-F:.]+)/(\d{1,3})", s)
    err = FunctionError(f"invalid CIDR expression: invalid CIDR address: {s}")
    if not m:
        raise err
    addr, bits = m.group(1), int(m.group(2))
    if "." in addr and ":" not in addr:
        parts = addr.split(".")
        if len(parts) != 4 or any(not p.isdigit() or int(p) > 255 for p in parts):
            raise err
        addr = ".".join(str(int(p)) for p in parts)
    try:
        net = ipaddress.ip_network(f"{addr}/{bits}", strict=False)
    except ValueError:
        raise err from None
    return net


def _addr_str(a) -> str:
    if isinstance(a, ipaddress.IPv6Address) and a.ipv4_mapped is not None:
        return str(a.ipv4_mapped)
    return str(a)


@register("cidrhost", [Param("prefix", STRING), Param("hostnum", NUMBER)], STRING)
def _cidrhost(args, ctx):
    net = parse_cidr(args[0])
    num = whole(args[1], "hostnum", 1)
    size = net.num_addresses
    if num < 0:
        if -num > size:
            raise FunctionError(f"prefix of {net.prefixlen} does not accommodate a host numbered {num}")
        num = size + num
    elif num >= size:
        raise FunctionError(f"prefix of {net.prefixlen} does not accommodate a host numbered {num}")
    return _addr_str(net.network_address + num)


@register("cidrnetmask", [Param("prefix", STRING)], STRING)
def _cidrnetmask(args, ctx):
    net = parse_cidr(args[0])
    if net.version != 4:
        raise FunctionError(f"IPv6 addresses cannot have a netmask: {args[0]}")
    return str(net.netmask)


def _subnet(net, newbits: int, netnum: int):
    maxbits = net.max_prefixlen
    newlen = net.prefixlen + newbits
    if newlen > maxbits:
        raise FunctionError(f"insufficient address space to extend prefix of {net.prefixlen} by {newbits}")
    if netnum < 0 or netnum >= (1 << newbits):
        raise FunctionError(f"prefix extension of {newbits} does not accommodate a subnet numbered "
                            f"{netnum}")
    base = int(net.network_address) | (netnum << (maxbits - newlen))
    return ipaddress.ip_network((base, newlen))


def _net_str(n) -> str:
    return f"{_addr_str(n.network_address)}/{n.prefixlen}"


@register("cidrsubnet", [Param("prefix", STRING), Param("newbits", NUMBER), Param("netnum", NUMBER)],
          STRING)
def _cidrsubnet(args, ctx):
    net = parse_cidr(args[0])
    newbits = whole(args[1], "newbits", 1)
    netnum = whole(args[2], "netnum", 2)
    if newbits < 0:
        raise FunctionError("must extend prefix by at least one bit", 1)
    return _net_str(_subnet(net, newbits, netnum))


@register("cidrsubnets", [Param("prefix", STRING)], ListType(STRING),
          variadic=Param("newbits", NUMBER))
def _cidrsubnets(args, ctx):
    net = parse_cidr(args[0])
    maxbits = net.max_prefixlen
    start = int(net.network_address)
    end = start + net.num_addresses
    cur = start
    out = []
    first = True
    for i, nb in enumerate(args[1:]):
        nb = whole(nb, "newbits", i + 1)
        if nb < 1:
            raise FunctionError("must extend prefix by at least one bit", i + 1)
        newlen = net.prefixlen + nb
        if newlen > maxbits:
            kind = "IPv4" if net.version == 4 else "IPv6"
            raise FunctionError(f"would extend prefix to {newlen} bits, which is too long for an {kind} "
                                "address", i + 1)
        size = 1 << (maxbits - newlen)
        if not first:
            cur = (cur + size - 1) // size * size
        if cur + size > end:
            prev = out[-1] if out else _net_str(net)
            raise FunctionError(f"not enough remaining address space for a subnet with a prefix of "
                                f"{newlen} bits after {prev}", i + 1)
        sub = ipaddress.ip_network((cur, newlen))
        out.append(_net_str(sub))
        cur += size
        first = False
    return TList(out, STRING)
