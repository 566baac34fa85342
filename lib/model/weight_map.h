// A shard index's weight_map: tensor name to file name, in document order. A hub index maps
// about 10^6 tensors to a few hundred files, so each name is held once: the tensor names side
// by side in one buffer and each distinct file name once, about 20 bytes an entry beyond its
// name (a pair of strings per entry was 160).
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

class WeightMap {
 public:
  /// One entry as rules read it: views into the map, valid while it lives and is not changed.
  struct Entry {
    std::string_view tensor;
    std::string_view file;
    std::uint64_t offset = 0;        ///< offset of the key in the index
    std::uint64_t value_offset = 0;  ///< offset of the file name
  };

  /// Room for `count` entries whose names take at most `name_bytes` in all (the index's text
  /// size will do: room never written costs no memory), so a million are added without a copy.
  void Reserve(std::size_t count, std::size_t name_bytes) {
    entries_.reserve(count);
    names_.reserve(name_bytes);
  }
  /// Appends an entry (offsets into a JSON text, so below 2^32). Call Finish() after the last.
  void Add(std::string_view tensor, std::string_view file, std::uint64_t offset, std::uint64_t value_offset);
  /// Sorts the distinct file names (what files() promises).
  void Finish();

  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] bool empty() const { return entries_.empty(); }
  [[nodiscard]] Entry operator[](std::size_t i) const;
  /// The distinct file names the entries map to, sorted.
  [[nodiscard]] const std::vector<std::string>& files() const { return files_; }
  /// Position of entry `i`'s file in files().
  [[nodiscard]] std::size_t FileIndex(std::size_t i) const { return entries_[i].file; }
  /// For each of files(): how many entries map to it, and the first of them.
  struct FileUse {
    std::size_t entries = 0;
    std::size_t first = 0;
  };
  [[nodiscard]] std::vector<FileUse> FileUses() const;

  /// Entry positions sorted by tensor name, for lookups by name: 4 bytes an entry.
  [[nodiscard]] std::vector<std::uint32_t> SortedByTensor() const;
  /// Whether an entry maps `tensor`; `sorted` is SortedByTensor()'s result.
  [[nodiscard]] bool MapsTensor(const std::vector<std::uint32_t>& sorted, std::string_view tensor) const;

  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Entry;
    Iterator() = default;
    Iterator(const WeightMap* map, std::size_t at) : map_(map), at_(at) {}
    Entry operator*() const { return (*map_)[at_]; }
    Iterator& operator++() {
      ++at_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++at_;
      return old;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    const WeightMap* map_ = nullptr;
    std::size_t at_ = 0;
  };
  [[nodiscard]] Iterator begin() const { return {this, 0}; }
  [[nodiscard]] Iterator end() const { return {this, entries_.size()}; }

 private:
  struct Stored {
    std::uint32_t name_at = 0;  // in names_; names_ may pass 4 GiB only beyond any index's limit
    std::uint32_t name_length = 0;
    std::uint32_t file = 0;  // in files_
    std::uint32_t offset = 0;
    std::uint32_t value_offset = 0;
  };
  [[nodiscard]] std::string_view TensorAt(std::size_t i) const {
    return std::string_view(names_).substr(entries_[i].name_at, entries_[i].name_length);
  }

  std::vector<Stored> entries_;
  std::string names_;
  std::vector<std::string> files_;
  std::map<std::string, std::uint32_t, std::less<>> file_ids_;  // while adding: name -> id
};

}  // namespace ckpt
