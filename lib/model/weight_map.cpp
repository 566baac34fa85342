#include "lib/model/weight_map.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace ckpt {

void WeightMap::Add(std::string_view tensor, std::string_view file, std::uint64_t offset, std::uint64_t value_offset) {
  // The index's text is at most 2^28 bytes (the JSON reader's limit), so every offset and every
  // length fits; larger values are a caller's bug.
  constexpr std::uint64_t kLimit = UINT32_MAX;
  if (offset > kLimit || value_offset > kLimit || names_.size() + tensor.size() > kLimit) {
    throw std::length_error("weight map beyond 4 GiB");
  }
  auto known = file_ids_.find(file);
  if (known == file_ids_.end()) {
    known = file_ids_.emplace(std::string(file), static_cast<std::uint32_t>(files_.size())).first;
    files_.emplace_back(file);
  }
  entries_.push_back(Stored{static_cast<std::uint32_t>(names_.size()), static_cast<std::uint32_t>(tensor.size()),
                            known->second, static_cast<std::uint32_t>(offset),
                            static_cast<std::uint32_t>(value_offset)});
  names_.append(tensor);
}

void WeightMap::Finish() {
  std::vector<std::uint32_t> order(files_.size());
  std::iota(order.begin(), order.end(), 0U);
  std::sort(order.begin(), order.end(), [this](std::uint32_t a, std::uint32_t b) { return files_[a] < files_[b]; });
  std::vector<std::uint32_t> position(files_.size());
  std::vector<std::string> sorted;
  sorted.reserve(files_.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    position[order[i]] = i;
    sorted.push_back(std::move(files_[order[i]]));
  }
  for (Stored& entry : entries_) entry.file = position[entry.file];
  files_ = std::move(sorted);
  file_ids_.clear();
}

WeightMap::Entry WeightMap::operator[](std::size_t i) const {
  const Stored& stored = entries_[i];
  return Entry{TensorAt(i), files_[stored.file], stored.offset, stored.value_offset};
}

std::vector<WeightMap::FileUse> WeightMap::FileUses() const {
  std::vector<FileUse> uses(files_.size());
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    FileUse& use = uses[entries_[i].file];
    if (use.entries++ == 0) use.first = i;
  }
  return uses;
}

std::vector<std::uint32_t> WeightMap::SortedByTensor() const {
  std::vector<std::uint32_t> sorted(entries_.size());
  std::iota(sorted.begin(), sorted.end(), 0U);
  std::sort(sorted.begin(), sorted.end(),
            [this](std::uint32_t a, std::uint32_t b) { return TensorAt(a) < TensorAt(b); });
  return sorted;
}

bool WeightMap::MapsTensor(const std::vector<std::uint32_t>& sorted, std::string_view tensor) const {
  const auto at = std::lower_bound(sorted.begin(), sorted.end(), tensor,
                                   [this](std::uint32_t i, std::string_view key) { return TensorAt(i) < key; });
  return at != sorted.end() && TensorAt(*at) == tensor;
}

}  // namespace ckpt
