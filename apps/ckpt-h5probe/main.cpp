// ckpt-h5probe: the isolated HDF5 reader (formats.md section 6). The audit never links
// libhdf5; it starts this helper with posix_spawn for each HDF5 file or `.keras` weights
// member, hands it the bytes on standard input (the file's own read-only descriptor, or a
// pipe) and reads one answer from standard output: a 4-byte big-endian length and a JSON
// document of at most 64 MiB. The helper limits itself before touching the input (the audit
// sets the same limits on it from outside), empties its environment before libhdf5 reads it,
// turns plugin loading off, and opens the bytes as a file image with the core driver; once the
// bytes are in memory it installs a seccomp filter (seccomp_filter.h), so no path is ever
// opened, no process made, no socket reached, whoever runs it. It reads metadata only (links,
// object headers, dataset types, shapes, layouts, filters, a few root attributes), never
// dataset data.
//
//   ckpt-h5probe SIZE   (SIZE: how many bytes standard input holds)
//
// Exit status: 0 an answer was written (also for a file libhdf5 refuses: status "invalid");
// 2 usage; 3 the input was shorter than SIZE or unreadable; 4 the answer could not be written.
#include <hdf5.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "apps/ckpt-h5probe/seccomp_filter.h"
#include "lib/formats/hdf5/h5probe_limits.h"
#if defined(CKPT_H5PROBE_TEST_HOOKS)
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <csignal>
#endif

namespace {

constexpr std::uint64_t kMaxObjects = 1'000'000;
constexpr std::size_t kMaxDepth = 64;
constexpr std::uint64_t kMaxAttributeBytes = 100'000'000;
constexpr std::size_t kMaxAnswerBytes = ckpt::hdf5::kMaxAnswerBytes;
constexpr std::size_t kAnswerReserve = std::size_t{1} << 20;  // kept for the answer's own fields
constexpr int kMaxRank = 32;                                  // H5S_MAX_RANK

// The pinned limits (h5probe_limits.h), applied before anything else runs on the input.
bool LimitSelf(std::uint64_t size) {
  for (const ckpt::hdf5::ProbeLimit& limit : ckpt::hdf5::ProbeLimits(size)) {
    struct rlimit current {};
    if (::getrlimit(limit.resource, &current) != 0) return false;
    // Never raise a limit the audit set lower.
    const struct rlimit wanted { std::min(limit.soft, current.rlim_cur), std::min(limit.hard, current.rlim_max) };
    if (::setrlimit(limit.resource, &wanted) != 0) return false;
  }
  return true;
}

// Valid UTF-8 text is kept; anything else is shown with \xHH escapes and flagged, so the
// answer stays JSON and the audit can tell the name was not text.
std::string AsText(std::string_view bytes, bool& was_text) {
  was_text = true;
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    std::size_t length = c < 0x80 ? 1 : (c >> 5U) == 0x6 ? 2 : (c >> 4U) == 0xe ? 3 : (c >> 3U) == 0x1e ? 4 : 0;
    bool ok = length > 0 && i + length <= bytes.size() && !(length == 2 && c < 0xc2);
    for (std::size_t k = 1; ok && k < length; ++k) ok = (static_cast<unsigned char>(bytes[i + k]) & 0xc0U) == 0x80;
    if (ok && length > 1) {
      std::uint32_t cp = c & (0xffU >> (length + 1));
      for (std::size_t k = 1; k < length; ++k) cp = (cp << 6U) | (static_cast<unsigned char>(bytes[i + k]) & 0x3fU);
      ok = !(length == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) &&
           !(length == 4 && (cp < 0x10000 || cp > 0x10ffff));
    }
    if (!ok) {
      static constexpr std::string_view kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4U];
      out += kHex[c & 0xfU];
      was_text = false;
      ++i;
      continue;
    }
    out.append(bytes.substr(i, length));
    i += length;
  }
  return out;
}

boost::json::string Text(std::string_view bytes, boost::json::object& holder, std::string_view flag) {
  bool was_text = true;
  std::string shown = AsText(bytes, was_text);
  if (!was_text) holder[flag] = true;
  return {shown};
}

