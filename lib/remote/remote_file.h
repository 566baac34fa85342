// One remote file read by range requests (remote.md sections 4 and 5): its first read binds
// its size and identity (strong ETag, else Last-Modified and size), every later request
// carries the condition and must answer for the same version, and the revalidation after
// the last read says whether it still is. Reads a consumer announces (the read ring's
// extents) stream ahead of it on a thread of their own, in requests of at most 16 MiB,
// through a bounded buffer; other reads ask for exactly the bytes missing.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/remote/http_client.h"

namespace ckpt::remote {

/// Where a file's requests start and what every answer for it must agree with.
struct FileEndpoint {
  std::string name;  ///< relative to the input ("" for a single file)
  Url url;
  std::string authorization;  ///< sent only to `authorization_origin`
  std::string authorization_origin;
  std::optional<std::string> expected_commit;  ///< hf: X-Repo-Commit must equal it
  std::optional<std::uint64_t> listed_size;    ///< hf: X-Linked-Size must equal it
};

/// An error code whose message is `text` (a remote failure: "URL: HTTP 500 ...").
boost::system::error_code RemoteError(std::string text);

/// What the report shows of a file (remote.md section 9).
struct RemoteFileReport {
  std::string url;  ///< redacted, the hop that served the bytes
  std::string etag;
  std::string last_modified;
  std::uint64_t bytes_transferred = 0;
  std::optional<std::string> linked_size_mismatch;  ///< X-Linked-Size differed from the listing
};

class RemoteObject : public std::enable_shared_from_this<RemoteObject> {
 public:
  RemoteObject(FileEndpoint endpoint, const RemoteOptions& options, TransferCounters& input_counters);
  ~RemoteObject();
  RemoteObject(const RemoteObject&) = delete;
  RemoteObject& operator=(const RemoteObject&) = delete;

  /// The first read: binds size and identity. ENOENT for 404/410; RemoteError otherwise.
  IoResult<void> Bind();
  [[nodiscard]] std::uint64_t size() const { return size_; }
  [[nodiscard]] FileIdentity identity() const;
  IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out);
  /// [offset, offset + length) will be read next, in order: stream it.
  void ExpectSequentialRead(std::uint64_t offset, std::uint64_t length);
  /// Reads about to be made: those lying close together are fetched in one request each.
  void PlanReads(std::span<const PlannedRead> reads);
  /// Stops a stream in flight and drops what is buffered beyond the first read.
  void Release();
  /// After the last read: asks once more under the condition; the identity it answers with.
  IoResult<FileIdentity> Revalidate();
  [[nodiscard]] RemoteFileReport Report() const;
  [[nodiscard]] const FileEndpoint& endpoint() const { return endpoint_; }

 private:
  struct Stream;
  /// A request for [first, last]; `direct`: to the URL the first read was served by (the
  /// redirect's target), not through the redirect again (the caller knows there was one).
  HttpRequest RequestFor(std::uint64_t first, std::uint64_t last, bool direct = false) const;
  /// Checks a 206 for [first, last]: status, Content-Range, validators, commit. Empty: fine.
  std::string CheckPartial(const HttpResponse& response, std::uint64_t first, std::uint64_t last, bool* changed) const;
  std::string CheckHeaders(long status, const std::map<std::string, std::string>& headers, std::uint64_t first,
                           std::uint64_t last, bool* changed) const;
  IoResult<void> FetchExact(std::uint64_t offset, std::span<std::byte> out);
  /// [offset, offset + length) from a planned range fetched and kept, when one holds it all.
  [[nodiscard]] std::optional<std::span<const std::byte>> KeptPlanned(std::uint64_t offset, std::uint64_t length) const;
  void StopStream();
  void NoteChange(const std::map<std::string, std::string>& headers, long status);
  boost::system::error_code Changed();
  /// Adds one request's cost to the input's and the file's counters.
  void Count(const TransferCounters& request);

  FileEndpoint endpoint_;
  const RemoteOptions& options_;
  TransferCounters& input_counters_;
  TransferCounters file_counters_;
  mutable std::mutex mutex_;
  std::uint64_t size_ = 0;
  std::string etag_;
  std::string last_modified_;
  std::string validator_origin_;
  Url served_by_;
  std::vector<std::byte> head_;  ///< the first read's bytes (or the whole file from a 200)
  bool whole_in_head_ = false;
  std::vector<std::byte> recent_;  ///< the last exact or planned read, for re-reads of a structure
  std::uint64_t recent_at_ = 0;
  std::vector<PlannedRead> planned_;  ///< planned reads merged, not yet fetched, by offset
  /// Planned ranges fetched, by offset, kept (up to a bound) for a second walk of the same
  /// structure (recognition and the reader both walk a zip's local headers).
  std::map<std::uint64_t, std::shared_ptr<const std::vector<std::byte>>> fetched_plans_;
  std::uint64_t fetched_plan_bytes_ = 0;
  bool direct_failed_ = false;         ///< the redirect's target refused once: always go through it
  std::optional<std::string> change_;  ///< the server's answer that showed another version
  std::string now_etag_;
  std::optional<std::string> linked_size_mismatch_;
  std::unique_ptr<Stream> stream_;
};

/// A RandomAccessFile over a bound RemoteObject.
class RemoteFile final : public RandomAccessFile {
 public:
  explicit RemoteFile(std::shared_ptr<RemoteObject> object) : object_(std::move(object)) {}
  [[nodiscard]] std::uint64_t size() const override { return object_->size(); }
  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    return object_->ReadAt(offset, out);
  }
  [[nodiscard]] FileIdentity identity() const override { return object_->identity(); }
  void Release() const override { object_->Release(); }
  void ExpectSequentialRead(std::uint64_t offset, std::uint64_t length) const override {
    object_->ExpectSequentialRead(offset, length);
  }
  void PlanReads(std::span<const PlannedRead> reads) const override { object_->PlanReads(reads); }
  [[nodiscard]] bool ReadsAreRequests() const override { return true; }

 private:
  std::shared_ptr<RemoteObject> object_;
};

}  // namespace ckpt::remote
