#include "apps/common/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "lib/io/directory_source.h"
#include "lib/remote/http_client.h"

namespace ckpt::cli {

Progress::Progress(const std::string& tool, const std::string& when, std::size_t total) : tool_(tool), total_(total) {
  const bool on = when == "always" || (when == "auto" && ::isatty(STDERR_FILENO) == 1);
  if (on) thread_ = std::thread([this] { Run(); });
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
  bool drawn = false;
  std::unique_lock lock(mutex_);
  while (!stop_signal_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; })) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const double bytes = static_cast<double>(DirectorySource::BytesRead() - first);
    const double received = static_cast<double>(remote::BytesReceived() - first_received);
    if (received > 0) {  // remote inputs: what the network brought, and how fast
      std::fprintf(stderr, "\r%s: %zu/%zu inputs, %.2f GiB read, %.2f GiB transferred, %.1f MB/s\033[K", tool_.c_str(),
                   done_.load(std::memory_order_relaxed), total_, bytes / (1024.0 * 1024.0 * 1024.0),
                   received / (1024.0 * 1024.0 * 1024.0), seconds > 0 ? received / seconds / 1e6 : 0.0);
    } else {
      std::fprintf(stderr, "\r%s: %zu/%zu inputs, %.2f GiB read, %.2f GB/s\033[K", tool_.c_str(),
                   done_.load(std::memory_order_relaxed), total_, bytes / (1024.0 * 1024.0 * 1024.0),
                   seconds > 0 ? bytes / seconds / 1e9 : 0.0);
    }
    std::fflush(stderr);
    drawn = true;
  }
  if (drawn) {
    std::fputs("\r\033[K", stderr);  // the line is gone before the report or errors follow
    std::fflush(stderr);
  }
}

}  // namespace ckpt::cli
