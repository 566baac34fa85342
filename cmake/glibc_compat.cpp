// The release archive runs on glibc 2.35 (Ubuntu 22.04): libstdc++, built on Debian 12's
// glibc 2.36, calls arc4random (2.36) for std::random_device. Linked with
// -Wl,--wrap=arc4random, that call lands here, on getrandom (glibc 2.25), which blocks only
// until the kernel's pool is first seeded, as arc4random does.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" std::uint32_t __wrap_arc4random() {  // NOLINT(bugprone-reserved-identifier): the linker's name
  std::uint32_t value = 0;
  for (;;) {
    const ssize_t got = getrandom(&value, sizeof value, 0);
    if (got == static_cast<ssize_t>(sizeof value)) return value;
    if (got < 0 && errno != EINTR) std::abort();  // no entropy source: never return a guess
  }
}
