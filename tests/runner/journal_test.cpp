// The run's journal: appended outcomes come back on resume, a line cut short
// by a kill is dropped, and a journal of another run is refused.
#include <gtest/gtest.h>

#include <fstream>

#include "data/temp_dir.h"
#include "runner/journal.h"

namespace backendbench::runner {
namespace {

using nlohmann::ordered_json;

TestJob job(const std::string& args, TestKind kind) {
  TestJob j{.op_name = "aten.relu.default", .kind = kind};
  j.input.args_text = args;
  return j;
}

TestOutcome passed(const TestJob& j) {
  TestOutcome o;
  o.correctness = results::CorrectnessResult{.op_name = "relu.default", .args = j.input.args_text, .is_correct = true,
                                            .max_abs_error = 0.0};
  return o;
}

const ordered_json kHeader = {{"suite", "torchbench"}, {"backend", "aten"}};

TEST(Journal, OutcomesAppendedAreFoundOnResumeOncePerLine) {
  testing::TempDir dir;
  const auto file = dir.path() / "run" / "journal.jsonl";
  const TestJob a = job("((T([2], f32),), {})", TestKind::correctness);
  const TestJob b = job("((T([3], f32),), {})", TestKind::correctness);
  const TestJob a_perf = job("((T([2], f32),), {})", TestKind::performance);
  {
    Journal journal(file, kHeader, false);
    journal.append(a, passed(a));
    journal.append(b, failed_outcome(b, results::ErrorType::worker_crash, "killed by signal 11"));
  }
  Journal resumed(file, kHeader, true);
  EXPECT_EQ(resumed.finished_count(), 2u);
  EXPECT_FALSE(resumed.take_finished(a_perf)) << "kinds are told apart";
  const auto got_a = resumed.take_finished(a);
  ASSERT_TRUE(got_a && got_a->correctness);
  EXPECT_TRUE(got_a->correctness->is_correct);
  EXPECT_EQ(got_a->correctness->max_abs_error, 0.0);
  EXPECT_FALSE(resumed.take_finished(a)) << "one line serves one job";
  const auto got_b = resumed.take_finished(b);
  ASSERT_TRUE(got_b && got_b->correctness);
  EXPECT_EQ(got_b->correctness->error_type, "WorkerCrash");
}

TEST(Journal, ALineCutShortByAKillIsDroppedAndTheNextAppendStandsAlone) {
  testing::TempDir dir;
  const auto file = dir.path() / "journal.jsonl";
  const TestJob a = job("((T([2], f32),), {})", TestKind::correctness);
  const TestJob b = job("((T([3], f32),), {})", TestKind::correctness);
  {
    Journal journal(file, kHeader, false);
    journal.append(a, passed(a));
  }
  {
    std::ofstream cut(file, std::ios::app);  // a write cut short by a kill
    cut << R"cut({"key": "correctness|aten.relu.default|((T([3], f32),), {})", "outc)cut";
  }
  {
    Journal resumed(file, kHeader, true);
    EXPECT_EQ(resumed.finished_count(), 1u);
    EXPECT_FALSE(resumed.take_finished(b));
    resumed.append(b, passed(b));
  }
  Journal again(file, kHeader, true);
  EXPECT_EQ(again.finished_count(), 2u);
  EXPECT_TRUE(again.take_finished(a));
  EXPECT_TRUE(again.take_finished(b));
}

TEST(Journal, AnotherRunsJournalOrNoneIsRefusedAndAFreshRunStartsEmpty) {
  testing::TempDir dir;
  const auto file = dir.path() / "journal.jsonl";
  const TestJob a = job("((T([2], f32),), {})", TestKind::correctness);
  {
    Journal journal(file, kHeader, false);
    journal.append(a, passed(a));
  }
  EXPECT_THROW(Journal(file, {{"suite", "smoke"}, {"backend", "aten"}}, true), std::invalid_argument);
  EXPECT_THROW(Journal(dir.path() / "none.jsonl", kHeader, true), std::invalid_argument);
  { Journal fresh(file, kHeader, false); }
  EXPECT_EQ(Journal(file, kHeader, true).finished_count(), 0u);
}

}  // namespace
}  // namespace backendbench::runner
