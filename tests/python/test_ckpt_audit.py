"""ckpt_audit from outside (verify-then-load.md section 5), with Debian's torch, numpy, onnx
and h5py: every promise of the contract as a test. Run by CTest (label python) with the
build's module on PYTHONPATH and CKPT_TOOLS naming the build's bin folder."""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

import ckpt_audit

TOOLS = os.environ["CKPT_TOOLS"]


def make_artifact(root, tensors=8, bytes_each=4096, shards=0):
    argv = [os.path.join(TOOLS, "ckpt-make-artifact"), root, str(tensors), str(bytes_each)]
    if shards:
        argv.append(str(shards))
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return root


def read(path):
    with open(path, "rb") as f:
        return f.read()


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def rchar():
    # Bytes this process read through read(2)/pread(2), the kernel's own count.
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ckpt-python-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)


class BeforeTheCall(Base):
    def test_a_flipped_byte_raises_and_returns_no_tensors(self):
        root = make_artifact(self.path("round"))
        weights = os.path.join(root, "weights.safetensors")
        data = bytearray(read(weights))
        data[-5] ^= 0x01
        with open(weights, "r+b") as f:
            f.write(data)
        with self.assertRaises(ckpt_audit.CheckpointIntegrityError) as raised:
            ckpt_audit.load_checkpoint(root)
        self.assertEqual(raised.exception.verdict, "fail")
        rules = [f["rule"] for f in raised.exception.findings]
        self.assertIn("hash-mismatch", rules)
        finding = next(f for f in raised.exception.findings if f["rule"] == "hash-mismatch")
        self.assertEqual(finding["severity"], "error")
        self.assertIn("content hash", finding["message"])
        with self.assertRaises(ckpt_audit.CheckpointIntegrityError):
            ckpt_audit.open_verified(root)

    def test_a_wrong_expected_hash_is_hash_unexpected(self):
        root = make_artifact(self.path("round"))
        header = ckpt_audit.verify(root)
        self.assertEqual(header["schema_version"], 2)  # migrated
        self.assertEqual(header["hash_algorithm"], "sha256")
        self.assertEqual(ckpt_audit.verify(root, expected_hash=header["content_hash"])["content_hash"],
                         header["content_hash"])
        with self.assertRaises(ckpt_audit.CheckpointIntegrityError) as raised:
            ckpt_audit.load_checkpoint(root, expected_hash="0" * 64)
        self.assertEqual([f["rule"] for f in raised.exception.findings], ["hash-unexpected"])

    def test_an_unsafe_pickle_is_refused_and_has_no_fd_path(self):
        import torch

        path = self.path("model.pt")

        class Payload:
            def __reduce__(self):
                return (os.system, ("true",))

        torch.save({"w": torch.zeros(2), "x": Payload()}, path)
        with self.assertRaises(ckpt_audit.CheckpointIntegrityError) as raised:
            ckpt_audit.open_verified(path)
        self.assertIn("pickle-global-unsafe", [f["rule"] for f in raised.exception.findings])

    def test_a_missing_path_is_an_input_error(self):
        with self.assertRaises(ckpt_audit.InputError):
            ckpt_audit.verify(self.path("absent"))
        with self.assertRaises(ckpt_audit.InputError) as raised:
            ckpt_audit.open_verified(make_artifact(self.path("round"), 4, 1 << 20), max_hold_bytes=1 << 20)
        self.assertIn("more than max_hold_bytes (1048576): nothing was read", str(raised.exception))


