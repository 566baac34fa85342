#include "lib/io/model_folder_source.h"

#include <algorithm>
#include <cerrno>
#include <deque>
#include <filesystem>

namespace ckpt {
namespace {

boost::system::error_code Error(int code) { return {code, boost::system::system_category()}; }

std::vector<std::string> Components(const std::string& path) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= path.size()) {
    const std::size_t slash = std::min(path.find('/', from), path.size());
    if (slash > from) out.push_back(path.substr(from, slash - from));
    from = slash + 1;
  }
  return out;
}

std::string Join(const std::string& folder, const std::string& name) {
  return folder.empty() ? name : folder + "/" + name;
}

}  // namespace

IoResult<std::unique_ptr<ModelFolderSource>> ModelFolderSource::OpenFolder(const std::string& path,
                                                                           std::span<const std::string> excluded) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(path, ec);
  if (ec) return Error(ec.value());
  auto root = DirectorySource::OpenDirectory(real.string());
  if (!root) return root.error();
  std::unique_ptr<ModelFolderSource> source(new ModelFolderSource());
  source->root_ = std::move(*root);
  // A hub-cache snapshot: models--ORG--NAME/snapshots/REV.
  const std::filesystem::path snapshots = real.parent_path();
  const std::filesystem::path repo = snapshots.parent_path();
  if (snapshots.filename() == "snapshots" && repo.filename().string().starts_with("models--")) {
    if (auto repo_dir = DirectorySource::OpenDirectory(repo.string())) {
      source->repo_root_ = std::move(*repo_dir);
      source->repository_ = repo.filename().string();
      source->snapshot_ = "snapshots/" + real.filename().string();
    }
  }
  source->excluded_.assign(excluded.begin(), excluded.end());
  std::sort(source->excluded_.begin(), source->excluded_.end());
  source->Walk();
  return source;
}

void ModelFolderSource::Walk() {
  struct Pending {
    std::string path;
    const DirectorySource* dir;
    std::size_t depth;
    IoResult<std::vector<DirectoryEntry>> listed;  // listed once, when the folder was met
  };
  std::deque<Pending> queue;
  queue.push_back({"", root_.get(), 0, root_->List()});
  while (!queue.empty()) {
    const Pending folder = std::move(queue.front());
    queue.pop_front();
    const auto& listed = folder.listed;
    if (!listed) {
      not_walked_.push_back(folder.path.empty() ? "." : folder.path);
      continue;
    }
    for (const DirectoryEntry& e : *listed) {
      if (entries_.size() >= kMaxEntries) {
        not_walked_.push_back(folder.path.empty() ? "." : folder.path);
        break;
      }
      const std::string path = Join(folder.path, e.name);
      if (std::binary_search(excluded_.begin(), excluded_.end(), path)) continue;
      if (e.kind == EntryKind::kSymlink) {
        AddLink(*folder.dir, folder.path, e.name);
        continue;
      }
      entries_.push_back({path, e.kind, e.size, e.links});
      if (e.kind != EntryKind::kDirectory) continue;
      auto sub = folder.dir->OpenSubdirectory(e.name);
      if (!sub) {
        not_walked_.push_back(path);
        continue;
      }
      auto sub_entries = (*sub)->List();
      const bool artifact = sub_entries && std::any_of(sub_entries->begin(), sub_entries->end(),
                                                       [](const DirectoryEntry& x) { return x.name == "header.json"; });
      if (artifact) {
        artifacts_.push_back(path);
        continue;
      }
      if (folder.depth + 1 >= kMaxDepth) {
        not_walked_.push_back(path);
        continue;
      }
      const DirectorySource* raw = sub->get();
      folders_.emplace(path, std::move(*sub));
      queue.push_back({path, raw, folder.depth + 1, std::move(sub_entries)});
    }
  }
  std::sort(entries_.begin(), entries_.end(),
            [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name < b.name; });
}

