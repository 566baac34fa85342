#include "tests/support/python_fixtures.h"

#include "tests/support/artifact_builder.h"
#include "tests/support/built_tools.h"
#include "tests/support/process.h"

namespace ckpt::testing {

namespace fs = std::filesystem;

PythonMade MadeByPython(const std::string& name, const fs::path& into) {
  PythonMade made;
  fs::path shared = BuildDir() / "python-fixtures";
  if (!fs::exists(shared / name / ".fixture-key") && !fs::exists(shared / (name + ".failed"))) {
    // Not run by CTest's fixture: make this one generator here, in a folder of this process.
    static const TempDir own;
    shared = own.path();
    const CommandResult run =
        RunCommand("/usr/bin/python3 " + ShellQuote(fs::path(SourceDir()) / "tests/python_fixtures.py") + " " +
                   ShellQuote(shared) + " " + ShellQuote(name) + " 2>&1");
    if (run.exit_code != 0) {
      made.problem = "tests/python_fixtures.py failed: " + run.output;
      return made;
    }
  }
  const fs::path failed = shared / (name + ".failed");
  if (fs::exists(failed)) {
    made.problem = ReadText(failed);
    made.missing_module = made.problem.find("ModuleNotFoundError") != std::string::npos;
    return made;
  }
  made.made_in = shared / name;
  made.output = ReadText(made.made_in / ".fixture-stdout");
  fs::create_directories(into);
  for (const fs::directory_entry& entry : fs::directory_iterator(made.made_in)) {
    if (entry.path().filename().string().starts_with(".fixture-")) continue;  // the fixture's own records
    fs::copy(entry.path(), into / entry.path().filename(),
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  }
  made.ok = true;
  return made;
}

}  // namespace ckpt::testing