class AfterTheCall(Base):
    def check_held(self, change):
        root = make_artifact(self.path("round"), 16, 8192)
        weights = os.path.join(root, "weights.safetensors")
        original = read(weights)
        tensors, header = ckpt_audit.load_checkpoint(root)
        before = {name: bytes(array.tobytes()) for name, array in tensors.items()}
        vc = ckpt_audit.open_verified(root)
        self.addCleanup(vc.close)
        change(root, weights, original)
        self.assertEqual(bytes(vc.buffer("weights.safetensors")), original)
        self.assertEqual(read(vc.fd_path("weights.safetensors")), original)
        for name, array in tensors.items():
            self.assertEqual(array.tobytes(), before[name])
            self.assertFalse(array.flags.writeable)
            self.assertEqual(vc.tensor(name).numpy().tobytes(), before[name])
        return header

    def test_rewritten_in_place(self):
        def rewrite(root, weights, original):
            with open(weights, "r+b") as f:
                f.seek(len(original) - 100)
                f.write(b"\xff" * 100)
        self.check_held(rewrite)

    def test_truncated(self):
        self.check_held(lambda root, weights, original: os.truncate(weights, 16))

    def test_renamed_over(self):
        def rename(root, weights, original):
            other = self.path("other")
            with open(other, "wb") as f:
                f.write(b"x" * len(original))
            os.rename(other, weights)
        self.check_held(rename)

    def test_folder_swapped(self):
        def swap(root, weights, original):
            os.rename(root, self.path("old"))
            make_artifact(root, 16, 8192)
            with open(os.path.join(root, "weights.safetensors"), "r+b") as f:
                f.seek(len(original) - 8)
                f.write(b"\x01" * 8)
        self.check_held(swap)

    def test_the_held_descriptor_refuses_writes(self):
        root = make_artifact(self.path("round"))
        with ckpt_audit.open_verified(root) as vc:
            fd = os.open(vc.fd_path("weights.safetensors"), os.O_WRONLY)
            try:
                with self.assertRaises(PermissionError):  # EPERM: the memfd is sealed against writes
                    os.pwrite(fd, b"x", 0)
                with self.assertRaises(PermissionError):
                    os.ftruncate(fd, 0)
            finally:
                os.close(fd)
            with self.assertRaises(TypeError):
                vc.buffer("weights.safetensors")[0] = 1

    def test_hold_fd_refuses_a_changed_file_at_the_next_access(self):
        root = make_artifact(self.path("round"))
        weights = os.path.join(root, "weights.safetensors")
        with ckpt_audit.open_verified(root, hold="fd") as vc:
            self.assertEqual(bytes(vc.buffer("weights.safetensors")), read(weights))
            with open(weights, "r+b") as f:
                f.seek(-4, os.SEEK_END)
                f.write(b"\0\0\0\1")
            for access in (lambda: vc.buffer("weights.safetensors"), lambda: vc.fd_path("weights.safetensors"),
                           lambda: vc.tensor(vc.tensors[-1]["name"])):
                with self.assertRaises(ckpt_audit.CheckpointIntegrityError) as raised:
                    access()
                self.assertIn("changed after the audit", str(raised.exception))


class DuringTheCall(Base):
    def test_a_writer_never_gets_other_bytes_held(self):
        root = make_artifact(self.path("round"), 32, 1 << 16)
        weights = os.path.join(root, "weights.safetensors")
        original = read(weights)
        stop = threading.Event()

        def writer():
            fd = os.open(weights, os.O_WRONLY)
            at = len(original) // 2
            i = 0
            while not stop.is_set():
                os.pwrite(fd, bytes([original[at] ^ (0x40 if i % 2 == 0 else 0)]), at)
                i += 1
            os.pwrite(fd, original[at:at + 1], at)
            os.close(fd)

        outcomes = []
        for _ in range(5):
            stop.clear()
            thread = threading.Thread(target=writer)
            thread.start()
            try:
                tensors, _ = ckpt_audit.load_checkpoint(root)
                outcomes.append("pass")
                joined = b"".join(a.tobytes() for a in tensors.values())
                self.assertIn(joined[:4096], original)
                with ckpt_audit.open_verified(root) as vc:
                    self.assertEqual(bytes(vc.buffer("weights.safetensors")), read(weights))
            except ckpt_audit.CheckpointIntegrityError as error:
                outcomes.append("fail")
                rules = {f["rule"] for f in error.findings}
                self.assertTrue(rules & {"layout-file-changed", "hash-mismatch"}, rules)
            finally:
                stop.set()
                thread.join()
        print(f"with a writer: {outcomes}", file=sys.stderr)


