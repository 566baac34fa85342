// The URL rules of remote inputs (remote.md sections 1, 6 and 9): which arguments are remote,
// the loopback rule for plain http, redaction, reference resolution and percent-encoding.
#include <gtest/gtest.h>

#include "lib/remote/remote_source.h"
#include "lib/remote/url.h"

namespace ckpt::remote {
namespace {

TEST(RemoteUrl, OnlyLowerCaseHttpHttpsAndHfAreRemote) {
  EXPECT_TRUE(IsRemoteArgument("https://h/x"));
  EXPECT_TRUE(IsRemoteArgument("http://127.0.0.1/x"));
  EXPECT_TRUE(IsRemoteArgument("hf://org/name"));
  EXPECT_FALSE(IsRemoteArgument("HTTPS://h/x"));
  EXPECT_FALSE(IsRemoteArgument("./https:/x"));
  // Every other SCHEME:// is a usage error, never a local path.
  for (const char* other : {"ftp://h/x", "s3://b/k", "file:///x", "HTTPS://h/x", "git+ssh://h/x"}) {
    EXPECT_TRUE(LooksLikeUrl(other)) << other;
  }
  EXPECT_FALSE(LooksLikeUrl("./https:/x"));
  EXPECT_FALSE(LooksLikeUrl("models/x://y"));
}

// A folder is read as OpenRemote reads it: the hf:// repository, or a path ending in '/',
// whatever the query after it holds.
TEST(RemoteUrl, AFolderIsAnHfRepositoryOrAPathEndingInASlash) {
  for (const char* folder :
       {"hf://org/name", "hf://org/name@main/sub", "https://h/round/", "https://h/r/?sig=a/b.sig"}) {
    EXPECT_TRUE(IsRemoteFolderArgument(folder)) << folder;
  }
  for (const char* file : {"https://h/model.sig", "https://h/r/x?next=/", "http://127.0.0.1/t.pt", "./dir/", "dir/"}) {
    EXPECT_FALSE(IsRemoteFolderArgument(file)) << file;
  }
}

TEST(RemoteUrl, PlainHttpOnlyToALoopbackHostWrittenPlainly) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "localhost", "[::1]"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
  for (const char* host : {"0.0.0.0", "[::]", "[::ffff:127.0.0.1]", "2130706433", "0x7f.1", "127.1", "0177.0.0.1",
                           "127.0.0.256", "example.com", "localhost.example.com", "128.0.0.1"}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
  }
  auto url = ParseUrl("http://example.com/m.safetensors");
  ASSERT_TRUE(url);
  EXPECT_EQ(RefusalOf(*url), "plain http:// is allowed only to a loopback host");
  auto https = ParseUrl("https://example.com/m.safetensors");
  ASSERT_TRUE(https);
  EXPECT_EQ(RefusalOf(*https), "");
  RemoteOptions options;
  EXPECT_EQ(RemoteUsageError("http://2130706433:8080/m.safetensors", options),
            "http://2130706433:8080/m.safetensors: plain http:// is allowed only to a loopback host");
  options.hf_endpoint = "http://hub.example.com";
  EXPECT_NE(RemoteUsageError("hf://org/name", options).find("HF_ENDPOINT: plain http://"), std::string::npos);
}

TEST(RemoteUrl, PartsOriginAndFileName) {
  std::string why;
  auto url =
      ParseUrl("https://User:pa%3Ass@Host.Example:8443/dir/a%20b.safetensors?X-Amz-Signature=abc&Expires=1", &why);
  ASSERT_TRUE(url) << why;
  EXPECT_EQ(url->host, "host.example");
  EXPECT_EQ(url->port, "8443");
  EXPECT_EQ(url->Origin(), "https://host.example:8443");
  EXPECT_EQ(ParseUrl("https://h/x")->Origin(), "https://h:443");
  EXPECT_EQ(url->FileName(), "a b.safetensors");
  EXPECT_EQ(url->ForRequest(), "https://host.example:8443/dir/a%20b.safetensors?X-Amz-Signature=abc&Expires=1");
  EXPECT_FALSE(ParseUrl("https://h/x#frag", &why));
  EXPECT_NE(why.find("fragment"), std::string::npos);
  EXPECT_FALSE(ParseUrl("https://h:99999/x"));
  EXPECT_FALSE(ParseUrl("https:///x"));
  EXPECT_FALSE(ParseUrl("https://h/a b"));
}

TEST(RemoteUrl, RedactionDropsUserinfoAndEveryQueryValue) {
  EXPECT_EQ(RedactUrl("https://u:secret@h/x.safetensors?X-Amz-Signature=s3cr3t&Expires=1&flag"),
            "https://h/x.safetensors?X-Amz-Signature=REDACTED&Expires=REDACTED&flag");
  EXPECT_EQ(RedactUrl("https://u:secret@h:1/x#y?q=z"), "https://h:1/x");
  EXPECT_EQ(RedactUrl("hf://org/name@main"), "hf://org/name@main");
  EXPECT_EQ(RedactUrl("models/local"), "models/local");
}

TEST(RemoteUrl, ReferencesResolveAsRfc3986Says) {
  auto base = ParseUrl("https://hub/org/m/resolve/c/sub/model.safetensors?x=1");
  ASSERT_TRUE(base);
  EXPECT_EQ(Resolve(*base, "https://cdn/b/o?sig=1")->ForRequest(), "https://cdn/b/o?sig=1");
  EXPECT_EQ(Resolve(*base, "//cdn/b")->ForRequest(), "https://cdn/b");
  EXPECT_EQ(Resolve(*base, "/api/x")->ForRequest(), "https://hub/api/x");
  EXPECT_EQ(Resolve(*base, "other.json")->ForRequest(), "https://hub/org/m/resolve/c/sub/other.json");
  EXPECT_EQ(Resolve(*base, "../../a")->ForRequest(), "https://hub/org/m/resolve/a");
  EXPECT_EQ(Resolve(*base, "../../../../../../a")->ForRequest(), "https://hub/a");
  auto dir = ParseUrl("https://h/rounds/r3/");
  EXPECT_EQ(Resolve(*dir, "header.json")->ForRequest(), "https://h/rounds/r3/header.json");
}

TEST(RemoteUrl, PercentEncodingAsTheHubClientsQuote) {
  EXPECT_EQ(PercentEncode("unet/diffusion model.safetensors", true), "unet/diffusion%20model.safetensors");
  EXPECT_EQ(PercentEncode("refs/pr/1", false), "refs%2Fpr%2F1");
  EXPECT_EQ(PercentDecode("refs%2Fpr%2F1"), "refs/pr/1");
  EXPECT_FALSE(PercentDecode("bad%2"));
  EXPECT_FALSE(PercentDecode("bad%zz"));
}

TEST(RemoteUrl, HubArgumentsAreCheckedBeforeAnyRequest) {
  RemoteOptions options;
  EXPECT_EQ(RemoteUsageError("hf://org/name@refs%2Fpr%2F1/unet", options), "");
  EXPECT_NE(RemoteUsageError("hf://org", options), "");
  EXPECT_NE(RemoteUsageError("hf://datasets/x", options), "");
  EXPECT_NE(RemoteUsageError("hf://org/na me", options), "");
  EXPECT_NE(RemoteUsageError("hf://org/name/../x", options), "");
  EXPECT_NE(RemoteUsageError("hf://org/name?x=1", options), "");
}

}  // namespace
}  // namespace ckpt::remote
