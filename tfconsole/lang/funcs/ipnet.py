"""IP network functions: cidrhost cidrnetmask cidrsubnet cidrsubnets.

Terraform computes these with its copy of Go's old net package (ipaddr) and
apparentlymart/go-cidr, quirks included: an IPv4-mapped IPv6 prefix keeps 16 bytes but
prints as IPv4 (`::ffff:192.168.0.0/112` subnets print as `192.168.x.0/24`), host numbers are
placed at IPv4 offsets inside it, negative subnet numbers are OR-ed in two's complement.
This module follows those byte-level steps so every answer is Terraform's.
"""
from __future__ import annotations

from ..numbers import to_int
from ..types import NUMBER, STRING, ListType
from ..values import TList
from . import FunctionError, Param, register
from ._util import whole

_V4_IN_V6 = bytes(10) + b"\xff\xff"


# ---------------------------------------------------------------------------
# Go's net (the ipaddr fork Terraform vendors): IPs are bytes of length 4 or 16 (b"" is nil)


def _dtoi(s: str) -> int | None:
    """Go's dtoi: a decimal number of at most 0xFFFFFF, the whole string."""
    if not s or not s.isascii() or not s.isdigit() or len(s) > 8:
        return None
    n = int(s)
    return n if n < 0xFFFFFF else None


def _parse_v4(s: str) -> bytes | None:
    parts = s.split(".")
    if len(parts) != 4:
        return None
    out = []
    for p in parts:
        n = _dtoi(p)
        if n is None or n > 0xFF:
            return None
        out.append(n)
    return _V4_IN_V6 + bytes(out)


def _parse_v6(s: str) -> bytes | None:
    ip = bytearray(16)
    ellipsis = -1
    if len(s) >= 2 and s[0] == ":" and s[1] == ":":
        ellipsis = 0
        s = s[2:]
        if not s:
            return bytes(ip)
    i = 0
    while i < 16:
        j = 0
        while j < len(s) and j < 4 and s[j] in "0123456789abcdefABCDEF":
            j += 1
        if j == 0:
            return None
        if j < len(s) and s[j] == ".":
            if ellipsis < 0 and i != 12 or i + 4 > 16:
                return None
            v4 = _parse_v4(s)
            if v4 is None:
                return None
            ip[i:i + 4] = v4[12:]
            i += 4
            s = ""
            break
        if j < len(s) and s[j] in "0123456789abcdefABCDEF":
            return None  # more than four hex digits
        n = int(s[:j], 16)
        ip[i], ip[i + 1] = n >> 8, n & 0xFF
        i += 2
        s = s[j:]
        if not s:
            break
        if s[0] != ":" or len(s) == 1:
            return None
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                return None
            ellipsis = i
            s = s[1:]
            if not s:
                break
    if s:
        return None
    if i < 16:
        if ellipsis < 0:
            return None
        n = 16 - i
        ip[ellipsis + n:16] = ip[ellipsis:i]
        ip[ellipsis:ellipsis + n] = bytes(n)
    elif ellipsis >= 0:
        return None
    return bytes(ip)


