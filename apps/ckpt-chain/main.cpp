// ckpt-chain's entry point: the tool itself is ckpt::apps::ChainMain (tool.cpp), which the
// portable archive's multi-call binary also links.
#include "apps/common/tool_mains.h"

int main(int argc, char** argv) { return ckpt::apps::ChainMain(argc, argv); }