// The listed dtype token of an HDF5 type (formats.md section 6), "OTHER" for the rest.
std::string DtypeToken(hid_t type) {
  const H5T_class_t type_class = H5Tget_class(type);
  const std::size_t size = H5Tget_size(type);
  if (type_class == H5T_FLOAT) {
    std::size_t sign = 0;
    std::size_t exponent_at = 0;
    std::size_t exponent_bits = 0;
    std::size_t mantissa_at = 0;
    std::size_t mantissa_bits = 0;
    if (H5Tget_fields(type, &sign, &exponent_at, &exponent_bits, &mantissa_at, &mantissa_bits) < 0) return "OTHER";
    if (size == 2 && exponent_bits == 5 && mantissa_bits == 10) return "F16";
    if (size == 2 && exponent_bits == 8 && mantissa_bits == 7) return "BF16";
    if (size == 4 && exponent_bits == 8 && mantissa_bits == 23) return "F32";
    if (size == 8 && exponent_bits == 11 && mantissa_bits == 52) return "F64";
    return "OTHER";
  }
  if (type_class == H5T_INTEGER) {
    const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
    switch (size) {
      case 1:
        return is_signed ? "I8" : "U8";
      case 2:
        return is_signed ? "I16" : "U16";
      case 4:
        return is_signed ? "I32" : "U32";
      case 8:
        return is_signed ? "I64" : "U64";
      default:
        return "OTHER";
    }
  }
  if (type_class == H5T_ENUM && size == 1 && H5Tget_nmembers(type) == 2) {
    // h5py (and so Keras) stores numpy bool as an int8 enum {FALSE: 0, TRUE: 1}.
    std::array<char, 8> first{};
    std::array<char, 8> second{};
    if (H5Tget_member_value(type, 0, first.data()) >= 0 && H5Tget_member_value(type, 1, second.data()) >= 0 &&
        first[0] == 0 && second[0] == 1) {
      char* name0 = H5Tget_member_name(type, 0);
      char* name1 = H5Tget_member_name(type, 1);
      const bool named = name0 != nullptr && name1 != nullptr && std::string_view(name0) == "FALSE" &&
                         std::string_view(name1) == "TRUE";
      H5free_memory(name0);
      H5free_memory(name1);
      if (named) return "BOOL";
    }
  }
  if (type_class == H5T_COMPOUND && H5Tget_nmembers(type) == 2 && (size == 8 || size == 16)) {
    // h5py stores numpy complex as a compound {r, i} of two floats and reads it back as complex.
    char* name0 = H5Tget_member_name(type, 0);
    char* name1 = H5Tget_member_name(type, 1);
    const bool named =
        name0 != nullptr && name1 != nullptr && std::string_view(name0) == "r" && std::string_view(name1) == "i";
    H5free_memory(name0);
    H5free_memory(name1);
    const std::string part = size == 8 ? "F32" : "F64";
    bool parts = named && H5Tget_member_offset(type, 0) == 0 && H5Tget_member_offset(type, 1) == size / 2;
    for (unsigned i = 0; parts && i < 2; ++i) {
      const hid_t member = H5Tget_member_type(type, i);
      parts = member >= 0 && DtypeToken(member) == part;
      if (member >= 0) H5Tclose(member);
    }
    if (parts) return size == 8 ? "C64" : "C128";
  }
  return "OTHER";
}

const char* LayoutName(H5D_layout_t layout) {
  switch (layout) {
    case H5D_COMPACT:
      return "compact";
    case H5D_CONTIGUOUS:
      return "contiguous";
    case H5D_CHUNKED:
      return "chunked";
    case H5D_VIRTUAL:
      return "virtual";
    default:
      return "unknown";
  }
}

struct Walk {
  boost::json::array datasets;
  boost::json::array links;
  std::uint64_t objects = 0;
  std::size_t answer_bytes = 0;  // an estimate of what the listing adds to the answer
  std::string budget;            // why the walk stopped early; empty when it did not
};

void DescribeDataset(hid_t dataset, boost::json::object& entry) {
  const hid_t create = H5Dget_create_plist(dataset);
  H5D_layout_t layout = H5D_LAYOUT_ERROR;
  if (create >= 0) {
    layout = H5Pget_layout(create);
    entry["layout"] = LayoutName(layout);
    const int externals = H5Pget_external_count(create);
    if (externals > 0) entry["external_files"] = externals;
    const int filters = H5Pget_nfilters(create);
    boost::json::array filter_ids;
    for (int i = 0; i < filters; ++i) {
      unsigned flags = 0;
      std::size_t values = 0;
      std::array<char, 64> name{};
      unsigned config = 0;
      const H5Z_filter_t id =
          H5Pget_filter2(create, static_cast<unsigned>(i), &flags, &values, nullptr, name.size(), name.data(), &config);
      boost::json::object filter{{"id", static_cast<std::int64_t>(id)}};
      filter["name"] =
          Text(std::string_view(name.data(), ::strnlen(name.data(), name.size())), filter, "name_not_text");
      filter_ids.push_back(std::move(filter));
    }
    if (!filter_ids.empty()) entry["filters"] = std::move(filter_ids);
    H5Pclose(create);
  }
  const hid_t type = H5Dget_type(dataset);
  entry["dtype"] = type >= 0 ? DtypeToken(type) : "OTHER";
  if (type >= 0) H5Tclose(type);
  // A virtual dataset's extent can depend on its source files: never asked for.
  if (layout == H5D_VIRTUAL) return;
  const hid_t space = H5Dget_space(dataset);
  if (space < 0) return;
  boost::json::array shape;
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank > 0 && rank <= kMaxRank) {
    std::array<hsize_t, kMaxRank> dims{};
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    for (int i = 0; i < rank; ++i) shape.push_back(static_cast<std::uint64_t>(dims[static_cast<std::size_t>(i)]));
  }
  if (H5Sget_simple_extent_type(space) == H5S_NULL) entry["null_dataspace"] = true;
  entry["shape"] = std::move(shape);
  H5Sclose(space);
}

