// Files that real Python writers make (torch.save, joblib.dump, onnx.save, ...), written by the
// generators tests/python_fixtures.py names. The CTest fixture python_made runs them all in one
// interpreter before the suites that need them (torch is imported once per test run, not once
// per suite) into <build>/python-fixtures; a test binary run on its own makes them itself.
#pragma once

#include <filesystem>
#include <string>

namespace ckpt::testing {

struct PythonMade {
  bool ok = false;
  bool missing_module = false;    ///< a package the generator imports is not installed
  std::string problem;            ///< why not ok: the generator's own error
  std::string output;             ///< what the generator printed
  std::filesystem::path made_in;  ///< where it wrote: paths baked into the files point there
};

/// The files of generator `name`, copied into `into` (the caller's folder, free to change).
PythonMade MadeByPython(const std::string& name, const std::filesystem::path& into);

}  // namespace ckpt::testing
