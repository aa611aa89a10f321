"""Collection functions."""
from __future__ import annotations

from .. import numbers as N
from ..types import (
    BOOL, DYNAMIC, NUMBER, STRING, DynamicType, ListType, MapType, ObjectType, SetType, TupleType,
    EMPTY_OBJECT, EMPTY_TUPLE,
)
from ..values import (
    ConversionError, Null, Sensitive, TList, TMap, TSet, Unknown, convert, equal, freeze, is_null,
    is_wholly_known, length_of, mark, type_of, unify_types, unmark, unmark_deep,
)
from . import FunctionError, Param, register
from ._util import null_of, whole


def _ty(v):
    return type_of(v)


def _is_list_t(t):
    return isinstance(t, ListType)


# ---------------------------------------------------------------------------


@register("alltrue", [Param("list", ListType(BOOL))], BOOL)
def _alltrue(args, ctx):
    for v in args[0]:
        if is_null(v) or not v:
            return False
    return True


@register("anytrue", [Param("list", ListType(BOOL))], BOOL)
def _anytrue(args, ctx):
    return any(v is True for v in args[0])


def _chunklist_rt(args):
    return ListType(_ty(args[0]))


@register("chunklist", [Param("list", ListType(DYNAMIC)), Param("size", NUMBER)], _chunklist_rt)
def _chunklist(args, ctx):
    lst, size = args
    size = whole(size, "size", 1)
    if size < 0:
        raise FunctionError("the size argument must be positive")
    lt = _ty(lst)
    if len(lst) == 0:
        return TList([], lt)
    if size == 0:
        return TList([lst], lt)
    return TList([TList(lst[i:i + size], lst.etype) for i in range(0, len(lst), size)], lt)


def _coalesce_rt(args):
    tys = [_ty(a) for a in args]
    if not args:
        raise FunctionError("all arguments must have the same type")
    t = unify_types(tys)
    if isinstance(t, DynamicType) and any(not isinstance(x, DynamicType) for x in tys):
        raise FunctionError("all arguments must have the same type")
    return t


@register("coalesce", [], _coalesce_rt,
          variadic=Param("vals", DYNAMIC, allow_null=True, allow_unknown=True))
def _coalesce(args, ctx):
    rt = _coalesce_rt(args)
    for a in args:
        try:
            a = convert(a, rt)
        except ConversionError:
            raise FunctionError("all arguments must have the same type") from None
        if type(a) is Unknown:
            return Unknown(rt)
        if is_null(a):
            continue
        if rt == STRING and a == "":
            continue
        return a
    raise FunctionError("no non-null, non-empty-string arguments")


def _coalescelist_rt(args):
    if not args:
        raise FunctionError("at least one argument is required")
    tys = []
    for a in args:
        if type(a) is Unknown:
            return DYNAMIC
        t = _ty(a)
        if not isinstance(t, (ListType, TupleType)):
            raise FunctionError("coalescelist arguments must be lists or tuples")
        tys.append(t)
    if all(t == tys[0] for t in tys):
        return tys[0]
    return DYNAMIC


@register("coalescelist", [], _coalescelist_rt,
          variadic=Param("vals", DYNAMIC, allow_null=True, allow_unknown=True))
def _coalescelist(args, ctx):
    rt = _coalescelist_rt(args)
    for a in args:
        if type(a) is Unknown:
            return Unknown(rt)
        if is_null(a):
            continue
        if len(a) > 0:
            return a
    raise FunctionError("no non-null arguments")


@register("compact", [Param("list", ListType(STRING))], ListType(STRING))
def _compact(args, ctx):
    return TList([x for x in args[0] if not is_null(x) and x != ""], STRING)


def _concat_rt(args):
    if not args:
        raise FunctionError("at least one argument is required")
    tys = [_ty(a) for a in args]
    if all(isinstance(t, ListType) for t in tys):
        u = unify_types(tys)
        if isinstance(u, ListType):
            return u
    etys = []
    for i, (a, t) in enumerate(zip(args, tys)):
        if isinstance(t, TupleType):
            etys.extend(t.elems)
        elif isinstance(t, ListType):
            if type(a) is Unknown:
                return DYNAMIC
            etys.extend([t.elem] * len(a))
        else:
            raise FunctionError(f"all arguments must be lists or tuples; got {t.friendly()}", i)
    return TupleType(tuple(etys))


