"""The AOT artifact: one zip holding everything needed to run a compiled function in another
process without the user's code, tracing, or (on the same CPU and versions) compiling kernels.

Members
  manifest.json        format version, versions of jitgrad and what the backend's code needs
                       (llvmlite; numba/numba-cuda for CUDA), CPU, backend,
                       input/output pytree structures and types, SHA-256 of every other member
  signature.hmac       optional: HMAC-SHA256 of manifest.json's bytes under the saver's key
  graph.ir             the traced graph (text IR)
  optimized.ir         the schedule the backend compiled (text IR, kernel nodes)
  constants/<digest>.npy   large constants, saved with allow_pickle=False
  code/<path>          the backend's kernel objects from the disk cache (optional)

Reading checks the zip, the format version and every member's hash before using anything, and
says whether the manifest (so every member) carries a valid signature under the reader's key.
Nothing here unpickles or runs anything; whether the carried code is used is jitgrad/aot.py's
decision, and it needs that signature.
"""
from __future__ import annotations

import hashlib
import hmac
import io
import json
import zipfile
from collections import OrderedDict

import numpy as np

from ..errors import ArtifactError
from ..ir import config
from ..tree_util import PyTreeDef

FORMAT_VERSION = 1
SIGNATURE = "signature.hmac"
KEY_ENV = "JITGRAD_ARTIFACT_KEY"


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

def key_bytes(key=None):
    """The signing key: `key` (str or bytes), else $JITGRAD_ARTIFACT_KEY, else None."""
    if key is None:
        key = config.read("artifact_key")
    if isinstance(key, str):
        key = key.encode()
    if isinstance(key, bytes):
        return key or None
    raise TypeError(f"an artifact key is a str or bytes, got {type(key).__name__}")


def _signature(key: bytes, manifest: bytes) -> str:
    return hmac.new(key, manifest, hashlib.sha256).hexdigest()


def write(path, manifest: dict, members: dict, key=None) -> None:
    """members: name -> bytes. The manifest gains the members' hashes; with a key (argument or
    $JITGRAD_ARTIFACT_KEY) the manifest is signed."""
    manifest = dict(manifest, format_version=FORMAT_VERSION,
                    members={name: sha256(data) for name, data in sorted(members.items())})
    text = json.dumps(manifest, indent=2, sort_keys=True).encode()
    key = key_bytes(key)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("manifest.json", text)
        if key:
            z.writestr(SIGNATURE, _signature(key, text))
        for name, data in sorted(members.items()):
            z.writestr(name, data)


def array_bytes(a) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a), allow_pickle=False)
    return buf.getvalue()


# ----------------------------------------------------------------------------- reading

def read(path, key=None):
    """(manifest, members, distrust) after every check; ArtifactError says what is wrong.
    distrust is None when the artifact is signed under `key` (or $JITGRAD_ARTIFACT_KEY), else
    why it is not trusted."""
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
            text = z.read("manifest.json")
            manifest = json.loads(text)
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
        distrust = _distrust(z, names, text, key_bytes(key))
        extra = names - set(expected) - {"manifest.json", SIGNATURE}
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
    return manifest, members, distrust


def _distrust(z, names, manifest: bytes, key):
    if SIGNATURE not in names:
        return "it is not signed"
    if key is None:
        return f"it is signed, but no key was given (key= or ${KEY_ENV})"
    try:
        signature = z.read(SIGNATURE).decode("ascii").strip()
    except (zipfile.BadZipFile, OSError, EOFError, UnicodeDecodeError):
        return "its signature is unreadable"
    if not hmac.compare_digest(signature, _signature(key, manifest)):
        return "its signature does not match your key"
    return None


def load_array(data: bytes):
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as e:
        raise ArtifactError(f"a constant is not a plain array ({e})") from None
