// Conformance anchor: the spec's golden vectors (copied to fixtures/vectors) pass with the
// listed hashes; flipping any tensor-data byte or editing any hashed header field fails
// with CHECKPOINT_INTEGRITY; editing fields outside the hash (within their domain) passes.
#include "tests/support/golden_vectors.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "engine/audit.h"
#include "lib/formats/layout.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"

namespace ckpt::testing {
namespace {

Files LoadVector(const std::string& name) { return ReadFiles("fixtures/vectors/" + name); }

void ExpectHashMismatch(const Files& files, const std::string& what) {
  AuditResult result = AuditFiles(files);
  auto hits = FindingsOf(result, "hash-mismatch");
  ASSERT_EQ(hits.size(), 1u) << what << ":\n" << Describe(result);
  EXPECT_EQ(CodeName(hits[0]->rule->code), "CHECKPOINT_INTEGRITY");
  ASSERT_TRUE(result.artifact.computed_hash.has_value()) << what;
}

// Applies `edit` to the safetensors header of every weight file (re-padded with spaces).
void EditWeightHeaders(Files& files, const std::function<void(boost::json::object&)>& edit) {
  for (auto& [name, bytes] : files) {
    if (!IsWeightFileName(name)) continue;
    SafetensorsParts parts = SplitSafetensors(bytes);
    boost::json::object header = boost::json::parse(parts.header).as_object();
    edit(header);
    std::string text = boost::json::serialize(header);
    text.append((8 - text.size() % 8) % 8, ' ');
    bytes = SafetensorsFile(text, parts.data);
  }
}

TEST(GoldenVectors, PassWithTheListedHashes) {
  for (const GoldenVector& v : kGoldenVectors) {
    AuditResult result = AuditPath(std::string("fixtures/vectors/") + v.name, AuditOptions{});
    EXPECT_TRUE(result.findings.empty()) << v.name << ":\n" << Describe(result);
    EXPECT_TRUE(result.tool_errors.empty()) << v.name << ":\n" << Describe(result);
    ASSERT_TRUE(result.artifact.computed_hash.has_value()) << v.name;
    EXPECT_EQ(*result.artifact.computed_hash, v.hash) << v.name;
  }
}

TEST(GoldenVectors, SchemaVersionIsReportedAsWrittenAndMigrated) {
  AuditResult v1 = AuditPath("fixtures/vectors/v1-single", AuditOptions{});
  ASSERT_TRUE(v1.artifact.header.has_value());
  EXPECT_EQ(v1.artifact.header->schema_version, 1u);
  EXPECT_EQ(v1.artifact.header->migrated_version, 2u);
  EXPECT_EQ(v1.artifact.header->hash_algorithm, "sha256");  // added by migrate_v1_to_v2
  AuditResult v2 = AuditPath("fixtures/vectors/v2-single", AuditOptions{});
  EXPECT_EQ(v2.artifact.header->schema_version, 2u);
  EXPECT_EQ(v2.artifact.header->migrated_version, 2u);
}

TEST(GoldenVectors, EveryFlippedDataByteFailsWithCheckpointIntegrity) {
  std::size_t flips = 0;
  for (const GoldenVector& v : kGoldenVectors) {
    const Files clean = LoadVector(v.name);
    for (const auto& [name, bytes] : clean) {
      if (!IsWeightFileName(name)) continue;
      const std::size_t data_start = 8 + SplitSafetensors(bytes).header.size();
      for (std::size_t i = data_start; i < bytes.size(); ++i) {
        Files flipped = clean;
        flipped[name][i] = static_cast<char>(flipped[name][i] ^ 0xFF);
        ExpectHashMismatch(flipped, std::string(v.name) + "/" + name + " byte " + std::to_string(i));
        ++flips;
      }
    }
  }
  EXPECT_EQ(flips, 4u * 40u);  // 40 bytes of tensor data in every vector
}

TEST(GoldenVectors, V1SingleEveryDataByteEveryBit) {
  const Files clean = LoadVector("v1-single");
  const std::string& bytes = clean.at("weights.safetensors");
  const std::size_t data_start = 8 + SplitSafetensors(bytes).header.size();
  ASSERT_EQ(bytes.size() - data_start, 40u);
  for (std::size_t i = data_start; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      Files flipped = clean;
      flipped["weights.safetensors"][i] = static_cast<char>(flipped["weights.safetensors"][i] ^ (1 << bit));
      ExpectHashMismatch(flipped, "byte " + std::to_string(i) + " bit " + std::to_string(bit));
    }
  }
}

struct FieldEdit {
  const char* field;
  std::function<void(Files&)> apply;
};

void RenameTensor(Files& files, const std::string& from, const std::string& to) {
  EditHeader(files, [&](boost::json::object& h) {
    for (auto& e : h["tensor_manifest"].as_array()) {
      if (e.as_object()["name"] == from.c_str()) e.as_object()["name"] = to;
    }
  });
  EditWeightHeaders(files, [&](boost::json::object& st) {
    if (auto* entry = st.if_contains(from)) {
      boost::json::value copy = *entry;
      st.erase(from);
      st[to] = copy;
    }
  });
  if (files.count("weights.index.json")) {
    boost::json::value index = boost::json::parse(files["weights.index.json"]);
    auto& map = index.as_object()["weight_map"].as_object();
    boost::json::value shard = map[from];
    map.erase(from);
    map[to] = shard;
    files["weights.index.json"] = boost::json::serialize(index);
  }
}

std::vector<FieldEdit> HashedFieldEdits() {
  return {
      {"schema_version",
       [](Files& f) {
         EditHeader(f, [](boost::json::object& h) {
           if (h["schema_version"] == 1) {
             h["schema_version"] = 2;
             h["hash_algorithm"] = "sha256";
           } else {
             h["schema_version"] = 1;
             h.erase("hash_algorithm");
           }
         });
       }},
      {"wmcp_version", [](Files& f) { EditHeader(f, [](boost::json::object& h) { h["wmcp_version"] = "wmcp-1.1"; }); }},
      {"round_index",
       [](Files& f) {
         EditHeader(f, [](boost::json::object& h) {
           h["round_index"] = boost::json::value_to<std::uint64_t>(h["round_index"]) + 1;
         });
       }},
      {"parent_hash",
       [](Files& f) { EditHeader(f, [](boost::json::object& h) { h["parent_hash"] = std::string(64, '7'); }); }},
      {"param_groups",
       [](Files& f) {
         EditHeader(f, [](boost::json::object& h) { h["param_groups"] = boost::json::array{"encoder"}; });
       }},
      {"tensor_manifest name", [](Files& f) { RenameTensor(f, "predictor.head.weight", "predictor.head.weights"); }},
      {"tensor_manifest group",
       [](Files& f) {
         EditHeader(
             f, [](boost::json::object& h) { h["tensor_manifest"].as_array()[0].as_object()["group"] = "predictor"; });
       }},
      {"tensor_manifest dtype",
       [](Files& f) {
         EditHeader(f, [](boost::json::object& h) {
           h["tensor_manifest"].as_array()[0].as_object()["dtype"] = "bfloat16";  // float16 -> bfloat16
         });
         EditWeightHeaders(f, [](boost::json::object& st) {
           if (auto* e = st.if_contains("encoder.blocks.0.bias")) e->as_object()["dtype"] = "BF16";
         });
       }},
      {"tensor_manifest shape",
       [](Files& f) {
         EditHeader(f, [](boost::json::object& h) {
           h["tensor_manifest"].as_array()[1].as_object()["shape"] = boost::json::array{3, 2};
         });
         EditWeightHeaders(f, [](boost::json::object& st) {
           if (auto* e = st.if_contains("encoder.blocks.0.weight")) e->as_object()["shape"] = boost::json::array{3, 2};
         });
       }},
  };
}

TEST(GoldenVectors, EveryHashedFieldEditFailsWithCheckpointIntegrity) {
  for (const GoldenVector& v : kGoldenVectors) {
    for (const FieldEdit& edit : HashedFieldEdits()) {
      Files files = LoadVector(v.name);
      edit.apply(files);
      ExpectHashMismatch(files, std::string(v.name) + ": " + edit.field);
    }
  }
}

TEST(GoldenVectors, EditsOutsideTheHashPass) {
  for (const GoldenVector& v : kGoldenVectors) {
    Files files = LoadVector(v.name);
    EditHeader(files, [](boost::json::object& h) {
      h["config_hash"] = std::string(64, 'f');
      h["created_at"] = "2030-01-01T12:34:56.789+00:00";
      // Reordering param_groups does not change the hash: it is hashed sorted.
      auto& groups = h["param_groups"].as_array();
      std::swap(groups[0], groups[1]);
    });
    AuditResult result = AuditFiles(files);
    EXPECT_TRUE(result.findings.empty()) << v.name << ":\n" << Describe(result);
    EXPECT_EQ(result.artifact.computed_hash, std::string(v.hash)) << v.name;
  }
}

TEST(GoldenVectors, ExpectHashPinsTheRecomputedHash) {
  AuditOptions pinned;
  pinned.expected_hash = kGoldenVectors[0].hash;
  EXPECT_TRUE(AuditPath("fixtures/vectors/v1-single", pinned).findings.empty());
  pinned.expected_hash = kGoldenVectors[2].hash;
  AuditResult result = AuditPath("fixtures/vectors/v1-single", pinned);
  ASSERT_EQ(FindingsOf(result, "hash-unexpected").size(), 1u) << Describe(result);
  EXPECT_NE(FindingsOf(result, "hash-unexpected")[0]->message.find(kGoldenVectors[2].hash), std::string::npos);
}

TEST(GoldenVectors, GeneratedArtifactsHashLikeTheLibrary) {
  // The test builder's independent hasher and the library agree, single and sharded.
  for (std::uint32_t shards : {0u, 2u, 3u}) {
    ArtifactSpec spec = ArtifactSpec::Clean();
    spec.shards = shards;
    AuditResult result = AuditFiles(spec.Build());
    EXPECT_EQ(result.artifact.computed_hash, spec.ContentHash()) << shards << " shards\n" << Describe(result);
  }
}

}  // namespace
}  // namespace ckpt::testing
