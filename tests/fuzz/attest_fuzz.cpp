// Fuzz target: what verifies signed statements. The first byte chooses the reader: 0 a DSSE
// envelope opened against a fixed key (and its payload read as an audit statement), 1 an
// audit statement, 2 a derivation record, 3 a PEM public key, 4 a PEM private key. Nothing
// may crash, hang or accept a payload the fixed key did not sign.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/attest/dsse.h"
#include "lib/attest/statement.h"

namespace {

// The key the seeds are signed with: fixtures/fuzz/attest/fuzz-key.pem (seed bytes 0..31).
const ckpt::attest::PrivateKey& FuzzKey() {
  static const ckpt::attest::PrivateKey key = [] {
    std::string pem =
        "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f\n-----END "
        "PRIVATE "
        "KEY-----\n";
    return std::get<ckpt::attest::PrivateKey>(ckpt::attest::ParsePrivateKeyPem(pem));
  }();
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  ckpt::DiagnosticList sink;
  const ckpt::FileReporter report("input", sink);
  switch (data[0] % 5) {
    case 0: {
      auto payload = ckpt::attest::OpenEnvelope(text, FuzzKey().public_key, report);
      if (payload) {
        // Whatever verified was signed by the fixed key: re-signing gives a valid envelope.
        (void)ckpt::attest::ParseAuditStatement(*payload, report);
      } else if (sink.items.empty()) {
        __builtin_trap();  // a refusal always says why
      }
      break;
    }
    case 1:
      (void)ckpt::attest::ParseAuditStatement(text, report);
      break;
    case 2:
      (void)ckpt::attest::ParseDerivationStatement(text, report);
      break;
    case 3:
      (void)ckpt::attest::ParsePublicKeyPem(text);
      break;
    default:
      (void)ckpt::attest::ParsePrivateKeyPem(text);
      break;
  }
  return 0;
}
