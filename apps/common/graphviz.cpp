#include "apps/common/graphviz.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>

extern char** environ;

namespace ckpt::cli {
namespace {

// Closes a descriptor once.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

}  // namespace

std::optional<std::string> RenderSvg(const std::string& dot_text, std::chrono::milliseconds timeout,
                                     std::size_t max_bytes) {
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) return std::nullopt;
  Fd in_read(in_pipe[0]), in_write(in_pipe[1]);
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return std::nullopt;
  Fd out_read(out_pipe[0]), out_write(out_pipe[1]);
  int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  Fd devnull(null_fd);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, 1);
  if (devnull.fd >= 0) posix_spawn_file_actions_adddup2(&actions, devnull.fd, 2);
  std::array<char*, 3> argv = {const_cast<char*>("dot"), const_cast<char*>("-Tsvg"), nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "dot", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  in_read.Close();
  out_write.Close();
  devnull.Close();
  if (spawned != 0) return std::nullopt;

  // Feed the input and drain the output together (dot may write before it has read all).
  ::fcntl(in_write.fd, F_SETFL, O_NONBLOCK);
  ::fcntl(out_read.fd, F_SETFL, O_NONBLOCK);
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);  // dot exiting early must not kill the tool
  std::string svg;
  std::size_t written = 0;
  bool ok = true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out_read.fd >= 0) {
    std::array<pollfd, 2> fds = {pollfd{out_read.fd, POLLIN, 0}, pollfd{in_write.fd, POLLOUT, 0}};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ok = false;
      break;
    }
    const int ready = ::poll(fds.data(), in_write.fd >= 0 ? 2 : 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      ok = false;
      break;
    }
    if (in_write.fd >= 0 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
      const ssize_t n = ::write(in_write.fd, dot_text.data() + written, dot_text.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) ok = false;
      if (written == dot_text.size() || !ok) in_write.Close();
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      char buf[65536];
      const ssize_t n = ::read(out_read.fd, buf, sizeof buf);
      if (n > 0) {
        svg.append(buf, static_cast<std::size_t>(n));
        if (svg.size() > max_bytes) {
          ok = false;
          break;
        }
      } else if (n == 0) {
        out_read.Close();
      } else if (errno != EAGAIN && errno != EINTR) {
        ok = false;
        break;
      }
    }
  }
  in_write.Close();
  out_read.Close();
  if (!ok) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGPIPE, &previous, nullptr);
  if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return svg;
}

}  // namespace ckpt::cli
