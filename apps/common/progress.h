// --progress: one line on standard error, redrawn a few times a second, saying how many
// inputs are done, how many bytes were read and at what rate. Only on a terminal unless asked
// (CI logs never fill with carriage returns).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

namespace ckpt::cli {

class Progress {
 public:
  /// `when` is auto|always|never; `total` the inputs to audit.
  Progress(const std::string& tool, const std::string& when, std::size_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void InputDone() { done_.fetch_add(1, std::memory_order_relaxed); }
  [[nodiscard]] static bool ValidWhen(const std::string& when) {
    return when == "auto" || when == "always" || when == "never";
  }

 private:
  void Run();
  std::string tool_;
  std::size_t total_;
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ckpt::cli
