#include "lib/oms/x509_path.h"

#include <dlfcn.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>

#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/io/small_file.h"

namespace ckpt::oms {
namespace {

// OpenSSL's libcrypto is opened on the first certificate check, not at start-up: an audit
// without one pays neither its load time nor the pages it keeps resident (as libcurl, remote/).
struct CryptoApi {
  decltype(&::X509_free) X509_free = nullptr;
  decltype(&::d2i_X509) d2i_X509 = nullptr;
  decltype(&::BIO_new) BIO_new = nullptr;
  decltype(&::BIO_s_mem) BIO_s_mem = nullptr;
  decltype(&::X509_NAME_print_ex) X509_NAME_print_ex = nullptr;
  decltype(&::BIO_ctrl) BIO_ctrl = nullptr;
  decltype(&::BIO_free) BIO_free = nullptr;
  decltype(&::X509_get_subject_name) X509_get_subject_name = nullptr;
  decltype(&::X509_get_issuer_name) X509_get_issuer_name = nullptr;
  decltype(&::i2d_X509_PUBKEY) i2d_X509_PUBKEY = nullptr;
  decltype(&::X509_get_X509_PUBKEY) X509_get_X509_PUBKEY = nullptr;
  decltype(&::CRYPTO_free) CRYPTO_free = nullptr;
  decltype(&::ASN1_TIME_to_tm) ASN1_TIME_to_tm = nullptr;
  decltype(&::X509_get0_notBefore) X509_get0_notBefore = nullptr;
  decltype(&::X509_get_extension_flags) X509_get_extension_flags = nullptr;
  decltype(&::X509_get_key_usage) X509_get_key_usage = nullptr;
  decltype(&::X509_get_extended_key_usage) X509_get_extended_key_usage = nullptr;
  decltype(&::BIO_new_mem_buf) BIO_new_mem_buf = nullptr;
  decltype(&::PEM_read_bio_X509) PEM_read_bio_X509 = nullptr;
  decltype(&::i2d_X509) i2d_X509 = nullptr;
  decltype(&::ERR_clear_error) ERR_clear_error = nullptr;
  decltype(&::X509_STORE_new) X509_STORE_new = nullptr;
  decltype(&::X509_STORE_free) X509_STORE_free = nullptr;
  decltype(&::X509_STORE_add_cert) X509_STORE_add_cert = nullptr;
  decltype(&::OPENSSL_sk_new_null) OPENSSL_sk_new_null = nullptr;
  decltype(&::OPENSSL_sk_push) OPENSSL_sk_push = nullptr;
  decltype(&::OPENSSL_sk_pop_free) OPENSSL_sk_pop_free = nullptr;
  decltype(&::X509_STORE_CTX_new) X509_STORE_CTX_new = nullptr;
  decltype(&::X509_STORE_CTX_free) X509_STORE_CTX_free = nullptr;
  decltype(&::X509_STORE_CTX_init) X509_STORE_CTX_init = nullptr;
  decltype(&::X509_STORE_CTX_set_time) X509_STORE_CTX_set_time = nullptr;
  decltype(&::X509_verify_cert) X509_verify_cert = nullptr;
  decltype(&::X509_STORE_CTX_get_error) X509_STORE_CTX_get_error = nullptr;
  decltype(&::X509_STORE_CTX_get_current_cert) X509_STORE_CTX_get_current_cert = nullptr;
  decltype(&::X509_verify_cert_error_string) X509_verify_cert_error_string = nullptr;
  std::string error;  ///< why it could not be loaded (empty: loaded)
};

const CryptoApi& Crypto() {
  static const CryptoApi api = [] {
    CryptoApi out;
    void* library = ::dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = ::dlerror();
      out.error = std::string("libcrypto cannot be loaded (") + (why != nullptr ? why : "libcrypto.so.3") +
                  "): install libssl3";
      return out;
    }
    auto load = [&](auto& slot, const char* name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(::dlsym(library, name));
      if (slot == nullptr && out.error.empty()) out.error = std::string("libcrypto lacks ") + name;
    };
    load(out.X509_free, "X509_free");
    load(out.d2i_X509, "d2i_X509");
    load(out.BIO_new, "BIO_new");
    load(out.BIO_s_mem, "BIO_s_mem");
    load(out.X509_NAME_print_ex, "X509_NAME_print_ex");
    load(out.BIO_ctrl, "BIO_ctrl");
    load(out.BIO_free, "BIO_free");
    load(out.X509_get_subject_name, "X509_get_subject_name");
    load(out.X509_get_issuer_name, "X509_get_issuer_name");
    load(out.i2d_X509_PUBKEY, "i2d_X509_PUBKEY");
    load(out.X509_get_X509_PUBKEY, "X509_get_X509_PUBKEY");
    load(out.CRYPTO_free, "CRYPTO_free");
    load(out.ASN1_TIME_to_tm, "ASN1_TIME_to_tm");
    load(out.X509_get0_notBefore, "X509_get0_notBefore");
    load(out.X509_get_extension_flags, "X509_get_extension_flags");
    load(out.X509_get_key_usage, "X509_get_key_usage");
    load(out.X509_get_extended_key_usage, "X509_get_extended_key_usage");
    load(out.BIO_new_mem_buf, "BIO_new_mem_buf");
    load(out.PEM_read_bio_X509, "PEM_read_bio_X509");
    load(out.i2d_X509, "i2d_X509");
    load(out.ERR_clear_error, "ERR_clear_error");
    load(out.X509_STORE_new, "X509_STORE_new");
    load(out.X509_STORE_free, "X509_STORE_free");
    load(out.X509_STORE_add_cert, "X509_STORE_add_cert");
    load(out.OPENSSL_sk_new_null, "OPENSSL_sk_new_null");
    load(out.OPENSSL_sk_push, "OPENSSL_sk_push");
    load(out.OPENSSL_sk_pop_free, "OPENSSL_sk_pop_free");
    load(out.X509_STORE_CTX_new, "X509_STORE_CTX_new");
    load(out.X509_STORE_CTX_free, "X509_STORE_CTX_free");
    load(out.X509_STORE_CTX_init, "X509_STORE_CTX_init");
    load(out.X509_STORE_CTX_set_time, "X509_STORE_CTX_set_time");
    load(out.X509_verify_cert, "X509_verify_cert");
    load(out.X509_STORE_CTX_get_error, "X509_STORE_CTX_get_error");
    load(out.X509_STORE_CTX_get_current_cert, "X509_STORE_CTX_get_current_cert");
    load(out.X509_verify_cert_error_string, "X509_verify_cert_error_string");
    return out;
  }();
  if (!api.error.empty()) throw std::runtime_error(api.error);
  return api;
}

constexpr std::size_t kMaxPemBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxPemCertificates = 1000;

struct X509Free {
  void operator()(X509* x) const { Crypto().X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
struct StoreFree {
  void operator()(X509_STORE* s) const { Crypto().X509_STORE_free(s); }
};
struct ContextFree {
  void operator()(X509_STORE_CTX* c) const { Crypto().X509_STORE_CTX_free(c); }
};
struct StackFree {
  void operator()(STACK_OF(X509) * s) const {
    Crypto().OPENSSL_sk_pop_free(reinterpret_cast<OPENSSL_STACK*>(s),
                                 reinterpret_cast<void (*)(void*)>(Crypto().X509_free));
  }
};
struct BioFree {
  void operator()(BIO* b) const { Crypto().BIO_free(b); }
};

// A DER certificate, with nothing after it.
X509Ptr FromDer(std::string_view der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  X509Ptr x(Crypto().d2i_X509(nullptr, &p, static_cast<long>(der.size())));
  if (x && p != reinterpret_cast<const unsigned char*>(der.data()) + der.size()) return nullptr;
  return x;
}

std::string NameOf(const X509_NAME* name) {
  std::unique_ptr<BIO, BioFree> bio(Crypto().BIO_new(Crypto().BIO_s_mem()));
  // XN_FLAG_RFC2253: most specific RDN first, special characters escaped, non-ASCII as \XX.
  if (!bio || Crypto().X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_RFC2253) < 0) return "?";
  char* data = nullptr;
  const long n = Crypto().BIO_ctrl(bio.get(), BIO_CTRL_INFO, 0, reinterpret_cast<char*>(&data));
  return ToValidUtf8(std::string_view(data, n > 0 ? static_cast<std::size_t>(n) : 0));
}

}  // namespace

std::optional<CertificateFacts> DescribeCertificate(std::string_view der) {
  X509Ptr x = FromDer(der);
  if (!x) return std::nullopt;
  CertificateFacts facts;
  facts.subject = NameOf(Crypto().X509_get_subject_name(x.get()));
  facts.issuer = NameOf(Crypto().X509_get_issuer_name(x.get()));
  Sha256 sha;
  sha.Update(der);
  facts.sha256 = sha.FinalHex();
  unsigned char* spki = nullptr;
  const int length = Crypto().i2d_X509_PUBKEY(Crypto().X509_get_X509_PUBKEY(x.get()), &spki);
  if (length <= 0) return std::nullopt;
  facts.spki_der.assign(reinterpret_cast<const char*>(spki), static_cast<std::size_t>(length));
  Crypto().CRYPTO_free(spki, __FILE__, __LINE__);
  std::tm tm{};
  if (Crypto().ASN1_TIME_to_tm(Crypto().X509_get0_notBefore(x.get()), &tm) != 1) return std::nullopt;
  facts.not_before = timegm(&tm);
  const std::uint32_t flags = Crypto().X509_get_extension_flags(x.get());
  const bool digital_signature =
      (flags & EXFLAG_KUSAGE) != 0 && (Crypto().X509_get_key_usage(x.get()) & KU_DIGITAL_SIGNATURE) != 0;
  const bool code_signing =
      (flags & EXFLAG_XKUSAGE) != 0 && (Crypto().X509_get_extended_key_usage(x.get()) & XKU_CODE_SIGN) != 0;
  facts.signing_usage = digital_signature || code_signing;
  return facts;
}

std::variant<std::vector<std::string>, std::string> LoadCertificatesPem(const std::string& path) {
  SmallFile file = ReadSmallFile(path, kMaxPemBytes);
  if (!file.ok()) return file.error;
  std::unique_ptr<BIO, BioFree> bio(Crypto().BIO_new_mem_buf(file.text.data(), static_cast<int>(file.text.size())));
  std::vector<std::string> out;
  while (out.size() < kMaxPemCertificates) {
    X509Ptr x(Crypto().PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!x) break;
    unsigned char* der = nullptr;
    const int length = Crypto().i2d_X509(x.get(), &der);
    if (length <= 0) break;
    out.emplace_back(reinterpret_cast<const char*>(der), static_cast<std::size_t>(length));
    Crypto().CRYPTO_free(der, __FILE__, __LINE__);
  }
  Crypto().ERR_clear_error();
  if (out.empty()) return std::string("no PEM certificate in it");
  return out;
}

PathResult VerifyCertificatePath(std::string_view leaf, const std::vector<std::string>& intermediates,
                                 const std::vector<std::string>& trusted, std::optional<std::time_t> at) {
  PathResult result;
  X509Ptr leaf_x = FromDer(leaf);
  if (!leaf_x) {
    result.error = "the leaf certificate cannot be parsed";
    return result;
  }
  std::unique_ptr<X509_STORE, StoreFree> store(Crypto().X509_STORE_new());
  for (const std::string& der : trusted) {
    X509Ptr x = FromDer(der);
    if (x) Crypto().X509_STORE_add_cert(store.get(), x.get());
  }
  std::unique_ptr<STACK_OF(X509), StackFree> chain(reinterpret_cast<STACK_OF(X509)*>(Crypto().OPENSSL_sk_new_null()));
  for (const std::string& der : intermediates) {
    X509Ptr x = FromDer(der);
    if (!x) {
      result.error = "an intermediate certificate cannot be parsed";
      return result;
    }
    Crypto().OPENSSL_sk_push(reinterpret_cast<OPENSSL_STACK*>(chain.get()), x.release());
  }
  std::tm tm{};
  if (!at && Crypto().ASN1_TIME_to_tm(Crypto().X509_get0_notBefore(leaf_x.get()), &tm) != 1) {
    result.error = "the leaf's notBefore cannot be read";
    return result;
  }
  std::unique_ptr<X509_STORE_CTX, ContextFree> context(Crypto().X509_STORE_CTX_new());
  if (!context || Crypto().X509_STORE_CTX_init(context.get(), store.get(), leaf_x.get(), chain.get()) != 1) {
    throw std::runtime_error("OpenSSL could not set up a certificate check");
  }
  // The signing time: the log's for a Sigstore bundle, else the leaf's notBefore (a certificate
  // bundle carries no other); default flags otherwise: no partial chains, so the path ends at
  // a self-signed trusted certificate.
  Crypto().X509_STORE_CTX_set_time(context.get(), 0, at ? *at : timegm(&tm));
  const int verified = Crypto().X509_verify_cert(context.get());
  if (verified == 1) {
    result.valid = true;
  } else {
    const int error = Crypto().X509_STORE_CTX_get_error(context.get());
    X509* failing = Crypto().X509_STORE_CTX_get_current_cert(context.get());
    result.error =
        std::string(Crypto().X509_verify_cert_error_string(error)) +
        (failing != nullptr ? " (at " + NameOf(Crypto().X509_get_subject_name(failing)) + ")" : std::string());
  }
  Crypto().ERR_clear_error();
  return result;
}

}  // namespace ckpt::oms
