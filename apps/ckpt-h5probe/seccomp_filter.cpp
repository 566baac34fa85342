#include "apps/ckpt-h5probe/seccomp_filter.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ckpt::h5probe {
namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
#error "ckpt-h5probe's seccomp filter knows x86_64 and aarch64"
#endif

constexpr std::uint32_t kKill = SECCOMP_RET_KILL_PROCESS;
constexpr std::uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr std::uint32_t kNoSuchFile = SECCOMP_RET_ERRNO | (ENOENT & SECCOMP_RET_DATA);

constexpr std::uint32_t kNumberAt = offsetof(struct seccomp_data, nr);
constexpr std::uint32_t kArchAt = offsetof(struct seccomp_data, arch);
// The low 32 bits of argument i (little-endian on both architectures): descriptors, flags
// and pids are 32-bit values.
constexpr std::uint32_t ArgumentAt(std::uint32_t i) {
  return static_cast<std::uint32_t>(offsetof(struct seccomp_data, args)) + std::uint32_t{8} * i;
}

// The program, built as straight-line checks that each end in a return: no jump crosses
// another check, so no jump offset depends on what else is admitted.
class Program {
 public:
  void Load(std::uint32_t offset) { Add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
  void Return(std::uint32_t action) { Add(BPF_STMT(BPF_RET | BPF_K, action)); }

  /// The call `number` is admitted.
  void Allow(long number) {
    Add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(number), 0, 1));
    Return(kAllow);
  }
  /// The call `number` is admitted when argument `argument` is one of `values`, else it kills.
  void AllowWhen(long number, unsigned argument, const std::vector<std::uint32_t>& values) {
    const auto block = static_cast<std::uint8_t>(1 + values.size() + 2);
    Add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(number), 0, block));
    Load(ArgumentAt(argument));
    for (std::size_t i = 0; i < values.size(); ++i) {
      // Equal: jump over the remaining comparisons and the kill to the allow.
      Add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, values[i], static_cast<std::uint8_t>(values.size() - i), 0));
    }
    Return(kKill);
    Return(kAllow);
  }
  /// An open: for reading it fails with ENOENT (nothing is ever opened); for writing,
  /// creating or truncating, it kills.
  void RefuseOpen(long number, unsigned flags_argument) {
    constexpr std::uint32_t kWriting = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_TMPFILE;
    Add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(number), 0, 4));
    Load(ArgumentAt(flags_argument));
    Add(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kWriting, 0, 1));
    Return(kKill);
    Return(kNoSuchFile);
  }
  /// Kills unless the loaded value is `value`.
  void KillUnless(std::uint32_t value) {
    Add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 1, 0));
    Return(kKill);
  }
  /// Kills when the loaded value is `value` or above.
  void KillFrom(std::uint32_t value) {
    Add(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, value, 0, 1));
    Return(kKill);
  }

  [[nodiscard]] bool Install() const {
    struct sock_fprog program {};
    program.len = static_cast<unsigned short>(code_.size());
    program.filter = const_cast<struct sock_filter*>(code_.data());
    return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0;
  }

 private:
  void Add(struct sock_filter instruction) { code_.push_back(instruction); }
  std::vector<struct sock_filter> code_;
};

}  // namespace

bool InstallSeccompFilter() {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  const auto self = static_cast<std::uint32_t>(::getpid());
  Program p;
  p.Load(kArchAt);
  p.KillUnless(kArch);  // a call of another ABI (i386 from an x86_64 process) never matches a number below
  p.Load(kNumberAt);
#if defined(__x86_64__)
  p.KillFrom(__X32_SYSCALL_BIT);
#endif
  for (const long number : {SYS_brk, SYS_munmap, SYS_mremap, SYS_madvise, SYS_mprotect, SYS_getcwd, SYS_exit,
                            SYS_exit_group, SYS_rt_sigreturn, SYS_rt_sigprocmask, SYS_rt_sigaction, SYS_getpid,
                            SYS_gettid, SYS_futex, SYS_clock_gettime, SYS_getrandom, SYS_close}) {
    p.Allow(number);
  }
#if defined(SYS_gettimeofday)
  p.Allow(SYS_gettimeofday);
#endif
  p.AllowWhen(SYS_read, 0, {STDIN_FILENO});
  p.AllowWhen(SYS_write, 0, {STDOUT_FILENO, STDERR_FILENO});
  p.AllowWhen(SYS_mmap, 4, {0xffffffffU});  // anonymous memory only: no descriptor (-1)
  p.AllowWhen(SYS_tgkill, 0, {self});       // abort() signalling itself
  p.RefuseOpen(SYS_openat, 2);
#if defined(SYS_open)
  p.RefuseOpen(SYS_open, 1);
#endif
  p.Return(kKill);
  return p.Install();
}

}  // namespace ckpt::h5probe
