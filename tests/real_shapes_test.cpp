// Checkpoints shaped as real tools write them (issue 46 item 3: small fixtures hid a crash on
// every real Flax checkpoint): arrays of megabytes beside hundreds of small ones, hundreds of
// members, a chunked Flax array, ONNX with its data external, a NeMo config of the size NeMo
// writes (tests/real_shapes/make_real_shapes.py, with Debian's numpy, joblib, msgpack, onnx,
// h5py and torch). Each passes, and lists exactly the tensor names its own loader lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/audit.h"
#include "engine/verdict.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/python_fixtures.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

class RealShapes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const PythonMade made = MadeByPython("real-shapes", dir_->path());
    if (!made.ok) {
      missing_ = "make_real_shapes.py failed (numpy, joblib, msgpack, onnx, h5py, torch): " + made.problem;
      return;
    }
    std::ifstream in(dir_->path() / "listed.json");
    listed_ = new boost::json::value(
        boost::json::parse(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>())));
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete listed_;
    dir_ = nullptr;
    listed_ = nullptr;
  }
  void SetUp() override {
    if (!missing_.empty()) CKPT_MISSING_PREREQUISITE() << missing_;
  }
  static inline TempDir* dir_ = nullptr;
  static inline boost::json::value* listed_ = nullptr;
  static inline std::string missing_;
};

// One test (one process): the files are written once, in about 3 s.
TEST_F(RealShapes, EachPassesWithTheTensorsItsLoaderLists) {
  // "external" is the folder onnx.save_model wrote: model.onnx beside its one data file.
  for (const std::string input : {"wide.npz", "wide.joblib", "wide.zlib", "flax_model.msgpack", "model.onnx",
                                  "external", "tf_model.h5", "model.nemo"}) {
    SCOPED_TRACE(input);
    const std::string listed_as = input == "external" ? "model.onnx" : input;
    const AuditResult result = AuditPath((dir_->path() / input).string(), {});
    EXPECT_EQ(VerdictOf(result, Severity::kWarning), Verdict::kPass) << Describe(result);
    std::vector<std::string> names;
    for (const WeightFile* wf : result.artifact.ListedWeightFiles()) {
      for (const StoredTensor& t : wf->tensors) names.push_back(t.name);
    }
    std::sort(names.begin(), names.end());
    std::vector<std::string> expected;
    for (const boost::json::value& name : listed_->at(listed_as).as_array()) {
      expected.emplace_back(name.as_string().c_str());
    }
    EXPECT_EQ(names.size(), expected.size());
    EXPECT_EQ(names, expected);
  }
}

}  // namespace
}  // namespace ckpt::testing
