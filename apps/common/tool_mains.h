// The four tools as functions: each tool's own executable calls one (apps/ckpt-*/main.cpp),
// and the portable archive's multi-call binary (apps/multi-call) picks one by the name it was
// run as, so the archive carries the static libraries once instead of four times.
#pragma once

namespace ckpt::apps {

int AuditMain(int argc, char** argv);
int ChainMain(int argc, char** argv);
int ConvertMain(int argc, char** argv);
int DiffMain(int argc, char** argv);

}  // namespace ckpt::apps
