#include "lib/formats/hdf5/h5probe_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "lib/formats/hdf5/h5probe_limits.h"
#include "lib/json/strict_parser.h"

namespace ckpt::hdf5 {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kFeedChunk = std::size_t{1} << 20;

// One descriptor, closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { Close(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  [[nodiscard]] int get() const { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

bool MakePipe(Fd& read_end, Fd& write_end) {
  std::array<int, 2> ends{-1, -1};
  if (::pipe2(ends.data(), O_CLOEXEC) != 0) return false;
  read_end = Fd(ends[0]);
  write_end = Fd(ends[1]);
  return true;
}

// The pinned limits, also applied by the helper to itself.
bool LimitChild(pid_t pid, std::uint64_t size, unsigned cpu_seconds) {
  bool all = true;
  for (const ProbeLimit& limit : ProbeLimits(size, cpu_seconds)) {
    const struct rlimit wanted { limit.soft, limit.hard };
    all &= ::prlimit(pid, static_cast<__rlimit_resource>(limit.resource), &wanted, nullptr) == 0;
  }
  return all;
}

std::string SignalName(int signal, unsigned cpu_seconds) {
  const char* abbreviation = ::sigabbrev_np(signal);
  std::string name = abbreviation != nullptr ? "SIG" + std::string(abbreviation) : "number " + std::to_string(signal);
  if (signal == SIGXCPU) name += " (its CPU-time limit of " + std::to_string(cpu_seconds) + " s)";
  if (signal == SIGKILL) name += " (not by the audit: the CPU limit's hard second, or the system)";
  if (signal == SIGXFSZ) name += " (it tried to write a file)";
  if (signal == SIGSEGV || signal == SIGBUS) name += " (a memory fault)";
  if (signal == SIGABRT) name += " (it aborted, as it does when its 2 GiB address-space limit refuses memory)";
  if (signal == SIGSYS) name += " (its seccomp filter: the file made it attempt a system call reading never needs)";
  return name;
}

std::string ExitReason(int code) {
  switch (code) {
    case 2:
      return "exited with status 2 (it could not set its limits or was started wrongly)";
    case 3:
      return "exited with status 3 (its input ended before the file's bytes did)";
    case 4:
      return "exited with status 4 (its answer could not be written or was past 64 MiB)";
    case 127:
      return "exited with status 127 (it could not be run)";
    default:
      return "exited with status " + std::to_string(code);
  }
}

// Writes to the pipe without letting a helper that exits early kill the audit with SIGPIPE:
// the signal is blocked on this thread and a pending one consumed.
ssize_t WriteNoSigpipe(int fd, const std::byte* data, std::size_t size) {
  sigset_t pipe_only;
  sigset_t previous;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
  const ssize_t n = ::write(fd, data, size);
  const int saved = errno;
  if (n < 0 && saved == EPIPE) {
    const struct timespec zero {};
    while (::sigtimedwait(&pipe_only, nullptr, &zero) == SIGPIPE) {
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  errno = saved;
  return n;
}

// The helper, running: killed and reaped on every path out.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  ~Child() {
    if (pid_ > 0) {
      Kill();
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  void Kill() {
    ::kill(pid_, SIGKILL);
    killed_ = true;
  }
  [[nodiscard]] bool killed() const { return killed_; }
  [[nodiscard]] pid_t pid() const { return pid_; }
  // Waits for the exit until `deadline`, then kills; returns the wait status.
  int Reap(Clock::time_point deadline) {
    int status = 0;
    auto pause = std::chrono::microseconds(200);
    for (;;) {
      const pid_t done = ::waitpid(pid_, &status, WNOHANG);
      if (done == pid_) break;
      if (done < 0 && errno != EINTR) break;
      if (Clock::now() >= deadline && !killed_) Kill();
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(20'000));
    }
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_;
  bool killed_ = false;
};

struct Exchange {
  std::vector<char> received;
  std::string failure;  // set when the exchange itself failed (too long, timeout)
};

// Feeds `file` (when `feed` is open) and collects the answer until the helper closes its end,
// the answer passes its bound, or the deadline passes.
IoResult<Exchange> Converse(const RandomAccessFile& file, Fd& feed, Fd& answer, Child& child,
                            Clock::time_point deadline, unsigned wall_seconds) {
  Exchange out;
  std::vector<std::byte> chunk;
  std::size_t chunk_at = 0;
  std::uint64_t fed = 0;
  if (feed.get() >= 0) {
    ::fcntl(feed.get(), F_SETFL, O_NONBLOCK);
    file.ExpectSequentialRead(0, file.size());
  }
  ::fcntl(answer.get(), F_SETFL, O_NONBLOCK);
  std::array<char, 65536> buffer{};
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      child.Kill();
      out.failure =
          "did not answer within its wall-clock limit of " + std::to_string(wall_seconds) + " s and was killed";
      return out;
    }
    std::array<struct pollfd, 2> polled{{{answer.get(), POLLIN, 0}, {feed.get(), POLLOUT, 0}}};
    const nfds_t count = feed.get() >= 0 ? 2 : 1;
    const int ready = ::poll(polled.data(), count, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR)
      return IoResult<Exchange>(boost::system::error_code(errno, boost::system::system_category()));
    if (count == 2 && (polled[1].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
      if (chunk_at == chunk.size()) {
        chunk.resize(static_cast<std::size_t>(std::min<std::uint64_t>(kFeedChunk, file.size() - fed)));
        chunk_at = 0;
        if (auto read = file.ReadAt(fed, chunk); !read) return read.error();
      }
      const ssize_t n = WriteNoSigpipe(feed.get(), chunk.data() + chunk_at, chunk.size() - chunk_at);
      if (n > 0) {
        chunk_at += static_cast<std::size_t>(n);
        fed += static_cast<std::uint64_t>(n);
        if (fed == file.size()) feed.Close();
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        feed.Close();  // the helper stopped reading: its exit says why
      }
    }
    if ((polled[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const ssize_t n = ::read(answer.get(), buffer.data(), buffer.size());
      if (n == 0) return out;
      if (n > 0) {
        out.received.insert(out.received.end(), buffer.data(), buffer.data() + n);
        if (out.received.size() > std::size_t{4} + kMaxAnswerBytes) {
          child.Kill();
          out.failure = "answered more than its bound of 64 MiB and was killed";
          return out;
        }
      } else if (errno != EAGAIN && errno != EINTR) {
        return out;
      }
    }
  }
}

}  // namespace

namespace {
std::mutex g_fallback_mutex;
std::string g_fallback;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables): set once by an embedder
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): set once by an embedder
std::atomic<unsigned> g_cpu_seconds{kPinnedCpuSeconds};
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): set once by an embedder
std::atomic<unsigned> g_wall_seconds{kPinnedWallSeconds};
}  // namespace

void SetProbeTimes(ProbeTimes times) {
  const auto lowered = [](unsigned wanted, unsigned pinned) {
    return wanted == 0 || wanted > pinned ? pinned : wanted;
  };
  g_cpu_seconds = lowered(times.cpu_seconds, kPinnedCpuSeconds);
  g_wall_seconds = lowered(times.wall_seconds, kPinnedWallSeconds);
}

ProbeTimes CurrentProbeTimes() { return {g_cpu_seconds.load(), g_wall_seconds.load()}; }

void SetProbeFallback(std::string path) {
  const std::scoped_lock lock(g_fallback_mutex);
  g_fallback = std::move(path);
}

std::string ProbePath() {
  if (const char* configured = std::getenv("CKPT_H5PROBE"); configured != nullptr && configured[0] != '\0') {
    return configured;
  }
  {
    const std::scoped_lock lock(g_fallback_mutex);
    if (!g_fallback.empty()) return g_fallback;
  }
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "ckpt-h5probe";
  return (self.parent_path() / "ckpt-h5probe").string();
}

namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"  // boost's category base: never deleted through it
class ProbeStart final : public boost::system::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "ckpt-h5probe"; }
  [[nodiscard]] std::string message(int code) const override {
    return "the isolated HDF5 reader ckpt-h5probe could not be started (" + std::string(std::strerror(code)) +
           "): install it beside the tools, or name it with CKPT_H5PROBE";
  }
};
#pragma GCC diagnostic pop

}  // namespace

