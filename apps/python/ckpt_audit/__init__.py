"""Verify, then load: hand a loader exactly the bytes ckpt-audit passed.

``verify(path)`` audits a checkpoint as ``ckpt-audit`` does and raises on any finding at or
above ``fail_on``. ``open_verified(path)`` audits it and, when it passes, holds the bytes the
audit judged (a sealed memfd by default) so that what is loaded next is what passed, whatever
happens to the path meanwhile. ``load_checkpoint(path)`` is both at once: the tensors, read-only
and zero-copy over the held bytes (numpy), or copied (torch). See docs/python.md.
"""

import json
import os
import weakref

from . import _native

__all__ = [
    "AuditError",
    "CheckpointIntegrityError",
    "InputError",
    "ClosedError",
    "VerifiedCheckpoint",
    "verify",
    "open_verified",
    "load_checkpoint",
]


class AuditError(Exception):
    """Base of every error this module raises."""


class CheckpointIntegrityError(AuditError):
    """The audit failed, or held bytes no longer match what was audited or trusted.

    ``findings`` lists each finding (rule, severity, location, message); ``verdict`` is the
    audit's verdict ("fail")."""

    def __init__(self, message, findings=(), verdict="fail"):
        super().__init__(message)
        self.findings = list(findings)
        self.verdict = verdict


class InputError(AuditError):
    """The tool could not do its job (the CLI's exit status 2): a missing path, an unreadable
    file, a hold it cannot give. The message is the one the CLI prints."""


class ClosedError(AuditError, ValueError):
    """An access after close()."""


_OPTION_NAMES = ("fail_on", "max_hold_bytes", "expected_files", "policy", "baseline", "allow_groups",
                 "model_signature", "trusted_key", "trusted_cert_chain", "sigstore_trusted_root", "identity", "issuer",
                 "ignore_paths", "attestation", "attestation_key")


def _path(value):
    return None if value is None else os.fspath(value)


def _open(path, hold, expected_hash=None, fail_on="error", max_hold_bytes=None, expected_files=None, policy=None,
          baseline=None, allow_groups=(), model_signature=None, trusted_key=None, trusted_cert_chain=(),
          sigstore_trusted_root=None, identity="", issuer="", ignore_paths=(), attestation=None,
          attestation_key=None):
    signature = _native.SignatureArguments()
    if model_signature is not None and model_signature is not False:
        signature.signature = "" if model_signature is True else os.fspath(model_signature)
    signature.trusted_key = _path(trusted_key)
    chains = [trusted_cert_chain] if isinstance(trusted_cert_chain, (str, os.PathLike)) else list(trusted_cert_chain)
    signature.trusted_cert_chains = [os.fspath(c) for c in chains]
    signature.sigstore_trusted_root = _path(sigstore_trusted_root)
    signature.identity = identity
    signature.issuer = issuer
    signature.ignore_paths = list(ignore_paths)
    signature.attestation = _path(attestation)
    signature.attestation_key = _path(attestation_key)
    native = _native.open(os.fspath(path), hold, expected_hash, fail_on, max_hold_bytes, dict(expected_files or {}),
                          _path(policy), _path(baseline), list(allow_groups), signature)
    report = json.loads(native.report_json(fail_on))
    if native.verdict == "error":
        raise InputError("; ".join(native.tool_errors) or "the input could not be audited")
    if native.verdict != "pass":
        findings = [_finding(f) for f in report.get("findings", [])]
        counted = [f for f in findings if f["severity"] in _at_or_above(fail_on)]
        first = counted[0] if counted else (findings[0] if findings else None)
        summary = f"{os.fspath(path)} failed the audit"
        if first is not None:
            summary += f": {first['rule']}: {first['message']}"
            if len(counted) > 1:
                summary += f" (and {len(counted) - 1} more)"
        raise CheckpointIntegrityError(summary, findings, native.verdict)
    return native, report


def _at_or_above(fail_on):
    order = ["note", "warning", "error"]
    if fail_on == "none":
        return {"error"}
    return set(order[order.index(fail_on):])


def _finding(f):
    return {
        "rule": f.get("rule"),
        "severity": f.get("severity"),
        "location": f.get("location"),
        "message": f.get("message"),
    }


