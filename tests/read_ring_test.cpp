// The one read ring (lib/io/read_ring.h) in each of its shapes: every window in order, once,
// to every stream; empty extents still open; a failed read stops every stream with its error.
#include "lib/io/read_ring.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace ckpt::testing {
namespace {

class BytesFile final : public RandomAccessFile {
 public:
  explicit BytesFile(std::string bytes, std::uint64_t fail_at = ~std::uint64_t{0})
      : bytes_(std::move(bytes)), fail_at_(fail_at) {}
  [[nodiscard]] std::uint64_t size() const override { return bytes_.size(); }
  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    if (offset + out.size() > bytes_.size() || (!out.empty() && offset <= fail_at_ && fail_at_ < offset + out.size())) {
      return boost::system::error_code(EIO, boost::system::generic_category());
    }
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::byte>(bytes_[offset + i]);
    return {};
  }
  [[nodiscard]] FileIdentity identity() const override { return {}; }

 private:
  std::string bytes_;
  std::uint64_t fail_at_;
};

struct Seen {
  std::string bytes;
  std::vector<std::size_t> firsts;  // extents whose first window arrived
  int lasts = 0;
};

ReadRing::Process Record(Seen& seen) {
  return [&seen](const RingWindow& w) {
    if (w.first) seen.firsts.push_back(w.extent);
    if (w.last) ++seen.lasts;
    for (std::byte b : w.bytes) seen.bytes.push_back(static_cast<char>(b));
  };
}

std::string Pattern(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + (i * 7) % 26));
  return s;
}

