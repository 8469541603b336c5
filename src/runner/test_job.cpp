#include "runner/test_job.h"

#include <unordered_set>

#include "ops/resolve.h"
#include "util/log.h"

namespace backendbench::runner {

std::string TestJob::key() const {
  return std::string(kind == TestKind::correctness ? "correctness" : "performance") + "|" + op_name + "|" +
         input.args_text;
}

std::vector<TestJob> make_jobs(const suite::Suite& suite) {
  std::vector<TestJob> jobs;
  for (size_t op = 0; op < suite.operators.size(); ++op) {
    const auto& tests = suite.operators[op];
    for (TestKind kind : {TestKind::correctness, TestKind::performance}) {
      for (const auto& input : kind == TestKind::correctness ? tests.correctness : tests.performance) {
        jobs.push_back({.id = jobs.size(), .op_index = op, .op_name = tests.op_name, .kind = kind, .input = input});
      }
    }
  }
  return jobs;
}

bool lost_worker(const std::string& error_type) {
  const auto type = results::parse_error_type(error_type);
  return type == kWorkerCrash || type == kTimeout || type == kWorkerStartFailed;
}

bool ran_out_of_memory(const TestOutcome& outcome) {
  const std::string name(results::to_string(results::ErrorType::out_of_memory));
  if (outcome.correctness) return !outcome.correctness->is_correct && outcome.correctness->error_type == name;
  if (outcome.performance) return !outcome.performance->successfully_ran && outcome.performance->error_type == name;
  // As OperatorRun words it: "ATen raised on cuda:0: OutOfMemoryError: ...".
  return outcome.excluded && outcome.excluded->reason.find(": " + name + ": ") != std::string::npos;
}

void add_note(TestOutcome& outcome, const std::string& note) {
  if (outcome.correctness) outcome.correctness->error_msg += " " + note;
  if (outcome.performance) outcome.performance->error_msg += " " + note;
  if (outcome.excluded) outcome.excluded->reason += " " + note;
}

TestOutcome failed_outcome(const TestJob& job, results::ErrorType type, const std::string& message) {
  const std::string op_name = results::parse_operator_name(job.op_name).short_name();
  const std::string name(results::to_string(type));
  TestOutcome outcome;
  if (job.kind == TestKind::correctness) {
    outcome.correctness = results::CorrectnessResult{
        .op_name = op_name, .args = job.input.args_text, .error_msg = message, .error_type = name};
  } else {
    outcome.performance = results::PerformanceResult{
        .op_name = op_name, .args = job.input.args_text, .error_msg = name + ": " + message, .error_type = name};
  }
  return outcome;
}

results::RunResults assemble_results(const std::vector<TestJob>& jobs, const std::vector<TestOutcome>& outcomes) {
  results::RunResults results;
  std::unordered_set<std::string> excluded;  // "op|args": an input's two tests exclude it once
  struct Counts {
    size_t passed = 0, correctness = 0, timed = 0, performance = 0;
  };
  Counts counts;
  auto finish_operator = [&](size_t begin, size_t end) {
    std::string name, derived;
    for (size_t i = begin; i < end; ++i) {
      const TestOutcome& o = outcomes[i];
      if (o.skipped) continue;
      if (o.excluded) {
        if (excluded.insert(o.excluded->op_name + "|" + o.excluded->args).second) {
          BB_LOG(warning) << o.excluded->op_name << " " << o.excluded->args << ": excluded at run time: "
                          << o.excluded->reason;
          results.excluded.push_back(*o.excluded);
        }
        continue;
      }
      if (o.correctness) {
        name = o.correctness->op_name;
        ++counts.correctness;
        counts.passed += o.correctness->is_correct;
        results.correctness.push_back(*o.correctness);
      }
      if (o.performance) {
        name = o.performance->op_name;
        ++counts.performance;
        counts.timed += o.performance->successfully_ran;
        results.performance.push_back(*o.performance);
      }
      if (derived.empty()) derived = o.derived_from;
    }
    if (name.empty()) return;  // not implemented by the backend (or no tests)
    results.operators.push_back(name);
    if (!derived.empty()) results.derived.push_back({name, derived});
    BB_LOG(info) << name << ": " << counts.passed << "/" << counts.correctness << " correctness tests passed, "
                 << counts.timed << "/" << counts.performance << " performance tests ran";
  };
  size_t begin = 0;
  for (size_t i = 1; i <= jobs.size(); ++i) {
    if (i == jobs.size() || jobs[i].op_index != jobs[begin].op_index) {
      finish_operator(begin, i);
      counts = {};
      begin = i;
    }
  }
  if (!excluded.empty()) {
    BB_LOG(warning) << excluded.size() << " inputs were excluded at run time (ATen itself raised on them on this "
                    << "device, or no valid input could be made); excluded_tests.json lists them with the reason";
  }
  std::string by_type;
  for (const auto& [type, count] : results::failures_by_type(results)) {
    by_type += (by_type.empty() ? "" : ", ") + type + " " + std::to_string(count);
  }
  if (!by_type.empty()) BB_LOG(info) << "failed tests by type: " << by_type;
  return results;
}

}  // namespace backendbench::runner