herr_t VisitLink(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  auto& walk = *static_cast<Walk*>(data);
  const std::string_view path(name);
  if (++walk.objects > kMaxObjects) {
    walk.budget = "more than 1000000 links";
    return 1;
  }
  const auto depth = static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')) + 1;
  if (depth > kMaxDepth) {
    walk.budget = "groups nested deeper than 64 levels";
    return 1;
  }
  if (walk.answer_bytes + path.size() + 256 > kMaxAnswerBytes - kAnswerReserve) {
    walk.budget = "a listing larger than the 64 MiB answer";
    return 1;
  }
  walk.answer_bytes += path.size() + 256;
  if (info->type != H5L_TYPE_HARD) {
    boost::json::object link;
    link["path"] = Text(path, link, "path_not_text");
    link["type"] = info->type == H5L_TYPE_SOFT ? "soft" : info->type == H5L_TYPE_EXTERNAL ? "external" : "user";
    if (info->type == H5L_TYPE_EXTERNAL && info->u.val_size <= 65536) {
      std::vector<char> value(info->u.val_size);
      unsigned flags = 0;
      const char* file = nullptr;
      const char* object = nullptr;
      if (H5Lget_val(group, name, value.data(), value.size(), H5P_DEFAULT) >= 0 &&
          H5Lunpack_elink_val(value.data(), value.size(), &flags, &file, &object) >= 0 && file != nullptr &&
          object != nullptr) {
        link["file"] = Text(std::string_view(file, ::strnlen(file, value.size())), link, "file_not_text");
        link["object"] = Text(std::string_view(object, ::strnlen(object, value.size())), link, "object_not_text");
      }
    }
    walk.links.push_back(std::move(link));
    return 0;
  }
  H5O_info_t object_info{};
  if (H5Oget_info_by_name2(group, name, &object_info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) return 0;
  if (object_info.type != H5O_TYPE_DATASET) return 0;
  boost::json::object entry;
  entry["path"] = Text(path, entry, "path_not_text");
  const hid_t dataset = H5Dopen2(group, name, H5P_DEFAULT);
  if (dataset < 0) {
    entry["unopened"] = true;
  } else {
    DescribeDataset(dataset, entry);
    H5Dclose(dataset);
  }
  walk.datasets.push_back(std::move(entry));
  return 0;
}

// The root attributes Keras writes, read when they are strings within their bound.
void ReadRootAttributes(hid_t root, boost::json::object& answer) {
  boost::json::object attributes;
  boost::json::array issues;
  for (const char* name : {"model_config", "training_config", "keras_version", "backend"}) {
    if (H5Aexists(root, name) <= 0) continue;
    const hid_t attribute = H5Aopen(root, name, H5P_DEFAULT);
    if (attribute < 0) continue;
    const hid_t type = H5Aget_type(attribute);
    const hid_t space = H5Aget_space(attribute);
    const hssize_t points = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    const hsize_t stored = H5Aget_storage_size(attribute);
    std::string value;
    std::string issue;
    if (type < 0 || H5Tget_class(type) != H5T_STRING) {
      issue = "is not a string";
    } else if (points != 1) {
      issue = "is not one string";
    } else if (stored > kMaxAttributeBytes) {
      issue = "budget: " + std::to_string(stored) + " bytes, past the bound of 100000000";
    } else if (H5Tis_variable_str(type) > 0) {
      const hid_t memory = H5Tcopy(H5T_C_S1);
      H5Tset_size(memory, H5T_VARIABLE);
      H5Tset_cset(memory, H5Tget_cset(type));
      char* text = nullptr;
      if (H5Aread(attribute, memory, static_cast<void*>(&text)) >= 0 && text != nullptr) {
        const std::size_t length = ::strnlen(text, kMaxAttributeBytes + 1);
        if (length > kMaxAttributeBytes) {
          issue = "budget: longer than the bound of 100000000 bytes";
        } else {
          value.assign(text, length);
        }
        H5Dvlen_reclaim(memory, space, H5P_DEFAULT, static_cast<void*>(&text));
      } else {
        issue = "cannot be read";
      }
      H5Tclose(memory);
    } else {
      const std::size_t size = H5Tget_size(type);
      std::vector<char> buffer(size);
      const hid_t memory = H5Tcopy(type);
      if (H5Aread(attribute, memory, buffer.data()) >= 0) {
        value.assign(buffer.data(), ::strnlen(buffer.data(), buffer.size()));
      } else {
        issue = "cannot be read";
      }
      H5Tclose(memory);
    }
    if (issue.empty()) {
      bool was_text = true;
      std::string shown = AsText(value, was_text);
      if (was_text) {
        attributes[name] = shown;
      } else {
        issue = "is not UTF-8 text";
      }
    }
    if (!issue.empty()) issues.push_back({{"name", name}, {"issue", issue}});
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    H5Aclose(attribute);
  }
  answer["attributes"] = std::move(attributes);
  if (!issues.empty()) answer["attribute_issues"] = std::move(issues);
}

// What libhdf5 said when it refused the file: its error stack, innermost last.
herr_t CollectError(unsigned depth, const H5E_error2_t* error, void* data) {
  auto& messages = *static_cast<std::vector<std::string>*>(data);
  if (depth < 8 && error->desc != nullptr && error->desc[0] != '\0') {
    messages.emplace_back(error->desc, ::strnlen(error->desc, 400));
  }
  return 0;
}

std::string LibraryError() {
  std::vector<std::string> messages;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, &CollectError, &messages);
  std::string joined;
  for (const std::string& m : messages) {
    if (!joined.empty()) joined += "; ";
    joined += m;
  }
  return joined.empty() ? std::string("the library refused the file") : joined;
}