@register("concat", [], _concat_rt, variadic=Param("seqs", DYNAMIC))
def _concat(args, ctx):
    rt = _concat_rt(args)
    items = [x for a in args for x in a]
    if isinstance(rt, ListType):
        return TList([convert(x, rt.elem) for x in items], rt.elem)
    return items


@register("contains", [Param("list", DYNAMIC), Param("value", DYNAMIC)], BOOL)
def _contains(args, ctx):
    lst, val = args
    if not isinstance(lst, list):
        raise FunctionError("argument must be list, tuple, or set")
    for x in lst:
        if equal(x, val):
            return True
    return False


def _distinct_rt(args):
    return _ty(args[0])


@register("distinct", [Param("list", ListType(DYNAMIC))], _distinct_rt)
def _distinct(args, ctx):
    seen = set()
    out = []
    for x in args[0]:
        k = freeze(x)
        if k in seen:
            continue
        seen.add(k)
        out.append(x)
    return TList(out, args[0].etype)


def _index_int(v, what):
    try:
        return whole(v)
    except FunctionError as exc:
        raise FunctionError(f"invalid {what}: {exc.message}") from None


def _element_rt(args):
    lst, idx = args
    t = _ty(lst)
    if isinstance(t, ListType):
        return t.elem
    if isinstance(t, TupleType):
        if type(idx) is Unknown:
            return DYNAMIC
        i = _index_int(idx, "index")
        if not t.elems:
            raise FunctionError("cannot use element function with an empty list")
        return t.elems[i % len(t.elems)]
    raise FunctionError(f"cannot read elements from {t.friendly()}")


@register("element", [Param("list", DYNAMIC), Param("index", NUMBER)], _element_rt)
def _element(args, ctx):
    _element_rt(args)
    lst, idx = args
    i = _index_int(idx, "index")
    if len(lst) == 0:
        raise FunctionError("cannot use element function with an empty list")
    return lst[i % len(lst)]


def _flattener(v, out, marks=None):
    known = True
    for x in v:
        x, m = unmark(x)
        if m and marks is not None and isinstance(x, list):
            marks.append(True)
        if type(x) is Unknown and isinstance(x.type, (DynamicType, ListType, SetType, TupleType)):
            return False
        if not is_null(x) and isinstance(x, list):
            if not _flattener(x, out, marks):
                return False
        else:
            out.append(mark(x, m))
    return known


def _flatten_rt(args):
    v = args[0]
    if not is_wholly_known(v):
        return DYNAMIC
    t = _ty(v)
    if not isinstance(t, (ListType, SetType, TupleType)):
        raise FunctionError("can only flatten lists, sets and tuples")
    out = []
    if not _flattener(v, out):
        return DYNAMIC
    return TupleType(tuple(_ty(x) for x in out))


@register("flatten", [Param("list", DYNAMIC)], _flatten_rt)
def _flatten(args, ctx):
    _flatten_rt(args)
    out = []
    marks: list = []
    _flattener(args[0], out, marks)
    return mark(out, bool(marks))


@register("index", [Param("list", DYNAMIC), Param("value", DYNAMIC)], NUMBER)
def _index(args, ctx):
    lst, val = args
    if type(lst) not in (list, TList):
        raise FunctionError("argument must be a list or tuple")
    if len(lst) == 0:
        raise FunctionError("cannot search an empty list")
    for i, x in enumerate(lst):
        if equal(x, val):
            return i
    raise FunctionError("item not found")


def _keys_rt(args):
    t = _ty(args[0])
    if isinstance(t, MapType):
        return ListType(STRING)
    if isinstance(t, ObjectType):
        return TupleType(tuple(STRING for _ in t.attrs))
    if isinstance(t, DynamicType):
        return DYNAMIC
    raise FunctionError("must have map or object type", 0)


@register("keys", [Param("inputMap", DYNAMIC, allow_unknown=True, allow_marked=True)], _keys_rt)
def _keys(args, ctx):
    v, marked = unmark(args[0])
    if type(v) is dict:  # an object: its attribute names in its type's order, without the type of every value
        return mark(sorted(v), marked)
    rt = _keys_rt([v])
    t = _ty(v)
    if isinstance(t, ObjectType):
        return mark([k for k, _ in t.attrs], marked)
    if type(v) is Unknown:
        return mark(Unknown(rt), marked)
    ks = sorted(v.keys())
    return mark(TList(ks, STRING), marked)


