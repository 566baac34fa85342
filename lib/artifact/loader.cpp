#include "lib/artifact/loader.h"

#include <algorithm>
#include <array>
#include <tuple>

#include "lib/formats/header_reader.h"
#include "lib/formats/layout_profile.h"
#include "lib/formats/shard_index_reader.h"
#include "lib/formats/weight_formats.h"
#include "lib/hashing/sha256.h"

namespace ckpt {
namespace {

std::string Sha256Hex(std::string_view text) {
  Sha256 hash;
  hash.Update(text);
  return hash.FinalHex();
}

std::string Describe(const std::string& context, const boost::system::error_code& error) {
  return context + ": " + error.message();
}

}  // namespace

void VerifyAdmittedFiles(Artifact& artifact, const ArtifactSource& source) {
  for (AdmittedFile& f : artifact.files) {
    auto now = source.Stat(f.name);
    if (!now) {
      f.change = "it can no longer be found under its name (" + now.error().message() + ")";
    } else if (*now != f.identity) {
      f.change = DescribeIdentityChange(f.identity, *now);
    }
  }
}

Artifact LoadArtifact(const std::string& display_path, const ArtifactSource& source, const Policy& policy,
                      DiagnosticSink& sink, std::vector<std::string>& tool_errors, InputKind kind) {
  Artifact artifact;
  artifact.path = display_path;
  artifact.kind = kind;
  artifact.policy = policy;
  auto entries = source.List();
  if (!entries) {
    tool_errors.push_back(Describe("cannot list " + display_path, entries.error()));
    return artifact;
  }
  artifact.entries = std::move(*entries);
  const LayoutProfile& profile = SelectLayoutProfile(kind);
  artifact.layout = profile.classify(artifact.entries);

  // Weight files first: their transient header DOMs then never coexist with header.json's
  // manifest (at 10^6 tensors that ordering alone is about 150 MB of peak memory).
  // Findings are sorted afterwards, so reports read header.json first as the spec says.
  std::vector<std::string> weight_names;
  for (const DirectoryEntry& entry : artifact.entries) {
    if (entry.kind == EntryKind::kRegular && profile.is_weight_file(entry.name)) weight_names.push_back(entry.name);
  }
  std::sort(weight_names.begin(), weight_names.end(),
            [&](const std::string& a, const std::string& b) { return profile.weight_file_before(a, b); });
  for (const std::string& name : weight_names) {
    auto file = source.Open(name);
    if (!file) {
      tool_errors.push_back(Describe("cannot open " + display_path + "/" += name, file.error()));
      continue;
    }
    artifact.files.push_back({name, (*file)->identity(), std::nullopt, std::nullopt});
    auto weights = AcceptedWeightFormat().read(name, std::move(*file), sink);
    if (!weights) {
      if (weights.error().value() != kFileChangedErrno) {
        tool_errors.push_back(Describe("cannot read " + display_path + "/" += name, weights.error()));
      }
      continue;
    }
    // The descriptor stays in the shared pool (at most 64 open; an evicted file is reopened
    // by name and checked against its identity when its bytes are hashed).
    artifact.weights.push_back(std::move(*weights));
  }
  for (const DirectoryEntry& entry : artifact.entries) {
    if (entry.kind != EntryKind::kRegular) continue;
    const bool in_layout = (!profile.header_file.empty() && entry.name == profile.header_file) ||
                           (!profile.index_file.empty() && entry.name == profile.index_file) ||
                           profile.is_weight_file(entry.name);
    if (profile.is_weight_file(entry.name)) continue;  // read above, in shard order
    auto file = source.Open(entry.name);
    if (!file) {
      tool_errors.push_back(Describe("cannot open " + display_path + "/" + entry.name, file.error()));
      continue;
    }
    artifact.files.push_back({entry.name, (*file)->identity(), std::nullopt, std::nullopt});
    if (!profile.header_file.empty() && entry.name == profile.header_file) {
      auto header = ReadHeader(**file, sink);
      if (header && policy.digest_files && header->json.text().size() == (*file)->size()) {
        artifact.files.back().sha256 = Sha256Hex(header->json.text());
      }
      if (!header) {
        if (header.error().value() != kFileChangedErrno)
          tool_errors.push_back(Describe("cannot read " + display_path + "/header.json", header.error()));
      } else {
        artifact.header = std::move(*header);
      }
    } else if (!profile.index_file.empty() && entry.name == profile.index_file) {
      auto index = ReadShardIndex(**file, sink);
      if (index && policy.digest_files && index->json.text().size() == (*file)->size()) {
        artifact.files.back().sha256 = Sha256Hex(index->json.text());
      }
      if (!index) {
        if (index.error().value() != kFileChangedErrno)
          tool_errors.push_back(Describe("cannot read " + display_path + "/" + entry.name, index.error()));
      } else {
        artifact.index = std::move(*index);
      }
    } else if (!in_layout) {
      // Say what a stray file is (a pickle next to the weights is worth naming).
      std::array<std::byte, kSniffLength> head{};
      auto length = static_cast<std::size_t>(std::min<std::uint64_t>((*file)->size(), head.size()));
      if ((*file)->ReadAt(0, std::span(head).first(length))) {
        if (auto other = RecogniseRefusedFormat(std::span(head).first(length), (*file)->size())) {
          artifact.entry_descriptions.emplace_back(entry.name, std::move(other->description));
        }
      }
    }
  }

  artifact.BuildIndexes();
  return artifact;
}

}  // namespace ckpt
