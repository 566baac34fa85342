#!/usr/bin/python3
"""Writes OpenSSF Model Signing bundles for the tests with Debian's python3-cryptography,
independently of ckpt-audit: any payload (so tests can sign defective statements), the key
or the certificate method, and the certificates themselves.

    sign_bundle.py statement MODEL [--method files|shards] [--hash sha256|blake2b]
                   [--shard-size N] [--ignore P]... > payload.json
        the v1.0 statement model_signing would sign for MODEL (every regular file)
    sign_bundle.py key KEY.pem PAYLOAD OUT [--hint HEX|none] [--legacy-pae]
    sign_bundle.py certs DIR [--leaf-usage digital|code|none] [--leaf-key ec|rsa]
                   [--leaf-days-ago N] [--leaf-lifetime-days N] [--root-days-ago N]
        writes DIR/root.pem, DIR/intermediate.pem, DIR/leaf.pem, DIR/leaf-key.pem
    sign_bundle.py cert DIR PAYLOAD OUT [--chain leaf,intermediate]
"""
import argparse
import base64
import datetime
import hashlib
import json
import os
import pathlib
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa, padding
from cryptography.x509.oid import NameOID, ExtendedKeyUsageOID

PAYLOAD_TYPE = "application/vnd.in-toto+json"
HASHES = {"secp256r1": hashes.SHA256, "secp384r1": hashes.SHA384, "secp521r1": hashes.SHA512}


def pae(payload, legacy=False):
    t = PAYLOAD_TYPE.encode()
    if legacy:
        return b"DSSEV1 %d %s %d %s" % (len(t), t, len(payload), repr(payload).encode())
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


def sign(key, payload, legacy=False, sha256=False):
    h = hashes.SHA256() if sha256 else HASHES[key.curve.name]()
    return key.sign(pae(payload, legacy), ec.ECDSA(h))


def bundle(material, payload, sig):
    return json.dumps({
        "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
        "verificationMaterial": dict(material, tlogEntries=[]),
        "dsseEnvelope": {"payload": base64.b64encode(payload).decode(), "payloadType": PAYLOAD_TYPE,
                         "signatures": [{"sig": base64.b64encode(sig).decode(), "keyid": ""}]}})


