// A stand-in for ckpt-h5probe that misbehaves on purpose, for the tests of the audit's side of
// the isolation (formats.md section 6): given as $CKPT_H5PROBE, it reads the HDF5 signature and
// a word from standard input and does what the word says. The audit must turn every one into
// hdf5-reader-failed within the pinned limits.
//   crash  dies of SIGSEGV          hang   blocks forever (the 60 s wall-clock kill)
//   spin   burns CPU (RLIMIT_CPU)   oom    allocates until RLIMIT_AS refuses, then aborts
//   garbage answers non-JSON        flood  answers past 64 MiB      exit3  exits with status 3
//   sandbox answers an empty, valid listing only if its environment is empty, it holds no
//           descriptor past 2 and its limits are the pinned ones (set by the audit: the
//           stand-in sets none itself); else exits 7 (environment), 8 (limits) or 10 (fds)
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main() {
  std::array<char, 24> head{};
  std::size_t got = 0;
  while (got < head.size()) {
    const ssize_t n = ::read(STDIN_FILENO, head.data() + got, head.size() - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  const std::string word = got > 8 ? std::string(head.data() + 8, ::strnlen(head.data() + 8, got - 8)) : "";
  if (word.rfind("crash", 0) == 0) ::raise(SIGSEGV);
  if (word.rfind("hang", 0) == 0) {
    for (;;) ::pause();
  }
  if (word.rfind("spin", 0) == 0) {
    volatile unsigned long counter = 0;
    for (;;) counter = counter + 1;
  }
  if (word.rfind("oom", 0) == 0) {
    std::vector<char*> blocks;
    for (;;) {
      // Reserved, not touched: the address-space limit refuses it without using the memory.
      char* block = static_cast<char*>(std::malloc(std::size_t{256} << 20));
      if (block == nullptr) std::abort();
      blocks.push_back(block);
    }
  }
  if (word.rfind("garbage", 0) == 0) {
    const char answer[] = "\0\0\0\5nope!";
    return ::write(STDOUT_FILENO, answer, sizeof answer - 1) < 0 ? 1 : 0;
  }
  if (word.rfind("flood", 0) == 0) {
    const std::vector<char> chunk(std::size_t{1} << 20, 'x');
    for (int i = 0; i < 80; ++i) {
      if (::write(STDOUT_FILENO, chunk.data(), chunk.size()) < 0) return 1;
    }
    return 0;
  }
  if (word.rfind("exit3", 0) == 0) return 3;
  if (word.rfind("sandbox", 0) == 0) {
    if (environ != nullptr && environ[0] != nullptr) return 7;
    // The audit sets the limits with prlimit right after the spawn: wait up to 2 s for them
    // (the real helper sets them on itself before it reads anything).
    struct PinnedLimit {
      int resource;
      rlim_t value;
    };
    const std::array<PinnedLimit, 5> pinned{
        {{RLIMIT_CPU, 20}, {RLIMIT_FSIZE, 0}, {RLIMIT_NOFILE, 16}, {RLIMIT_CORE, 0}, {RLIMIT_NPROC, 0}}};
    const auto limited = [&pinned] {
      for (const PinnedLimit& l : pinned) {
        struct rlimit got_limit {};
        const rlim_t hard = l.resource == RLIMIT_CPU ? l.value + 1 : l.value;
        if (::getrlimit(l.resource, &got_limit) != 0 || got_limit.rlim_cur != l.value || got_limit.rlim_max != hard) {
          return false;
        }
      }
      struct rlimit address {};
      return ::getrlimit(RLIMIT_AS, &address) == 0 && address.rlim_cur != RLIM_INFINITY &&
             address.rlim_cur >= (rlim_t{2} << 30) && address.rlim_cur <= (rlim_t{2} << 30) + (rlim_t{1} << 20);
    };
    bool ok = limited();
    for (int i = 0; i < 200 && !ok; ++i) {
      ::usleep(10'000);
      ok = limited();
    }
    if (!ok) return 8;
    for (int fd = 3; fd < 64; ++fd) {
      if (::fcntl(fd, F_GETFD) != -1) return 10;
    }
    const std::string json = R"({"version":1,"status":"ok","datasets":[],"links":[]})";
    const std::array<char, 4> prefix{0, 0, 0, static_cast<char>(json.size())};
    if (::write(STDOUT_FILENO, prefix.data(), prefix.size()) < 0) return 1;
    return ::write(STDOUT_FILENO, json.data(), json.size()) < 0 ? 1 : 0;
  }
  return 9;
}