def _refused(error):
    kind, message = error.args  # set by the binding: (kind, message)
    if kind == "closed":
        return ClosedError(message)
    if kind in ("changed", "digest_mismatch"):
        rule = "layout-file-changed" if kind == "changed" else "hash-mismatch"
        return CheckpointIntegrityError(message, [{"rule": rule, "severity": "error", "location": None,
                                                   "message": message}])
    if kind in ("not_held", "no_such_tensor"):
        return KeyError(message)
    return InputError(message)


class TensorView:
    """One tensor's bytes in the held file, with its dtype and shape.

    ``data`` is a read-only memoryview of exactly its bytes; ``numpy()`` a read-only,
    zero-copy array over them (BF16 and 8-bit floats as unsigned integers of their width:
    the dtype token says what they are)."""

    def __init__(self, info, data):
        self.name = info["name"]
        self.dtype = info["dtype"]
        self.shape = tuple(info["shape"])
        self.file = info["file"]
        self.offset = info["offset"]
        self.length = info["length"]
        self.data = data

    def numpy(self):
        import numpy

        code = _NUMPY_DTYPES.get(self.dtype)
        if code is None:
            raise InputError(f"tensor '{self.name}' has dtype {self.dtype}, which numpy has no type for")
        return numpy.frombuffer(self.data, dtype=numpy.dtype(code)).reshape(self.shape)

    def __repr__(self):
        return f"TensorView({self.name!r}, {self.dtype}, {self.shape}, {self.file!r}@{self.offset})"


# Every tensor view is little-endian. BF16 and the 8-bit floats have no numpy type: they are
# given as unsigned integers of their width, never reinterpreted as another float.
_NUMPY_DTYPES = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2",
    "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
    "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "?",
    "C64": "<c8",
    "F8_E5M2": "u1", "F8_E4M3": "u1", "F8_E8M0": "u1", "F8_E4M3FNUZ": "u1", "F8_E5M2FNUZ": "u1", "F8_E3M4": "u1",
}


class VerifiedCheckpoint:
    """What passed, and the bytes the audit judged.

    ``report`` is the audit's JSON report of this input (as ``ckpt-audit --format json``
    writes it, each tensor also with its byte range in ``tensors``); ``header`` the Lensemble
    header migrated to the current schema (or None for other kinds). Use as a context manager,
    or call close(): views handed out are released then (a later use raises), except those
    numpy arrays still hold, which keep their mapping alive."""

    def __init__(self, native, report, hold):
        self._native = native
        self.report = report
        self.hold = hold
        self.verdict = report.get("verdict")
        self.kind = report.get("kind")
        self.findings = [_finding(f) for f in report.get("findings", [])]
        header = native.header_json()
        self.header = None if header is None else json.loads(header)
        self.tensors = native.tensors()
        # Weak references, never a set: a read-only memoryview hashes its whole content.
        self._views = []

    @property
    def files(self):
        """Each held file: name, size and the SHA-256 of exactly its held bytes."""
        return self._native.files()

    @property
    def closed(self):
        return self._native.closed

    def buffer(self, file):
        """A read-only memoryview of a held file's bytes."""
        try:
            view = memoryview(self._native.buffer(file))
        except _native.Refused as error:
            raise _refused(error) from None
        self._remember(view)
        return view

    def tensor(self, name):
        """A TensorView of one tensor, for kinds whose tensors sit as raw bytes."""
        try:
            info = self._native.tensor(name)
        except _native.Refused as error:
            raise _refused(error) from None
        whole = self.buffer(info["file"])
        data = whole[info["offset"]:info["offset"] + info["length"]]
        self._remember(data)
        return TensorView(info, data)

    def fd_path(self, file):
        """/proc/self/fd/N of the held file, for loaders that want a path (torch.load,
        onnx.load, h5py.File, numpy.load): the held copy, never the original path."""
        try:
            return self._native.fd_path(file)
        except _native.Refused as error:
            raise _refused(error) from None

    def _remember(self, view):
        if len(self._views) > 64 and len(self._views) & (len(self._views) - 1) == 0:
            self._views = [ref for ref in self._views if ref() is not None]
        self._views.append(weakref.ref(view))

    def close(self):
        for ref in self._views:
            view = ref()
            if view is None:
                continue
            try:
                view.release()
            except BufferError:
                pass  # exported to an array that keeps the mapping alive
        self._views = []
        self._native.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self.closed else f"hold={self.hold}"
        return f"<VerifiedCheckpoint {self.report.get('path')!r} {self.kind} {self.verdict} {state}>"


