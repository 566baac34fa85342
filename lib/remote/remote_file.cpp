#include "lib/remote/remote_file.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <span>

namespace ckpt::remote {
namespace {

constexpr std::uint64_t kFirstRead = 65536;
constexpr std::uint64_t kWholeFromOneAnswer = std::uint64_t{32} << 20;  // a 200 kept whole: the remote buffer bound
constexpr std::uint64_t kStreamRequest = std::uint64_t{16} << 20;
constexpr std::size_t kStreamBuffer = std::size_t{8} << 20;
constexpr std::size_t kRecentLimit = std::size_t{1} << 20;
// Planned reads closer than this are fetched together: a request costs about what this many
// bytes cost to transfer (tens of milliseconds at tens of MB/s), so the gap is cheaper to read.
constexpr std::uint64_t kCoalesceGap = std::uint64_t{256} << 10;
// The most one planned request reads, and the most a file keeps of planned ranges fetched.
constexpr std::uint64_t kPlannedLimit = std::uint64_t{4} << 20;
constexpr std::uint64_t kKeptPlannedLimit = std::uint64_t{16} << 20;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"  // boost's category base: never deleted through it
class RemoteCategory final : public boost::system::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "remote"; }
  [[nodiscard]] std::string message(int value) const override {
    std::lock_guard lock(mutex_);
    return value >= 0 && static_cast<std::size_t>(value) < texts_.size() ? texts_[static_cast<std::size_t>(value)]
                                                                         : "remote read failed";
  }
  int Add(std::string text) {
    std::lock_guard lock(mutex_);
    if (texts_.size() > 100'000) return -1;  // bounded: a later failure reads generically
    texts_.push_back(std::move(text));
    return static_cast<int>(texts_.size() - 1);
  }

 private:
  mutable std::mutex mutex_;
  std::deque<std::string> texts_;
};
#pragma GCC diagnostic pop

RemoteCategory& Category() {
  static RemoteCategory category;
  return category;
}

boost::system::error_code Errno(int value) { return {value, boost::system::system_category()}; }

// Bytes received ahead of the reader: a fixed ring, so the read-ahead is bounded and copied
// in at most two memcpy calls each way. Its memory is given back by Release() once the stream
// has fetched all it was asked for and its reader has drained it (and taken again if the stream
// goes on): a remote folder keeps a stream per file, and an 8 MiB ring held by every file read
// so far made a 40-shard audit hold 362 MiB (issue 50).
class ByteRing {
 public:
  // The memory is taken and touched here, by the thread that starts the stream: faulting its
  // pages in later, in Push under the stream's lock, kept the reader waiting (12% slower).
  explicit ByteRing(std::size_t capacity) : capacity_(capacity), bytes_(std::make_unique<std::byte[]>(capacity)) {}
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t room() const { return capacity_ - size_; }
  /// Appends in.size() <= room() bytes.
  void Push(std::span<const std::byte> in) {
    if (in.empty()) return;
    if (!bytes_) {
      bytes_ = std::make_unique_for_overwrite<std::byte[]>(capacity_);
      head_ = 0;
    }
    std::size_t tail = (head_ + size_) % capacity_;
    const std::size_t first = std::min(in.size(), capacity_ - tail);
    std::memcpy(bytes_.get() + tail, in.data(), first);
    std::memcpy(bytes_.get(), in.data() + first, in.size() - first);
    size_ += in.size();
  }
  /// Removes out.size() <= size() bytes into `out`.
  void Pop(std::span<std::byte> out) {
    if (out.empty()) return;
    const std::size_t first = std::min(out.size(), capacity_ - head_);
    std::memcpy(out.data(), bytes_.get() + head_, first);
    std::memcpy(out.data() + first, bytes_.get(), out.size() - first);
    head_ = (head_ + out.size()) % capacity_;
    size_ -= out.size();
  }
  /// Gives the memory back when nothing is held (the next Push takes it again).
  void Release() {
    if (size_ == 0) bytes_.reset();
  }

