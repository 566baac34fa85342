// The one window pipeline of the tree: a sequence of extents (a file, an offset, a length)
// read once, front to back, in windows of a fixed size, into a ring of slots that one or two
// streams consume in order, each on its own thread. Who reads decides what overlaps:
// - Readers::kOwnThread: a reader thread fills the ring ahead of the streams (the content
//   hash, a whole-file digest: hashing runs at the pace of the slower of read and SHA-256);
// - Readers::kStreams: each stream reads every other window itself (two SHA-256 streams over
//   one read, the copy out of the page cache split between their cores); with one stream and
//   one slot this is a plain read-then-process loop.
// - Readers::kTurns: two threads taking turns: each reads every other window and processes
//   it itself, in order, while the other thread reads its next one. The bytes are hashed on
//   the core that copied them (still in its cache), and the copy overlaps the hashing: where
//   handing a window to another core costs more than the copy (a VM's cores), this is what
//   keeps one SHA-256 stream at its limit. With two streams (RunInTurns), a thread runs both
//   on its window, the second while the other thread runs the first on the next window: two
//   SHA-256 streams on two cores, no byte crossing cores, no slot written while another core
//   reads it.
// `on_read` runs on the thread that read a window, before any stream sees it (a torch zip's
// CRC-32s, ckpt-convert's copy): one reading thread only, so not with two reading streams;
// with kTurns it runs on both threads at once, each on its own window (it must touch
// nothing another window's call touches). A slot is reused once every
// stream is done with it, so memory is `slots` windows whatever the length.
#pragma once

#include <boost/system/error_code.hpp>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "lib/io/artifact_source.h"

namespace ckpt {

struct ReadExtent {
  const RandomAccessFile* file = nullptr;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

struct RingWindow {
  std::size_t extent = 0;  ///< index of the extent the bytes belong to
  bool first = false;      ///< the extent's first window (an empty extent has one, empty)
  bool last = false;       ///< the last window of the last extent
  std::span<const std::byte> bytes;
  const RandomAccessFile* file = nullptr;
  std::uint64_t offset = 0;  ///< where `bytes` start in `file`
};

class ReadRing {
 public:
  enum class Readers : std::uint8_t { kOwnThread, kStreams, kTurns };
  using ExtentAt = std::function<ReadExtent(std::size_t)>;
  using Process = std::function<void(const RingWindow&)>;

  /// `count` extents, each given by `extent_at` (called again as needed: no copy of a list of
  /// 10^6 tensors). `streams` is 1 or 2; `slots` at least `streams`.
  ReadRing(ExtentAt extent_at, std::size_t count, std::size_t window, std::size_t slots, std::size_t streams,
           Readers readers, Process on_read = nullptr);
  ~ReadRing();
  ReadRing(const ReadRing&) = delete;
  ReadRing& operator=(const ReadRing&) = delete;

  /// Runs stream `stream` on the calling thread: `process` sees every window in order.
  /// Returns the read error that stopped it (for either stream), if any.
  std::optional<boost::system::error_code> Run(std::size_t stream, const Process& process);

  /// Readers::kTurns with two streams: `first` and `second` each see every window in order,
  /// on the calling thread and one more.
  std::optional<boost::system::error_code> RunInTurns(const Process& first, const Process& second);

 private:
  struct Cursor {
    std::size_t extent = 0;
    std::uint64_t done = 0;   // bytes of the extent before this window
    std::uint64_t index = 0;  // window number in the whole sequence
    bool end = false;
  };
  struct Slot {
    std::uint64_t index = ~std::uint64_t{0};
    RingWindow window;
  };

  [[nodiscard]] Cursor Start() const;
  [[nodiscard]] std::size_t Length(const Cursor& c) const;
  void Step(Cursor& c) const;
  // With the lock held: window `index` may be read into its slot / has been read.
  [[nodiscard]] bool RoomLocked(std::uint64_t index) const;
  [[nodiscard]] bool ReadyLocked(std::uint64_t index) const;
  bool Read(const Cursor& c);  // false: the read failed (recorded)
  std::optional<boost::system::error_code> Failure();
  void ReadAll();  // Readers::kOwnThread's thread
  std::optional<boost::system::error_code> RunTurns(std::span<const Process> processes);  // Readers::kTurns

  ExtentAt extent_at_;
  std::size_t count_;
  std::size_t window_;
  std::size_t slots_count_;
  std::size_t streams_;
  Readers readers_;
  Process on_read_;
  std::unique_ptr<std::byte[]> buffer_;  // slots_count_ windows of window_ bytes
  std::vector<Slot> slots_;
  std::vector<std::uint64_t> processed_;  // per stream: windows it is done with
  std::mutex mutex_;
  std::condition_variable changed_;
  bool failed_ = false;
  bool stop_ = false;
  std::optional<boost::system::error_code> error_;
  std::thread reader_;
};

}  // namespace ckpt
