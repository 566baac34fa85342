#include "apps/common/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "lib/io/directory_source.h"
#include "lib/remote/http_client.h"

namespace ckpt::cli {

Progress::Progress(const std::string& tool, const std::string& when, std::size_t total) : tool_(tool), total_(total) {
  terminal_ = ::isatty(STDERR_FILENO) == 1;
  always_ = when == "always";
  if (always_ || (when == "auto" && terminal_)) thread_ = std::thread([this] { Run(); });
}

Progress::~Progress() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stop_signal_.notify_all();
  thread_.join();
}

void Progress::Run() {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const std::uint64_t first = DirectorySource::BytesRead();
  const std::uint64_t first_received = remote::BytesReceived();
  // A terminal gets one line redrawn 4 times a second; a log (stderr not a terminal, with
  // --progress always) a line every 5 seconds, and in both cases the totals at the end, so a
  // run shorter than one interval still says what it read.
  const auto interval = terminal_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(5000);
  auto line = [&] {
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const double bytes = static_cast<double>(DirectorySource::BytesRead() - first);
    const double received = static_cast<double>(remote::BytesReceived() - first_received);
    char text[256];
    if (received > 0) {  // remote inputs: what the network brought, and how fast
      std::snprintf(text, sizeof text, "%s: %zu/%zu inputs, %.2f GiB read, %.2f GiB transferred, %.1f MB/s",
                    tool_.c_str(), done_.load(std::memory_order_relaxed), total_, bytes / (1024.0 * 1024.0 * 1024.0),
                    received / (1024.0 * 1024.0 * 1024.0), seconds > 0 ? received / seconds / 1e6 : 0.0);
    } else {
      std::snprintf(text, sizeof text, "%s: %zu/%zu inputs, %.2f GiB read, %.2f GB/s", tool_.c_str(),
                    done_.load(std::memory_order_relaxed), total_, bytes / (1024.0 * 1024.0 * 1024.0),
                    seconds > 0 ? bytes / seconds / 1e9 : 0.0);
    }
    return std::string(text);
  };
  bool drawn = false;
  std::unique_lock lock(mutex_);
  while (!stop_signal_.wait_for(lock, interval, [this] { return stop_; })) {
    if (terminal_) {
      std::fprintf(stderr, "\r%s\033[K", line().c_str());
    } else {
      std::fprintf(stderr, "%s\n", line().c_str());
    }
    std::fflush(stderr);
    drawn = true;
  }
  if (drawn && terminal_) std::fputs("\r\033[K", stderr);  // the line is gone before the report follows
  if (always_) std::fprintf(stderr, "%s (done)\n", line().c_str());
  std::fflush(stderr);
}

}  // namespace ckpt::cli