@register("length", [Param("value", DYNAMIC, allow_unknown=True, allow_marked=True)], NUMBER)
def _length(args, ctx):
    v, marked = unmark(args[0])
    if type(v) is list or type(v) is dict:  # a tuple's or an object's: its type's length, without the type
        return mark(len(v), marked)
    t = _ty(v)
    if isinstance(t, DynamicType):
        return mark(Unknown(NUMBER), marked)
    if isinstance(t, TupleType):
        return mark(len(t.elems), marked)
    if isinstance(t, ObjectType):
        return mark(len(t.attrs), marked)
    if t == STRING:
        if type(v) is Unknown:
            return mark(Unknown(NUMBER), marked)
        from ._gofmt import graphemes
        import unicodedata
        return mark(len(graphemes(unicodedata.normalize("NFC", v))), marked)
    if isinstance(t, (ListType, MapType, SetType)):
        if type(v) is Unknown:
            return mark(Unknown(NUMBER), marked)
        if isinstance(t, SetType) and any(type(unmark(x)[0]) is Unknown for x in v):
            return mark(Unknown(NUMBER), marked)
        return mark(len(v), marked)
    raise FunctionError("argument must be a string, a collection type, or a structural type")


def _lookup_rt(args):
    if len(args) > 3:
        raise FunctionError(f"lookup() takes two or three arguments, got {len(args)}")
    m, key = unmark(args[0])[0], unmark(args[1])[0]
    t = _ty(m)
    if isinstance(t, ObjectType):
        if type(key) is Unknown:
            return DYNAMIC
        at = t.attr_types
        if key in at:
            return at[key]
        if len(args) == 3:
            return _ty(args[2])
        raise FunctionError(f'the given object has no attribute "{key}"', 0)
    if isinstance(t, MapType):
        if len(args) == 3:
            try:
                convert(args[2], t.elem)
            except ConversionError:
                raise FunctionError("the default value must have the same type as the map elements",
                                    2) from None
        return t.elem
    if isinstance(t, DynamicType):
        return DYNAMIC
    raise FunctionError("lookup() requires a map as the first argument", 0)


@register("lookup", [Param("inputMap", DYNAMIC), Param("key", STRING)], _lookup_rt,
          variadic=Param("default", DYNAMIC, allow_null=True))
def _lookup(args, ctx):
    rt = _lookup_rt(args)
    m, key = args[0], args[1]
    if key in m:
        return m[key]
    if len(args) == 3:
        try:
            return convert(args[2], rt)
        except ConversionError as exc:
            raise FunctionError(exc.message) from None
    raise FunctionError(f'lookup failed to find key "{key}"')


def _matchkeys_rt(args):
    u = unify_types([_ty(args[1]), _ty(args[2])])
    if isinstance(u, DynamicType) and not (isinstance(_ty(args[1]), DynamicType)
                                          or isinstance(_ty(args[2]), DynamicType)):
        raise FunctionError("keys and searchset must be of the same type")
    return _ty(args[0])


@register("matchkeys", [Param("values", ListType(DYNAMIC)), Param("keys", ListType(DYNAMIC)),
                        Param("searchset", ListType(DYNAMIC))], _matchkeys_rt)
def _matchkeys(args, ctx):
    rt = _matchkeys_rt(args)
    values, keys, search = args
    if len(values) != len(keys):
        raise FunctionError("length of keys and values should be equal")
    u = unify_types([_ty(keys), _ty(search)])
    if not isinstance(u, DynamicType):
        keys = convert(keys, u)
        search = convert(search, u)
    out = []
    for i, k in enumerate(keys):
        for s in search:
            if equal(k, s):
                out.append(values[i])
                break
    return TList(out, rt.elem if isinstance(rt, ListType) else DYNAMIC)


def _merge_rt(args):
    if not args:
        return EMPTY_OBJECT
    attrs = {}
    first = None
    matching = True
    attrs_known = True
    for i, a in enumerate(args):
        a = unmark(a)[0]
        t = _ty(a)
        if isinstance(t, DynamicType):
            return DYNAMIC
        if not isinstance(t, (MapType, ObjectType)):
            raise FunctionError(f'arguments must be maps or objects, got "{t.friendly()}"')
        if isinstance(t, ObjectType) and not is_null(a):
            attrs.update(t.attr_types)
        elif isinstance(t, MapType):
            if is_null(a):
                pass
            elif type(a) is Unknown:
                attrs_known = False
            else:
                for k in a:
                    attrs[k] = t.elem
        if i == 0:
            first = t
            continue
        if t != first:
            matching = False
    if matching:
        return first
    if not attrs_known:
        return DYNAMIC
    return ObjectType(tuple(sorted(attrs.items())))


