// ckpt-audit's entry point: the tool itself is ckpt::apps::AuditMain (tool.cpp), which the
// portable archive's multi-call binary also links.
#include "apps/common/tool_mains.h"

int main(int argc, char** argv) { return ckpt::apps::AuditMain(argc, argv); }
