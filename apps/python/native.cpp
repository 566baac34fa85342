// ckpt_audit._native: the Python module's binding of OpenVerified (engine/verified.h). It
// stays thin: options in, the held checkpoint out, the report as the JSON the CLI writes. The
// package around it (apps/python/ckpt_audit/__init__.py) turns verdicts into the exceptions of
// verify-then-load.md section 3 and views into numpy and torch tensors. The GIL is released
// while the audit reads and hashes, and while a lazy hold reads a file on first access.
#include <dlfcn.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <boost/json/serialize.hpp>
#include <filesystem>

#include "engine/gate.h"
#include "engine/model_signature.h"
#include "engine/verified.h"
#include "lib/formats/hdf5/h5probe_client.h"
#include "lib/oms/keys.h"
#include "lib/oms/model_files.h"
#include "lib/oms/trusted_root.h"
#include "lib/oms/x509_path.h"
#include "reports/json_report.h"

namespace py = pybind11;

namespace {

using ckpt::AccessError;
using ckpt::VerifiedCheckpoint;

// Raised for a refused access; the package maps its kind to an exception class.
PyObject* g_refused = nullptr;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables): the module's type

std::string_view AccessErrorName(AccessError error) {
  switch (error) {
    case AccessError::kClosed:
      return "closed";
    case AccessError::kNotHeld:
      return "not_held";
    case AccessError::kNoSuchTensor:
      return "no_such_tensor";
    case AccessError::kNoRawView:
      return "no_raw_view";
    case AccessError::kChanged:
      return "changed";
    case AccessError::kDigestMismatch:
      return "digest_mismatch";
    case AccessError::kIo:
      return "io";
  }
  return "io";
}

template <class T>
T ValueOrRaise(ckpt::Accessed<T>&& accessed) {
  if (!accessed) {
    PyErr_SetObject(g_refused, py::make_tuple(AccessErrorName(accessed.error), accessed.message).ptr());
    throw py::error_already_set();
  }
  return std::move(*accessed.value);
}

// A held file's read-only bytes, exported through the buffer protocol: a memoryview of it
// keeps the mapping alive, so no view ever reads unmapped memory.
struct HeldBytes {
  std::shared_ptr<const ckpt::MappedBytes> mapping;
};

class Checkpoint {
 public:
  Checkpoint(std::unique_ptr<VerifiedCheckpoint> vc, std::shared_ptr<const ckpt::ResolvedGate> gate)
      : vc_(std::move(vc)), gate_(std::move(gate)) {}
  [[nodiscard]] std::string verdict() const { return std::string(ckpt::VerdictName(vc_->verdict())); }
  [[nodiscard]] bool holds() const { return vc_->holds(); }
  [[nodiscard]] std::vector<std::string> tool_errors() const { return vc_->tool_errors(); }
  [[nodiscard]] std::string report_json(const std::string& fail_on) const {
    ckpt::reports::ReportContext context;
    (void)ckpt::ParseFailThreshold(fail_on, context.threshold);
    const boost::json::value report = ckpt::reports::AuditReportToJson(std::span(&vc_->result(), 1), context);
    return boost::json::serialize(report.at("artifacts").at(0));
  }
  [[nodiscard]] py::object header_json() const {
    if (!vc_->header()) return py::none();
    return py::str(boost::json::serialize(*vc_->header()));
  }
  [[nodiscard]] py::list files() {
    py::list out;
    for (const ckpt::HeldFileInfo& f : vc_->Files()) {
      py::dict file;
      file["name"] = f.name;
      file["size"] = f.size;
      file["sha256"] = f.sha256 ? py::object(py::str(*f.sha256)) : py::none();
      out.append(file);
    }
    return out;
  }
  [[nodiscard]] py::list tensors() const {
    py::list out;
    for (const ckpt::TensorView& t : vc_->tensors()) out.append(TensorDict(t));
    return out;
  }
  HeldBytes buffer(const std::string& file) {
    ckpt::Accessed<std::shared_ptr<const ckpt::MappedBytes>> accessed;
    {
      const py::gil_scoped_release unlocked;
      accessed = vc_->Buffer(file);
    }
    return HeldBytes{ValueOrRaise(std::move(accessed))};
  }
  py::dict tensor(const std::string& name) {
    ckpt::Accessed<ckpt::TensorView> accessed;
    {
      const py::gil_scoped_release unlocked;
      accessed = vc_->Tensor(name);
    }
    return TensorDict(ValueOrRaise(std::move(accessed)));
  }
  std::string fd_path(const std::string& file) {
    ckpt::Accessed<std::string> accessed;
    {
      const py::gil_scoped_release unlocked;
      accessed = vc_->FdPath(file);
    }
    return ValueOrRaise(std::move(accessed));
  }
  void close() { vc_->Close(); }
  [[nodiscard]] bool closed() const { return vc_->closed(); }

