#include "lib/oms/x509_path.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>

#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/io/small_file.h"

namespace ckpt::oms {
namespace {

constexpr std::size_t kMaxPemBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxPemCertificates = 1000;

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
struct StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
struct ContextFree {
  void operator()(X509_STORE_CTX* c) const { X509_STORE_CTX_free(c); }
};
struct StackFree {
  void operator()(STACK_OF(X509) * s) const { sk_X509_pop_free(s, X509_free); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};

// A DER certificate, with nothing after it.
X509Ptr FromDer(std::string_view der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  X509Ptr x(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
  if (x && p != reinterpret_cast<const unsigned char*>(der.data()) + der.size()) return nullptr;
  return x;
}

std::string NameOf(const X509_NAME* name) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  // XN_FLAG_RFC2253: most specific RDN first, special characters escaped, non-ASCII as \XX.
  if (!bio || X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_RFC2253) < 0) return "?";
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return ToValidUtf8(std::string_view(data, n > 0 ? static_cast<std::size_t>(n) : 0));
}

}  // namespace

std::optional<CertificateFacts> DescribeCertificate(std::string_view der) {
  X509Ptr x = FromDer(der);
  if (!x) return std::nullopt;
  CertificateFacts facts;
  facts.subject = NameOf(X509_get_subject_name(x.get()));
  facts.issuer = NameOf(X509_get_issuer_name(x.get()));
  Sha256 sha;
  sha.Update(der);
  facts.sha256 = sha.FinalHex();
  unsigned char* spki = nullptr;
  const int length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x.get()), &spki);
  if (length <= 0) return std::nullopt;
  facts.spki_der.assign(reinterpret_cast<const char*>(spki), static_cast<std::size_t>(length));
  OPENSSL_free(spki);
  std::tm tm{};
  if (ASN1_TIME_to_tm(X509_get0_notBefore(x.get()), &tm) != 1) return std::nullopt;
  facts.not_before = timegm(&tm);
  const std::uint32_t flags = X509_get_extension_flags(x.get());
  const bool digital_signature =
      (flags & EXFLAG_KUSAGE) != 0 && (X509_get_key_usage(x.get()) & KU_DIGITAL_SIGNATURE) != 0;
  const bool code_signing =
      (flags & EXFLAG_XKUSAGE) != 0 && (X509_get_extended_key_usage(x.get()) & XKU_CODE_SIGN) != 0;
  facts.signing_usage = digital_signature || code_signing;
  return facts;
}

std::variant<std::vector<std::string>, std::string> LoadCertificatesPem(const std::string& path) {
  SmallFile file = ReadSmallFile(path, kMaxPemBytes);
  if (!file.ok()) return file.error;
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(file.text.data(), static_cast<int>(file.text.size())));
  std::vector<std::string> out;
  while (out.size() < kMaxPemCertificates) {
    X509Ptr x(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!x) break;
    unsigned char* der = nullptr;
    const int length = i2d_X509(x.get(), &der);
    if (length <= 0) break;
    out.emplace_back(reinterpret_cast<const char*>(der), static_cast<std::size_t>(length));
    OPENSSL_free(der);
  }
  ERR_clear_error();
  if (out.empty()) return std::string("no PEM certificate in it");
  return out;
}

PathResult VerifyCertificatePath(std::string_view leaf, const std::vector<std::string>& intermediates,
                                 const std::vector<std::string>& trusted) {
  PathResult result;
  X509Ptr leaf_x = FromDer(leaf);
  if (!leaf_x) {
    result.error = "the leaf certificate cannot be parsed";
    return result;
  }
  std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
  for (const std::string& der : trusted) {
    X509Ptr x = FromDer(der);
    if (x) X509_STORE_add_cert(store.get(), x.get());
  }
  std::unique_ptr<STACK_OF(X509), StackFree> chain(sk_X509_new_null());
  for (const std::string& der : intermediates) {
    X509Ptr x = FromDer(der);
    if (!x) {
      result.error = "an intermediate certificate cannot be parsed";
      return result;
    }
    sk_X509_push(chain.get(), x.release());
  }
  std::tm tm{};
  if (ASN1_TIME_to_tm(X509_get0_notBefore(leaf_x.get()), &tm) != 1) {
    result.error = "the leaf's notBefore cannot be read";
    return result;
  }
  std::unique_ptr<X509_STORE_CTX, ContextFree> context(X509_STORE_CTX_new());
  if (!context || X509_STORE_CTX_init(context.get(), store.get(), leaf_x.get(), chain.get()) != 1) {
    throw std::runtime_error("OpenSSL could not set up a certificate check");
  }
  // The signing time is the leaf's notBefore (a certificate bundle carries no other); default
  // flags otherwise: no partial chains, so the path ends at a self-signed trusted certificate.
  X509_STORE_CTX_set_time(context.get(), 0, timegm(&tm));
  const int verified = X509_verify_cert(context.get());
  if (verified == 1) {
    result.valid = true;
  } else {
    const int error = X509_STORE_CTX_get_error(context.get());
    X509* at = X509_STORE_CTX_get_current_cert(context.get());
    result.error = std::string(X509_verify_cert_error_string(error)) +
                   (at != nullptr ? " (at " + NameOf(X509_get_subject_name(at)) + ")" : std::string());
  }
  ERR_clear_error();
  return result;
}

}  // namespace ckpt::oms
