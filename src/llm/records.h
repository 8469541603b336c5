// What a generation run records: each attempt with its verdict, speedup and
// tokens, each operator's attempts and the one that succeeded, and how the
// run was made. Torch-free.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "llm/client.h"
#include "llm/dsl.h"
#include "llm/pricing.h"
#include "llm/task.h"
#include "llm/verdict.h"

namespace backendbench::llm {

struct AttemptRecord {
  int number = 0;  // N of <op>_attempt_N
  int worker = 0;  // kernel_agent: the chain (1-based) and its round; 0 for plain attempts
  int round = 0;
  Verdict verdict = Verdict::not_run;
  std::string summary;  // the judgement's line, or why there was nothing to judge
  std::optional<double> speedup;
  size_t correctness_passed = 0, correctness_total = 0;
  size_t performance_ran = 0, performance_total = 0;
  Usage usage;
  int llm_tries = 0;
  double llm_seconds = 0;
  double evaluation_seconds = 0;
  std::string kernel_file;  // its file name in the operator's folder; "" when the answer had no kernel
};

struct OperatorRecord {
  OperatorTask task;
  std::vector<AttemptRecord> attempts;  // in order of number
  std::optional<int> successful_attempt;  // the best correct attempt (by speedup), if any
  std::string note;                       // why it was stopped or not attempted, if it was
  Usage usage() const;
  const AttemptRecord* successful() const;
};

enum class Strategy {
  attempts,      // one chain of up to max_attempts attempts, each refining the last, until one is correct
  kernel_agent,  // `workers` such chains of up to `max_rounds` rounds in parallel; the best correct kernel wins
};

struct GenerationSettings {
  Dsl dsl = Dsl::triton;
  Strategy strategy = Strategy::attempts;
  int max_attempts = 5;
  int workers = 4;
  int max_rounds = 10;
  int concurrency = 4;  // operators generated at once
};

// How the run was made, for its README.md and OVERALL_SUMMARY.txt.
struct RunDescription {
  std::string command;          // as typed
  std::string backend;          // llm, llm-relay or kernel_agent
  std::string client;           // LlmClient::describe()
  std::string model;
  std::string suite;
  std::string started;          // local time, "2024-01-01 12:00:00"
  std::string evaluate_command;  // how to evaluate the run folder again
  GenerationSettings settings;
  std::optional<Price> price;    // absent: the cost is not known
};

}  // namespace backendbench::llm