 private:
  static py::dict TensorDict(const ckpt::TensorView& t) {
    py::dict tensor;
    tensor["name"] = t.name;
    tensor["dtype"] = t.dtype;
    tensor["shape"] = py::tuple(py::cast(t.shape));
    tensor["file"] = t.file;
    tensor["offset"] = t.offset;
    tensor["length"] = t.length;
    return tensor;
  }
  std::unique_ptr<VerifiedCheckpoint> vc_;
  std::shared_ptr<const ckpt::ResolvedGate> gate_;  ///< the audit's policy points into it
};

// The model signature options, checked as ckpt-audit checks --verify-model-signature's.
struct SignatureArguments {
  std::optional<std::string> signature;  ///< "" for MODEL/model.sig
  std::optional<std::string> trusted_key;
  std::vector<std::string> trusted_cert_chains;
  std::optional<std::string> sigstore_trusted_root;
  std::string identity;
  std::string issuer;
  std::vector<std::string> ignore_paths;
  std::optional<std::string> attestation;      ///< our audit statement (hold lazy)
  std::optional<std::string> attestation_key;  ///< the Ed25519 public key that must have signed it
};

std::optional<ckpt::VerifyModelSignatureOptions> SignatureOptions(const std::string& model,
                                                                  const SignatureArguments& args) {
  if (!args.signature) return std::nullopt;
  ckpt::VerifyModelSignatureOptions options;
  std::error_code ec;
  if (args.signature->empty()) {
    if (!std::filesystem::is_directory(model, ec)) {
      throw py::value_error("the model is a file: name its signature with model_signature=PATH");
    }
    options.signature = (std::filesystem::path(model) / "model.sig").string();
    options.default_signature = true;
  } else {
    options.signature = *args.signature;
  }
  for (const std::string& p : args.ignore_paths) {
    auto normalized = ckpt::oms::NormalizeIgnorePath(p);
    if (!normalized) throw py::value_error("ignore_paths: '" + p + "' is not a '/'-separated path inside the model");
    options.ignore_paths.push_back(*normalized);
  }
  const int trusts =
      (args.trusted_key ? 1 : 0) + (args.trusted_cert_chains.empty() ? 0 : 1) + (args.sigstore_trusted_root ? 1 : 0);
  if (trusts != 1) {
    throw py::value_error(
        "a model signature needs one trust: trusted_key, trusted_cert_chain or sigstore_trusted_root with identity "
        "and issuer");
  }
  if (args.sigstore_trusted_root) {
    if (args.identity.empty() || args.issuer.empty()) {
      throw py::value_error("sigstore_trusted_root needs identity and issuer");
    }
    auto root = ckpt::oms::LoadTrustedRootFile(*args.sigstore_trusted_root);
    if (auto* error = std::get_if<std::string>(&root)) throw py::value_error("sigstore_trusted_root: " + *error);
    options.trust.method = ckpt::ModelSignatureTrust::Method::kSigstore;
    options.trust.root = std::move(std::get<ckpt::oms::TrustedRoot>(root));
    options.trust.identity = args.identity;
    options.trust.issuer = args.issuer;
  } else if (args.trusted_key) {
    auto key = ckpt::oms::LoadPublicKeyFile(*args.trusted_key);
    if (auto* error = std::get_if<ckpt::oms::KeyError>(&key)) throw py::value_error("trusted_key: " + error->message);
    options.trust.method = ckpt::ModelSignatureTrust::Method::kKey;
    options.trust.key = std::get<ckpt::oms::PublicKey>(key);
  } else {
    options.trust.method = ckpt::ModelSignatureTrust::Method::kCertificate;
    for (const std::string& pem : args.trusted_cert_chains) {
      auto certificates = ckpt::oms::LoadCertificatesPem(pem);
      if (auto* error = std::get_if<std::string>(&certificates)) throw py::value_error("trusted_cert_chain: " + *error);
      for (std::string& der : std::get<std::vector<std::string>>(certificates)) {
        options.trust.certificates.push_back(std::move(der));
      }
    }
  }
  return options;
}