def verify(artifact_dir, expected_hash=None, **options):
    """Audits ``artifact_dir`` (any input kind ckpt-audit reads) and returns its header: the
    Lensemble header migrated to the current schema, or for other kinds the report itself.

    Raises CheckpointIntegrityError on any finding at or above ``fail_on`` (default "error"),
    including ``hash-unexpected`` when ``expected_hash`` differs; InputError when it cannot
    be audited. Options: fail_on, policy, baseline, allow_groups, and the model signature's
    (model_signature=True for MODEL/model.sig or a path, with trusted_key, trusted_cert_chain or
    sigstore_trusted_root + identity + issuer; ignore_paths)."""
    _check_options(options)
    native, report = _open(artifact_dir, "none", expected_hash, **options)
    header = native.header_json()
    return json.loads(header) if header is not None else report


def open_verified(path, expected_hash=None, hold="memfd", **options):
    """Audits ``path`` and returns a VerifiedCheckpoint holding the bytes that passed.

    hold: "memfd" (default: each file read once into a sealed memfd while it is hashed),
    "fd" (the audited descriptors kept, each access re-checks the file), "lazy" (structure
    audited now, each file read and checked against ``expected_files={name: sha256}`` on
    first access; or the signed digests of a verified model_signature, or the subjects of our
    audit statement: attestation=ENVELOPE with attestation_key=PUB). Options: fail_on,
    max_hold_bytes, expected_files, policy, baseline, allow_groups, and the model signature's
    (see verify)."""
    _check_options(options)
    native, report = _open(path, hold, expected_hash, **options)
    try:
        extents = {t["name"]: t for t in native.tensors()}
        for tensor in report.get("tensors", []):
            extent = extents.get(tensor.get("name"))
            if extent is not None:
                tensor["offset"] = extent["offset"]
                tensor["length"] = extent["length"]
        return VerifiedCheckpoint(native, report, hold)
    except BaseException:
        native.close()
        raise


def load_checkpoint(artifact_dir, expected_hash=None, framework="numpy", **options):
    """Verifies, then loads: returns (tensors, header) from the held bytes.

    framework="numpy": read-only zero-copy arrays over the sealed bytes, which keep them
    alive. framework="torch": torch tensors (copies: torch has no read-only tensors); a
    pickle-based checkpoint is loaded with torch.load(weights_only=True) from the held
    descriptor. On any failure no tensor is returned and nothing stays mapped."""
    if framework not in ("numpy", "torch"):
        raise ValueError(f"framework must be 'numpy' or 'torch', not {framework!r}")
    _check_options(options)
    options.setdefault("hold", "memfd")
    hold = options.pop("hold")
    vc = open_verified(artifact_dir, expected_hash, hold=hold, **options)
    with vc:
        tensors = {}
        viewable = {t["name"] for t in vc.tensors}
        lone = os.path.basename(os.fspath(artifact_dir).rstrip("/"))
        needs_loader = sorted({t["file"] or lone for t in vc.report.get("tensors", []) if t.get("name") not in viewable})
        if needs_loader and framework != "torch":
            raise InputError(
                f"{', '.join(needs_loader)}: tensors stored for their own loader, not as raw bytes; use "
                "framework='torch', or open_verified(...).fd_path(file) with the format's loader")
        for info in vc.tensors:
            view = vc.tensor(info["name"])
            array = view.numpy()
            tensors[info["name"]] = array if framework == "numpy" else _to_torch(array, view.dtype)
        for file in needs_loader:
            import torch

            loaded = torch.load(vc.fd_path(file), map_location="cpu", weights_only=True)
            state = loaded.get("state_dict", loaded) if isinstance(loaded, dict) else loaded
            if not isinstance(state, dict):
                raise InputError(f"{file}: torch.load gave a {type(state).__name__}, not a state dict")
            for name, value in state.items():
                tensors[name] = value
        return tensors, vc.header


def _to_torch(array, dtype):
    import numpy
    import torch

    copy = numpy.array(array, copy=True)
    tensor = torch.from_numpy(copy)
    if dtype == "BF16":
        tensor = tensor.view(torch.bfloat16)
    return tensor


def _check_options(options):
    unknown = sorted(set(options) - set(_OPTION_NAMES) - {"hold"})
    if unknown:
        raise TypeError(f"unknown option(s): {', '.join(unknown)}")
