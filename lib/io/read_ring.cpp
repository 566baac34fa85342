#include "lib/io/read_ring.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace ckpt {
namespace {

// A window never larger than all there is to read: a 3 KiB file gets a 3 KiB window, which
// the allocator hands out from its heap, not a mapping of its own (mapping and unmapping a
// 1 MiB window per small file cost more than reading it: issue 50).
std::size_t WindowFor(const ReadRing::ExtentAt& extent_at, std::size_t count, std::size_t window) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < count && total < window; ++i)
    total += std::min<std::uint64_t>(extent_at(i).length, window);
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(total, 1, window));
}

}  // namespace

ReadRing::ReadRing(ExtentAt extent_at, std::size_t count, std::size_t window, std::size_t slots, std::size_t streams,
                   Readers readers, Process on_read)
    : extent_at_(std::move(extent_at)),
      count_(count),
      window_(window == 0 ? 0 : WindowFor(extent_at_, count, window)),
      slots_count_(slots),
      streams_(streams),
      readers_(readers),
      on_read_(std::move(on_read)),
      // Not zeroed: a window is seen only after a read filled it, and pages never read into
      // are never touched (a small file in a 4 MiB ring costs what it reads, not 4 MiB).
      buffer_(std::make_unique_for_overwrite<std::byte[]>(slots * window_)),
      slots_(slots),
      processed_(streams, 0) {
  if (streams < 1 || streams > 2 || slots < streams || window == 0) throw std::invalid_argument("ReadRing shape");
  // Two streams reading for themselves would run on_read on two threads at once.
  if (on_read_ && readers_ == Readers::kStreams && streams > 1) throw std::invalid_argument("ReadRing on_read");
  // Taking turns: two threads, each with a slot of its own.
  if (readers_ == Readers::kTurns && slots != 2) {
    throw std::invalid_argument("ReadRing turns");
  }
  if (readers_ == Readers::kOwnThread) reader_ = std::thread([this] { ReadAll(); });
}

ReadRing::~ReadRing() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (reader_.joinable()) reader_.join();
}

ReadRing::Cursor ReadRing::Start() const {
  Cursor c;
  c.end = count_ == 0;
  return c;
}

std::size_t ReadRing::Length(const Cursor& c) const {
  return static_cast<std::size_t>(std::min<std::uint64_t>(window_, extent_at_(c.extent).length - c.done));
}

void ReadRing::Step(Cursor& c) const {
  if (c.end) return;
  c.done += Length(c);
  ++c.index;
  if (c.done < extent_at_(c.extent).length) return;
  if (++c.extent == count_) {
    c.end = true;
    return;
  }
  c.done = 0;
}

bool ReadRing::RoomLocked(std::uint64_t index) const {
  return *std::min_element(processed_.begin(), processed_.end()) + slots_count_ > index;
}

bool ReadRing::ReadyLocked(std::uint64_t index) const { return slots_[index % slots_count_].index == index; }

bool ReadRing::Read(const Cursor& c) {
  const ReadExtent extent = extent_at_(c.extent);
  const std::size_t n = Length(c);
  const auto slot = static_cast<std::size_t>(c.index % slots_count_);
  const std::span<std::byte> target = std::span(buffer_.get() + slot * window_, n);
  // One reading thread reads the extent front to back: a remote file streams it ahead.
  if (c.done == 0 && (readers_ == Readers::kOwnThread || streams_ == 1)) {
    extent.file->ExpectSequentialRead(extent.offset, extent.length);
  }
  if (auto read = extent.file->ReadAt(extent.offset + c.done, target); !read) {
    std::lock_guard lock(mutex_);
    failed_ = true;
    error_ = read.error();
    changed_.notify_all();
    return false;
  }
  const bool last = c.extent + 1 == count_ && c.done + n == extent.length;
  const RingWindow window{c.extent, c.done == 0, last, target, extent.file, extent.offset + c.done};
  if (on_read_) on_read_(window);
  {
    std::lock_guard lock(mutex_);
    slots_[slot] = Slot{c.index, window};
  }
  changed_.notify_all();
  return true;
}

