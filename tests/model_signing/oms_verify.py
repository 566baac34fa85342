#!/usr/bin/python3
"""An independent OpenSSF Model Signing verifier for the tests, written from the spec with
Debian's python3-cryptography (no code shared with ckpt-audit): key method, v1.0 predicate,
files serialization, as model_signing 1.1 writes and verifies them.

    oms_verify.py --key PUB.pem --signature SIG [--ignore-path P]... [--exact-bytes] MODEL

Exit 0 when the signature verifies and MODEL's files are exactly the signed ones; 1 with the
reason on stderr otherwise. --exact-bytes also requires the payload to be what
json.dumps(statement, indent=2, ensure_ascii=False) prints and the bundle to be model_signing
1.1's compact layout.
"""
import argparse
import base64
import hashlib
import json
import os
import pathlib
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

PAYLOAD_TYPE = "application/vnd.in-toto+json"
HASHES = {"secp256r1": hashes.SHA256, "secp384r1": hashes.SHA384, "secp521r1": hashes.SHA512}


def fail(why):
    print("oms_verify: " + why, file=sys.stderr)
    sys.exit(1)


def pae(payload: bytes) -> bytes:
    t = PAYLOAD_TYPE.encode()
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


def b64(text):
    return base64.b64decode(text, validate=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--key", required=True)
    parser.add_argument("--signature", required=True)
    parser.add_argument("--ignore-path", action="append", default=[])
    parser.add_argument("--exact-bytes", action="store_true")
    parser.add_argument("model")
    args = parser.parse_args()

    key = serialization.load_pem_public_key(pathlib.Path(args.key).read_bytes())
    if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name not in HASHES:
        fail("not an ECDSA P-256/384/521 key")
    pem = key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    hint = hashlib.sha256(pem).hexdigest()

    raw = pathlib.Path(args.signature).read_bytes()
    bundle = json.loads(raw)
    if bundle["mediaType"] != "application/vnd.dev.sigstore.bundle.v0.3+json":
        fail("media type")
    material = bundle["verificationMaterial"]
    if material["publicKey"].get("hint") != hint:
        fail("key hint %r is not %s" % (material["publicKey"].get("hint"), hint))
    envelope = bundle["dsseEnvelope"]
    if envelope["payloadType"] != PAYLOAD_TYPE or len(envelope["signatures"]) != 1:
        fail("envelope shape")
    payload = b64(envelope["payload"])
    sig = b64(envelope["signatures"][0]["sig"])
    try:
        key.verify(sig, pae(payload), ec.ECDSA(HASHES[key.curve.name]()))
    except InvalidSignature:
        fail("the signature does not verify")

    statement = json.loads(payload)
    if statement["_type"] != "https://in-toto.io/Statement/v1":
        fail("_type")
    if statement["predicateType"] != "https://model_signing/signature/v1.0":
        fail("predicateType")
    if len(statement["subject"]) != 1:
        fail("subjects")
    predicate = statement["predicate"]
    ser = predicate["serialization"]
    if ser["method"] != "files" or ser["hash_type"] != "sha256" or ser["allow_symlinks"] is not False:
        fail("serialization %r" % ser)
    resources = predicate["resources"]
    root = hashlib.sha256(b"".join(bytes.fromhex(r["digest"]) for r in resources)).hexdigest()
    if statement["subject"][0]["digest"]["sha256"] != root:
        fail("root digest")

    if args.exact_bytes:
        if json.dumps(statement, indent=2, ensure_ascii=False).encode() != payload:
            fail("the payload is not json.dumps(indent=2) of itself")
        if json.dumps(bundle, separators=(",", ":")).encode() != raw:
            fail("the bundle is not the compact layout")
        if list(bundle) != ["mediaType", "verificationMaterial", "dsseEnvelope"]:
            fail("bundle member order")
        if material != {"publicKey": {"hint": hint}, "tlogEntries": []} or envelope["signatures"][0]["keyid"] != "":
            fail("verification material or keyid")
        names = [r["name"] for r in resources]
        if names != sorted(names, key=lambda n: pathlib.PurePosixPath(n).parts):
            fail("resources are not in model_signing's path order")
        if ser["ignore_paths"] != sorted(set(ser["ignore_paths"])):
            fail("ignore_paths are not sorted and unique")

    model = pathlib.Path(args.model)
    ignored = {".git", ".gitattributes", ".github", ".gitignore"}
    ignored.update(ser.get("ignore_paths", []))
    ignored.update(args.ignore_path)
    sig_path = pathlib.Path(args.signature).resolve()
    if sig_path.is_relative_to(model.resolve()):
        ignored.add(str(sig_path.relative_to(model.resolve())))

    def is_ignored(rel):
        return any(rel == i or rel.startswith(i + "/") for i in ignored)

    present = {}
    for dirpath, dirnames, filenames in os.walk(model):
        for name in dirnames + filenames:
            path = pathlib.Path(dirpath) / name
            rel = path.relative_to(model).as_posix()
            if is_ignored(rel):
                continue
            if path.is_symlink():
                fail("symlink " + rel)
            if path.is_file():
                present[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        dirnames[:] = [d for d in dirnames if not is_ignored((pathlib.Path(dirpath) / d).relative_to(model).as_posix())]
    signed = {r["name"]: r["digest"].lower() for r in resources}
    if present != signed:
        fail("files differ: unsigned %s, missing %s, changed %s" % (
            sorted(set(present) - set(signed)), sorted(set(signed) - set(present)),
            sorted(n for n in set(present) & set(signed) if present[n] != signed[n])))
    print("oms_verify: verified %d files, root sha256:%s" % (len(present), root))


if __name__ == "__main__":
    main()