@register("merge", [], _merge_rt,
          variadic=Param("maps", DYNAMIC, allow_null=True, allow_marked=True))
def _merge(args, ctx):
    if all(type(a) is dict or a is None for a in args):
        # objects (and untyped nulls) only: the result is an object whatever their attribute
        # types, so there is no need to work out the type of every (large) argument
        out = {}
        for a in args:
            if a is not None:
                out.update(a)
        return dict(sorted(out.items()))
    rt = _merge_rt(args)
    out = {}
    marked = False
    for a in args:
        a, m = unmark(a)
        if is_null(a):
            continue
        marked = marked | m
        out.update(a)
    if isinstance(rt, MapType):
        return mark(TMap(out, rt.elem), marked)
    if isinstance(rt, ObjectType):
        # attribute types as computed (values already have those types)
        return mark(dict(sorted(out.items())), marked)
    return mark(dict(sorted(out.items())), marked)


def _one_rt(args):
    t = _ty(args[0])
    if isinstance(t, (ListType, SetType)):
        return t.elem
    if isinstance(t, TupleType):
        if len(t.elems) == 0:
            return DYNAMIC
        if len(t.elems) == 1:
            return t.elems[0]
    raise FunctionError("must be a list, set, or tuple value with either zero or one elements", 0)


@register("one", [Param("list", DYNAMIC)], _one_rt)
def _one(args, ctx):
    rt = _one_rt(args)
    v = args[0]
    if len(v) == 0:
        return null_of(rt)
    if len(v) == 1:
        return v[0]
    raise FunctionError("must be a list, set, or tuple value with either zero or one elements", 0)


@register("range", [], ListType(NUMBER), variadic=Param("params", NUMBER))
def _range(args, ctx):
    if len(args) == 1:
        start, end, step = 0, args[0], (-1 if N.sign(args[0]) < 0 else 1)
    elif len(args) == 2:
        start, end = args
        step = -1 if N.compare(end, start) < 0 else 1
    elif len(args) == 3:
        start, end, step = args
    else:
        raise FunctionError("must have one, two, or three arguments")
    # go-cty's zero-step check compares with its own Zero object, which an argument never is,
    # so a zero step runs into the 1024-value limit below, as in Terraform
    down = N.sign(step) < 0
    if down and N.compare(end, start) > 0:
        raise FunctionError("end must be less than start when step is negative", 1)
    if not down and N.compare(end, start) < 0:
        raise FunctionError("end must be greater than start when step is positive", 1)
    vals = []
    cur = start
    while True:
        c = N.compare(cur, end)
        if (down and c <= 0) or (not down and c >= 0):
            break
        if len(vals) >= 1024:
            raise FunctionError("more than 1024 values were generated; either decrease the difference "
                                "between start and end or use a smaller step")
        vals.append(cur)
        try:
            cur = N.add(cur, step)
        except N.NumberError as exc:
            raise FunctionError(str(exc)) from None
    return TList(vals, NUMBER)


def _reverse_rt(args):
    t = _ty(args[0])
    if isinstance(t, TupleType):
        return TupleType(tuple(reversed(t.elems)))
    if isinstance(t, (ListType, SetType)):
        return ListType(t.elem)
    raise FunctionError(f"can only reverse list or tuple values, not {t.friendly()}", 0)


@register("reverse", [Param("list", DYNAMIC)], _reverse_rt)
def _reverse(args, ctx):
    rt = _reverse_rt(args)
    items = list(reversed(args[0]))
    if isinstance(rt, TupleType):
        return items
    return TList(items, rt.elem)


def _setop_rt(args):
    tys = [a.etype if isinstance(a, TSet) else (_ty(a).elem if isinstance(_ty(a), SetType) else DYNAMIC)
           for a in args]
    u = unify_types(tys)
    if isinstance(u, DynamicType) and any(not isinstance(t, DynamicType) for t in tys):
        raise FunctionError("given sets must all have compatible element types", 0)
    return SetType(u)


def _setop(args, op, allow_unknowns=True):
    rt = _setop_rt(args)
    sets = []
    for i, a in enumerate(args):
        try:
            sets.append(convert(a, rt))
        except ConversionError as exc:
            raise FunctionError(exc.message, i) from None
    result = list(sets[0])
    for s in sets[1:]:
        result = op(result, s)
    return TSet(result, rt.elem)


def _in(x, coll):
    fx = freeze(x)
    return any(freeze(y) == fx for y in coll)