 private:
  std::size_t capacity_;
  std::unique_ptr<std::byte[]> bytes_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

// "bytes A-B/S" -> A, B, S.
std::optional<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> ParseContentRange(const std::string& value) {
  if (!value.starts_with("bytes ")) return std::nullopt;
  std::string_view rest = std::string_view(value).substr(6);
  auto number = [&rest](char stop) -> std::optional<std::uint64_t> {
    const std::size_t end = stop == '\0' ? rest.size() : rest.find(stop);
    if (end == 0 || end == std::string_view::npos || end > 19) return std::nullopt;
    std::uint64_t n = 0;
    for (char c : rest.substr(0, end)) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    rest = rest.substr(std::min(rest.size(), end + 1));
    return n;
  };
  auto first = number('-');
  auto last = first ? number('/') : std::nullopt;
  auto size = last ? number('\0') : std::nullopt;
  if (!size || *last < *first || *last >= *size) return std::nullopt;
  return std::tuple(*first, *last, *size);
}

std::string StrongEtag(const std::map<std::string, std::string>& headers) {
  auto it = headers.find("etag");
  if (it == headers.end() || it->second.starts_with("W/") || it->second.size() < 2) return {};
  return it->second;
}

std::string HeaderOr(const std::map<std::string, std::string>& headers, const std::string& name) {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

}  // namespace

boost::system::error_code RemoteError(std::string text) {
  const int value = Category().Add(std::move(text));
  if (value < 0) return Errno(EIO);
  return {value, Category()};
}

// A range streamed ahead of its reader by a thread of its own.
struct RemoteObject::Stream {
  std::mutex mutex;
  std::condition_variable changed;
  ByteRing buffer{kStreamBuffer};  // bytes received, not yet read
  std::uint64_t position = 0;      // file offset of buffer.front()
  std::uint64_t end = 0;           // the range ends here
  bool cancel = false;
  std::atomic<bool> cancel_transfer{false};  // the same, for the transfer in flight
  bool finished = false;
  boost::system::error_code error;
  std::map<std::string, std::string> change_headers;  // the answer that showed another version
  long change_status = 0;
  std::thread thread;
};

RemoteObject::RemoteObject(FileEndpoint endpoint, const RemoteOptions& options, TransferCounters& input_counters)
    : endpoint_(std::move(endpoint)), options_(options), input_counters_(input_counters) {}

RemoteObject::~RemoteObject() { StopStream(); }

HttpRequest RemoteObject::RequestFor(std::uint64_t first, std::uint64_t last, bool direct) const {
  HttpRequest request;
  request.url = direct ? served_by_ : endpoint_.url;
  request.range = std::pair(first, last);
  request.authorization = endpoint_.authorization;
  request.authorization_origin = endpoint_.authorization_origin;
  if (!etag_.empty()) {
    request.condition = "If-Match: " + etag_;
  } else if (!last_modified_.empty()) {
    request.condition = "If-Unmodified-Since: " + last_modified_;
  }
  request.condition_origin = validator_origin_;
  return request;
}

void RemoteObject::NoteChange(const std::map<std::string, std::string>& headers, long status) {
  if (change_) return;
  const std::string etag = StrongEtag(headers);
  now_etag_ = !etag.empty() ? etag : (status == 412 ? "(HTTP 412 Precondition Failed)" : "another version");
  change_ = now_etag_;
}

boost::system::error_code RemoteObject::Changed() { return Errno(kFileChangedErrno); }

void RemoteObject::Count(const TransferCounters& request) {
  for (TransferCounters* into : {&input_counters_, &file_counters_}) {
    into->bytes += request.bytes.load();
    into->requests += request.requests.load();
  }
}

std::string RemoteObject::CheckHeaders(long status, const std::map<std::string, std::string>& headers,
                                       std::uint64_t first, std::uint64_t last, bool* changed) const {
  const std::string where = endpoint_.url.Redacted();
  if (status == 200) return where + ": the server stopped honouring range requests (HTTP 200 to a range)";
  if (status != 206) return where + ": " + DescribeStatus(status, "");
  auto range = ParseContentRange(HeaderOr(headers, "content-range"));
  if (!range || std::get<0>(*range) != first || std::get<1>(*range) != std::min(last, size_ - 1)) {
    return where + ": a malformed or unasked-for Content-Range";
  }
  const bool same_version =
      std::get<2>(*range) == size_ &&
      (!etag_.empty() ? StrongEtag(headers) == etag_ : HeaderOr(headers, "last-modified") == last_modified_) &&
      (!endpoint_.expected_commit || !headers.count("x-repo-commit") ||
       headers.at("x-repo-commit") == *endpoint_.expected_commit);
  if (!same_version) *changed = true;
  return {};
}

std::string RemoteObject::CheckPartial(const HttpResponse& response, std::uint64_t first, std::uint64_t last,
                                       bool* changed) const {
  if (!response.error.empty()) return response.error;
  if (response.status == 412) {
    *changed = true;
    return {};
  }
  if (response.status != 200 && response.status != 206) {
    return endpoint_.url.Redacted() + ": " + DescribeStatus(response.status, response.reason);
  }
  return CheckHeaders(response.status, response.headers, first, last, changed);
}

IoResult<void> RemoteObject::Bind() {
  std::lock_guard lock(mutex_);
  if (!served_by_.host.empty()) return {};  // bound already: the first read is not repeated
  std::vector<std::byte> body;
  std::uint64_t limit = kFirstRead;
  HttpRequest request;
  request.url = endpoint_.url;
  request.range = std::pair<std::uint64_t, std::uint64_t>(0, kFirstRead - 1);
  request.authorization = endpoint_.authorization;
  request.authorization_origin = endpoint_.authorization_origin;
  bool too_long = false;
  const HeadersCheck check = [&](long status, const std::map<std::string, std::string>& headers) {
    if (status == 200) {  // the server ignores ranges: the whole file comes
      const std::string length = HeaderOr(headers, "content-length");
      limit = kWholeFromOneAnswer;
      if (!length.empty() && length.size() < 19 && std::stoull(length) > kWholeFromOneAnswer) {
        too_long = true;
        return false;
      }
    }
    return true;
  };
  auto sink = [&](std::span<const std::byte> bytes) {
    if (body.size() + bytes.size() > limit) {
      too_long = true;
      return false;
    }
    body.insert(body.end(), bytes.begin(), bytes.end());
    return true;
  };
  TransferCounters counters;
  HttpResponse response = Get(request, options_, counters, sink, check);
  if (response.status == 416 && HeaderOr(response.headers, "content-range") == "bytes */0" && response.error.empty()) {
    // An empty file: asked once more without a range, and that answer binds it.
    Count(counters);
    counters.bytes = 0;
    counters.requests = 0;
    request.range.reset();
    body.clear();
    response = Get(request, options_, counters, sink, check);
    if (response.error.empty() && response.status == 200 && !body.empty()) {
      response.error = endpoint_.url.Redacted() + ": an empty file (HTTP 416) answered with bytes";
    }
  }
  Count(counters);
  const std::string where = endpoint_.url.Redacted();
  if (!response.error.empty() && !too_long) return RemoteError(response.error);
  if (response.status == 404 || response.status == 410) return Errno(ENOENT);
  if ((response.status == 401 || response.status == 403) && endpoint_.expected_commit) {  // the Hub
    const bool token = !endpoint_.authorization.empty();
    return RemoteError(where + ": " + DescribeStatus(response.status, response.reason) +
                       (token ? " (HF_TOKEN was refused)" : " (gated or private repository: set HF_TOKEN)"));
  }
  if (too_long) return RemoteError(where + ": the server ignores range requests");
  if (response.status == 206) {
    auto range = ParseContentRange(HeaderOr(response.headers, "content-range"));
    if (!range || std::get<0>(*range) != 0 ||
        std::get<1>(*range) != std::min<std::uint64_t>(kFirstRead - 1, std::get<2>(*range) - 1)) {
      return RemoteError(where + ": a 206 without a valid Content-Range for bytes 0-65535");
    }
    size_ = std::get<2>(*range);
    if (body.size() != std::get<1>(*range) + 1) return RemoteError(where + ": short body");
  } else if (response.status == 200) {
    const std::string length = HeaderOr(response.headers, "content-length");
    if (!length.empty() && std::to_string(body.size()) != length) return RemoteError(where + ": short body");
    size_ = body.size();
    whole_in_head_ = true;
  } else {
    return RemoteError(where + ": " + DescribeStatus(response.status, response.reason));
  }
  etag_ = StrongEtag(response.headers);
  if (etag_.empty()) last_modified_ = HeaderOr(response.headers, "last-modified");
  if (etag_.empty() && last_modified_.empty()) {
    return RemoteError(where + ": the server gives no validator: the bytes cannot be bound to one version of the file");
  }
  served_by_ = response.served_by;
  validator_origin_ = response.served_by.Origin();
  if (endpoint_.expected_commit) {
    if (const std::string commit = HeaderOr(response.headers, "x-repo-commit");
        !commit.empty() && commit != *endpoint_.expected_commit) {
      change_ = "X-Repo-Commit " + commit;
      now_etag_ = etag_ + " at commit " + commit;
    }
  }
  if (endpoint_.listed_size) {
    if (const std::string linked = HeaderOr(response.headers, "x-linked-size");
        !linked.empty() && linked != std::to_string(*endpoint_.listed_size)) {
      linked_size_mismatch_ = linked;
    }
  }
  head_ = std::move(body);
  return {};
}

FileIdentity RemoteObject::identity() const {
  std::lock_guard lock(mutex_);
  FileIdentity id;
  id.size = size_;
  id.etag = etag_;
  id.last_modified = etag_.empty() ? last_modified_ : std::string();
  return id;
}

IoResult<void> RemoteObject::FetchExact(std::uint64_t offset, std::span<std::byte> out) {
  const std::uint64_t last = offset + out.size() - 1;
  std::size_t filled = 0;
  bool changed = false;
  std::string problem;
  const HeadersCheck check = [&](long status, const std::map<std::string, std::string>& headers) {
    problem = CheckHeaders(status, headers, offset, last, &changed);
    return problem.empty() && !changed;
  };
  auto sink = [&](std::span<const std::byte> bytes) {
    if (bytes.size() > out.size() - filled) {
      problem = endpoint_.url.Redacted() + ": an over-long body";
      return false;
    }
    std::memcpy(out.data() + filled, bytes.data(), bytes.size());
    filled += bytes.size();
    return true;
  };
  TransferCounters counters;
  // Straight to the redirect's target while it answers (the Hub redirects each request to its
  // CDN: two requests a read otherwise); If-Match binds it to the same bytes. Once it refuses
  // (a signed URL expired, say), every request goes through the redirect again.
  const bool direct =
      !direct_failed_ && !served_by_.host.empty() && served_by_.ForRequest() != endpoint_.url.ForRequest();
  HttpResponse response = Get(RequestFor(offset, last, direct), options_, counters, sink, check);
  Count(counters);
  if (problem.empty() && !changed) problem = CheckPartial(response, offset, last, &changed);
  if (direct && !changed && !problem.empty() && filled == 0) {
    direct_failed_ = true;
    problem.clear();
    TransferCounters again;
    response = Get(RequestFor(offset, last), options_, again, sink, check);
    Count(again);
    if (problem.empty() && !changed) problem = CheckPartial(response, offset, last, &changed);
  }
  if (changed) {
    NoteChange(response.headers, response.status);
    return Changed();
  }
  if (!problem.empty()) return RemoteError(problem);
  if (filled != out.size()) return RemoteError(endpoint_.url.Redacted() + ": short body");
  return {};
}

void RemoteObject::StopStream() {
  std::unique_ptr<Stream> stream;
  {
    // Called with mutex_ held by ReadAt/ExpectSequentialRead/Release; the stream thread
    // never takes mutex_ (it reports through the stream's own lock).
    stream = std::move(stream_);
  }
  if (!stream) return;
  {
    std::lock_guard lock(stream->mutex);
    stream->cancel = true;
    stream->cancel_transfer = true;
  }
  stream->changed.notify_all();
  if (stream->thread.joinable()) stream->thread.join();
}

void RemoteObject::ExpectSequentialRead(std::uint64_t offset, std::uint64_t length) {
  std::lock_guard lock(mutex_);
  if (length == 0 || offset >= size_ || whole_in_head_ || change_) return;
  const std::uint64_t end = std::min(size_, offset + length);
  if (end <= head_.size()) return;  // the first read holds it all
  if (stream_) {
    std::lock_guard stream_lock(stream_->mutex);
    // Adjacent to the range in flight: the same stream goes on.
    if (stream_->end == offset && !stream_->cancel && !stream_->error) {
      stream_->end = end;
      stream_->changed.notify_all();
      return;
    }
  }
  StopStream();
  auto stream = std::make_unique<Stream>();
  stream->position = offset;
  stream->end = end;
  Stream* s = stream.get();
  HttpRequest base = RequestFor(0, 0);
  // Planned ranges fetched already are copied from memory, not asked again: each byte is
  // transferred once, whether the structure or the hash read it first. A small one (a local
  // header) is transferred again instead: splitting the stream around it would cost a request.
  std::vector<std::pair<std::uint64_t, std::shared_ptr<const std::vector<std::byte>>>> kept;
  for (const auto& range : fetched_plans_) {
    if (range.second->size() >= kCoalesceGap) kept.push_back(range);
  }
  stream->thread = std::thread([this, s, base, kept = std::move(kept)] {
    std::uint64_t next = s->position;
    // Hands bytes to the reader through the ring; false when the stream was cancelled.
    auto push = [s](std::span<const std::byte> bytes, std::unique_lock<std::mutex>& stream_lock) {
      while (!bytes.empty()) {
        s->changed.wait(stream_lock, [&] { return s->cancel || s->buffer.room() > 0; });
        if (s->cancel) return false;
        const std::size_t n = std::min(bytes.size(), s->buffer.room());
        s->buffer.Push(bytes.first(n));
        bytes = bytes.subspan(n);
        s->changed.notify_all();
      }
      return true;
    };
    for (;;) {
      std::uint64_t end_now = 0;
      {
        std::unique_lock stream_lock(s->mutex);
        if (!s->cancel && next >= s->end) {  // done, unless an adjacent extent extends the range
          s->finished = true;
          s->buffer.Release();  // when its reader has drained it already
          s->changed.notify_all();
          s->changed.wait(stream_lock, [&] { return s->cancel || next < s->end; });
          s->finished = false;
        }
        if (s->cancel) return;
        end_now = s->end;
      }
      auto held =
          std::upper_bound(kept.begin(), kept.end(), next, [](std::uint64_t x, const auto& k) { return x < k.first; });
      if (held != kept.begin() && next - std::prev(held)->first < std::prev(held)->second->size()) {
        const auto& [begin, bytes] = *std::prev(held);
        const std::uint64_t stop = std::min(end_now, begin + bytes->size());
        std::unique_lock stream_lock(s->mutex);
        if (!push(std::span(*bytes).subspan(next - begin, stop - next), stream_lock)) return;
        next = stop;
        continue;
      }
      std::uint64_t stop = std::min(end_now, next + kStreamRequest);
      if (held != kept.end()) stop = std::min(stop, std::max(next + 1, held->first));
      const std::uint64_t last = stop - 1;
      HttpRequest request = base;
      request.range = std::pair(next, last);
      request.cancel = &s->cancel_transfer;
      bool changed = false;
      std::string problem;
      std::uint64_t received = 0;
      const HeadersCheck check = [&](long status, const std::map<std::string, std::string>& headers) {
        problem = CheckHeaders(status, headers, next, last, &changed);
        return problem.empty() && !changed;
      };
      auto sink = [&](std::span<const std::byte> bytes) {
        std::unique_lock stream_lock(s->mutex);
        if (received + bytes.size() > last - next + 1) {
          problem = endpoint_.url.Redacted() + ": an over-long body";
          return false;
        }
        received += bytes.size();
        return push(bytes, stream_lock);
      };
      TransferCounters counters;
      HttpResponse response = Get(request, options_, counters, sink, check);
      Count(counters);
      std::lock_guard stream_lock(s->mutex);
      if (s->cancel) return;
      if (problem.empty() && !changed) problem = CheckPartial(response, next, last, &changed);
      if (!changed && problem.empty() && received != last - next + 1) {
        problem = endpoint_.url.Redacted() + ": short body";
      }
      if (changed) {
        s->error = Errno(kFileChangedErrno);
        s->change_headers = response.headers;
        s->change_status = response.status;
      } else if (!problem.empty()) {
        s->error = RemoteError(problem);
      }
      if (s->error) {
        s->changed.notify_all();
        return;
      }
      next = last + 1;
    }
  });
  stream_ = std::move(stream);
}

IoResult<void> RemoteObject::ReadAt(std::uint64_t offset, std::span<std::byte> out) {
  std::lock_guard lock(mutex_);
  if (offset > size_ || out.size() > size_ - offset) return Errno(EIO);
  if (out.empty()) return {};
  if (change_) return Changed();
  // The first read's bytes, and the last exact read's, serve what they hold.
  auto from = [&](const std::vector<std::byte>& bytes, std::uint64_t at) {
    if (offset < at || offset - at >= bytes.size() || out.size() > bytes.size() - (offset - at)) return false;
    std::memcpy(out.data(), bytes.data() + (offset - at), out.size());
    return true;
  };
  if (from(head_, 0) || from(recent_, recent_at_)) return {};
  if (stream_) {
    std::unique_lock stream_lock(stream_->mutex);
    Stream& s = *stream_;
    if (s.position == offset && offset + out.size() <= s.end) {
      std::size_t filled = 0;
      while (filled < out.size()) {
        s.changed.wait(stream_lock, [&] { return !s.buffer.empty() || s.error; });
        if (s.buffer.empty() && s.error) {
          const boost::system::error_code error = s.error;
          if (error.value() == kFileChangedErrno && error.category() == boost::system::system_category()) {
            NoteChange(s.change_headers, s.change_status);
          }
          stream_lock.unlock();
          StopStream();
          return error;
        }
        const std::size_t n = std::min(out.size() - filled, s.buffer.size());
        s.buffer.Pop(out.subspan(filled, n));
        s.position += n;
        filled += n;
        s.changed.notify_all();
      }
      if (s.finished) s.buffer.Release();  // all it was asked for is fetched and now read
      return {};
    }
  }
  // Bytes the first read holds at the front are not asked for again.
  std::uint64_t at = offset;
  std::span<std::byte> rest = out;
  if (!whole_in_head_ && at < head_.size()) {
    const auto n = static_cast<std::size_t>(head_.size() - at);
    std::memcpy(rest.data(), head_.data() + at, n);
    at += n;
    rest = rest.subspan(n);
  }
  if (whole_in_head_) return Errno(EIO);
  // A planned read: the merged range holding it is fetched whole, and serves the reads after it.
  if (auto kept = KeptPlanned(at, rest.size())) {
    std::memcpy(rest.data(), kept->data(), rest.size());
    return {};
  }
  auto plan = std::upper_bound(planned_.begin(), planned_.end(), at,
                               [](std::uint64_t x, const PlannedRead& r) { return x < r.offset; });
  if (plan != planned_.begin() && at + rest.size() <= std::prev(plan)->offset + std::prev(plan)->length) {
    const PlannedRead range = *std::prev(plan);
    planned_.erase(std::prev(plan));
    std::vector<std::byte> bytes(static_cast<std::size_t>(range.length));
    if (auto fetched = FetchExact(range.offset, bytes); !fetched) return fetched;
    std::memcpy(rest.data(), bytes.data() + (at - range.offset), rest.size());
    if (fetched_plan_bytes_ + bytes.size() <= kKeptPlannedLimit) {
      fetched_plan_bytes_ += bytes.size();
      fetched_plans_.emplace(range.offset, std::make_shared<const std::vector<std::byte>>(std::move(bytes)));
    }
    return {};
  }
  if (auto fetched = FetchExact(at, rest); !fetched) return fetched;
  if (out.size() <= kRecentLimit) {
    recent_.assign(out.begin(), out.end());
    recent_at_ = offset;
  }
  return {};
}

void RemoteObject::Release() {
  std::lock_guard lock(mutex_);
  StopStream();
  recent_.clear();
  recent_.shrink_to_fit();
  planned_.clear();
  planned_.shrink_to_fit();
  fetched_plans_.clear();
  fetched_plan_bytes_ = 0;
}

std::optional<std::span<const std::byte>> RemoteObject::KeptPlanned(std::uint64_t offset, std::uint64_t length) const {
  auto kept = fetched_plans_.upper_bound(offset);
  if (kept == fetched_plans_.begin()) return std::nullopt;
  const auto& [begin, bytes] = *std::prev(kept);
  if (offset - begin > bytes->size() || length > bytes->size() - (offset - begin)) return std::nullopt;
  return std::span<const std::byte>(*bytes).subspan(static_cast<std::size_t>(offset - begin),
                                                    static_cast<std::size_t>(length));
}

void RemoteObject::PlanReads(std::span<const PlannedRead> reads) {
  std::lock_guard lock(mutex_);
  std::vector<PlannedRead> sorted;
  sorted.reserve(reads.size());
  for (const PlannedRead& r : reads) {
    // Within the file, past what the first read holds, and small enough to plan.
    if (r.length == 0 || r.offset >= size_ || r.length > kPlannedLimit) continue;
    const std::uint64_t end = std::min(size_, r.offset + r.length);
    if (end <= head_.size()) continue;
    const std::uint64_t begin = std::max<std::uint64_t>(r.offset, head_.size());
    sorted.push_back({begin, end - begin});
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const PlannedRead& a, const PlannedRead& b) { return a.offset < b.offset; });
  // Gaps are read only while the file's planned bytes stay within what it keeps: beyond that,
  // each read is its own request (a big zip of small members is not fetched whole twice, once
  // for its structure and once by the hash, which takes the kept ranges from memory).
  std::vector<PlannedRead> merged;
  std::uint64_t planned_bytes = 0;
  for (const PlannedRead& r : sorted) {
    if (!merged.empty()) {
      PlannedRead& last = merged.back();
      const std::uint64_t last_end = last.offset + last.length;
      const std::uint64_t end = std::max(last_end, r.offset + r.length);
      if (r.offset <= last_end + kCoalesceGap && end - last.offset <= kPlannedLimit &&
          planned_bytes + (end - last_end) <= kKeptPlannedLimit) {
        planned_bytes += end - last_end;
        last.length = end - last.offset;
        continue;
      }
      if (r.offset < last_end) continue;  // overlaps a range already at its limit: read exactly
    }
    planned_bytes += r.length;
    merged.push_back(r);
  }
  // Ranges a kept fetch holds already are not asked again.
  std::erase_if(merged, [&](const PlannedRead& r) { return KeptPlanned(r.offset, r.length).has_value(); });
  planned_ = std::move(merged);
}

IoResult<FileIdentity> RemoteObject::Revalidate() {
  std::lock_guard lock(mutex_);
  StopStream();
  FileIdentity id;
  id.size = size_;
  id.etag = etag_;
  id.last_modified = etag_.empty() ? last_modified_ : std::string();
  if (change_) {
    (etag_.empty() ? id.last_modified : id.etag) = now_etag_;
    return id;
  }
  HttpRequest request = RequestFor(0, 0);
  if (size_ == 0) request.range.reset();
  std::uint64_t received = 0;
  auto sink = [&](std::span<const std::byte> bytes) {
    received += bytes.size();
    return received <= kFirstRead;
  };
  TransferCounters counters;
  HttpResponse response = Get(request, options_, counters, sink);
  Count(counters);
  if (!response.error.empty() && !response.stopped) return RemoteError(response.error);
  if (response.status == 404 || response.status == 410) return Errno(ENOENT);
  bool changed = response.status == 412;
  if (response.status == 206) {
    std::string problem = CheckHeaders(response.status, response.headers, 0, 0, &changed);
    if (!problem.empty()) return RemoteError(problem);
  } else if (response.status == 200) {  // a file read whole from one answer, or an empty one
    const std::string length = HeaderOr(response.headers, "content-length");
    changed = (!etag_.empty() ? StrongEtag(response.headers) != etag_
                              : HeaderOr(response.headers, "last-modified") != last_modified_) ||
              (!length.empty() && length != std::to_string(size_));
    if (endpoint_.expected_commit && response.headers.count("x-repo-commit") &&
        response.headers.at("x-repo-commit") != *endpoint_.expected_commit) {
      changed = true;
    }
  } else if (!changed) {
    return RemoteError(endpoint_.url.Redacted() + ": " + DescribeStatus(response.status, response.reason));
  }
  if (changed) {
    NoteChange(response.headers, response.status);
    (etag_.empty() ? id.last_modified : id.etag) = now_etag_;
  }
  return id;
}

RemoteFileReport RemoteObject::Report() const {
  std::lock_guard lock(mutex_);
  RemoteFileReport report;
  report.url = served_by_.host.empty() ? endpoint_.url.Redacted() : served_by_.Redacted();
  report.etag = etag_;
  report.last_modified = last_modified_;
  report.bytes_transferred = file_counters_.bytes.load();
  report.linked_size_mismatch = linked_size_mismatch_;
  return report;
}

}  // namespace ckpt::remote
