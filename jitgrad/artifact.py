"""The AOT artifact: one zip holding everything needed to run a compiled function in another
process without the user's code, tracing, or (on the same CPU and versions) numba compiling.

Members
  manifest.json        format version, jitgrad/numba/llvmlite versions, CPU, backend,
                       input/output pytree structures and types, SHA-256 of every other member
  graph.ir             the traced graph (text IR)
  optimized.ir         the schedule the backend compiled (text IR, kernel nodes)
  constants/<digest>.npy   large constants, saved with allow_pickle=False
  code/<path>          the backend's generated source and numba's cache files (optional)

Loading checks the zip, the format version, and every member's hash before using anything, and
never unpickles: the only code it runs is jitgrad's own generated kernel source.
"""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections import OrderedDict

import numpy as np

FORMAT_VERSION = 1


class ArtifactError(ValueError):
    """An artifact is missing, truncated, tampered with, or from an incompatible format."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ----------------------------------------------------------------------------- pytree structure

def treedef_to_json(td):
    """A PyTreeDef of builtin containers as JSON; registered classes can't be rebuilt safely."""
    if td.kind is None:
        return "*"
    if td.kind in (tuple, list):
        return {"kind": td.kind.__name__, "children": [treedef_to_json(c) for c in td.children]}
    if td.kind in (dict, OrderedDict):
        if not all(isinstance(k, str) for k in td.aux):
            raise ArtifactError("only dicts with string keys can be saved in an artifact")
        return {"kind": td.kind.__name__, "keys": list(td.aux),
                "children": [treedef_to_json(c) for c in td.children]}
    if td.kind is type(None):
        return {"kind": "None"}
    raise ArtifactError(f"an artifact can only hold tuples, lists, dicts and None as argument or "
                        f"result structure, not {td.kind.__name__}; flatten it with "
                        "jg.tree_util.tree_leaves first")


def treedef_from_json(obj):
    from .tree_util import PyTreeDef
    if obj == "*":
        return PyTreeDef(None, None, ())
    kinds = {"tuple": tuple, "list": list, "dict": dict, "OrderedDict": OrderedDict,
             "None": type(None)}
    if not isinstance(obj, dict) or obj.get("kind") not in kinds:
        raise ArtifactError(f"manifest: bad pytree structure {obj!r}")
    kind = kinds[obj["kind"]]
    if kind in (dict, OrderedDict) and not (isinstance(obj.get("keys"), list) and
                                            len(obj["keys"]) == len(obj.get("children", []))):
        raise ArtifactError(f"manifest: bad dict structure {obj!r}")
    children = tuple(treedef_from_json(c) for c in obj.get("children", []))
    aux = tuple(obj["keys"]) if kind in (dict, OrderedDict) else None
    return PyTreeDef(kind, aux, children)


# ----------------------------------------------------------------------------- writing

def write(path, manifest: dict, members: dict) -> None:
    """members: name -> bytes. The manifest gains the members' hashes."""
    manifest = dict(manifest, format_version=FORMAT_VERSION,
                    members={name: sha256(data) for name, data in sorted(members.items())})
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("manifest.json", json.dumps(manifest, indent=2, sort_keys=True))
        for name, data in sorted(members.items()):
            z.writestr(name, data)


def array_bytes(a) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a), allow_pickle=False)
    return buf.getvalue()


# ----------------------------------------------------------------------------- reading

def read(path):
    """(manifest, members) after every check; ArtifactError says what is wrong."""
    try:
        z = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ArtifactError(f"{path}: no such artifact file") from None
    except (zipfile.BadZipFile, OSError) as e:
        raise ArtifactError(f"{path}: not a readable jitgrad artifact (truncated or not a zip: {e})") from None
    with z:
        names = set(z.namelist())
        if "manifest.json" not in names:
            raise ArtifactError(f"{path}: no manifest.json; not a jitgrad artifact")
        try:
            manifest = json.loads(z.read("manifest.json"))
        except (ValueError, zipfile.BadZipFile, OSError) as e:
            raise ArtifactError(f"{path}: manifest.json is unreadable ({e})") from None
        if not isinstance(manifest, dict) or not isinstance(manifest.get("members", {}), dict):
            raise ArtifactError(f"{path}: manifest.json is not a jitgrad manifest")
        version = manifest.get("format_version")
        if version != FORMAT_VERSION:
            raise ArtifactError(f"{path}: artifact format version {version!r}, this jitgrad reads "
                                f"version {FORMAT_VERSION}" + (" (made by a newer jitgrad; upgrade)"
                                                               if isinstance(version, int) and version > FORMAT_VERSION else ""))
        expected = manifest.get("members", {})
        extra = names - set(expected) - {"manifest.json"}
        if extra:
            raise ArtifactError(f"{path}: members not listed in the manifest: {sorted(extra)}")
        members = {}
        for name, digest in expected.items():
            if name not in names:
                raise ArtifactError(f"{path}: member {name} is listed in the manifest but missing")
            try:
                data = z.read(name)
            except (zipfile.BadZipFile, OSError, EOFError) as e:
                raise ArtifactError(f"{path}: member {name} is corrupt ({e})") from None
            if sha256(data) != digest:
                raise ArtifactError(f"{path}: member {name} does not match its SHA-256 in the "
                                    "manifest (the artifact was modified)")
            members[name] = data
    return manifest, members


def load_array(data: bytes):
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as e:
        raise ArtifactError(f"a constant is not a plain array ({e})") from None