TEST(ReadRing, EveryShapeDeliversEveryWindowInOrderToEveryStream) {
  const BytesFile file(Pattern(10'000));
  // Extents out of file order, one empty: 3000 bytes at 5000, none at 100, 4999 at 1.
  const std::vector<ReadExtent> extents{{&file, 5000, 3000}, {&file, 100, 0}, {&file, 1, 4999}};
  const std::string expected = Pattern(10'000).substr(5000, 3000) + Pattern(10'000).substr(1, 4999);
  auto at = [&](std::size_t i) { return extents[i]; };
  for (auto [slots, streams, readers] :
       {std::tuple<std::size_t, std::size_t, ReadRing::Readers>{1, 1, ReadRing::Readers::kStreams},
        std::tuple<std::size_t, std::size_t, ReadRing::Readers>{4, 1, ReadRing::Readers::kOwnThread},
        std::tuple<std::size_t, std::size_t, ReadRing::Readers>{6, 2, ReadRing::Readers::kStreams},
        std::tuple<std::size_t, std::size_t, ReadRing::Readers>{2, 2, ReadRing::Readers::kOwnThread},
        std::tuple<std::size_t, std::size_t, ReadRing::Readers>{2, 1, ReadRing::Readers::kTurns}}) {
    Seen on_read, zero, one;
    const bool one_reader =
        readers != ReadRing::Readers::kTurns && (streams == 1 || readers == ReadRing::Readers::kOwnThread);
    ReadRing ring(at, extents.size(), 512, slots, streams, readers, one_reader ? Record(on_read) : nullptr);
    std::thread second;
    if (streams == 2) second = std::thread([&] { EXPECT_FALSE(ring.Run(1, Record(one))); });
    EXPECT_FALSE(ring.Run(0, Record(zero)));
    if (second.joinable()) second.join();
    EXPECT_TRUE(zero.bytes == expected) << slots << " slots";
    EXPECT_TRUE(!one_reader || on_read.bytes == expected) << slots << " slots";
    EXPECT_EQ(zero.firsts, (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(zero.lasts, 1);
    if (streams == 2) {
      EXPECT_TRUE(one.bytes == expected);
    }
  }
}

TEST(ReadRing, AFailedReadStopsEveryStreamWithItsError) {
  const BytesFile file(Pattern(100'000), 70'000);
  auto at = [&](std::size_t) { return ReadExtent{&file, 0, file.size()}; };
  for (auto [slots, streams, readers] :
       {std::tuple<std::size_t, std::size_t, ReadRing::Readers>{1, 1, ReadRing::Readers::kStreams},
        std::tuple<std::size_t, std::size_t, ReadRing::Readers>{4, 1, ReadRing::Readers::kOwnThread},
        std::tuple<std::size_t, std::size_t, ReadRing::Readers>{6, 2, ReadRing::Readers::kStreams},
        std::tuple<std::size_t, std::size_t, ReadRing::Readers>{2, 1, ReadRing::Readers::kTurns}}) {
    Seen zero, one;
    ReadRing ring(at, 1, 4096, slots, streams, readers);
    std::optional<boost::system::error_code> second_error;
    std::thread second;
    if (streams == 2) second = std::thread([&] { second_error = ring.Run(1, Record(one)); });
    const auto error = ring.Run(0, Record(zero));
    if (second.joinable()) second.join();
    ASSERT_TRUE(error.has_value()) << slots;
    EXPECT_EQ(error->value(), EIO);
    EXPECT_LE(zero.bytes.size(), 70'000U);  // never a window past the failure
    EXPECT_EQ(zero.lasts, 0);
    if (streams == 2) {
      EXPECT_TRUE(second_error.has_value());
    }
  }
  // The near miss: the same file, read short of the bad byte, completes.
  ReadRing ring(
      [&](std::size_t) {
        return ReadExtent{&file, 0, 70'000};
      },
      1, 4096, 4, 1, ReadRing::Readers::kOwnThread);
  Seen seen;
  EXPECT_FALSE(ring.Run(0, Record(seen)));
  EXPECT_EQ(seen.bytes.size(), 70'000U);
}

// Taking turns: the two threads alternate windows, so each window is processed by the thread
// that read it, in order, and the processing never runs on two threads at once.
TEST(ReadRing, TakingTurnsProcessesEachWindowOnTheThreadThatReadItInOrder) {
  const BytesFile file(Pattern(50'000));
  auto at = [&](std::size_t) { return ReadExtent{&file, 0, file.size()}; };
  ReadRing ring(at, 1, 1000, 2, 1, ReadRing::Readers::kTurns);
  std::vector<std::thread::id> by;
  std::atomic<int> inside{0};
  bool overlapped = false;
  std::string bytes;
  EXPECT_FALSE(ring.Run(0, [&](const RingWindow& w) {
    overlapped = overlapped || inside.fetch_add(1) != 0;
    by.push_back(std::this_thread::get_id());
    for (std::byte b : w.bytes) bytes.push_back(static_cast<char>(b));
    inside.fetch_sub(1);
  }));
  EXPECT_TRUE(bytes == Pattern(50'000));
  EXPECT_FALSE(overlapped);
  ASSERT_EQ(by.size(), 50u);
  for (std::size_t i = 2; i < by.size(); ++i) EXPECT_EQ(by[i], by[i - 2]) << i;
  EXPECT_NE(by[0], by[1]);
  // A shape the mode cannot honour is a programmer error.
  EXPECT_THROW(ReadRing(at, 1, 1000, 4, 1, ReadRing::Readers::kTurns), std::invalid_argument);
}

// Windows of 256 KiB, turns quick (the other thread still copying) or slow (2 ms, the other
// long asleep): every window is processed once, in order, alternately; a failed read stops
// both threads with its error either way.
TEST(ReadRing, TakingTurnsHandsOverQuickAndSlowTurnsInOrder) {
  constexpr std::size_t kWindow = std::size_t{256} * 1024;
  const std::string content = Pattern(8 * kWindow + 123);
  const BytesFile file(content);
  auto at = [&](std::size_t) { return ReadExtent{&file, 0, file.size()}; };
  for (const auto pause : {std::chrono::milliseconds(0), std::chrono::milliseconds(2)}) {
    ReadRing ring(at, 1, kWindow, 2, 1, ReadRing::Readers::kTurns);
    std::vector<std::thread::id> by;
    std::size_t bytes = 0;
    bool in_order = true;
    EXPECT_FALSE(ring.Run(0, [&](const RingWindow& w) {
      in_order = in_order && w.offset == bytes && !w.bytes.empty() &&
                 static_cast<char>(w.bytes[0]) == content[static_cast<std::size_t>(w.offset)];
      bytes += w.bytes.size();
      by.push_back(std::this_thread::get_id());
      std::this_thread::sleep_for(pause);
    }));
    EXPECT_EQ(bytes, content.size()) << pause.count() << " ms a turn";
    EXPECT_TRUE(in_order) << pause.count() << " ms a turn";
    ASSERT_EQ(by.size(), 9u);
    for (std::size_t i = 1; i < by.size(); ++i) EXPECT_NE(by[i], by[i - 1]) << i;
  }
  const BytesFile failing(content, 5 * kWindow + 7);
  auto failing_at = [&](std::size_t) { return ReadExtent{&failing, 0, failing.size()}; };
  for (const auto pause : {std::chrono::milliseconds(0), std::chrono::milliseconds(2)}) {
    ReadRing ring(failing_at, 1, kWindow, 2, 1, ReadRing::Readers::kTurns);
    std::size_t bytes = 0;
    const auto error = ring.Run(0, [&](const RingWindow& w) {
      bytes += w.bytes.size();
      std::this_thread::sleep_for(pause);
    });
    ASSERT_TRUE(error.has_value()) << pause.count() << " ms a turn";
    EXPECT_EQ(error->value(), EIO);
    // Never a window past the bad one (the window before it may be dropped too: the other
    // thread reads the bad window while that one waits for its turn).
    EXPECT_LE(bytes, 5 * kWindow);
    EXPECT_EQ(bytes % kWindow, 0u);
  }
}

// Two streams taking turns (the content hash and the file digests of a local artifact): each
// stream sees every window once, in order, never on two threads at once; each window is seen
// by both streams on the thread that read it; the two threads alternate windows. A failed read
// stops both streams with its error, never a window past it.
TEST(ReadRing, TwoStreamsTakingTurnsSeeEveryWindowInOrderOnTheThreadThatReadIt) {
  constexpr std::size_t kWindow = 4096;
  const std::string content = Pattern(40 * kWindow + 17);
  const BytesFile file(content);
  auto at = [&](std::size_t) { return ReadExtent{&file, 0, file.size()}; };
  struct Stream {
    std::atomic<int> inside{0};
    bool overlapped = false;
    std::string bytes;
    std::vector<std::thread::id> by;
  };
  for (const auto pause : {std::chrono::microseconds(0), std::chrono::microseconds(300)}) {
    Stream first;
    Stream second;
    auto record = [&](Stream& s, bool slow) {
      return [&s, slow, pause](const RingWindow& w) {
        s.overlapped = s.overlapped || s.inside.fetch_add(1) != 0;
        s.by.push_back(std::this_thread::get_id());
        for (std::byte b : w.bytes) s.bytes.push_back(static_cast<char>(b));
        if (slow) std::this_thread::sleep_for(pause);
        s.inside.fetch_sub(1);
      };
    };
    ReadRing ring(at, 1, kWindow, 2, 2, ReadRing::Readers::kTurns);
    EXPECT_FALSE(ring.RunInTurns(record(first, false), record(second, true)));
    EXPECT_TRUE(first.bytes == content) << pause.count();
    EXPECT_TRUE(second.bytes == content) << pause.count();
    EXPECT_FALSE(first.overlapped || second.overlapped);
    ASSERT_EQ(first.by.size(), 41u);
    EXPECT_EQ(first.by, second.by);  // both streams on the thread that read the window
    for (std::size_t i = 1; i < first.by.size(); ++i) EXPECT_NE(first.by[i], first.by[i - 1]) << i;
  }
  const BytesFile failing(content, 23 * kWindow + 5);
  auto failing_at = [&](std::size_t) { return ReadExtent{&failing, 0, failing.size()}; };
  ReadRing ring(failing_at, 1, kWindow, 2, 2, ReadRing::Readers::kTurns);
  std::size_t first_bytes = 0;
  std::size_t second_bytes = 0;
  const auto error = ring.RunInTurns([&](const RingWindow& w) { first_bytes += w.bytes.size(); },
                                     [&](const RingWindow& w) { second_bytes += w.bytes.size(); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->value(), EIO);
  EXPECT_LE(first_bytes, 23 * kWindow);
  EXPECT_LE(second_bytes, 23 * kWindow);
  // One stream is never run on a single-stream ring, nor a single stream on a two-stream one.
  ReadRing one(at, 1, kWindow, 2, 1, ReadRing::Readers::kTurns);
  EXPECT_THROW(one.RunInTurns([](const RingWindow&) {}, [](const RingWindow&) {}), std::logic_error);
  ReadRing two(at, 1, kWindow, 2, 2, ReadRing::Readers::kTurns);
  EXPECT_THROW(two.Run(0, [](const RingWindow&) {}), std::logic_error);
}

}  // namespace
}  // namespace ckpt::testing