def _cidr_mask(ones: int, bits: int) -> bytes:
    if bits not in (32, 128) or ones < 0 or ones > bits:
        return b""
    return (((1 << ones) - 1) << (bits - ones)).to_bytes(bits // 8, "big")


def _mask_ip(ip: bytes, mask: bytes) -> bytes:
    if len(mask) == 16 and len(ip) == 4 and mask[:12] == b"\xff" * 12:
        mask = mask[12:]
    if len(mask) == 4 and len(ip) == 16 and ip[:12] == _V4_IN_V6:
        ip = ip[12:]
    if len(ip) != len(mask):
        return b""
    return bytes(a & b for a, b in zip(ip, mask))


def _to4(ip: bytes) -> bytes:
    if len(ip) == 4:
        return ip
    if len(ip) == 16 and ip[:12] == _V4_IN_V6:
        return ip[12:]
    return b""


def _mask_size(mask: bytes) -> tuple[int, int]:
    """Go's IPMask.Size: (ones, bits), or (0, 0) for a mask that is not leading ones."""
    n = int.from_bytes(mask, "big") if mask else 0
    bits = len(mask) * 8
    ones = bits - ((~n & ((1 << bits) - 1)).bit_length()) if mask else 0
    if mask and (((1 << ones) - 1) << (bits - ones)) != n:
        return 0, 0
    return ones, bits


def _ip_string(ip: bytes) -> str:
    if not ip:
        return "<nil>"
    if len(ip) not in (4, 16):
        return "?" + ip.hex()
    p4 = _to4(ip)
    if len(p4) == 4:
        return ".".join(str(b) for b in p4)
    groups = [ip[i] << 8 | ip[i + 1] for i in range(0, 16, 2)]
    e0 = e1 = -1
    i = 0
    while i < 8:
        j = i
        while j < 8 and groups[j] == 0:
            j += 1
        if j > i and j - i > e1 - e0:
            e0, e1 = i, j
            i = j
        i += 1
    if e1 - e0 <= 1:
        e0 = e1 = -1
    out = []
    i = 0
    while i < 8:
        if i == e0:
            out.append("::")
            i = e1
            continue
        if out and not out[-1].endswith("::"):
            out.append(":")
        out.append(f"{groups[i]:x}")
        i += 1
    return "".join(out)


def _net_and_mask(ip: bytes, mask: bytes) -> tuple[bytes, bytes]:
    """Go's networkNumberAndMask; (b"", b"") where Go gives nil."""
    nn = _to4(ip)
    if not nn:
        nn = ip
        if len(nn) != 16:
            return b"", b""
    if len(mask) == 4:
        if len(nn) != 4:
            return b"", b""
    elif len(mask) == 16:
        if len(nn) == 4:
            mask = mask[12:]
    else:
        return b"", b""
    return nn, mask


def _net_string(ip: bytes, mask: bytes) -> str:
    nn, m = _net_and_mask(ip, mask)
    if not nn or not m:
        return "<nil>"
    ones, bits = _mask_size(m)
    if (ones, bits) == (0, 0) and int.from_bytes(m, "big") != 0:
        return _ip_string(nn) + "/" + m.hex()
    return _ip_string(nn) + "/" + str(ones)


def _contains(ip: bytes, mask: bytes, x: bytes) -> bool:
    nn, m = _net_and_mask(ip, mask)
    x4 = _to4(x)
    if x4:
        x = x4
    if len(x) != len(nn) or not nn:
        return False
    return all(a & c == b & c for a, b, c in zip(nn, x, m))


def parse_cidr(s: str) -> tuple[bytes, bytes]:
    """ipaddr.ParseCIDR: (network IP masked, mask)."""
    i = s.find("/")
    err = FunctionError(f"invalid CIDR expression: invalid CIDR address: {s}")
    if i < 0:
        raise err
    addr, m = s[:i], s[i + 1:]
    iplen = 4
    ip = _parse_v4(addr)
    if ip is None:
        iplen = 16
        ip = _parse_v6(addr)
    n = _dtoi(m)
    if ip is None or n is None or n > 8 * iplen:
        raise err
    mask = _cidr_mask(n, 8 * iplen)
    return _mask_ip(ip, mask), mask


# ---------------------------------------------------------------------------
# go-cidr


def _ip_to_int(ip: bytes) -> tuple[int, int]:
    if len(ip) not in (4, 16):
        raise FunctionError(f"panic in function implementation: Unsupported address length {len(ip)}")
    return int.from_bytes(ip, "big"), len(ip) * 8


def _int_to_ip(n: int, bits: int) -> bytes:
    raw = abs(n).to_bytes((abs(n).bit_length() + 7) // 8, "big") if n else b""
    size = bits // 8
    if len(raw) > size:
        # go-cidr writes the bytes from the end and runs off the front of the array
        raise FunctionError("panic in function implementation: runtime error: index out of range [-1]")
    return bytes(size - len(raw)) + raw


def _insert(ip: bytes, num: int, prefix_len: int) -> bytes:
    val, bits = _ip_to_int(ip)
    # prefix_len never exceeds bits here: the callers check it first
    return _int_to_ip(val | (num << (bits - prefix_len)), bits)


def _go_uint64(n: int) -> int:
    """big.Int.Uint64: the low 64 bits of |n|."""
    return abs(n) & ((1 << 64) - 1)


def _subnet(ip: bytes, mask: bytes, newbits: int, num: int) -> tuple[bytes, bytes]:
    parent, addr_len = _mask_size(mask)
    new_len = parent + newbits
    if new_len > addr_len:
        raise FunctionError(f"insufficient address space to extend prefix of {parent} by {newbits}")
    # uint64(1 << uint64(newBits)) - 1: Go shifts past 63 bits to zero, and zero minus one wraps
    max_num = ((1 << newbits) - 1) if 0 <= newbits < 64 else (1 << 64) - 1
    if _go_uint64(num) > max_num:
        raise FunctionError(f"prefix extension of {newbits} does not accommodate a subnet numbered {num}")
    return _insert(ip, num, new_len), _cidr_mask(new_len, addr_len)


def _host(ip: bytes, mask: bytes, num: int) -> bytes:
    parent, addr_len = _mask_size(mask)
    max_host = (1 << (addr_len - parent)) - 1
    u = _go_uint64(num)
    num_u64 = u - (1 << 64) if u >= 1 << 63 else u  # big.NewInt(int64(num.Uint64()))
    if num < 0:
        num_u64 = -num - 1
        num = max_host - num_u64
    if num_u64 > max_host:
        raise FunctionError(f"prefix of {parent} does not accommodate a host numbered {num}")
    return _insert(ip, num, 32 if _to4(ip) else 128)


def _dec(ip: bytes) -> bytes:
    b = bytearray(ip)
    for j in range(len(b) - 1, -1, -1):
        b[j] = (b[j] - 1) & 0xFF
        if b[j] < 255:
            break
    return bytes(b)


def _inc(ip: bytes) -> bytes:
    b = bytearray(ip)
    for j in range(len(b) - 1, -1, -1):
        b[j] = (b[j] + 1) & 0xFF
        if b[j] > 0:
            break
    return bytes(b)


def _address_range_last(ip: bytes, mask: bytes) -> bytes:
    prefix, bits = _mask_size(mask)
    if prefix == bits:
        return ip
    first, bits = _ip_to_int(ip)
    return _int_to_ip(((1 << (bits - prefix)) - 1) | first, bits)


def _previous_subnet(ip: bytes, prefix_len: int) -> tuple[bytes, bytes]:
    start = _to4(ip) or ip
    mask = _cidr_mask(prefix_len, 8 * len(start))
    return _mask_ip(_dec(start), mask), mask


def _next_subnet(ip: bytes, mask: bytes, prefix_len: int) -> tuple[bytes, bytes, bool]:
    last = _address_range_last(ip, mask)
    m = _cidr_mask(prefix_len, 8 * len(last))
    cur_ip = _mask_ip(last, m)
    last = _inc(_address_range_last(cur_ip, m))
    nxt = _mask_ip(last, m)
    rollover = len(last) in (4, 16) and not any(last[-4:] if _to4(last) else last)
    return nxt, m, rollover


# ---------------------------------------------------------------------------
# the functions


def _big(v) -> int:
    """gocty's conversion to *big.Int: any whole number."""
    n = to_int(v)
    if n is None:
        raise FunctionError("value must be a whole number")
    return n


@register("cidrhost", [Param("prefix", STRING), Param("hostnum", NUMBER)], STRING)
def _cidrhost(args, ctx):
    num = _big(args[1])
    ip, mask = parse_cidr(args[0])
    return _ip_string(_host(ip, mask, num))


@register("cidrnetmask", [Param("prefix", STRING)], STRING)
def _cidrnetmask(args, ctx):
    ip, mask = parse_cidr(args[0])
    if not _to4(ip):
        raise FunctionError(f"IPv6 addresses cannot have a netmask: {args[0]}")
    return _ip_string(mask)


@register("cidrsubnet", [Param("prefix", STRING), Param("newbits", NUMBER), Param("netnum", NUMBER)],
          STRING)
def _cidrsubnet(args, ctx):
    newbits = whole(args[1])
    netnum = _big(args[2])
    ip, mask = parse_cidr(args[0])
    sip, smask = _subnet(ip, mask, newbits, netnum)
    return _net_string(sip, smask)


@register("cidrsubnets", [Param("prefix", STRING)], ListType(STRING),
          variadic=Param("newbits", NUMBER))
def _cidrsubnets(args, ctx):
    try:
        ip, mask = parse_cidr(args[0])
    except FunctionError as exc:
        raise FunctionError(exc.message, 0) from None
    start_len, _ = _mask_size(mask)
    lengths = args[1:]
    if not lengths:
        return TList([], STRING)
    try:
        first = whole(lengths[0]) + start_len
    except FunctionError as exc:
        raise FunctionError(exc.message, 1) from None
    cur_ip, cur_mask = _previous_subnet(ip, first)
    out = []
    for i, arg in enumerate(lengths):
        try:
            length = whole(arg)
        except FunctionError as exc:
            raise FunctionError(exc.message, i + 1) from None
        if length < 1:
            raise FunctionError("must extend prefix by at least one bit", i + 1)
        if length > 32:
            raise FunctionError("may not extend prefix by more than 32 bits", i + 1)
        length += start_len
        if length > len(ip) * 8:
            proto = {32: "IPv4", 128: "IPv6"}.get(len(ip) * 8, "IP")
            raise FunctionError(f"would extend prefix to {length} bits, which is too long for an {proto} address",
                                i + 1)
        nxt_ip, nxt_mask, rollover = _next_subnet(cur_ip, cur_mask, length)
        if rollover or not _contains(ip, mask, nxt_ip):
            raise FunctionError(f"not enough remaining address space for a subnet with a prefix of {length} "
                                f"bits after {_net_string(cur_ip, cur_mask)}", i + 1)
        cur_ip, cur_mask = nxt_ip, nxt_mask
        out.append(_net_string(cur_ip, cur_mask))
    return TList(out, STRING)
