// `backendbench generate` and the LLM backends of `run` (--backend llm,
// llm-relay, kernel_agent): kernels written by a model into
// generated_kernels/<run>/, each attempt evaluated by the engine (src/llm);
// `run` then evaluates the suite on them with the pregenerated backend.
#pragma once

#include <string>

#include "cli/options.h"

namespace backendbench::cli {

int generate_command(const GenerateOptions& options, const std::string& command_line);

int llm_run_command(const RunOptions& options, const std::string& command_line);

}  // namespace backendbench::cli