register("setintersection", [Param("first_set", SetType(DYNAMIC))], _setop_rt,
         variadic=Param("other_sets", SetType(DYNAMIC)))(
    lambda args, ctx: _setop(args, lambda a, b: [x for x in a if _in(x, b)]))
register("setunion", [Param("first_set", SetType(DYNAMIC))], _setop_rt,
         variadic=Param("other_sets", SetType(DYNAMIC)))(
    lambda args, ctx: _setop(args, lambda a, b: a + [x for x in b if not _in(x, a)]))
register("setsubtract", [Param("a", SetType(DYNAMIC)), Param("b", SetType(DYNAMIC))], _setop_rt)(
    lambda args, ctx: _setop(args, lambda a, b: [x for x in a if not _in(x, b)]))


def _setproduct_rt(args):
    if len(args) < 2:
        raise FunctionError("at least two arguments are required")
    list_count = 0
    etys = []
    for i, a in enumerate(args):
        t = _ty(a)
        if isinstance(t, SetType):
            etys.append(t.elem)
        elif isinstance(t, ListType):
            etys.append(t.elem)
            list_count += 1
        elif isinstance(t, TupleType):
            if not t.elems:
                etys.append(DYNAMIC)
            else:
                u = unify_types(list(t.elems))
                if isinstance(u, DynamicType) and any(not isinstance(x, DynamicType) for x in t.elems):
                    raise FunctionError("a set or a list is required", i)
                etys.append(u)
            list_count += 1
        else:
            raise FunctionError("a set or a list is required", i)
    et = TupleType(tuple(etys))
    return ListType(et) if list_count == len(args) else SetType(et)


MAX_SETPRODUCT = 1_000_000


@register("setproduct", [], _setproduct_rt, variadic=Param("sets", DYNAMIC))
def _setproduct(args, ctx):
    rt = _setproduct_rt(args)
    et = rt.elem
    size = 1
    for a in args:
        size *= len(a)
    if size > MAX_SETPRODUCT:
        raise FunctionError(f"the product has {size} elements; tfconsole builds at most {MAX_SETPRODUCT} (Terraform "
                            "has no limit and runs out of memory)")
    rows = [[]]
    for j, a in enumerate(args):
        rows = [r + [convert(x, et.elems[j])] for r in rows for x in a]
    if isinstance(rt, ListType):
        return TList(rows, et)
    return TSet(rows, et)


def _slice_idx(args):
    lst = args[0]
    n = len(lst) if type(lst) is not Unknown else None
    s = e = None
    if type(args[1]) is not Unknown:
        s = N.to_int(args[1])
        if s is None:
            raise FunctionError("invalid start index: value must be a whole number", 1)
        if s < 0:
            raise FunctionError("start index must not be less than zero", 1)
        if n is not None and s > n:
            raise FunctionError("start index must not be greater than the length of the list", 1)
    if type(args[2]) is not Unknown:
        e = N.to_int(args[2])
        if e is None:
            raise FunctionError("invalid end index: value must be a whole number", 2)
        if e < 0:
            raise FunctionError("end index must not be less than zero", 2)
        if n is not None and e > n:
            raise FunctionError("end index must not be greater than the length of the list", 2)
    if s is not None and e is not None and s > e:
        raise FunctionError("start index must not be greater than end index", 1)
    return s, e


def _slice_rt(args):
    t = _ty(args[0])
    if isinstance(t, SetType):
        raise FunctionError("cannot slice a set, because its elements do not have indices; explicitly "
                            "convert to a list if the ordering of the result is not important", 0)
    if not isinstance(t, (ListType, TupleType)):
        raise FunctionError("must be a list or tuple value", 0)
    s, e = _slice_idx(args)
    if isinstance(t, ListType):
        return t
    if s is None or e is None:
        return DYNAMIC
    return TupleType(t.elems[s:e])


@register("slice", [Param("list", DYNAMIC), Param("start_index", NUMBER), Param("end_index", NUMBER)],
          _slice_rt)
def _slice(args, ctx):
    rt = _slice_rt(args)
    s, e = _slice_idx(args)
    items = list(args[0][s:e])
    if isinstance(rt, TupleType):
        return items
    return TList(items, rt.elem)


@register("sort", [Param("list", ListType(STRING))], ListType(STRING), nested_unknowns=True)
def _sort(args, ctx):
    if not is_wholly_known(args[0]):
        # the order is not known yet, but the length is (as Terraform renders it)
        return TList([Unknown(STRING)] * len(args[0]), STRING)
    for i, x in enumerate(args[0]):
        if is_null(x):
            raise FunctionError(f"given list element {i} is null; a null string cannot be sorted")
    return TList(sorted(args[0], key=lambda s: s.encode("utf-8")), STRING)