void ModelFolderSource::AddLink(const DirectorySource& dir, const std::string& folder, const std::string& name) {
  FolderLink link;
  link.name = Join(folder, name);
  auto target = dir.ReadLink(name);
  if (!target) {
    link.refusal = "its target cannot be read (" + target.error().message() + ")";
  } else {
    link.target = *target;
  }
  if (link.refusal.empty() && !repo_root_) {
    link.refusal = "a symlink outside a Hugging Face cache snapshot is never followed";
  } else if (link.refusal.empty() && link.target.starts_with("/")) {
    link.refusal = "its target is an absolute path";
  } else if (link.refusal.empty()) {
    // Resolve lexically against the link's folder inside the repository.
    std::vector<std::string> resolved = Components(snapshot_ + (folder.empty() ? "" : "/" + folder));
    for (const std::string& c : Components(link.target)) {
      if (c == ".") continue;
      if (c == "..") {
        if (resolved.empty()) {
          link.refusal = "its target leaves " + *repository_;
          break;
        }
        resolved.pop_back();
        continue;
      }
      resolved.push_back(c);
    }
    if (link.refusal.empty() && resolved.empty()) link.refusal = "its target is the repository itself";
    if (link.refusal.empty()) {
      std::string path;
      for (const std::string& c : resolved) path = Join(path, c);
      if (auto located = InRepository(path); !located) {
        link.refusal = "its target " + path + " is not a regular file reached without another link (" +
                       located.error().message() + ")";
      } else if (auto st = located->first->Stat(located->second); !st) {
        link.refusal = "its target " + path + " is not a regular file (" + st.error().message() + ")";
      } else {
        link.resolved = path;
      }
    }
  }
  if (link.resolved) {
    auto located = InRepository(*link.resolved);
    std::uint64_t size = 0;
    if (located) {
      if (auto st = located->first->Stat(located->second)) size = st->size;
    }
    entries_.push_back({link.name, EntryKind::kRegular, size});
  } else {
    entries_.push_back({link.name, EntryKind::kSymlink, 0});
  }
  link_index_.emplace(link.name, links_.size());
  links_.push_back(std::move(link));
}

IoResult<std::pair<const DirectorySource*, std::string>> ModelFolderSource::InRepository(
    const std::string& path) const {
  const std::vector<std::string> parts = Components(path);
  if (parts.empty()) return Error(EINVAL);
  const DirectorySource* dir = repo_root_.get();
  std::string walked;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    walked = Join(walked, parts[i]);
    auto it = repo_folders_.find(walked);
    if (it == repo_folders_.end()) {
      auto sub = dir->OpenSubdirectory(parts[i]);  // O_NOFOLLOW: a link on the way is refused
      if (!sub) return sub.error();
      it = repo_folders_.emplace(walked, std::move(*sub)).first;
    }
    dir = it->second.get();
  }
  return std::pair(dir, parts.back());
}

IoResult<std::pair<const DirectorySource*, std::string>> ModelFolderSource::Locate(const std::string& name) const {
  if (auto it = link_index_.find(name); it != link_index_.end()) {
    const FolderLink& link = links_[it->second];
    if (!link.resolved) return Error(ELOOP);
    return InRepository(*link.resolved);
  }
  const std::size_t slash = name.rfind('/');
  if (slash == std::string::npos) return std::pair<const DirectorySource*, std::string>(root_.get(), name);
  auto it = folders_.find(name.substr(0, slash));
  if (it == folders_.end()) return Error(ENOENT);
  return std::pair<const DirectorySource*, std::string>(it->second.get(), name.substr(slash + 1));
}

IoResult<std::unique_ptr<RandomAccessFile>> ModelFolderSource::Open(const std::string& name) const {
  auto located = Locate(name);
  if (!located) return located.error();
  return located->first->Open(located->second);
}

IoResult<FileIdentity> ModelFolderSource::Stat(const std::string& name) const {
  auto located = Locate(name);
  if (!located) return located.error();
  return located->first->Stat(located->second);
}

}  // namespace ckpt