bool ReadExactly(int fd, char* out, std::uint64_t size) {
  std::uint64_t done = 0;
  while (done < size) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(size - done, std::uint64_t{1} << 30));
    const ssize_t n = ::read(fd, out + done, want);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::uint64_t>(n);
  }
  return true;
}

bool WriteAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// The core driver's file image is the caller's buffer itself: these callbacks hand it out
// instead of copying it (a copy would double the memory a large file needs).
struct Image {
  void* bytes;
  std::size_t size;
};
void* ImageMalloc(std::size_t /*size*/, H5FD_file_image_op_t /*op*/, void* udata) {
  return static_cast<Image*>(udata)->bytes;
}
void* ImageMemcpy(void* dest, const void* src, std::size_t size, H5FD_file_image_op_t /*op*/, void* /*udata*/) {
  if (dest != src) std::memcpy(dest, src, size);
  return dest;
}
void* ImageRealloc(void* /*ptr*/, std::size_t /*size*/, H5FD_file_image_op_t /*op*/, void* /*udata*/) {
  return nullptr;  // the image is read-only: never grown
}
herr_t ImageFree(void* /*ptr*/, H5FD_file_image_op_t /*op*/, void* /*udata*/) { return 0; }
void* ImageUdataCopy(void* udata) { return udata; }
herr_t ImageUdataFree(void* /*udata*/) { return 0; }

// Opens the image; on failure `error` holds libhdf5's reasons (read before the next API call,
// which clears its error stack).
hid_t OpenImage(Image& image, std::string& error) {
  const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
  if (access < 0) return -1;
  H5FD_file_image_callbacks_t callbacks{&ImageMalloc,    &ImageMemcpy,    &ImageRealloc, &ImageFree,
                                        &ImageUdataCopy, &ImageUdataFree, &image};
  hid_t file = -1;
  if (H5Pset_fapl_core(access, 65536, 0) >= 0 && H5Pset_file_image_callbacks(access, &callbacks) >= 0 &&
      H5Pset_file_image(access, image.bytes, image.size) >= 0) {
    // The name is only a label: with a file image the core driver opens no file.
    file = H5Fopen("ckpt-h5probe-image", H5F_ACC_RDONLY, access);
  }
  if (file < 0) error = LibraryError();
  H5Pclose(access);
  return file;
}

