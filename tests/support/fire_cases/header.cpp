// Fire cases of the header rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddHeaderFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // header reading
  Add(c, "header-too-large", AI, "100 MB + 1", [] {
    Files f = Clean();
    f["header.json"] = std::string(100'000'001, ' ');  // NOLINT(bugprone-string-constructor): one byte over the bound
    return f;
  });
  Add(c, "header-not-utf8", AI, "0xff", [] {
    Files f = Clean();
    f["header.json"] = "{\"a\":\"\xff\"}";
    return f;
  });
  Add(c, "header-json-syntax", AI, "truncated", [] {
    Files f = Clean();
    f["header.json"] = f["header.json"].substr(0, 40);
    return f;
  });
  Add(c, "header-json-too-deep", AI, "128 levels", [] {
    Files f = Clean();
    f["header.json"] = "{\"x\":" + std::string(127, '[') + std::string(127, ']') + "}";
    return f;
  });
  Add(c, "header-json-syntax", AI, "trailing comma", [] {
    Files f = Clean();
    f["header.json"] = "{\"schema_version\":1,}";
    return f;
  });
  Add(c, "header-duplicate-key", AI, "wmcp twice", [] {
    Files f = Clean();
    f["header.json"] = Replace(f["header.json"], "{", "{\"wmcp_version\":\"evil\",");
    return f;
  });
  Add(c, "header-not-object", AI, "array", [] {
    Files f = Clean();
    f["header.json"] = "[1]";
    return f;
  });
  Add(c, "header-schema-version-missing", AI, "erased",
      [] { return CleanWithHeader([](auto& h) { h.erase("schema_version"); }); });
  Add(c, "header-schema-version-invalid", AI, "1.0", [] {
    Files f = Clean();
    f["header.json"] = Replace(f["header.json"], "\"schema_version\":1", "\"schema_version\":1.0");
    return f;
  });
  Add(c, "header-schema-version-invalid", AI, "zero",
      [] { return CleanWithHeader([](auto& h) { h["schema_version"] = 0; }); });
  Add(c, "header-schema-version-invalid", AI, "string",
      [] { return CleanWithHeader([](auto& h) { h["schema_version"] = "1"; }); });
  Add(c, "header-schema-version-too-new", "SCHEMA_VERSION_MISMATCH", "3",
      [] { return CleanWithHeader([](auto& h) { h["schema_version"] = 3; }); });
  Add(c, "header-missing-field", AI, "created_at",
      [] { return CleanWithHeader([](auto& h) { h.erase("created_at"); }); });
  Add(c, "header-missing-field", AI, "v2 without hash_algorithm",
      [] { return CleanWithHeader([](auto& h) { h["schema_version"] = 2; }); });
  Add(c, "header-unknown-field", AI, "hash_algorithm in v1",
      [] { return CleanWithHeader([](auto& h) { h["hash_algorithm"] = "sha256"; }); });
  Add(c, "header-field-type", AI, "round_index string",
      [] { return CleanWithHeader([](auto& h) { h["round_index"] = "0"; }); });
  Add(c, "header-field-type", AI, "round_index -0", [] {
    Files f = Clean();
    f["header.json"] = Replace(f["header.json"], "\"round_index\":0", "\"round_index\":-0");
    return f;
  });
  Add(c, "header-field-type", AI, "shape 1e0", [] {
    Files f = Clean();
    f["header.json"] = Replace(f["header.json"], "\"shape\":[3]", "\"shape\":[3e0]");
    return f;
  });
  Add(c, "header-field-type", AI, "parent_hash number",
      [] { return CleanWithHeader([](auto& h) { h["parent_hash"] = 5; }); });
  Add(c, "header-manifest-entry-keys", AI, "extra key",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 0)["offset"] = 0; }); });
  Add(c, "header-manifest-entry-keys", AI, "missing dtype",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 0).erase("dtype"); }); });

  // header domain
  Add(c, "header-hash-format", AI, "uppercase config_hash",
      [] { return CleanWithHeader([](auto& h) { h["config_hash"] = std::string(64, 'A'); }); });
  Add(c, "header-hash-format", AI, "short parent", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.round_index = 1;
      s.parent_hash = "abc";
    });
  });
  Add(c, "header-parent-round-mismatch", AI, "round 1 without parent",
      [] { return FromSpec([](ArtifactSpec& s) { s.round_index = 1; }); });
  Add(c, "header-parent-round-mismatch", AI, "genesis with parent",
      [] { return FromSpec([](ArtifactSpec& s) { s.parent_hash = std::string(64, 'a'); }); });
  Add(c, "header-wmcp-version-empty", AI, "empty",
      [] { return FromSpec([](ArtifactSpec& s) { s.wmcp_version = ""; }); });
  Add(c, "header-param-groups-invalid", AI, "repeated", [] {
    return FromSpec([](ArtifactSpec& s) { s.param_groups = {"encoder", "predictor", "encoder"}; });
  });
  Add(c, "header-param-groups-invalid", AI, "empty",
      [] { return CleanWithHeader([](auto& h) { h["param_groups"] = boost::json::array(); }); });
  Add(c, "header-manifest-empty", AI, "empty",
      [] { return CleanWithHeader([](auto& h) { h["tensor_manifest"] = boost::json::array(); }); });
  Add(c, "header-manifest-order", AI, "swapped",
      [] { return CleanWithHeader([](auto& h) { std::swap(ManifestEntry(h, 0), ManifestEntry(h, 1)); }); });
  Add(c, "header-manifest-order", AI, "duplicate",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 1) = ManifestEntry(h, 0); }); });
  Add(c, "header-tensor-name-invalid", AI, "control character", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors[0].name =
          "encoder.a\x01"
          "b";
    });
  });
  Add(c, "header-tensor-name-invalid", AI, "C1 control", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors[0].name =
          "encoder.a\xC2\x85"
          "b";
    });
  });
  Add(c, "header-tensor-group-prefix", AI, "wrong group", [] {
    return FromSpec([](ArtifactSpec& s) { s.tensors.push_back({"encoder.extra", "predictor", "float32", {1}, ""}); });
  });
  Add(c, "header-tensor-group-undeclared", AI, "predictor undeclared",
      [] { return FromSpec([](ArtifactSpec& s) { s.param_groups = {"encoder"}; }); });
  Add(c, "header-dtype-invalid", AI, "float64",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 1)["dtype"] = "float64"; }); });
  Add(c, "header-dtype-invalid", AI, "safetensors token",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 1)["dtype"] = "F32"; }); });
  Add(c, "header-tensor-size-overflow", AI, "2^62 x 8", [] {
    return CleanWithHeader([](auto& h) {
      ManifestEntry(h, 1)["shape"] = boost::json::array{std::uint64_t{1} << 62, 8};
    });
  });
  Add(c, "header-weight-files-invalid", AI, "other name",
      [] { return CleanWithHeader([](auto& h) { h["weight_files"] = boost::json::array{"model.safetensors"}; }); });
  Add(c, "header-weight-files-invalid", AI, "shards out of order", [] {
    Files f = Sharded();
    EditHeader(f, [](auto& h) { std::swap(h["weight_files"].as_array()[0], h["weight_files"].as_array()[1]); });
    return f;
  });
  Add(c, "header-created-at-invalid", AI, "Feb 30",
      [] { return FromSpec([](ArtifactSpec& s) { s.created_at = "2026-02-30T00:00:00Z"; }); });
  Add(c, "header-created-at-invalid", AI, "local offset",
      [] { return FromSpec([](ArtifactSpec& s) { s.created_at = "2026-06-02T00:00:00+02:00"; }); });
  Add(c, "header-hash-algorithm-unsupported", AI, "blake3", [] {
    Files f = FromSpec([](ArtifactSpec& s) { s.schema_version = 2; });
    EditHeader(f, [](auto& h) { h["hash_algorithm"] = "blake3"; });
    return f;
  });
}

}  // namespace ckpt::testing
