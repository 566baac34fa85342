// Near misses of the header rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddHeaderNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // header
  Add(n, "header-created-at-invalid", "fraction and +00:00",
      [] { return FromSpec([](ArtifactSpec& s) { s.created_at = "2026-06-02T23:59:60.123456+00:00"; }); });
  Add(n, "header-created-at-invalid", "lower-case z",
      [] { return FromSpec([](ArtifactSpec& s) { s.created_at = "2026-06-02t00:00:00z"; }); });
  Add(n, "header-dtype-invalid", "every allowed dtype", Clean);
  Add(n, "header-duplicate-key", "the same keys in sibling objects", Clean);
  Add(n, "header-field-type", "round 1 with a parent hash", Round1);
  Add(n, "header-hash-algorithm-unsupported", "schema 2 with sha256",
      [] { return FromSpec([](ArtifactSpec& s) { s.schema_version = 2; }); });
  Add(n, "header-hash-format", "a 64-digit lower-case parent hash", Round1);
  Add(n, "header-json-syntax", "CRLF, tabs and escaped strings", [] {
    Files f = Clean();
    std::string& h = f["header.json"];
    h = "\r\n\t" + h + "\r\n\t ";
    const std::size_t at = h.find("wmcp-1.0");
    h.replace(at, 8, "wmcp\\u002d1.0");  // the same string, escaped
    return f;
  });
  Add(
      n, "header-json-too-deep", "126 levels under an extra key",
      [] {
        Files f = Clean();
        std::string& h = f["header.json"];
        h.insert(h.rfind('}'), ",\"x\":" + std::string(126, '[') + std::string(126, ']'));
        return f;
      },
      false);
  Add(n, "header-manifest-empty", "one scalar tensor", [] {
    return FromSpec([](ArtifactSpec& s) { s.tensors = {{"encoder.s", "encoder", "float32", {}, ""}}; });
  });
  Add(n, "header-manifest-entry-keys", "keys in another order", [] {
    Files f = Clean();
    EditHeader(f, [](boost::json::object& h) {
      for (auto& item : h["tensor_manifest"].as_array()) {
        boost::json::object& e = item.as_object();
        boost::json::object reordered{
            {"shape", e["shape"]}, {"dtype", e["dtype"]}, {"group", e["group"]}, {"name", e["name"]}};
        e = std::move(reordered);
      }
    });
    return f;
  });
  Add(n, "header-manifest-order", "byte order: upper case and ASCII before non-ASCII", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors = {{"encoder.Zeta", "encoder", "float32", {1}, ""},
                   {"encoder.alpha", "encoder", "float32", {1}, ""},
                   {"encoder.\xC3\xA9", "encoder", "float32", {1}, ""}};
    });
  });
  Add(n, "header-missing-field", "schema 1 has no hash_algorithm", Clean);
  Add(n, "header-not-object", "an object with every field", Clean);
  Add(n, "header-not-utf8", "a four-byte character in wmcp_version",
      [] { return FromSpec([](ArtifactSpec& s) { s.wmcp_version = "wmcp-\xF0\x9F\x98\x80"; }); });
  Add(n, "header-param-groups-invalid", "the groups in another order", [] {
    return FromSpec([](ArtifactSpec& s) { s.param_groups = {"predictor", "encoder"}; });
  });
  Add(n, "header-parent-round-mismatch", "round 1 with a parent", Round1);
  Add(n, "header-schema-version-invalid", "schema 2",
      [] { return FromSpec([](ArtifactSpec& s) { s.schema_version = 2; }); });
  Add(n, "header-schema-version-missing", "present", Clean);
  Add(n, "header-schema-version-too-new", "the reader's maximum, 2",
      [] { return FromSpec([](ArtifactSpec& s) { s.schema_version = 2; }); });
  Add(n, "header-tensor-group-prefix", "the group name again later in the name", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"predictor.encoder.w", "predictor", "float32", {1}, ""});
    });
  });
  Add(n, "header-tensor-group-undeclared", "a declared group with no tensors", [] {
    return FromSpec([](ArtifactSpec& s) { s.tensors = {{"encoder.w", "encoder", "float32", {2}, ""}}; });
  });
  Add(n, "header-tensor-name-invalid", "spaces and non-ASCII, no control character", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"encoder.a b \xE2\x9C\x93", "encoder", "float32", {1}, ""});
    });
  });
  Add(
      n, "header-tensor-size-overflow", "2^58 float32 elements: 2^60 bytes",
      [] {
        Files f = Clean();
        EditHeader(f, [](boost::json::object& h) {
          h["tensor_manifest"].as_array()[1].as_object()["shape"] = boost::json::array{std::uint64_t{1} << 58};
        });
        return f;
      },
      false);
  Add(n, "header-too-large", "exactly 100,000,000 bytes", [] {
    Files f = Clean();
    std::string& h = f["header.json"];
    h.append(100'000'000 - h.size(), ' ');
    return f;
  });
  Add(n, "header-unknown-field", "hash_algorithm in schema 2",
      [] { return FromSpec([](ArtifactSpec& s) { s.schema_version = 2; }); });
  Add(n, "header-weight-files-invalid", "shards in order", Sharded);
  Add(n, "header-wmcp-version-empty", "a single space",
      [] { return FromSpec([](ArtifactSpec& s) { s.wmcp_version = " "; }); });
}

}  // namespace ckpt::testing