def statement(args):
    model = pathlib.Path(args.model)
    ignore = [".git", ".gitattributes", ".github", ".gitignore"] + args.ignore
    resources = []
    for path in sorted(p for p in model.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(model).as_posix()
        if any(rel == i or rel.startswith(i + "/") for i in ignore):
            continue
        data = path.read_bytes()
        new = (lambda: hashlib.blake2b()) if args.hash == "blake2b" else (lambda: hashlib.sha256())
        if args.method == "files":
            h = new()
            h.update(data)
            resources.append({"name": rel, "algorithm": args.hash, "digest": h.hexdigest()})
        else:
            for start in range(0, len(data), args.shard_size):
                end = min(len(data), start + args.shard_size)
                h = new()
                h.update(data[start:end])
                resources.append({"name": "%s:%d:%d" % (rel, start, end),
                                  "algorithm": "%s-sharded-%d" % (args.hash, args.shard_size),
                                  "digest": h.hexdigest()})
    root = hashlib.sha256(b"".join(bytes.fromhex(r["digest"]) for r in resources)).hexdigest()
    serialization_ = {"method": args.method, "hash_type": args.hash, "allow_symlinks": False, "ignore_paths": ignore}
    if args.method == "shards":
        serialization_["shard_size"] = args.shard_size
    print(json.dumps({"_type": "https://in-toto.io/Statement/v1",
                      "subject": [{"name": model.name, "digest": {"sha256": root}}],
                      "predicateType": "https://model_signing/signature/v1.0",
                      "predicate": {"serialization": serialization_, "resources": resources}}, indent=2), end="")


def key_bundle(args):
    key = serialization.load_pem_private_key(pathlib.Path(args.key).read_bytes(), None)
    payload = pathlib.Path(args.payload).read_bytes()
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    material = {"publicKey": {}} if args.hint == "none" else {
        "publicKey": {"hint": args.hint or hashlib.sha256(pem).hexdigest()}}
    pathlib.Path(args.out).write_text(bundle(material, payload, sign(key, payload, args.legacy_pae)))


def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def certs(args):
    out = pathlib.Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    day = datetime.timedelta(days=1)

    def ca(subject, key, issuer, issuer_key, start, days):
        return (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer))
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(start).not_valid_after(start + days * day)
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                             data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                             crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
                .sign(issuer_key, hashes.SHA256()))

    root_key = ec.generate_private_key(ec.SECP256R1())
    root_start = now - args.root_days_ago * day
    root = ca("test-root", root_key, "test-root", root_key, root_start, 3650)
    int_key = ec.generate_private_key(ec.SECP256R1())
    inter = ca("test-intermediate", int_key, "test-root", root_key, root_start, 3650)
    leaf_key = rsa.generate_private_key(65537, 2048) if args.leaf_key == "rsa" else ec.generate_private_key(
        ec.SECP384R1())
    start = now - args.leaf_days_ago * day
    builder = (x509.CertificateBuilder().subject_name(name("test-signer")).issuer_name(name("test-intermediate"))
               .public_key(leaf_key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(start).not_valid_after(start + args.leaf_lifetime_days * day))
    if args.leaf_usage == "digital":
        builder = builder.add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                                      key_encipherment=False, data_encipherment=False,
                                                      key_agreement=False, key_cert_sign=False, crl_sign=False,
                                                      encipher_only=False, decipher_only=False), critical=True)
    elif args.leaf_usage == "code":
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), critical=False)
    elif args.leaf_usage == "server":
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    leaf = builder.sign(int_key, hashes.SHA256())
    for file, cert in (("root.pem", root), ("intermediate.pem", inter), ("leaf.pem", leaf)):
        (out / file).write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (out / "leaf-key.pem").write_bytes(leaf_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def cert_bundle(args):
    d = pathlib.Path(args.dir)
    key = serialization.load_pem_private_key((d / "leaf-key.pem").read_bytes(), None)
    payload = pathlib.Path(args.payload).read_bytes()
    if isinstance(key, rsa.RSAPrivateKey):
        sig = key.sign(pae(payload), padding.PKCS1v15(), hashes.SHA256())
    else:
        sig = sign(key, payload)
    chain = [x509.load_pem_x509_certificate((d / (n + ".pem")).read_bytes()) for n in args.chain.split(",")]
    material = {"x509CertificateChain": {"certificates": [
        {"rawBytes": base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode()} for c in chain]}}
    pathlib.Path(args.out).write_text(bundle(material, payload, sig))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("statement")
    s.add_argument("model")
    s.add_argument("--method", default="files")
    s.add_argument("--hash", default="sha256")
    s.add_argument("--shard-size", type=int, default=1000000000)
    s.add_argument("--ignore", action="append", default=[])
    k = sub.add_parser("key")
    k.add_argument("key")
    k.add_argument("payload")
    k.add_argument("out")
    k.add_argument("--hint")
    k.add_argument("--legacy-pae", action="store_true")
    c = sub.add_parser("certs")
    c.add_argument("dir")
    c.add_argument("--leaf-usage", default="digital")
    c.add_argument("--leaf-key", default="ec")
    c.add_argument("--leaf-days-ago", type=int, default=1)
    c.add_argument("--leaf-lifetime-days", type=int, default=30)
    c.add_argument("--root-days-ago", type=int, default=10)
    b = sub.add_parser("cert")
    b.add_argument("dir")
    b.add_argument("payload")
    b.add_argument("out")
    b.add_argument("--chain", default="leaf,intermediate")
    args = p.parse_args()
    {"statement": statement, "key": key_bundle, "certs": certs, "cert": cert_bundle}[args.command](args)


if __name__ == "__main__":
    main()
