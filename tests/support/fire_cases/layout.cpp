// Fire cases of the layout rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddLayoutFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // layout
  c.push_back({"layout-file-changed",
               CI,
               "weights replaced after opening",
               [] { return Clean(); },
               {},
               {},
               {"weights.safetensors"}});
  c.push_back({"layout-file-changed",
               CI,
               "header.json replaced after reading",
               [] { return Clean(); },
               {},
               {},
               {"header.json"}});
  Add(c, "layout-header-missing", AI, "absent", [] {
    Files f = Clean();
    f.erase("header.json");
    return f;
  });
  Add(c, "layout-header-missing", AI, "a directory",
      [] {
        Files f = Clean();
        f.erase("header.json");
        return f;
      },
      {}, {{"header.json", EntryKind::kDirectory}});
  Add(c, "layout-stray-entry", CI, "pickle file", [] {
    Files f = Clean();
    f["optimizer.pt"] = std::string("\x80\x02}q\x00.", 6);
    return f;
  });
  Add(c, "layout-stray-entry", CI, "hidden file", [] {
    Files f = Clean();
    f[".DS_Store"] = "x";
    return f;
  });
  Add(c, "layout-stray-entry", CI, "sub-folder", Clean, {}, {{"extra", EntryKind::kDirectory}});
  Add(c, "layout-stray-entry", CI, "fifo", Clean, {}, {{"pipe", EntryKind::kOther}});
  Add(c, "layout-symlink", CI, "link", Clean, {}, {{"evil", EntryKind::kSymlink}});
  Add(c, "layout-symlink", CI, "link as weights",
      [] {
        Files f = Clean();
        f.erase("weights.safetensors");
        return f;
      },
      {}, {{"weights.safetensors", EntryKind::kSymlink}});
  Add(c, "layout-mixed", CI, "both", [] {
    Files f = Sharded();
    f["weights.safetensors"] = Clean().at("weights.safetensors");
    return f;
  });
  Add(c, "layout-no-weights", CI, "none", [] {
    Files f = Clean();
    f.erase("weights.safetensors");
    return f;
  });
  Add(c, "layout-shard-numbering", CI, "missing shard", [] {
    Files f = Sharded();
    f.erase(kShard1);
    return f;
  });
  Add(c, "layout-shard-numbering", CI, "one of one", [] {
    Files f = Clean();
    f["weights-00000-of-00001.safetensors"] = f.at("weights.safetensors");
    f.erase("weights.safetensors");
    return f;
  });
  Add(c, "layout-index-missing", CI, "no index", [] {
    Files f = Sharded();
    f.erase("weights.index.json");
    return f;
  });
}

}  // namespace ckpt::testing
