// Replays fuzz inputs without a fuzzing engine: each argument is a file or a folder of
// files, each fed once to LLVMFuzzerTestOneInput. Linked by default so CTest replays the
// corpus on every build; -DCKPT_FUZZ_ENGINE=libFuzzer links the real engine instead.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int Replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << file << "\n";
    return 1;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file()) failures += Replay(entry.path()), ++count;
      }
    } else {
      failures += Replay(arg), ++count;
    }
  }
  std::cout << "replayed " << count << " inputs\n";
  return (failures == 0 && count > 0) ? 0 : 1;
}
