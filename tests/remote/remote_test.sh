#!/usr/bin/env bash
# Remote inputs against a real HTTP server on 127.0.0.1 (remote.md section 11): Debian's nginx
# with its own configuration serves generated inputs on four ports (plain, a Hub with
# /api/models/... JSON and resolve/ paths redirecting to a CDN port with a signed query, TLS
# with a CA openssl makes here, TLS with a certificate outside it). Each case asserts the
# verdict, the finding and the bytes the server's access log recorded.
# Usage: remote_test.sh BIN_DIR SOURCE_DIR. Exit 77 (skip) when nginx, openssl or curl is
# missing, or 1 under CKPT_REQUIRE_ALL=1.
set -euo pipefail
bin=$1
src=$2
source "$(dirname "$0")"/nginx.sh
require_tools remote_test /usr/sbin/nginx openssl curl /usr/bin/python3
# Found, not imported: importing torch costs 2 s, and the fixtures import it anyway.
/usr/bin/python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("torch") is None)' ||
  require_tools remote_test python3-torch
work=$(mktemp -d)
chmod 755 "$work"  # nginx workers run as another user when the test runs as root
cleanup() {
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
[ -n "${CKPT_REMOTE_TEST_KEEP:-}" ] && trap - EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
py=/usr/bin/python3
ports=($($py -c '
import socket
s=[socket.socket() for _ in range(5)]
for x in s: x.bind(("127.0.0.1",0))
print(" ".join(str(x.getsockname()[1]) for x in s))'))
plain=${ports[0]} hub=${ports[1]} cdn=${ports[2]} tls=${ports[3]} badtls=${ports[4]}
www=$work/www
mkdir -p "$www"/art "$www"/slow "$www"/hub/files "$www"/cdn/blobs "$work"/logs

# --- inputs: the bundled vectors, a tar, a pickle, a torch checkpoint, a numpy array ---
cp "$src"/fixtures/vectors/v1-sharded/* "$www"/art/
cp "$src"/fixtures/vectors/v1-single/weights.safetensors "$www"/m.safetensors
: >"$www"/empty.bin
tar -cf "$www"/r.tar -C "$src"/fixtures/vectors/v1-single header.json weights.safetensors
$py - "$www" <<'PY'
import pickle, sys, os
out = sys.argv[1]
pickle.dump({"a": [1, 2, 3]}, open(os.path.join(out, "p.pkl"), "wb"), protocol=2)
class Evil:
    def __reduce__(self):
        return (os.system, ("true",))
pickle.dump(Evil(), open(os.path.join(out, "evil.pkl"), "wb"))
try:
    import numpy
    numpy.save(os.path.join(out, "a.npy"), numpy.arange(12, dtype=numpy.float32).reshape(3, 4))
    numpy.savez(os.path.join(out, "z.npz"), w=numpy.ones((2, 2), dtype=numpy.float32), b=numpy.zeros(3))
except ImportError:
    pass
try:
    import torch
    torch.save({"w": torch.ones(2, 2)}, os.path.join(out, "t.pt"))
except ImportError:
    pass
PY
"$bin"/ckpt-make-gguf-seeds "$work"/gguf >/dev/null
cp "$work"/gguf/several.gguf "$www"/g.gguf
cp "$work"/gguf/aligned64-v2.gguf "$www"/g2.gguf
# A bigger sharded artifact for the --no-hash bound, and a slow file to replace mid-audit.
"$bin"/ckpt-make-artifact "$www"/big 4 $((16 << 20)) 2 >/dev/null
"$bin"/ckpt-make-artifact "$work"/slowsrc 2 $((2 << 20)) 1 >/dev/null
cp "$work"/slowsrc/* "$www"/slow/

# --- a Hub repository: config.json (a git blob) and model.safetensors (LFS, on the CDN) ---
commit=0123456789abcdef0123456789abcdef01234567
cp "$src"/fixtures/vectors/v1-single/weights.safetensors "$www"/cdn/blobs/model.safetensors
printf '{"model_type": "bert"}\n' >"$www"/hub/files/config.json
mkdir -p "$www"/hub/round
cp "$src"/fixtures/vectors/v1-single/* "$www"/hub/round/
$py - "$www" "$commit" "$hub" <<'PY'
import hashlib, json, sys, os
www, commit, hub = sys.argv[1], sys.argv[2], sys.argv[3]
cfg = open(os.path.join(www, "hub/files/config.json"), "rb").read()
model = open(os.path.join(www, "cdn/blobs/model.safetensors"), "rb").read()
git = lambda b: hashlib.sha1(b"blob %d\0" % len(b) + b).hexdigest()
page1 = [{"type": "file", "path": "config.json", "size": len(cfg), "oid": git(cfg)},
         {"type": "directory", "path": "extra", "oid": "0" * 40, "size": 0}]
page2 = [{"type": "file", "path": "model.safetensors", "size": len(model), "oid": "1" * 40,
          "lfs": {"oid": hashlib.sha256(model).hexdigest(), "size": len(model), "pointerSize": 134}}]
json.dump(page1, open(os.path.join(www, "hub/page1.json"), "w"))
json.dump(page2, open(os.path.join(www, "hub/page2.json"), "w"))
bad = [dict(page2[0], lfs=dict(page2[0]["lfs"], oid="f" * 64))]
json.dump([page1[0]] + bad, open(os.path.join(www, "hub/bad.json"), "w"))
gone = [page1[0], {"type": "file", "path": "missing.safetensors", "size": 10, "oid": "2" * 40}]
# A Lensemble round in a sub-folder of a repository, with a nested folder the audit must not walk.
rounds = []
for name in sorted(os.listdir(os.path.join(www, "hub/round"))):
    data = open(os.path.join(www, "hub/round", name), "rb").read()
    rounds.append({"type": "file", "path": "round-0001/" + name, "size": len(data), "oid": git(data)})
json.dump(rounds, open(os.path.join(www, "hub/rounds.json"), "w"))
stray = [dict(r, path=r["path"].replace("round-0001", "round-0002")) for r in rounds]
stray.append({"type": "directory", "path": "round-0002/notes", "oid": "3" * 40, "size": 0})
stray.append({"type": "file", "path": "round-0002/notes/a.txt", "size": 2, "oid": git(b"a\n")})
json.dump(stray, open(os.path.join(www, "hub/stray.json"), "w"))
forged = [dict(r, path=r["path"].replace("round-0001", "round-0003")) for r in rounds]
for r in forged:
    if r["path"].endswith(".safetensors"):
        r["oid"] = "4" * 40
json.dump(forged, open(os.path.join(www, "hub/forged.json"), "w"))
json.dump(gone, open(os.path.join(www, "hub/gone.json"), "w"))
# A chat model whose configuration runs code (code-in-metadata.md sections 2 and 3): a Hub
# attention kernel, an injected tokenizer_config.json template, a folded one in chat_template.jinja.
chat = {
    "config.json": b'{"model_type": "llama", "_attn_implementation_internal": "attacker/evil-kernel"}',
    "tokenizer_config.json": json.dumps({"chat_template": "{{ cycler.__init__.__globals__.os.popen('id').read() }}"}).encode(),
    "chat_template.jinja": b"{% set p = 'po' %}\n{{ lipsum['%c%c'|format(95,95) ~ 'globals__'].os[p ~ 'pen']('id') }}",
    "model.safetensors": model,
}
os.makedirs(os.path.join(www, "hub/chat"), exist_ok=True)
listing = []
for name, data in chat.items():
    open(os.path.join(www, "hub/chat", name), "wb").write(data)
    listing.append({"type": "file", "path": name, "size": len(data), "oid": git(data)})
json.dump(listing, open(os.path.join(www, "hub/chat.json"), "w"))
# A torch.save checkpoint of 200 tensors (issue 50 item 4: 2,926 requests through the redirect).
import torch
torch.manual_seed(0)
torch.save({f"layer.{i}.weight": torch.randn(64, 64) for i in range(200)},
           os.path.join(www, "cdn/blobs/pytorch_model.bin"))
weights = open(os.path.join(www, "cdn/blobs/pytorch_model.bin"), "rb").read()
json.dump([page1[0], {"type": "file", "path": "pytorch_model.bin", "size": len(weights), "oid": "3" * 40,
                      "lfs": {"oid": hashlib.sha256(weights).hexdigest(), "size": len(weights), "pointerSize": 134}}],
          open(os.path.join(www, "hub/torch.json"), "w"))
PY

# --- signed Hub repositories (issue 51 item 5): model.sig by --sign-model over a local copy;
# "tampered" serves another config.json, "added" one file more, "unsigned" no model.sig ---
for repo in signed tampered added unsigned; do mkdir -p "$www/hub/$repo"; done
# Weights past the first 64 KiB window, so a second read of them would show in the log.
$py - "$www"/hub/signed/model.safetensors <<'PY'
import json, struct, sys
data = bytes(range(256)) * 1024
header = json.dumps({"w": {"dtype": "U8", "shape": [len(data)], "data_offsets": [0, len(data)]}}).encode()
open(sys.argv[1], "wb").write(struct.pack("<Q", len(header)) + header + data)
PY
printf '{"model_type": "bert"}\n' >"$www"/hub/signed/config.json
printf '# a signed model\n' >"$www"/hub/signed/readme.md
openssl ecparam -name prime256v1 -genkey -noout -out "$work"/sign.pem 2>/dev/null
chmod 600 "$work"/sign.pem
openssl ec -in "$work"/sign.pem -pubout -out "$work"/sign.pub 2>/dev/null
"$bin"/ckpt-audit --sign-model "$work"/sign.pem --model-signature-out "$work"/model.sig "$www"/hub/signed >/dev/null 2>&1 ||
  fail "--sign-model did not sign the local copy of the signed repository"
mv "$work"/model.sig "$www"/hub/signed/model.sig
cp "$www"/hub/signed/* "$www"/hub/tampered/
printf '{"model_type": "gpt2"}\n' >"$www"/hub/tampered/config.json
cp "$www"/hub/signed/* "$www"/hub/added/
printf 'added after signing\n' >"$www"/hub/added/extra.txt
cp "$www"/hub/signed/* "$www"/hub/unsigned/
rm "$www"/hub/unsigned/model.sig
$py - "$www" <<'PY'
import hashlib, json, os, sys
www = sys.argv[1]
git = lambda b: hashlib.sha1(b"blob %d\0" % len(b) + b).hexdigest()
for repo in ("signed", "tampered", "added", "unsigned"):
    listing = []
    for name in sorted(os.listdir(os.path.join(www, "hub", repo))):
        data = open(os.path.join(www, "hub", repo, name), "rb").read()
        listing.append({"type": "file", "path": name, "size": len(data), "oid": git(data)})
    json.dump(listing, open(os.path.join(www, "hub", repo + ".json"), "w"))
PY

# --- TLS: a CA, a certificate for 127.0.0.1 it signs, and one it does not ---
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=ckpt-test-ca -keyout "$work"/ca.key -out "$work"/ca.pem \
  2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout "$work"/srv.key -out "$work"/srv.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$work"/san.ext
openssl x509 -req -in "$work"/srv.csr -CA "$work"/ca.pem -CAkey "$work"/ca.key -CAcreateserial -days 2 \
  -extfile "$work"/san.ext -out "$work"/srv.pem 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work"/bad.key -out "$work"/bad.pem 2>/dev/null

http=$(
  cat <<CONF
  log_format ranges '\$server_port \$request_method \$uri \$status \$body_bytes_sent "\$http_range" '
                    '"\$http_if_match" "\$http_authorization" "\$args"';
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$plain;
    access_log $work/logs/plain.log ranges;
    root $www;
    location /slow/ { limit_rate_after 64k; limit_rate 1m; }
    location /busy/ { add_header Retry-After 1 always; return 503; }
    location = /loop { return 302 /loop; }
  }
  server {
    listen 127.0.0.1:$hub;
    access_log $work/logs/hub.log ranges;
    root $www;
    location = /api/models/org/tiny/revision/main {
      default_type application/json; return 200 '{"sha": "$commit", "id": "org/tiny"}';
    }
    location = /api/models/org/tiny/tree/$commit {
      if (\$arg_cursor = 2) { rewrite ^ /hub/page2.json last; }
      rewrite ^ /hub/page1.json last;
    }
    location = /hub/page1.json {
      internal; default_type application/json;
      add_header Link '<http://127.0.0.1:$hub/api/models/org/tiny/tree/$commit?recursive=true&cursor=2>; rel="next"';
    }
    location = /api/models/org/bad/tree/$commit { rewrite ^ /hub/bad.json last; }
    location = /api/models/org/gone/tree/$commit { rewrite ^ /hub/gone.json last; }
    location = /api/models/org/chat/tree/$commit { rewrite ^ /hub/chat.json last; }
    location ~ ^/org/chat/resolve/$commit/([a-z_.]+)\$ {
      add_header X-Repo-Commit $commit always;
      rewrite ^/org/chat/resolve/$commit/([a-z_.]+)\$ /hub/chat/\$1 break;
    }
    location ~ ^/api/models/org/(signed|tampered|added|unsigned)/tree/$commit\$ {
      rewrite ^/api/models/org/([a-z]+)/tree/ /hub/\$1.json last;
    }
    location ~ ^/org/(signed|tampered|added|unsigned)/resolve/$commit/([a-z_.]+)\$ {
      add_header X-Repo-Commit $commit always;
      rewrite ^/org/([a-z]+)/resolve/$commit/([a-z_.]+)\$ /hub/\$1/\$2 break;
    }
    location = /api/models/org/private/revision/main { return 401; }
    location = /api/models/org/rounds/tree/$commit/round-0001 { rewrite ^ /hub/rounds.json last; }
    location = /api/models/org/rounds/tree/$commit/round-0002 { rewrite ^ /hub/stray.json last; }
    location = /api/models/org/rounds/tree/$commit/round-0003 { rewrite ^ /hub/forged.json last; }
    location ~ ^/org/rounds/resolve/$commit/round-000[123]/([a-z.]+)\$ {
      add_header X-Repo-Commit $commit always;
      rewrite ^/org/rounds/resolve/$commit/round-000[123]/([a-z.]+)\$ /hub/round/\$1 break;
    }
    location /hub/ { internal; default_type application/json; }
    location = /api/models/org/torch/tree/$commit { rewrite ^ /hub/torch.json last; }
    location = /org/torch/resolve/$commit/pytorch_model.bin {
      add_header X-Repo-Commit $commit always;
      return 302 http://127.0.0.1:$cdn/blobs/pytorch_model.bin?X-Amz-Signature=s3cr3t-signature&Expires=1;
    }
    location ~ ^/org/(tiny|bad|gone|torch)/resolve/$commit/config.json\$ {
      add_header X-Repo-Commit $commit always;
      rewrite ^ /hub/files/config.json break;
    }
    location ~ ^/org/(tiny|bad)/resolve/$commit/model.safetensors\$ {
      add_header X-Repo-Commit $commit always;
      return 302 http://127.0.0.1:$cdn/blobs/model.safetensors?X-Amz-Signature=s3cr3t-signature&Expires=1;
    }
  }
  server {
    listen 127.0.0.1:$cdn;
    access_log $work/logs/cdn.log ranges;
    root $www/cdn;
  }
  server {
    listen 127.0.0.1:$tls ssl;
    ssl_certificate $work/srv.pem; ssl_certificate_key $work/srv.key;
    access_log $work/logs/tls.log ranges;
    root $www;
    location = /down.safetensors { return 302 http://127.0.0.1:$plain/m.safetensors; }
  }
  server {
    listen 127.0.0.1:$badtls ssl;
    ssl_certificate $work/bad.pem; ssl_certificate_key $work/bad.key;
    access_log $work/logs/badtls.log ranges;
    root $www;
  }
CONF
)
start_nginx "$work" "$http"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$plain/m.safetensors" && break; sleep 0.1; done

audit() { "$bin"/ckpt-audit "$@"; }
# nginx writes a request's log line once the response is sent, just after the client has it:
# wait_for_log FILE PATTERN COUNT polls (at most 5 s) until COUNT lines match, never sleeps blind.
wait_for_log() {
  for _ in $(seq 100); do
    [ "$(grep -c -- "$2" "$1" || true)" -ge "$3" ] && return 0
    sleep 0.05
  done
}
requests_of() { $py -c "import json,sys; print(json.load(open(sys.argv[1]))['artifacts'][0]['remote']['requests'])" "$1"; }
# The same audit of the same bytes, local and remote: kind, verdict, findings, tensors, files.
same() {
  local local_path=$1 url=$2
  shift 2
  local rc_local=0 rc_remote=0
  local local_args=() skip=0
  for arg in "$@"; do  # --ca-file is for the remote side only (locally it is a usage error)
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    if [ "$arg" = --ca-file ]; then skip=1; continue; fi
    local_args+=("$arg")
  done
  audit --format json ${local_args[@]+"${local_args[@]}"} "$local_path" >"$work"/local.json 2>/dev/null || rc_local=$?
  audit --format json "$@" "$url" >"$work"/remote.json 2>"$work"/remote.err || rc_remote=$?
  if [ "$rc_local" != "$rc_remote" ]; then
    fail "$url: exit $rc_remote, local $rc_local ($(cat "$work"/remote.err))"
    return
  fi
  $py - "$work"/local.json "$work"/remote.json "$url" <<'PY' || fail "$url: remote differs from local $local_path"
import json, sys
l = json.load(open(sys.argv[1]))["artifacts"][0]
r = json.load(open(sys.argv[2]))["artifacts"][0]
# The one intended difference: a remote --no-hash warning also says the weight files' tails
# were not read (remote.md section 7 transfers headers only).
REMOTE_NOTE = (" Remotely, the weight files' last 65,557 bytes (where zipfile and miniz look for a zip end record: "
               "a second reading) were not read either.")
def view(a):
    return {"kind": a["kind"], "verdict": a["verdict"],
            "findings": [(f["rule"], f["severity"], f["location"].get("file"), f["location"].get("byte_offset"),
                          f["location"].get("line"), f["message"].replace(a["path"], "PATH").replace(REMOTE_NOTE, ""))
                         for f in a["findings"]],
            "tensors": a["tensors"], "files": [(f["name"], f["size"]) for f in a["files"]],
            "hash": a["content_hash"].get("computed")}
lv, rv = view(l), view(r)
# Digests: equal wherever both hashed a file (an hf:// round also hashes each file for its listing).
for lf, rf in zip(l["files"], r["files"]):
    if lf["sha256"] and rf["sha256"] and lf["sha256"] != rf["sha256"]:
        lv["digest of " + lf["name"]] = lf["sha256"]
        rv["digest of " + lf["name"]] = rf["sha256"]
    if lf["sha256"] and not rf["sha256"]:
        lv["digest of " + lf["name"]] = "hashed locally, not remotely"
if lv != rv:
    print(json.dumps(lv, indent=1), json.dumps(rv, indent=1), sep="\n----\n", file=sys.stderr)
    sys.exit(1)
assert r["remote"]["url"] == sys.argv[3].split("?")[0] or "REDACTED" in r["remote"]["url"], r["remote"]
assert r["path"] == r["remote"]["url"] or r["path"].startswith("hf://"), r["path"]
assert all(f.get("identity") in ("etag", "last-modified") for f in r["files"] if "url" in f), r["files"]
PY
}

base=http://127.0.0.1:$plain
echo "== remote equals local, full audit and --no-hash, for every kind served"
for f in m.safetensors r.tar p.pkl evil.pkl a.npy z.npz t.pt g.gguf g2.gguf empty.bin; do
  [ -f "$www/$f" ] || { fail "fixture $f was not generated (python3-numpy, python3-torch)"; continue; }
  same "$www/$f" "$base/$f"
  same "$www/$f" "$base/$f" --no-hash
done
same "$www"/art "$base/art/"
same "$www"/art "$base/art/" --no-hash
same "$www"/big "$base/big/"

echo "== a remote tar's members are bound by the tar's ETag, and the report says so"
audit --format json "$base/r.tar" >"$work"/tar.json 2>&1 || fail "r.tar did not pass remotely"
$py - "$work"/tar.json <<'PY' || fail "the remote tar's members do not name the container's identity"
import json, sys
a = json.load(open(sys.argv[1]))["artifacts"][0]
c = a["container"]
assert c["identity"] == "etag" and c["etag"] and c["url"].endswith("/r.tar"), c
assert {f["name"] for f in a["files"]} == {"header.json", "weights.safetensors"}, a["files"]
for f in a["files"]:
    assert f["identity"] == "container" and f["inode"] is None and f["device"] is None, f
PY
audit --format json "$www/r.tar" >"$work"/tar-local.json 2>&1 || fail "r.tar did not pass locally"
$py -c 'import json,sys; a=json.load(open(sys.argv[1]))["artifacts"][0]; assert "identity" not in a["container"] and all("identity" not in f for f in a["files"]), a' \
  "$work"/tar-local.json || fail "a local tar's members claim a remote identity"

echo "== the evil pickle fails remotely with the local finding"
audit "$base/evil.pkl" >"$work"/out.txt 2>&1 && fail "evil.pkl passed"
grep -q "pickle-" "$work"/out.txt || fail "evil.pkl: no pickle finding: $(cat "$work"/out.txt)"

echo "== --no-hash transfers headers only (access log)"
: >"$work"/logs/plain.log
audit --no-hash --format json "$base/big/" >"$work"/big.json || fail "big --no-hash did not pass"
wait_for_log "$work"/logs/plain.log "" "$(requests_of "$work"/big.json)"
logged=$(awk '{s += $5} END {print s}' "$work"/logs/plain.log)
reported=$($py -c "import json,sys; print(json.load(open(sys.argv[1]))['artifacts'][0]['remote']['bytes_transferred'])" "$work"/big.json)
bound=$($py - "$www"/big <<'PY'
import os, struct, sys
d = sys.argv[1]
total = 0
for name in os.listdir(d):
    p = os.path.join(d, name)
    size = os.path.getsize(p)
    if name.endswith(".safetensors"):
        n = struct.unpack("<Q", open(p, "rb").read(8))[0]
        total += max(min(65536, size), 8 + n)
        # (the zip end-record tail is not read under --no-hash: the warning says so)
    else:
        total += size
    total += 1  # the revalidation's byte
print(total)
PY
)
echo "  --no-hash on 2 x 32 MiB (bound: remote.md section 7): $logged body bytes in the log, $reported reported, bound $bound"
[ "$logged" -le "$bound" ] || fail "--no-hash transferred $logged bytes, more than the bound $bound"
[ "$logged" = "$reported" ] || fail "reported bytes_transferred $reported, access log $logged"
grep -q 'bytes=0-65535' "$work"/logs/plain.log || fail "no first read of 64 KiB"
requests=$(wc -l <"$work"/logs/plain.log)
[ "$requests" -le $((3 * 4)) ] || fail "--no-hash sent $requests requests for 4 files, more than 3 each"
grep -q "were not read either" "$work"/big.json || fail "the warning does not say the tails were not read"

echo "== a full audit transfers each byte once (plus the first read and the revalidation)"
: >"$work"/logs/plain.log
audit --format json "$base/big/" >"$work"/big-full.json || fail "big full audit did not pass"
wait_for_log "$work"/logs/plain.log "" "$(requests_of "$work"/big-full.json)"
logged=$(awk '{s += $5} END {print s}' "$work"/logs/plain.log)
total=$(du -cb "$www"/big/* | tail -1 | cut -f1)
files=$(ls "$www"/big | wc -l)
limit=$((total + files * 65537))
echo "  full audit: $logged body bytes for $total bytes of files (limit $limit)"
[ "$logged" -le "$limit" ] || fail "full audit transferred $logged bytes, more than $limit"
[ "$logged" -ge "$total" ] || fail "full audit transferred $logged bytes, fewer than the files hold"
grep -q '"\\x22' "$work"/logs/plain.log || fail "later requests carry no If-Match"

echo "== a file replaced on the server mid-audit is layout-file-changed"
: >"$work"/logs/plain.log
weights=$(cd "$www"/slow && ls *.safetensors | head -1)
(
  rc=0
  audit --format json "$base/slow/" >"$work"/slow.json 2>"$work"/slow.err || rc=$?
  echo $rc >"$work"/slow.rc
) &
for _ in $(seq 100); do grep -q "/slow/$weights 206" "$work"/logs/plain.log && break; sleep 0.05; done
cp "$www/slow/$weights" "$work/replacement" && printf 'x' | dd of="$work/replacement" bs=1 seek=200 conv=notrunc 2>/dev/null
touch -d '2001-01-01' "$work/replacement" && mv "$work/replacement" "$www/slow/$weights"
wait
[ "$(cat "$work"/slow.rc)" = 1 ] || fail "replaced file: exit $(cat "$work"/slow.rc), not 1 ($(cat "$work"/slow.err))"
grep -q '"rule": *"layout-file-changed"' "$work"/slow.json ||
  $py -c "import json,sys; a=json.load(open(sys.argv[1]))['artifacts'][0]; sys.exit(0 if any(f['rule']=='layout-file-changed' for f in a['findings']) else 1)" "$work"/slow.json ||
  fail "replaced file: no layout-file-changed: $(head -c 2000 "$work"/slow.json)"
grep -q "changed on the server during the audit (ETag" "$work"/slow.json || fail "replaced file: message does not name the ETags"

echo "== failures are exit 2 naming the URL"
check_error() {
  local expect=$1
  shift
  local rc=0
  audit "$@" >"$work"/err.out 2>"$work"/err.txt || rc=$?
  [ "$rc" = 2 ] || fail "$*: exit $rc, not 2"
  grep -q -- "$expect" "$work"/err.txt || fail "$*: stderr lacks '$expect': $(cat "$work"/err.txt)"
}
check_error "$base/missing.safetensors: HTTP 404" "$base/missing.safetensors"
check_error "no header.json" "$base/nothing/"
check_error "127.0.0.1:1/x.safetensors" http://127.0.0.1:1/x.safetensors
check_error "TLS" "https://127.0.0.1:$badtls/m.safetensors" --ca-file "$work"/ca.pem
check_error "TLS" "https://127.0.0.1:$tls/m.safetensors"
check_error "plain http:// is allowed only to a loopback host" http://example.invalid/m.safetensors
check_error "plain http:// is allowed only to a loopback host" "http://[::ffff:127.0.0.1]:$plain/m.safetensors"
check_error "plain http:// is allowed only to a loopback host" "http://2130706433:$plain/m.safetensors"
check_error "only https://" ftp://127.0.0.1/m.safetensors
check_error "too many redirects" "$base/loop"
check_error "from https to http" "https://127.0.0.1:$tls/down.safetensors" --ca-file "$work"/ca.pem
HF_ENDPOINT=http://127.0.0.1:$hub check_error "gated or private repository: set HF_TOKEN" hf://org/private
HF_ENDPOINT=http://127.0.0.1:$hub check_error "listed but answers HTTP 404" "hf://org/gone@$commit"
HF_ENDPOINT=http://example.invalid check_error "HF_ENDPOINT: plain http:// is allowed only to a loopback host" hf://org/tiny
check_error "between\|1 to 3600" "$base/m.safetensors" --stall-timeout 0
check_error "applies to remote inputs" "$www"/m.safetensors --ca-file "$work"/ca.pem
: >"$work"/logs/plain.log
start=$(date +%s)
check_error "$base/busy/m.safetensors: HTTP 503" "$base/busy/m.safetensors"
took=$(($(date +%s) - start))
wait_for_log "$work"/logs/plain.log "/busy/m.safetensors 503" 4
tries=$(grep -c "/busy/m.safetensors 503" "$work"/logs/plain.log || true)
[ "$tries" = 4 ] || fail "503 was asked $tries times, not 4 (3 retries)"
[ "$took" -ge 2 ] || fail "503 retries did not wait for Retry-After ($took s)"

echo "== TLS with --ca-file"
same "$www"/m.safetensors "https://127.0.0.1:$tls/m.safetensors" --ca-file "$work"/ca.pem

echo "== credentials and signatures never printed"
audit --format json "http://user:hunter2@127.0.0.1:$plain/m.safetensors?sig=t0psecret" >"$work"/cred.json 2>&1 ||
  fail "userinfo URL did not pass"
grep -q "hunter2\|t0psecret" "$work"/cred.json && fail "a credential reached the report"
grep -q "sig=REDACTED" "$work"/cred.json || fail "the query value is not redacted"
tail -3 "$work"/logs/plain.log | grep -q "Basic dXNlcjpodW50ZXIy" || fail "userinfo was not sent as Basic"

echo "== hf:// through HF_ENDPOINT: one revision lookup, both listing pages, the CDN without the token"
: >"$work"/logs/hub.log
: >"$work"/logs/cdn.log
export HF_ENDPOINT=http://127.0.0.1:$hub/
for format in json text sarif; do
  HF_TOKEN=hf_SeCrEtToKeN audit --format $format hf://org/tiny@main >"$work"/hub.$format 2>&1 || fail "hf://org/tiny@main ($format) did not pass: $(head -c 1500 "$work"/hub.$format)"
  grep -q hf_SeCrEtToKeN "$work"/hub.$format && fail "the token reached the $format report"
  grep -q s3cr3t-signature "$work"/hub.$format && fail "the CDN signature reached the $format report"
done
grep -q "commit $commit (main)" "$work"/hub.text || fail "text report lacks the commit line"
echo "== remote reports are valid: JSON against the report schema, SARIF against the validators"
$py - "$src"/reports/ckpt-audit-report.schema.json "$work"/hub.json "$work"/remote.json "$work"/big.json <<'PY' || fail "a remote JSON report does not validate against the report schema"
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(path))))
    for e in errors[:5]:
        print(path, list(e.path), e.message, file=sys.stderr)
    if errors:
        sys.exit(1)
PY
"$src"/tests/sarif/validate.sh "$work"/hub.sarif >"$work"/sarif-validate.txt 2>&1 ||
  fail "the hf:// SARIF report does not validate: $(tail -5 "$work"/sarif-validate.txt)"
grep -q "hf://org/tiny@$commit/model.safetensors" "$work"/hub.sarif || fail "SARIF location is not the hf:// URL"
wait_for_log "$work"/logs/hub.log 'revision/main' 3
[ "$(grep -c 'revision/main' "$work"/logs/hub.log)" = 3 ] || fail "the revision was not asked exactly once per run"
grep -q 'cursor=2' "$work"/logs/hub.log || fail "the second listing page was not read"
grep -q 'Bearer hf_SeCrEtToKeN' "$work"/logs/hub.log || fail "the Hub did not get the token"
grep -q 'Bearer' "$work"/logs/cdn.log && fail "the CDN got the token"
grep -q '/blobs/model.safetensors 206' "$work"/logs/cdn.log || fail "the CDN did not serve the LFS file"
$py - "$work"/hub.json "$commit" <<'PY' || fail "hf:// JSON report"
import json, sys
a = json.load(open(sys.argv[1]))["artifacts"][0]
r = a["remote"]
assert r["scheme"] == "hf" and r["commit"] == sys.argv[2] and r["listed"] is True and r["revision"] == "main", r
assert a["path"] == "hf://org/tiny@" + sys.argv[2], a["path"]
model = [f for f in a["files"] if f["name"] == "model.safetensors"][0]
assert model["lfs_oid"] and model["url"].endswith("X-Amz-Signature=REDACTED&Expires=REDACTED"), model
assert a["verdict"] == "pass", a["findings"]
PY
echo "== hf:// as a CycloneDX BOM: org/name at its commit (purl), each file by the SHA-256 the audit read, no token"
HF_TOKEN=hf_SeCrEtToKeN audit --format cyclonedx hf://org/tiny@main >"$work"/hub.cdx.json 2>"$work"/hub.cdx.err ||
  fail "hf://org/tiny@main (cyclonedx) did not pass: $(head -c 1500 "$work"/hub.cdx.err)"
grep -q -e hf_SeCrEtToKeN -e s3cr3t-signature "$work"/hub.cdx.json && fail "the token or the CDN signature reached the BOM"
$py - "$work"/hub.cdx.json "$work"/hub.json "$commit" <<'PY' || fail "hf:// BOM"
import json, sys
bom = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))["artifacts"][0]
commit = sys.argv[3]
c = bom["metadata"]["component"]
assert c["type"] == "machine-learning-model" and c["name"] == "org/tiny", c
assert c["version"] == commit and c["purl"] == "pkg:huggingface/org/tiny@" + commit, c
assert c["bom-ref"].startswith("ckpt-audit:hf://org/tiny@" + commit + "@"), c["bom-ref"]
digests = {f["name"]: f["sha256"] for f in report["files"] if f.get("sha256")}
listed = {f["name"]: f["hashes"][0]["content"] for f in c["components"] if "hashes" in f}
assert listed and listed == digests, (listed, digests)
props = {p["name"]: p["value"] for p in c["properties"]}
assert props["ckpt-audit:verdict"] == "pass" and props["ckpt-audit:kind"] == report["kind"], props
PY
"$src"/tests/cyclonedx/validate.sh "$bin/.." "$work"/hub.cdx.json >"$work"/cdx-validate.txt 2>&1 ||
  fail "the hf:// BOM does not validate: $(tail -5 "$work"/cdx-validate.txt)"
audit --format json "hf://org/bad@$commit" >"$work"/bad.json 2>&1 && fail "a wrong lfs.oid passed: $(grep -A3 tool_errors "$work"/bad.json | head -c 600)"
grep -q "model-blob-digest" "$work"/bad.json || fail "a wrong lfs.oid is not model-blob-digest"
grep -q "is the LFS object f* but its content hashes to" "$work"/bad.json || fail "model-blob-digest wording"
audit --no-hash "hf://org/bad@$commit" >/dev/null 2>&1 || fail "--no-hash compares no digest, so it passes (with its warning)"
echo "== hf:// chat model: templates and configuration keys are read remotely as locally"
audit --format json "hf://org/chat@$commit" >"$work"/chat.json 2>&1 && fail "a chat model with an injected template passed"
$py - "$work"/chat.json <<'PY' || fail "hf:// chat model: templates[] and the template and remote-code findings"
import json, sys
a = json.load(open(sys.argv[1]))["artifacts"][0]
found = sorted((f["rule"], f["severity"], f["location"]["file"]) for f in a["findings"])
for expected in [("model-remote-code", "error", "config.json"),
                 ("template-unsafe", "error", "chat_template.jinja"),
                 ("template-unsafe", "error", "tokenizer_config.json")]:
    assert expected in found, (expected, found)
templates = sorted((t["file"], t["name"], t["parsed"]) for t in a["templates"])
assert templates == [("chat_template.jinja", "chat_template", True),
                     ("tokenizer_config.json", "chat_template", True)], templates
PY
unset HF_ENDPOINT

echo "== hf:// torch.save of 200 tensors: the zip's local headers in a few coalesced requests, the CDN asked directly"
export HF_ENDPOINT=http://127.0.0.1:$hub/
for mode in --no-hash --format; do
  : >"$work"/logs/hub.log
  : >"$work"/logs/cdn.log
  args=(--no-hash --format json)
  [ "$mode" = --format ] && args=(--format json)
  audit "${args[@]}" "hf://org/torch@$commit" >"$work"/torch.json 2>&1 ||
    fail "hf://org/torch ($mode) did not pass: $(head -c 1500 "$work"/torch.json)"
  wait_for_log "$work"/logs/hub.log 'pytorch_model.bin' 1
  requests=$(($(grep -c 'pytorch_model.bin' "$work"/logs/hub.log) + $(grep -c 'pytorch_model.bin' "$work"/logs/cdn.log)))
  limit=25
  [ "$mode" = --no-hash ] && limit=20
  echo "   $mode: $requests HTTP requests for pytorch_model.bin (limit $limit)"
  [ "$requests" -le "$limit" ] || fail "hf:// torch.save of 200 tensors ($mode) took $requests requests (limit $limit)"
  $py - "$work"/torch.json "$mode" <<'PY' || fail "hf://org/torch ($mode) report"
import json, os, sys
a = json.load(open(sys.argv[1]))["artifacts"][0]
assert a["verdict"] == "pass" and len(a["tensors"]) == 200, (a["verdict"], len(a["tensors"]), a["findings"][:3])
if sys.argv[2] != "--no-hash":
    # Every byte transferred once: the file, and again only the first read (64 KiB), the zip
    # end-record tail (65,557 bytes), the last byte and small planned reads (a local header
    # or two): the coalesced ranges the structure fetched are not fetched again by the hash.
    f = [f for f in a["files"] if f["name"] == "pytorch_model.bin"][0]
    size = os.path.getsize(sys.argv[1].replace("torch.json", "www/cdn/blobs/pytorch_model.bin"))
    assert f["bytes_transferred"] <= size + 65536 + 65557 + 4096, (f["bytes_transferred"], size)
PY
done
unset HF_ENDPOINT

echo "== a Lensemble round in a repository sub-folder: hf://ORG/NAME@COMMIT/SUBPATH, as the local round"
HF_ENDPOINT=http://127.0.0.1:$hub same "$src"/fixtures/vectors/v1-single "hf://org/rounds@$commit/round-0001"
# A sub-folder inside the round is the local finding (layout-stray-entry), not a walk into it.
mkdir -p "$work"/round-0002/notes
cp "$src"/fixtures/vectors/v1-single/* "$work"/round-0002/
printf 'a\n' >"$work"/round-0002/notes/a.txt
HF_ENDPOINT=http://127.0.0.1:$hub same "$work"/round-0002 "hf://org/rounds@$commit/round-0002"
grep -q layout-stray-entry "$work"/remote.json || fail "the round's sub-folder is not layout-stray-entry"
HF_ENDPOINT=http://127.0.0.1:$hub audit --format json "hf://org/rounds@$commit/round-0003" >"$work"/forged.json 2>&1 &&
  fail "a round whose listing names another git blob passed"
grep -q "is the git blob 4444444444444444444444444444444444444444 but its content hashes to" "$work"/forged.json ||
  fail "a round's forged listing is not model-blob-digest: $(grep -o '"message": "[^"]*"' "$work"/forged.json | head -3)"
printf 'hf://org/rounds@%s/round-0001\n' "$commit" >"$work"/hub-rounds.txt
HF_ENDPOINT=http://127.0.0.1:$hub "$bin"/ckpt-chain --inputs-from "$work"/hub-rounds.txt >"$work"/hub-chain.txt 2>&1 ||
  fail "ckpt-chain of an hf:// round: $(cat "$work"/hub-chain.txt)"

echo "== two hf:// inputs of one repository and REV resolve it once"
: >"$work"/logs/hub.log
HF_ENDPOINT=http://127.0.0.1:$hub audit hf://org/tiny@main hf://org/tiny@main >/dev/null 2>&1 || fail "two hf:// inputs"
echo "== --verify-model-signature on hf://: the files the audit read, each read once; a tampered, an added and a missing file"
verify_remote() { HF_ENDPOINT=http://127.0.0.1:$hub audit --verify-model-signature --trusted-key "$work"/sign.pub "$@"; }
# The bytes each file sends in an audit, and in the same audit verifying the signature: equal,
# since the check reuses the audit's reads (its digests, bound to the ETags).
bytes_per_file() {  # bytes_per_file FROM_LINE: content bytes per /hub/signed/ file since that line
  $py - "$work"/logs/hub.log "$1" <<'PY'
import json, sys
sent = {}
for line in open(sys.argv[1]).readlines()[int(sys.argv[2]):]:
    fields = line.split()
    if len(fields) > 4 and fields[2].startswith("/hub/signed/"):
        name = fields[2][len("/hub/signed/"):]
        sent[name] = sent.get(name, 0) + int(fields[4])
print(json.dumps(sent, sort_keys=True))
PY
}
before=$(wc -l <"$work"/logs/hub.log)
HF_ENDPOINT=http://127.0.0.1:$hub audit "hf://org/signed@$commit" >/dev/null 2>&1 || fail "the signed hf:// model's audit failed"
wait_for_log "$work"/logs/hub.log "/hub/signed/model.sig" 2
audit_only=$(bytes_per_file "$before")
before=$(wc -l <"$work"/logs/hub.log)
verify_remote --format json "hf://org/signed@$commit" >"$work"/signed.json 2>&1 ||
  fail "a signed hf:// model did not verify: $(head -c 1500 "$work"/signed.json)"
wait_for_log "$work"/logs/hub.log "/hub/signed/model.sig" 4
verified=$(bytes_per_file "$before")
[ "$verified" = "$audit_only" ] || fail "verifying the signature read more: $verified, the audit alone $audit_only"
$py - "$work"/signed.json <<'PY' || fail "hf:// model signature: verified, three files"
import json, sys
sig = json.load(open(sys.argv[1]))["artifacts"][0]["model_signature"]
assert sig["verified"] is True and sig["files"] == 3, sig
assert sig["signature"].startswith("hf://org/signed@") and sig["signature"].endswith("/model.sig"), sig["signature"]
PY
status=0
verify_remote "hf://org/tampered@$commit" >"$work"/tampered.txt 2>&1 || status=$?
[ "$status" -eq 1 ] && grep -q "oms-digest-mismatch" "$work"/tampered.txt && grep -q "'config.json' is not what was signed" "$work"/tampered.txt ||
  fail "a tampered hf:// file was not found ($status): $(head -c 1500 "$work"/tampered.txt)"
status=0
verify_remote "hf://org/added@$commit" >"$work"/added.txt 2>&1 || status=$?
[ "$status" -eq 1 ] && grep -q "oms-file-unsigned" "$work"/added.txt && grep -q "'extra.txt' is in the model" "$work"/added.txt ||
  fail "a file added to an hf:// model was not found ($status): $(head -c 1500 "$work"/added.txt)"
status=0
verify_remote "hf://org/unsigned@$commit" >"$work"/unsigned.txt 2>&1 || status=$?
[ "$status" -eq 1 ] && grep -q "oms-signature-missing" "$work"/unsigned.txt ||
  fail "an hf:// model without model.sig was not told ($status): $(head -c 1500 "$work"/unsigned.txt)"
status=0
audit --verify-model-signature="$www"/hub/signed/model.sig --trusted-key "$work"/sign.pub \
  "http://127.0.0.1:$plain/m.safetensors" >"$work"/single.txt 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "is a single file: download it" "$work"/single.txt ||
  fail "a remote single file was not refused ($status): $(head -c 1500 "$work"/single.txt)"
# A Lensemble directory URL: no listing, so its bundle is named; the files are those header.json declares.
"$bin"/ckpt-audit --sign-model "$work"/sign.pem --model-signature-out "$work"/art.sig "$www"/art >/dev/null 2>&1 ||
  fail "--sign-model did not sign the local copy of the directory URL's round"
audit --verify-model-signature="$work"/art.sig --trusted-key "$work"/sign.pub "http://127.0.0.1:$plain/art/" >"$work"/art.txt 2>&1 ||
  fail "a signed directory URL did not verify: $(head -c 1500 "$work"/art.txt)"
grep -q 'model signature: verified by key' "$work"/art.txt || fail "the directory URL's verification is not told: $(cat "$work"/art.txt)"
# The bare option reads a directory URL's model.sig beside its header.json; none there is the finding.
cp -r "$www"/art "$www"/art-signed
"$bin"/ckpt-audit --sign-model "$work"/sign.pem --model-signature-out "$www"/art-signed/model.sig "$www"/art-signed \
  >/dev/null 2>&1 || fail "--sign-model of the round served signed"
audit --verify-model-signature --trusted-key "$work"/sign.pub --format json "http://127.0.0.1:$plain/art-signed/" \
  >"$work"/art-signed.json 2>&1 || fail "a directory URL's own model.sig did not verify: $(head -c 1500 "$work"/art-signed.json)"
$py - "$work"/art-signed.json "http://127.0.0.1:$plain/art-signed/model.sig" <<'PY' || fail "directory URL's model.sig"
import json, sys
sig = json.load(open(sys.argv[1]))["artifacts"][0]["model_signature"]
assert sig["verified"] is True and sig["signature"] == sys.argv[2], sig
PY
status=0
audit --verify-model-signature --trusted-key "$work"/sign.pub "http://127.0.0.1:$plain/art/" >"$work"/art.txt 2>&1 || status=$?
[ "$status" -eq 1 ] && grep -q "oms-signature-missing" "$work"/art.txt ||
  fail "a directory URL without model.sig was not told ($status): $(head -c 1500 "$work"/art.txt)"
# A bundle named by its URL, for a remote or a local model; one the server does not have, a
# folder or an hf:// bundle are refused.
audit --verify-model-signature="http://127.0.0.1:$plain/art-signed/model.sig" --trusted-key "$work"/sign.pub \
  "http://127.0.0.1:$plain/art/" >"$work"/art.txt 2>&1 || fail "a bundle named by URL did not verify: $(head -c 1500 "$work"/art.txt)"
audit --verify-model-signature="http://127.0.0.1:$plain/art-signed/model.sig" --trusted-key "$work"/sign.pub \
  "$www"/art >"$work"/art.txt 2>&1 || fail "a local model with a bundle named by URL: $(head -c 1500 "$work"/art.txt)"
for refused in "http://127.0.0.1:$plain/art/none.sig|does not exist" "http://127.0.0.1:$plain/art/|names a folder" \
               "hf://org/signed@$commit/model.sig|is read from the repository it signs"; do
  status=0
  audit --verify-model-signature="${refused%%|*}" --trusted-key "$work"/sign.pub "http://127.0.0.1:$plain/art/" \
    >"$work"/art.txt 2>&1 || status=$?
  [ "$status" -eq 2 ] && grep -q "${refused#*|}" "$work"/art.txt ||
    fail "the bundle ${refused%%|*} was not refused ($status): $(head -c 1500 "$work"/art.txt)"
done
status=0
audit --sign-model "$work"/sign.pem --model-signature-out "$work"/x.sig "hf://org/signed@$commit" >"$work"/sign.txt 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "signs a local model folder" "$work"/sign.txt || fail "--sign-model of a remote model was not refused ($status)"
wait_for_log "$work"/logs/hub.log 'revision/main' 1
[ "$(grep -c 'revision/main' "$work"/logs/hub.log)" = 1 ] || fail "one repository and REV was resolved more than once"

echo "== --attest names the redacted URLs and the digests read; --verify-attestation reads again"
openssl genpkey -algorithm ed25519 -out "$work"/key.pem 2>/dev/null
chmod 600 "$work"/key.pem
openssl pkey -in "$work"/key.pem -pubout -out "$work"/key.pub
audit --attest "$work"/key.pem --attestation-out "$work"/art.dsse.json "$base/art/" >/dev/null || fail "--attest on a directory URL"
$py - "$work"/art.dsse.json "$base" <<'PY' || fail "statement subjects"
import base64, json, sys
statement = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
names = [s["name"] for s in statement["subject"]]
assert sys.argv[2] + "/art/header.json" in names, names
assert all(len(s["digest"]["sha256"]) == 64 for s in statement["subject"])
assert statement["predicate"]["remote"]["url"] == sys.argv[2] + "/art/", statement["predicate"]["remote"]
PY
audit --verify-attestation "$work"/art.dsse.json --trusted-key "$work"/key.pub "$base/art/" >/dev/null ||
  fail "--verify-attestation of the same URL"
audit --verify-attestation "$work"/art.dsse.json --trusted-key "$work"/key.pub "$base/big/" >"$work"/v.txt 2>&1 &&
  fail "--verify-attestation of another URL passed"
grep -q attest-subject-mismatch "$work"/v.txt || fail "another URL: no attest-subject-mismatch"
check_error "cannot be combined with --no-hash" --attest "$work"/key.pem --attestation-out "$work"/x.json --no-hash "$base/art/"

echo "== ckpt-diff and ckpt-chain take URLs"
"$bin"/ckpt-diff "$base/art/" "$www"/art >"$work"/diff.txt 2>&1 || fail "ckpt-diff URL vs local: $(cat "$work"/diff.txt)"
"$bin"/ckpt-diff --format json "$base/art/" "$base/art/" >"$work"/diff.json 2>&1 || fail "ckpt-diff URL vs URL: $(head -c 800 "$work"/diff.json)"
grep -q "$base/art/" "$work"/diff.json || fail "ckpt-diff does not name the sides by their URLs"
printf '%s\n' "$base/art/" >"$work"/rounds.txt
"$bin"/ckpt-chain --inputs-from "$work"/rounds.txt >"$work"/chain.txt 2>&1 || fail "ckpt-chain --inputs-from URL: $(cat "$work"/chain.txt)"

echo "== ckpt-convert reads a remote checkpoint file: the bytes a local copy converts to; its record checks against the URL"
"$bin"/ckpt-convert "$base/t.pt" -o "$work"/remote.safetensors --attest "$work"/key.pem \
  --record "$work"/remote.dsse.json >"$work"/convert.txt 2>&1 || fail "ckpt-convert of a URL: $(cat "$work"/convert.txt)"
"$bin"/ckpt-convert "$www"/t.pt -o "$work"/local.safetensors >/dev/null 2>&1 || fail "ckpt-convert of the local copy"
cmp -s "$work"/remote.safetensors "$work"/local.safetensors || fail "the URL's conversion differs from the local copy's"
audit --verify-derivation "$work"/remote.dsse.json --trusted-key "$work"/key.pub --derived-from "$base/t.pt" \
  "$work"/remote.safetensors >"$work"/derived.txt 2>&1 || fail "the record against its URL: $(cat "$work"/derived.txt)"
status=0
audit --verify-derivation "$work"/remote.dsse.json --trusted-key "$work"/key.pub --derived-from "$base/p.pkl" \
  "$work"/remote.safetensors >"$work"/derived.txt 2>&1 || status=$?
[ "$status" -eq 1 ] && grep -q "derivation-input-mismatch" "$work"/derived.txt ||
  fail "another URL as the record's input was not told ($status): $(head -c 1500 "$work"/derived.txt)"
# Through the Hub's resolve URL: redirected to the CDN, whose signed query appears nowhere.
"$bin"/ckpt-convert "http://127.0.0.1:$hub/org/torch/resolve/$commit/pytorch_model.bin" -o "$work"/hub.safetensors \
  >"$work"/convert.txt 2>&1 || fail "ckpt-convert of a Hub resolve URL: $(cat "$work"/convert.txt)"
grep -q "s3cr3t" "$work"/convert.txt && fail "the CDN's signature reached ckpt-convert's output"
$py - "$work"/hub.safetensors <<'PY' || fail "the Hub file's conversion does not hold torch's tensors"
import json, struct, sys
data = open(sys.argv[1], "rb").read()
header = json.loads(data[8:8 + struct.unpack("<Q", data[:8])[0]])
assert len([k for k in header if k != "__metadata__"]) == 200, len(header)
PY
# A URL's own query (a signed URL) reaches neither the messages nor the signed record.
"$bin"/ckpt-convert "$base/t.pt?X-Amz-Signature=topsecret" -o "$work"/signed.safetensors --attest "$work"/key.pem \
  --record "$work"/signed.dsse.json >"$work"/convert.txt 2>&1 || fail "ckpt-convert of a signed URL: $(cat "$work"/convert.txt)"
"$bin"/ckpt-convert "$base/m.safetensors?X-Amz-Signature=topsecret" -o "$work"/never.safetensors >>"$work"/convert.txt 2>&1 &&
  fail "a safetensors file was converted"
grep -q "is safetensors, not a torch.save checkpoint" "$work"/convert.txt || fail "the wrong kind was not said: $(cat "$work"/convert.txt)"
$py - "$work"/signed.dsse.json <<'PY' || fail "the record's input name"
import base64, json, sys
statement = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
assert statement["predicate"]["input"]["name"] == "t.pt", statement["predicate"]["input"]
assert "topsecret" not in json.dumps(statement)
PY
grep -q topsecret "$work"/convert.txt && fail "a URL's query reached ckpt-convert's messages"
for refused in "hf://org/torch@$commit|is a remote folder" "$base/art/|is a remote folder"; do
  status=0
  "$bin"/ckpt-convert "${refused%%|*}" -o "$work"/never.safetensors >"$work"/convert.txt 2>&1 || status=$?
  [ "$status" -eq 2 ] && grep -q "${refused#*|}" "$work"/convert.txt && [ ! -e "$work"/never.safetensors ] ||
    fail "ckpt-convert of ${refused%%|*} was not refused ($status): $(cat "$work"/convert.txt)"
done

if [ "$failures" -ne 0 ]; then
  echo "remote_test: $failures failures" >&2
  exit 1
fi
echo "remote_test: all passed"