@register("sum", [Param("list", DYNAMIC)], NUMBER)
def _sum(args, ctx):
    v = args[0]
    t = _ty(v)
    if not isinstance(v, (list, dict)):
        raise FunctionError("cannot sum noniterable", 0)
    if len(v) == 0:
        raise FunctionError("cannot sum an empty list", 0)
    if not isinstance(t, (ListType, SetType, TupleType)):
        raise FunctionError(f"argument must be list, set, or tuple. Received {t.friendly()}", 0)
    total = None
    for x in v:
        if is_null(x):
            raise FunctionError("argument must be list, set, or tuple of number values", 0)
        try:
            x = convert(x, NUMBER)
        except ConversionError:
            raise FunctionError("argument must be list, set, or tuple of number values", 0) from None
        if total is None:
            total = x
            continue
        try:
            total = N.add(total, x)
        except N.NumberError:
            raise FunctionError("can't compute sum of opposing infinities") from None
    return total


@register("transpose", [Param("values", MapType(ListType(STRING)))], MapType(ListType(STRING)))
def _transpose(args, ctx):
    out: dict[str, list] = {}
    for k in sorted(args[0]):
        lst = args[0][k]
        if is_null(lst):
            raise FunctionError("transpose requires a map of lists of strings, but a null value was found")
        for v in lst:
            if is_null(v):
                raise FunctionError("input list must not contain null string")
            out.setdefault(v, []).append(k)
    return TMap({k: TList(v, STRING) for k, v in out.items()}, ListType(STRING))


def _values_rt(args):
    t = _ty(args[0])
    if isinstance(t, MapType):
        return ListType(t.elem)
    if isinstance(t, ObjectType):
        return TupleType(tuple(a for _, a in t.attrs))
    raise FunctionError("values() requires a map as the first argument")


@register("values", [Param("mapping", DYNAMIC)], _values_rt)
def _values(args, ctx):
    rt = _values_rt(args)
    m = args[0]
    vals = [m[k] for k in sorted(m)]
    if isinstance(rt, ListType):
        return TList(vals, rt.elem)
    return vals


def _zipmap_rt(args):
    keys, values = args
    vt = _ty(values)
    if isinstance(vt, ListType):
        return MapType(vt.elem)
    if isinstance(vt, TupleType):
        if not is_wholly_known(keys):
            return DYNAMIC
        ks = unmark_deep(keys)[0]
        if len(ks) != len(vt.elems):
            raise FunctionError(f"number of keys ({len(ks)}) does not match number of values "
                                f"({len(vt.elems)})")
        atys = {}
        for i, k in enumerate(ks):
            if is_null(k):
                raise FunctionError(f"keys list has null value at index {i}")
            atys[k] = vt.elems[i]
        return ObjectType(tuple(sorted(atys.items())))
    raise FunctionError("values argument must be a list or tuple value")


@register("zipmap", [Param("keys", ListType(STRING)), Param("values", DYNAMIC)], _zipmap_rt)
def _zipmap(args, ctx):
    rt = _zipmap_rt(args)
    keys, values = args
    if len(keys) != len(values):
        raise FunctionError(f"number of keys ({len(keys)}) does not match number of values ({len(values)})")
    out = {}
    for i, k in enumerate(keys):
        if is_null(k):
            raise FunctionError(f"keys list has null value at index {i}")
        out[k] = values[i]
    if isinstance(rt, MapType):
        return TMap(out, rt.elem)
    return dict(sorted(out.items()))


# Functions that move values around without inspecting them keep nested unknowns in place
# (cty's implementations check IsKnown only where they must).
def _mark_structural():
    from . import registered
    for name in ("chunklist", "coalesce", "coalescelist", "concat", "element", "keys", "length",
                 "merge", "one", "reverse", "slice", "values", "zipmap"):
        registered(name).nested_unknowns = True
    # element marks stay in place; only a mark on the collection itself moves to the result
    for name, idx in (("concat", None), ("element", 0), ("lookup", 0), ("values", 0), ("zipmap", 1),
                      ("slice", 0), ("reverse", 0), ("chunklist", 0), ("one", 0),
                      ("coalescelist", None), ("flatten", 0)):
        fn = registered(name)
        spec = fn.variadic if idx is None else fn.params[idx]
        spec.allow_marked = "shallow"


_mark_structural()
