// Generating kernels for a suite, the engine side of `backendbench generate`
// and of `run --backend llm / llm-relay / kernel_agent`: the suite's operators
// as tasks, the client the request names, every attempt evaluated by a
// session::run (SessionEvaluator), the generation folder written. The CLI
// builds the request and prints the outcome.
#pragma once

#include <filesystem>
#include <string>

#include "backends/backend.h"
#include "llm/client.h"
#include "llm/generator.h"
#include "llm/records.h"
#include "session/session.h"

namespace backendbench::llm {

// Where the model is reached; the keys are read from the environment (and
// taken out of it, before any child process starts) by generate_kernels.
struct Endpoint {
  std::string relay_url;    // llm-relay: the URL posted to
  std::string base_url;     // an OpenAI-compatible server instead of Anthropic's API
  std::string api_key_env;  // the variable base_url's key is read from
};

struct GenerateRequest {
  session::RunRequest evaluate;  // suite, device, seed, workers of every attempt's evaluation
  backends::BackendKind backend = backends::BackendKind::llm;  // llm, llm_relay or kernel_agent
  Endpoint endpoint;
  ClientSettings client;     // model, tokens, temperature, timeouts, retries (provider, url and key set here)
  RunDescription run;        // command, backend, model, suite, settings, price (the rest is set here)
  std::string run_id;        // generated_kernels/<run-id>; "" for run_<timestamp>
  std::string op_filter_text;  // --ops as given, for messages
};

struct GenerateOutcome {
  GenerationResult result;
  RunDescription run;              // with the client and start time filled in
  std::filesystem::path root;      // the generation folder
};

// Throws session::RequestError for a request that cannot run (an MPI launch,
// a GPU language on a CPU, no operator to generate for, no API key, a taken run id).
GenerateOutcome generate_kernels(const GenerateRequest& request);

}  // namespace backendbench::llm