class Lazy(Base):
    def test_reads_only_the_requested_shard_and_checks_its_digest(self):
        root = make_artifact(self.path("round"), 8, 4 << 20, 2)  # two shards of 16 MiB
        names = sorted(n for n in os.listdir(root) if n.endswith(".safetensors"))
        digests = {name: sha256(read(os.path.join(root, name))) for name in names}
        digests[names[1]] = sha256(b"another file")
        start = rchar()
        vc = ckpt_audit.open_verified(root, hold="lazy", expected_files=digests)
        self.addCleanup(vc.close)
        at_open = rchar() - start
        self.assertLess(at_open, 1 << 20)
        first = vc.buffer(names[0])
        self.assertEqual(bytes(first), read(os.path.join(root, names[0])))
        for_first = rchar() - start - at_open - (16 << 20)  # minus the test's own read of it
        self.assertLess(for_first, (16 << 20) + (1 << 20))
        with self.assertRaises(ckpt_audit.CheckpointIntegrityError) as raised:
            vc.buffer(names[1])
        self.assertIn("sha256:" + sha256(b"another file"), str(raised.exception))
        print(f"lazy: {at_open} bytes read at open, {for_first} for a 16 MiB shard", file=sys.stderr)

    def test_a_verified_model_signature_gives_the_trusted_digests(self):
        root = make_artifact(self.path("round"), 4, 1 << 20, 2)
        key, public, bundle = self.path("k.pem"), self.path("k.pub"), self.path("round.sig")
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                       check=True, capture_output=True)
        subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-out", public], check=True, capture_output=True)
        subprocess.run([os.path.join(TOOLS, "ckpt-audit"), "--sign-model", key, "--model-signature-out", bundle, root],
                       check=True, capture_output=True)
        shard = "weights-00000-of-00002.safetensors"
        with ckpt_audit.open_verified(root, hold="lazy", model_signature=bundle, trusted_key=public) as vc:
            self.assertTrue(vc.report["model_signature"]["verified"])
            self.assertEqual(bytes(vc.buffer(shard)), read(os.path.join(root, shard)))
        with open(os.path.join(root, shard), "r+b") as f:
            f.seek(-1, os.SEEK_END)
            f.write(b"\x07")
        with ckpt_audit.open_verified(root, hold="lazy", model_signature=bundle, trusted_key=public) as vc:
            with self.assertRaises(ckpt_audit.CheckpointIntegrityError) as raised:
                vc.buffer(shard)
            self.assertIn("does not match its trusted digest", str(raised.exception))
        with self.assertRaises(ckpt_audit.CheckpointIntegrityError) as raised:
            ckpt_audit.open_verified(root, model_signature=bundle, trusted_key=public)
        self.assertIn("oms-digest-mismatch", [f["rule"] for f in raised.exception.findings])
        with self.assertRaises(ValueError):
            ckpt_audit.open_verified(root, model_signature=bundle)  # no trust given

    def test_our_verified_audit_statement_gives_the_trusted_digests(self):
        root = make_artifact(self.path("round"), 4, 1 << 20, 2)
        key, public, envelope = self.path("ed.pem"), self.path("ed.pub"), self.path("round.dsse.json")
        subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", key], check=True, capture_output=True)
        subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-out", public], check=True, capture_output=True)
        subprocess.run([os.path.join(TOOLS, "ckpt-audit"), "--attest", key, "--attestation-out", envelope, root],
                       check=True, capture_output=True)
        shard = "weights-00001-of-00002.safetensors"
        with ckpt_audit.open_verified(root, hold="lazy", attestation=envelope, attestation_key=public) as vc:
            self.assertEqual(bytes(vc.buffer(shard)), read(os.path.join(root, shard)))
        with open(os.path.join(root, shard), "r+b") as f:
            f.seek(-1, os.SEEK_END)
            f.write(b"\x07")
        with ckpt_audit.open_verified(root, hold="lazy", attestation=envelope, attestation_key=public) as vc:
            with self.assertRaises(ckpt_audit.CheckpointIntegrityError):
                vc.buffer(shard)
        other = self.path("other.pub")
        subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", self.path("o.pem")], check=True)
        subprocess.run(["openssl", "pkey", "-in", self.path("o.pem"), "-pubout", "-out", other], check=True)
        with self.assertRaises(ckpt_audit.InputError) as raised:
            ckpt_audit.open_verified(root, hold="lazy", attestation=envelope, attestation_key=other)
        self.assertIn("not verified by the trusted key", str(raised.exception))

    def test_lazy_without_digests_is_an_input_error(self):
        with self.assertRaises(ckpt_audit.InputError):
            ckpt_audit.open_verified(make_artifact(self.path("round")), hold="lazy")