Checkpoint Open(const std::string& path, const std::string& hold, const std::optional<std::string>& expected_hash,
                const std::string& fail_on, const std::optional<std::uint64_t>& max_hold_bytes,
                const std::map<std::string, std::string>& expected_files, const std::optional<std::string>& policy,
                const std::optional<std::string>& baseline, const std::vector<std::string>& allow_groups,
                const SignatureArguments& signature) {
  ckpt::VerifyOptions options;
  if (!ckpt::ParseHoldMode(hold, options.hold)) {
    throw py::value_error("hold must be 'memfd', 'fd', 'lazy' or 'none', not '" + hold + "'");
  }
  if (!ckpt::ParseFailThreshold(fail_on, options.fail_on)) {
    throw py::value_error("fail_on must be 'error', 'warning', 'note' or 'none', not '" + fail_on + "'");
  }
  if (expected_hash) options.audit.expected_hash = *expected_hash;
  options.max_hold_bytes = max_hold_bytes;
  options.expected_files = expected_files;
  for (const std::string& group : allow_groups) options.audit.extra_allowed_groups.push_back(group);
  std::shared_ptr<ckpt::ResolvedGate> gate;
  if (policy || baseline) {
    auto loaded = ckpt::LoadGate({baseline, policy, std::nullopt});
    if (auto* message = std::get_if<std::string>(&loaded)) throw py::value_error(*message);
    gate = std::make_shared<ckpt::ResolvedGate>(std::move(std::get<ckpt::ResolvedGate>(loaded)));
    if (auto message = ckpt::ApplyPolicyFile(*gate, options.audit, options.fail_on, fail_on != "error")) {
      throw py::value_error(*message);
    }
    options.audit.gate = &gate->gate;
    options.audit.digest_files = options.audit.digest_files || !gate->acceptances.empty();
  }
  options.model_signature = SignatureOptions(path, signature);
  if (signature.attestation) {
    if (options.hold != ckpt::HoldMode::kLazy) {
      throw py::value_error(
          "attestation gives hold='lazy' its digests (ckpt-audit --verify-attestation checks one "
          "against the files)");
    }
    if (!signature.attestation_key) throw py::value_error("attestation needs attestation_key, the signer's public key");
    auto key = ckpt::attest::LoadPublicKey(*signature.attestation_key);
    if (auto* error = std::get_if<ckpt::attest::KeyError>(&key)) {
      throw py::value_error("attestation_key: " + error->message);
    }
    options.statement =
        ckpt::VerifyOptions::SignedStatement{*signature.attestation, std::get<ckpt::attest::PublicKey>(key)};
  }
  std::unique_ptr<VerifiedCheckpoint> vc;
  {
    const py::gil_scoped_release unlocked;
    vc = ckpt::OpenVerified(path, options);
  }
  return {std::move(vc), std::move(gate)};
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "ckpt-audit's verify-then-load binding; use the ckpt_audit package";
  static py::exception<std::runtime_error> refused(m, "Refused");
  g_refused = refused.ptr();
  // The HDF5 helper: this module's own build's or install's, since the executable is Python.
  Dl_info self{};
  const std::string module_path =
      ::dladdr(reinterpret_cast<void*>(&AccessErrorName), &self) != 0 && self.dli_fname != nullptr ? self.dli_fname
                                                                                                   : "";
  // Installed: PREFIX/lib/python3[.X]/dist-packages/ckpt_audit/_native.so, the helper PREFIX/bin.
  const std::string build_dir = CKPT_PYTHON_BUILD_DIR;
  ckpt::hdf5::SetProbeFallback(module_path.starts_with(build_dir + "/")
                                   ? std::string(CKPT_PYTHON_PROBE_BUILT)
                                   : (std::filesystem::path(module_path).parent_path() / "../../../../bin/ckpt-h5probe")
                                         .lexically_normal()
                                         .string());

  py::class_<HeldBytes>(m, "HeldBytes", py::buffer_protocol()).def_buffer([](HeldBytes& held) {
    const std::span<const std::byte> bytes = held.mapping->bytes();
    return py::buffer_info(const_cast<std::byte*>(bytes.data()), 1, py::format_descriptor<std::uint8_t>::format(), 1,
                           {static_cast<py::ssize_t>(bytes.size())}, {1}, /*readonly=*/true);
  });
  py::class_<Checkpoint>(m, "Checkpoint")
      .def_property_readonly("verdict", &Checkpoint::verdict)
      .def_property_readonly("holds", &Checkpoint::holds)
      .def_property_readonly("tool_errors", &Checkpoint::tool_errors)
      .def("report_json", &Checkpoint::report_json)
      .def("header_json", &Checkpoint::header_json)
      .def("files", &Checkpoint::files)
      .def("tensors", &Checkpoint::tensors)
      .def("buffer", &Checkpoint::buffer)
      .def("tensor", &Checkpoint::tensor)
      .def("fd_path", &Checkpoint::fd_path)
      .def("close", &Checkpoint::close)
      .def_property_readonly("closed", &Checkpoint::closed);
  py::class_<SignatureArguments>(m, "SignatureArguments")
      .def(py::init<>())
      .def_readwrite("signature", &SignatureArguments::signature)
      .def_readwrite("trusted_key", &SignatureArguments::trusted_key)
      .def_readwrite("trusted_cert_chains", &SignatureArguments::trusted_cert_chains)
      .def_readwrite("sigstore_trusted_root", &SignatureArguments::sigstore_trusted_root)
      .def_readwrite("identity", &SignatureArguments::identity)
      .def_readwrite("issuer", &SignatureArguments::issuer)
      .def_readwrite("ignore_paths", &SignatureArguments::ignore_paths)
      .def_readwrite("attestation", &SignatureArguments::attestation)
      .def_readwrite("attestation_key", &SignatureArguments::attestation_key);
  m.def("open", &Open, py::arg("path"), py::arg("hold"), py::arg("expected_hash"), py::arg("fail_on"),
        py::arg("max_hold_bytes"), py::arg("expected_files"), py::arg("policy"), py::arg("baseline"),
        py::arg("allow_groups"), py::arg("signature"));
  m.def("sealed_memory_available", &ckpt::SealedMemoryAvailable);
}
