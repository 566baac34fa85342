#include "engine/audit_facts.h"

#include <algorithm>
#include <tuple>

#include "engine/audit.h"
#include "lib/formats/layout.h"

namespace ckpt {
namespace {

int FileRank(const std::string& file) {
  if (file == kHeaderFileName) return 0;
  if (file == kShardIndexFileName) return 1;
  if (IsWeightFileName(file)) return 2;
  return 3;
}

}  // namespace

void RecordRemoteFacts(Artifact& artifact, const remote::RemoteFacts& facts, const remote::RemoteSource* source) {
  RemoteInput& input = artifact.remote.emplace();
  input.url = facts.url;
  input.scheme = facts.scheme;
  input.endpoint = facts.endpoint;
  input.revision = facts.revision;
  input.commit = facts.commit;
  input.listed = facts.listed;
  input.bytes_transferred = facts.counters->bytes.load();
  input.requests = facts.counters->requests.load();
  if (source == nullptr) return;
  // A single file is admitted as "" by its wrapper: its one remote file is the source's only one.
  auto entries = source->List();
  if (artifact.container && entries && entries->size() == 1) {
    // A tar's members are read through the one remote file: its validator binds them all.
    if (auto report = source->FileReport(entries->front().name)) {
      RemoteFileFacts& r = artifact.container_remote.emplace();
      r.url = report->url;
      r.etag = report->etag;
      r.last_modified = report->last_modified;
      r.bytes_transferred = report->bytes_transferred;
    }
  }
  for (AdmittedFile& f : artifact.files) {
    std::string name = f.name;
    if (name.empty() && entries && entries->size() == 1) name = entries->front().name;
    auto report = source->FileReport(name);
    if (!report) continue;
    RemoteFileFacts& r = f.remote.emplace();
    r.url = report->url;
    r.etag = report->etag;
    r.last_modified = report->last_modified;
    r.bytes_transferred = report->bytes_transferred;
    if (const remote::ListedFile* listed = source->Listed(name)) {
      r.lfs_oid = listed->lfs_oid;
      r.git_oid = listed->git_oid;
    }
  }
}

void LocateInFilesRoot(const Artifact& artifact, std::vector<Finding>& findings) {
  if (artifact.files_root.empty()) return;
  for (Finding& f : findings) {
    if (!f.location.file.empty() && f.location.artifact.empty()) f.location.artifact = artifact.files_root;
  }
}

void SortFindings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    auto key = [](const Finding& f) {
      const Location& l = f.location;
      return std::tuple(static_cast<int>(f.rule->tier), FileRank(l.file), l.file, l.line.value_or(0),
                        l.column.value_or(0), l.byte_offset.value_or(0));
    };
    return key(a) < key(b);
  });
}

}  // namespace ckpt
