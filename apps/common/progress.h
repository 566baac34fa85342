// --progress: how many inputs are done, how many bytes were read and at what rate, on standard
// error: on a terminal one line redrawn a few times a second; with --progress always and no
// terminal (a CI log) a line every few seconds, never carriage returns; with always, the
// totals at the end, however short the run.
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
  bool terminal_ = false;  ///< stderr is a terminal: redraw one line
  bool always_ = false;    ///< --progress always: the totals are printed at the end too
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ckpt::cli