const boost::system::error_category& ProbeStartCategory() {
  static const ProbeStart category;
  return category;
}

IoResult<ProbeOutcome> RunProbe(const RandomAccessFile& file) {
  const ProbeTimes times = CurrentProbeTimes();
  ProbeOutcome outcome;
  const std::uint64_t size = file.size();
  Fd input(file.DuplicateDescriptor());
  Fd feed;
  if (input.get() < 0) {
    if (size > kMaxPipedBytes) {
      outcome.failure = "cannot be given the bytes: they are not one local file, and " + std::to_string(size) +
                        " bytes are past the 4 GiB it takes through a pipe";
      return outcome;
    }
    if (!MakePipe(input, feed))
      return IoResult<ProbeOutcome>(boost::system::error_code(errno, boost::system::system_category()));
  }
  Fd answer_read;
  Fd answer_write;
  if (!MakePipe(answer_read, answer_write)) {
    return IoResult<ProbeOutcome>(boost::system::error_code(errno, boost::system::system_category()));
  }
  const std::string path = ProbePath();
  std::string size_text = std::to_string(size);
  std::array<char*, 3> argv{const_cast<char*>(path.c_str()), size_text.data(), nullptr};
  std::array<char*, 1> envp{nullptr};  // nothing of the audit's environment reaches libhdf5
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, answer_write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigset_t all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, path.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  input.Close();
  answer_write.Close();
  if (spawned != 0) {
    // The tool's own installation, not the file: a tool error, never a finding against the model.
    return IoResult<ProbeOutcome>(boost::system::error_code(spawned, ProbeStartCategory()));
  }
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(times.wall_seconds);
  Child child(pid);
  if (!LimitChild(pid, size, times.cpu_seconds)) {
    outcome.failure = "could not be given its resource limits";
    return outcome;  // Child's destructor kills and reaps it
  }
  auto exchange = Converse(file, feed, answer_read, child, deadline, times.wall_seconds);
  if (!exchange) return exchange.error();
  feed.Close();
  answer_read.Close();
  const bool timed_out = child.killed();
  const int status = child.Reap(deadline);
  if (!exchange->failure.empty()) {
    outcome.failure = exchange->failure;
    return outcome;
  }
  if (WIFSIGNALED(status)) {
    outcome.failure = WTERMSIG(status) == SIGKILL && (timed_out || child.killed())
                          ? "did not finish within its wall-clock limit of " + std::to_string(times.wall_seconds) +
                                " s and was killed"
                          : "was killed by signal " + SignalName(WTERMSIG(status), times.cpu_seconds);
    return outcome;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    outcome.failure = WIFEXITED(status) ? ExitReason(WEXITSTATUS(status)) : std::string("ended abnormally");
    return outcome;
  }
  const std::vector<char>& got = exchange->received;
  if (got.size() < 4) {
    outcome.failure = "exited without an answer";
    return outcome;
  }
  const std::uint32_t length = (static_cast<std::uint32_t>(static_cast<unsigned char>(got[0])) << 24U) |
                               (static_cast<std::uint32_t>(static_cast<unsigned char>(got[1])) << 16U) |
                               (static_cast<std::uint32_t>(static_cast<unsigned char>(got[2])) << 8U) |
                               static_cast<std::uint32_t>(static_cast<unsigned char>(got[3]));
  if (length > kMaxAnswerBytes || length != got.size() - 4) {
    outcome.failure = "gave a malformed answer (its length prefix says " + std::to_string(length) + " bytes; " +
                      std::to_string(got.size() - 4) + " followed)";
    return outcome;
  }
  json::Document doc(std::string(got.begin() + 4, got.end()));
  if (auto error = json::Parse(doc)) {
    outcome.failure = "gave a malformed answer (not strict JSON: " + error->message + ")";
    return outcome;
  }
  if (!doc.duplicates.empty()) {
    outcome.failure = "gave a malformed answer (a duplicate key)";
    return outcome;
  }
  outcome.answer = std::move(doc);
  return outcome;
}

}  // namespace ckpt::hdf5
