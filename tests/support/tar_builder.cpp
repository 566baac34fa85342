#include "tests/support/tar_builder.h"

#include <cstring>

namespace ckpt::testing {
namespace {

constexpr std::size_t kBlock = 512;

void PutField(std::string& block, std::size_t at, std::size_t width, const std::string& value) {
  std::memcpy(block.data() + at, value.data(), std::min(width, value.size()));
}

// Octal, zero-padded to width - 1 digits, then NUL.
std::string Octal(std::uint64_t value, std::size_t width) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + (value & 7)));
    value >>= 3;
  } while (value != 0);
  if (digits.size() < width - 1) digits.insert(0, width - 1 - digits.size(), '0');
  return digits + '\0';
}

std::string PadToBlock(std::string data) {
  data.resize((data.size() + kBlock - 1) / kBlock * kBlock, '\0');
  return data;
}

struct HeaderOptions {
  bool break_checksum = false;
  bool signed_checksum = false;
  std::string uname = "user";
  std::string prefix_field;
};

std::string Header(const std::string& ustar_name, char type, std::uint64_t size, const std::string& linkname,
                   bool gnu_magic, const std::optional<std::string>& raw_size, const HeaderOptions& options = {}) {
  std::string b(kBlock, '\0');
  std::string name = ustar_name;
  std::string prefix;
  if (!gnu_magic && name.size() > 100) {  // ustar: split at a '/' so that both parts fit
    const std::size_t slash = name.rfind('/', 155);
    if (slash != std::string::npos && name.size() - slash - 1 <= 100) {
      prefix = name.substr(0, slash);
      name = name.substr(slash + 1);
    }
  }
  PutField(b, 0, 100, name);
  PutField(b, 100, 8, Octal(0644, 8));
  PutField(b, 108, 8, Octal(1000, 8));
  PutField(b, 116, 8, Octal(1000, 8));
  PutField(b, 124, 12, raw_size ? *raw_size : Octal(size, 12));
  PutField(b, 136, 12, Octal(1767225600, 12));
  b[156] = type;
  PutField(b, 157, 100, linkname);
  if (gnu_magic) {
    PutField(b, 257, 8, std::string("ustar  \0", 8));
  } else {
    PutField(b, 257, 8,
             std::string("ustar\0"
                         "00",
                         8));
    PutField(b, 345, 155, prefix);
  }
  if (!options.prefix_field.empty()) PutField(b, 345, 155, options.prefix_field);
  PutField(b, 265, 32, options.uname);
  PutField(b, 297, 32, "user");
  std::memset(b.data() + 148, ' ', 8);
  long sum = 0;
  for (char c : b) sum += options.signed_checksum ? static_cast<signed char>(c) : static_cast<unsigned char>(c);
  if (options.break_checksum) sum += 1;
  PutField(b, 148, 8, Octal(static_cast<std::uint64_t>(sum), 7) + " ");
  return b;
}

std::string PaxRecord(const std::string& key, const std::string& value) {
  const std::string body = " " + key + "=" + value + "\n";
  std::size_t length = body.size() + 1;
  while (std::to_string(length).size() + body.size() != length) ++length;
  return std::to_string(length) + body;
}

std::string PaxBlock(const std::vector<std::pair<std::string, std::string>>& records, char type,
                     const std::string& name, bool gnu_magic) {
  std::string data;
  for (const auto& [k, v] : records) data += PaxRecord(k, v);
  return Header(name, type, data.size(), "", gnu_magic, std::nullopt) + PadToBlock(data);
}

}  // namespace

TarMemberSpec Member(std::string name, std::string data, char type) {
  TarMemberSpec m;
  m.name = std::move(name);
  m.data = std::move(data);
  m.type = type;
  return m;
}

std::string BuildTar(const TarSpec& spec) {
  std::string out;
  if (!spec.global_records.empty()) out += PaxBlock(spec.global_records, 'g', "pax_global_header", spec.gnu_magic);
  for (const TarMemberSpec& m : spec.members) {
    std::vector<std::pair<std::string, std::string>> records;
    if (m.pax_path) records.emplace_back("path", m.name);
    for (const auto& r : m.pax_records) records.push_back(r);
    if (!records.empty()) {
      out += PaxBlock(records, 'x', "PaxHeaders/" + m.name.substr(0, 80), spec.gnu_magic);
      if (m.duplicate_pax) out += PaxBlock(records, 'x', "PaxHeaders/" + m.name.substr(0, 80), spec.gnu_magic);
    }
    if (m.gnu_long_name) {
      const std::string data = m.name + '\0';
      out += Header("././@LongLink", 'L', data.size(), "", spec.gnu_magic, std::nullopt) + PadToBlock(data);
    }
    std::string ustar = m.ustar_name ? *m.ustar_name : m.name;
    if ((m.pax_path || m.gnu_long_name) && !m.ustar_name) ustar = m.name.substr(0, 100);
    out += Header(ustar, m.type, m.header_size.value_or(m.data.size()), m.linkname, spec.gnu_magic, m.raw_size_field,
                  {m.break_checksum, m.signed_checksum, m.uname, m.prefix_field});
    out += PadToBlock(m.data);
  }
  out.append(static_cast<std::size_t>(spec.end_blocks) * kBlock, '\0');
  if (spec.record != 0 && spec.end_blocks >= 2)
    out.resize((out.size() + spec.record - 1) / spec.record * spec.record, '\0');
  out += spec.trailing;
  return out;
}

TarSpec TarOfFiles(const Files& files, const std::string& prefix) {
  TarSpec spec;
  if (!prefix.empty()) spec.members.push_back(Member(prefix, "", '5'));
  for (const auto& [name, bytes] : files) spec.members.push_back(Member(prefix + name, bytes));
  return spec;
}

}  // namespace ckpt::testing
