// Test helpers that read the project's example specs and golden files by path relative to the
// source tree (tests run from the build folder).
#ifndef GANTRY_TESTS_TESTING_SPEC_FILES_H_
#define GANTRY_TESTS_TESTING_SPEC_FILES_H_

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gantry::testing {

// The repository root, found from this header's own path.
inline std::filesystem::path SourceRoot() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
}

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string ReadExample(const std::string& name) {
  return ReadFile(SourceRoot() / "examples" / name);
}

inline std::string ReadGolden(const std::string& name) {
  return ReadFile(SourceRoot() / "tests" / "golden" / name);
}

}  // namespace gantry::testing

#endif  // GANTRY_TESTS_TESTING_SPEC_FILES_H_
