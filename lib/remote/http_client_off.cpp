// A build without libcurl (CKPT_REMOTE=OFF): every remote read is refused, as remote.md
// section 8 says, with one message.
#include "lib/remote/http_client.h"

namespace ckpt::remote {

HttpResponse Get(const HttpRequest& request, const RemoteOptions& /*options*/, TransferCounters& /*counters*/,
                 const BodySink& /*sink*/, const HeadersCheck& /*check*/) {
  HttpResponse response;
  response.error = request.url.Redacted() + ": built without remote inputs";
  return response;
}

std::string DescribeStatus(long status, const std::string& reason) {
  return "HTTP " + std::to_string(status) + (reason.empty() ? "" : " " + reason);
}

std::string BasicAuthorization(const Url& /*url*/) { return {}; }

bool RemoteInputsBuiltIn() { return false; }

std::uint64_t BytesReceived() { return 0; }

}  // namespace ckpt::remote
