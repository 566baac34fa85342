// DSSE v1 envelopes (attestations.md section 1): the pre-authentication encoding, signing
// with Ed25519, and opening an envelope against one trusted key. Opening reports what is
// wrong as diagnostics (attest-* rules) and yields the payload only when a signature by the
// trusted key verifies and the payload type is in-toto's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lib/attest/ed25519.h"
#include "lib/model/diagnostic.h"

namespace ckpt::attest {

inline constexpr std::string_view kInTotoPayloadType = "application/vnd.in-toto+json";
/// Envelopes (and the statements in them) are read whole; larger files are refused.
inline constexpr std::size_t kMaxEnvelopeBytes = std::size_t{64} << 20;

/// "DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload.
std::string PreAuthEncoding(std::string_view payload_type, std::string_view payload);

/// The envelope's JSON text (one line and a newline): payload and signature base64 with
/// padding, keyid the signer's.
std::string SignEnvelope(std::string_view payload_type, std::string_view payload, const PrivateKey& key);

/// Whether `text` is shaped like a DSSE envelope (a JSON object naming payloadType): how
/// ckpt-chain recognises envelopes by content before verifying them.
bool LooksLikeEnvelope(std::string_view text);

/// Opens `text` against `trusted`: the payload, or nullopt after reporting why not
/// (attest-envelope-invalid, -foreign-key, -signature-invalid, -payload-type). When the
/// envelope parses but no signature by the trusted key verifies, `refused_payload` (if
/// given) receives the payload as written: what the refused envelope claims, never a fact,
/// so a report can name the round a child was refused at.
std::optional<std::string> OpenEnvelope(std::string_view text, const PublicKey& trusted, const FileReporter& report,
                                        std::string* refused_payload = nullptr);

}  // namespace ckpt::attest