std::optional<boost::system::error_code> ReadRing::Failure() {
  std::lock_guard lock(mutex_);
  failed_ = true;
  changed_.notify_all();
  return error_;
}

void ReadRing::ReadAll() {
  for (Cursor c = Start(); !c.end; Step(c)) {
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || failed_ || RoomLocked(c.index); });
      if (stop_ || failed_) return;
    }
    if (!Read(c)) return;
  }
}

std::optional<boost::system::error_code> ReadRing::RunTurns(std::span<const Process> processes) {
  // Thread t reads windows t, t + 2, ... into slot t and hands each to every stream in turn,
  // each once that stream processed the window before it (on the other thread): the mutex
  // orders every process call of a stream. With two streams, one thread runs the second
  // stream on its window while the other runs the first on the next: both cores hash, each
  // only bytes it copied itself.
  auto take_turns = [this, processes](std::size_t first) {
    Cursor c = Start();
    if (first == 1) Step(c);
    for (; !c.end; Step(c), Step(c)) {
      if (!Read(c)) return;  // recorded: the other thread stops at its next turn
      const RingWindow& window = slots_[c.index % slots_count_].window;  // this thread's own slot
      for (std::size_t stream = 0; stream < processes.size(); ++stream) {
        {
          std::unique_lock lock(mutex_);
          changed_.wait(lock, [&] { return failed_ || processed_[stream] == c.index; });
          if (failed_) return;
        }
        processes[stream](window);
        {
          std::lock_guard lock(mutex_);
          processed_[stream] = c.index + 1;
        }
        changed_.notify_all();
      }
    }
  };
  std::thread other(take_turns, 1);
  take_turns(0);
  other.join();
  std::lock_guard lock(mutex_);
  if (failed_) return error_;
  return std::nullopt;
}

std::optional<boost::system::error_code> ReadRing::RunInTurns(const Process& first, const Process& second) {
  if (readers_ != Readers::kTurns || streams_ != 2)
    throw std::logic_error("ReadRing::RunInTurns needs kTurns, 2 streams");
  const std::array<Process, 2> both{first, second};
  return RunTurns(both);
}

std::optional<boost::system::error_code> ReadRing::Run(std::size_t stream, const Process& process) {
  if (readers_ == Readers::kTurns) {
    if (streams_ != 1) throw std::logic_error("ReadRing::Run: two streams taking turns run with RunInTurns");
    return RunTurns(std::span(&process, 1));
  }
  // Readers::kStreams: this stream reads windows stream, stream + streams, ...
  Cursor reading = Start();
  for (std::size_t k = 0; k < stream; ++k) Step(reading);
  auto step_reading = [&] {
    for (std::size_t k = 0; k < streams_; ++k) Step(reading);
  };
  auto room = [&](std::uint64_t index) {
    std::lock_guard lock(mutex_);
    return !failed_ && RoomLocked(index);
  };
  for (Cursor processing = Start(); !processing.end; Step(processing)) {
    if (readers_ == Readers::kStreams) {
      // Read my windows ahead while the ring has room, without waiting.
      while (!reading.end && reading.index < processing.index + slots_count_ && room(reading.index)) {
        if (!Read(reading)) return Failure();
        step_reading();
      }
      if (processing.index % streams_ == stream && !reading.end && reading.index == processing.index) {
        {  // mine and not read yet: wait for its slot, then read it
          std::unique_lock lock(mutex_);
          changed_.wait(lock, [&] { return failed_ || RoomLocked(processing.index); });
          if (failed_) return error_;
        }
        if (!Read(processing)) return Failure();
        step_reading();
      }
    }
    const Slot* slot = nullptr;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return failed_ || ReadyLocked(processing.index); });
      if (!ReadyLocked(processing.index)) return error_;
      slot = &slots_[processing.index % slots_count_];
    }
    process(slot->window);
    {
      std::lock_guard lock(mutex_);
      processed_[stream] = processing.index + 1;
    }
    changed_.notify_all();
  }
  return std::nullopt;
}

}  // namespace ckpt
