// The system call filter ckpt-h5probe installs on itself once the file's bytes are in memory
// and before libhdf5 sees them (formats.md section 6; issue 46 item 4): resource limits alone do
// not bind root, which is how CI containers run. A classic-BPF seccomp program, built here
// without libseccomp, admits only what reading an image in memory and answering need:
//   memory (brk, anonymous mmap, mremap, munmap, madvise, mprotect), reading standard input,
//   writing standard output and error, the clock, getcwd, exit, and what abort() does to its
//   own process (rt_sigprocmask, rt_sigaction, getpid, gettid, tgkill of itself).
// Opening a file for reading fails with ENOENT, so nothing outside the image is ever read
// (libhdf5's core driver tries to open the image's label as a file); every other call, a file
// opened for writing or created, a socket, execve, fork, clone, kills the process (SIGSYS),
// whatever its user: PR_SET_NO_NEW_PRIVS is set first, as an unprivileged filter requires.
#pragma once

namespace ckpt::h5probe {

/// Installs the filter on the calling thread (the helper has no other). False when the kernel
/// refuses it (no seccomp): the helper then exits without reading the file.
bool InstallSeccompFilter();

}  // namespace ckpt::h5probe