boost::json::object Probe(void* bytes, std::uint64_t size) {
  boost::json::object answer{{"version", 1}};
  Image image{bytes, static_cast<std::size_t>(size)};
  std::string error;
  const hid_t file = OpenImage(image, error);
  if (file < 0) {
    answer["status"] = "invalid";
    bool was_text = true;
    answer["error"] = AsText(error, was_text);
    return answer;
  }
  answer["status"] = "ok";
  const hid_t root = H5Gopen2(file, "/", H5P_DEFAULT);
  Walk walk;
  if (root >= 0) {
    ReadRootAttributes(root, answer);
    if (H5Lvisit(root, H5_INDEX_NAME, H5_ITER_INC, &VisitLink, &walk) < 0 && walk.budget.empty()) {
      bool was_text = true;
      answer["walk_error"] = AsText(LibraryError(), was_text);
    }
    H5Gclose(root);
  }
  answer["objects"] = walk.objects;
  answer["datasets"] = std::move(walk.datasets);
  answer["links"] = std::move(walk.links);
  if (!walk.budget.empty()) answer["budget"] = walk.budget;
  H5Fclose(file);
  return answer;
}

#if defined(CKPT_H5PROBE_TEST_HOOKS)
// The test build's hook (ckpt-h5probe-hooked, never installed): after the filter is in place,
// an image whose bytes after the HDF5 signature say "try-CALL" makes that call, so a test
// proves each refusal from inside the helper. A call that kills never returns; one that
// survives exits 22. A read-only open must fail with ENOENT: exit 21 when it does.
void TryWhatTheImageAsks(const void* image, std::uint64_t size) {
  const std::string_view bytes(static_cast<const char*>(image),
                               static_cast<std::size_t>(std::min<std::uint64_t>(size, 64)));
  if (bytes.size() < 12 || bytes.substr(8, 4) != "try-") return;
  const std::string_view call = bytes.substr(
      12, bytes.find('\0', 12) == std::string_view::npos ? std::string_view::npos : bytes.find('\0', 12) - 12);
  if (call.starts_with("open-read")) {
    const int fd = ::open("/etc/hostname", O_RDONLY | O_CLOEXEC);
    std::_Exit(fd < 0 && errno == ENOENT ? 21 : 20);
  }
  if (call.starts_with("open-write")) (void)::open("/tmp/ckpt-h5probe-hook", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (call.starts_with("socket")) (void)::socket(AF_INET, SOCK_STREAM, 0);
  if (call.starts_with("execve")) {
    std::array<char*, 2> argv{const_cast<char*>("/bin/true"), nullptr};
    std::array<char*, 1> envp{nullptr};
    (void)::execve("/bin/true", argv.data(), envp.data());
  }
  if (call.starts_with("fork")) {
    if (::fork() == 0) std::_Exit(0);
  }
  if (call.starts_with("clone")) (void)::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
  if (call.starts_with("write-other")) (void)::write(5, "x", 1);
  if (call.starts_with("kill-other")) (void)::kill(1, 0);
  if (call.starts_with("mmap-file")) (void)::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, STDIN_FILENO, 0);
  std::_Exit(22);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::uint64_t size = 0;
  const std::string_view argument(argv[1]);
  if (std::from_chars(argument.data(), argument.data() + argument.size(), size).ptr !=
          argument.data() + argument.size() ||
      size == 0) {
    return 2;
  }
  if (!LimitSelf(size)) return 2;
  ::clearenv();  // before libhdf5 reads HDF5_PLUGIN_PATH, HDF5_DRIVER, HDF5_USE_FILE_LOCKING
  H5PLset_loading_state(0);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);

  // The file's own descriptor is mapped read-only; a pipe is read into memory.
  void* image = nullptr;
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) == size) {
    image = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, STDIN_FILENO, 0);
    if (image == MAP_FAILED) return 3;
  } else {
    image = std::malloc(static_cast<std::size_t>(size));
    if (image == nullptr || !ReadExactly(STDIN_FILENO, static_cast<char*>(image), size)) return 3;
  }
  // From here on only what reading the image and answering need (seccomp_filter.h).
  if (!ckpt::h5probe::InstallSeccompFilter()) return 2;
#if defined(CKPT_H5PROBE_TEST_HOOKS)
  TryWhatTheImageAsks(image, size);
#endif
  const std::string document = boost::json::serialize(Probe(image, size));
  if (document.size() > kMaxAnswerBytes) return 4;
  const auto length = static_cast<std::uint32_t>(document.size());
  const std::array<char, 4> prefix{static_cast<char>(length >> 24U), static_cast<char>(length >> 16U),
                                   static_cast<char>(length >> 8U), static_cast<char>(length)};
  if (!WriteAll(STDOUT_FILENO, prefix.data(), prefix.size()) ||
      !WriteAll(STDOUT_FILENO, document.data(), document.size())) {
    return 4;
  }
  return 0;
}