class Views(Base):
    def test_views_after_close_raise_and_readers_run_at_once(self):
        root = make_artifact(self.path("round"), 64, 4096)
        original = read(os.path.join(root, "weights.safetensors"))
        vc = ckpt_audit.open_verified(root)
        errors = []

        def reader():
            try:
                for info in vc.tensors * 4:
                    view = vc.tensor(info["name"])
                    if bytes(view.data) != original[view.offset:view.offset + view.length]:
                        errors.append(info["name"])
            except Exception as error:  # noqa: BLE001 (reported below)
                errors.append(repr(error))

        threads = [threading.Thread(target=reader) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        buffer = vc.buffer("weights.safetensors")
        view = vc.tensor(vc.tensors[0]["name"])
        array = vc.tensor(vc.tensors[1]["name"]).numpy()
        vc.close()
        with self.assertRaises(ValueError):
            buffer[0]
        with self.assertRaises(ValueError):
            bytes(view.data)
        with self.assertRaises(ckpt_audit.ClosedError):
            vc.buffer("weights.safetensors")
        with self.assertRaises(ckpt_audit.ClosedError):
            vc.tensor(vc.tensors[0]["name"])
        with self.assertRaises(ckpt_audit.ClosedError):
            vc.fd_path("weights.safetensors")
        self.assertEqual(array.tobytes(), original[vc.tensors[1]["offset"]:][:array.nbytes])  # kept alive


class LoadersThatWantAPath(Base):
    def test_torch_load_reads_the_held_descriptor(self):
        import torch

        path = self.path("pytorch_model.bin")
        state = {"layer.weight": torch.arange(12, dtype=torch.float32).reshape(3, 4), "layer.bias": torch.ones(3)}
        torch.save(state, path)
        with ckpt_audit.open_verified(path) as vc:
            os.truncate(path, 0)
            loaded = torch.load(vc.fd_path("pytorch_model.bin"), weights_only=True)
        self.assertTrue(torch.equal(loaded["layer.weight"], state["layer.weight"]))
        tensors, _ = ckpt_audit.load_checkpoint(self.path_of_saved(torch, state), framework="torch")
        self.assertTrue(torch.equal(tensors["layer.bias"], state["layer.bias"]))
        with self.assertRaises(ckpt_audit.InputError):
            ckpt_audit.load_checkpoint(self.path_of_saved(torch, state), framework="numpy")

    def path_of_saved(self, torch, state):
        path = self.path("again.pt")
        torch.save(state, path)
        return path

    def test_torch_tensors_from_a_lensemble_round(self):
        import torch

        root = make_artifact(self.path("round"), 4, 64)
        tensors, header = ckpt_audit.load_checkpoint(root, framework="torch")
        arrays, _ = ckpt_audit.load_checkpoint(root)
        for name, tensor in tensors.items():
            self.assertIsInstance(tensor, torch.Tensor)
            self.assertEqual(tensor.numpy().tobytes(), arrays[name].tobytes())
        tensor.add_(1)  # a copy: writable, and the held bytes are untouched
        self.assertEqual(header["round_index"], 0)

    def test_numpy_load(self):
        import numpy

        path = self.path("model.npz")
        numpy.savez(path, w=numpy.arange(6, dtype=numpy.float32))
        with ckpt_audit.open_verified(path) as vc:
            os.truncate(path, 0)
            with numpy.load(vc.fd_path("model.npz")) as loaded:
                self.assertEqual(loaded["w"].tolist(), [0, 1, 2, 3, 4, 5])

    def test_onnx_load(self):
        import onnx
        from onnx import helper, TensorProto

        weight = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
        graph = helper.make_graph([helper.make_node("Identity", ["w"], ["y"])], "g", [],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [weight])
        path = self.path("model.onnx")
        onnx.save(helper.make_model(graph), path)
        with ckpt_audit.open_verified(path) as vc:
            os.truncate(path, 0)
            model = onnx.load(vc.fd_path("model.onnx"))
        self.assertEqual(model.graph.initializer[0].name, "w")

    def test_h5py_file(self):
        import h5py
        import numpy

        path = self.path("model.h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("dense/kernel", data=numpy.ones((2, 2), dtype=numpy.float32))
        with ckpt_audit.open_verified(path) as vc:
            os.truncate(path, 0)
            # HDF5 1.10 resolves a name's real path, which a memfd's /proc link is not: h5py
            # reads the held descriptor as an open file object.
            with open(vc.fd_path("model.h5"), "rb") as held, h5py.File(held, "r") as f:
                self.assertEqual(f["dense/kernel"][()].sum(), 4.0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
