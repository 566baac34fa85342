// What an audit records beside the rules' judgement: a remote input's facts, the order
// findings are reported in, and where a finding about a file outside the input folder is.
#pragma once

#include <vector>

#include "lib/model/artifact.h"
#include "lib/model/finding.h"
#include "lib/remote/remote_source.h"

namespace ckpt {

/// A remote input's report facts, once its last request (the revalidation) is done: the
/// input's own (also for one refused by content), then each file's from `source` (when given).
void RecordRemoteFacts(Artifact& artifact, const remote::RemoteFacts& facts, const remote::RemoteSource* source);

/// Files named in another folder than the input path (a GGUF split set given by its first
/// part): a finding about one names that folder, never "part/part".
void LocateInFilesRoot(const Artifact& artifact, std::vector<Finding>& findings);

}  // namespace ckpt
