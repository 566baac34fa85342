// Runs independent work items on a fixed number of threads (the calling thread included).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace ckpt {

/// Calls work(i) once for every i in [0, count), on at most `jobs` threads; items are
/// handed out in order, so callers that write result slot i get deterministic output.
template <class Work>
void ParallelFor(std::size_t count, unsigned jobs, const Work& work) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) work(i);
  };
  const auto threads = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(jobs, count)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

}  // namespace ckpt
