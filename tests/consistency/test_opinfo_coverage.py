"""Every public name of a namespace is in the op database (tests/support/opinfo) or left out
with a reason (issue 49).

Protocol: a module of tests/support/opinfo (one its __init__ imports) may define
    UNRECORDED = {"<namespace>": {"name": "why it has no record", ...}}
A namespace is checked once some module names it there (an empty dict when every name is
recorded). A record of namespace `ns` (the key of its module in opinfo.NAMESPACES) with public
name `p` covers the dotted name `ns.p`: a jitgrad.numpy record named 'linalg.det' covers
jitgrad.numpy.linalg's 'det'.

A namespace's public names are its attributes without a leading underscore that are not modules;
where its owner's module is importable in CI (NumPy, SciPy), an attribute counts only when the owner
has that name too or it is defined in the namespace's own module (so a helper the module imports,
`asarray` in jitgrad.numpy.linalg, is no name of it). A distribution of jitgrad.scipy.stats
contributes its functions as 'norm.pdf'."""
import importlib
import types

import pytest

import tests.support.opinfo as opinfo

# namespace -> the owner's module whose names filter the namespace's attributes (None: no filter)
OWNER_MODULE = {"jitgrad.numpy.linalg": "numpy.linalg", "jitgrad.numpy.fft": "numpy.fft",
                "jitgrad.scipy.special": "scipy.special", "jitgrad.scipy.linalg": "scipy.linalg",
                "jitgrad.scipy.stats": "scipy.stats"}


def _resolve(ns):
    """The module or class a dotted namespace names ('jitgrad.Tensor' is a class)."""
    try:
        return importlib.import_module(ns)
    except ImportError:
        parent, _, attr = ns.rpartition(".")
        return getattr(importlib.import_module(parent), attr)


def _public(obj):
    return {n for n in dir(obj) if not n.startswith("_")
            and not isinstance(getattr(obj, n), types.ModuleType)}


def public_names(ns) -> set:
    """The public names of namespace `ns` (see the module docstring)."""
    obj = _resolve(ns)
    if isinstance(obj, type):
        return {n for n in _public(obj) if callable(getattr(obj, n))}
    names = _public(obj)
    owner = OWNER_MODULE.get(ns)
    if owner is None:
        return names
    owner = importlib.import_module(owner)
    names = {n for n in names if hasattr(owner, n)
             or getattr(getattr(obj, n), "__module__", None) == obj.__name__}
    for d in dir(obj):     # scipy.stats' distributions (objects there): norm.pdf, poisson.pmf
        sub, theirs = getattr(obj, d), getattr(owner, d, None)
        if (d.startswith("_") or callable(sub) or theirs is None
                or isinstance(theirs, types.ModuleType)):
            continue
        names.discard(d)
        names |= {f"{d}.{f}" for f in _public(sub) if hasattr(theirs, f)}
    return names


def unrecorded() -> dict:
    """namespace -> {name: reason}: the UNRECORDED dicts of the opinfo modules the package
    imports, merged."""
    out = {}
    for mod in sorted({m for m in vars(opinfo).values() if isinstance(m, types.ModuleType)
                       and m.__name__.startswith(opinfo.__name__ + ".")}, key=lambda m: m.__name__):
        for ns, table in getattr(mod, "UNRECORDED", {}).items():
            dup = set(out.get(ns, {})) & set(table)
            assert not dup, f"{ns}: {sorted(dup)} left out by two modules"
            out.setdefault(ns, {}).update(table)
    return out


def recorded() -> set:
    """The dotted names the op database's records cover."""
    return {f"{ns}.{opinfo.public_name(r)}" for ns, m in opinfo.NAMESPACES.items()
            for r in m.RECORDS}


UNRECORDED = unrecorded()


@pytest.mark.parametrize("ns", sorted(UNRECORDED))
def test_every_public_name_is_recorded_or_left_out_with_a_reason(ns):
    names, left_out, have = public_names(ns), UNRECORDED[ns], recorded()
    missing = sorted(n for n in names if f"{ns}.{n}" not in have and n not in left_out)
    assert not missing, f"{ns}: neither recorded nor in an UNRECORDED dict: {missing}"
    stale = sorted(n for n in left_out if f"{ns}.{n}" in have or n not in names)
    assert not stale, f"{ns}: in UNRECORDED but recorded, or no public name: {stale}"
    short = sorted(n for n, why in left_out.items() if not isinstance(why, str) or len(why) < 10)
    assert not short, f"{ns}: give a reason, not a placeholder: {short}"
    n_rec = len(names) - len(left_out)
    print(f"{ns}: {n_rec} recorded, {len(left_out)} left out with a reason, {len(names)} names")


def test_public_names_filters_helpers_and_expands_distributions():
    linalg = public_names("jitgrad.numpy.linalg")
    assert {"det", "matmul", "EighResult"} <= linalg and "asarray" not in linalg
    stats = public_names("jitgrad.scipy.stats")
    assert {"norm.pdf", "poisson.logpmf"} <= stats and "norm.standardize" not in stats
    assert "add" in public_names("jitgrad.Tensor")
