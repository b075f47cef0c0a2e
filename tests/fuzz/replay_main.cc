// A main() for fuzz targets built without libFuzzer (gcc, the default build):
// runs LLVMFuzzerTestOneInput once on every file named on the command line or
// found in a directory named there, and ignores libFuzzer's "-flag=value"
// arguments, so tests/fuzz/run_fuzzer.sh runs either kind of binary the same
// way. A crash reproducer kept in a corpus thus fails the ordinary suite too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputsOf(const std::filesystem::path& path) {
  if (!std::filesystem::is_directory(path)) return {path};
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (entry.is_regular_file()) files.push_back(entry.path());  // follows runfiles symlinks
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  int replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("-")) continue;  // a libFuzzer flag
    for (const auto& file : inputsOf(arg)) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
        return 1;
      }
      const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  std::printf("replay: %d inputs ran without a crash (no fuzzing: this binary has no libFuzzer)\n",
              replayed);
  return replayed > 0 ? 0 : 1;  // an empty corpus would test nothing
}
