// The progress line's counts, rate and ETA, and the cost model its ETA uses.
#include <gtest/gtest.h>

#include "util/progress.h"
#include "util/log.h"

namespace backendbench::util {
namespace {

TEST(Progress, CountsEveryStatusAndIncludesResumedTests) {
  log::set_level(log::Level::warning);  // counts only: nothing drawn
  Progress progress(std::vector<double>(6, 1.0), 4);
  progress.record(0, Progress::Status::passed, 0.1);
  progress.record(1, Progress::Status::failed, 0.1);
  progress.record(2, Progress::Status::crashed, 0.1);
  progress.record(3, Progress::Status::skipped, 0.1);
  const std::string line = progress.line();
  EXPECT_EQ(line.rfind("8/10 [passed 1, failed 1, crashed 1, skipped 1] ", 0), 0u) << line;
  EXPECT_NE(line.find("tests/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA"), std::string::npos) << "tests remain: " << line;
  progress.record(4, Progress::Status::passed, 0.1);
  progress.record(5, Progress::Status::passed, 0.1);
  EXPECT_EQ(progress.line().find("ETA"), std::string::npos) << "done: " << progress.line();
  log::set_level(log::Level::info);
}

// The first test's time holds the start (workers loading torch and kernels):
// the ETA is learnt from the tests after it.
TEST(Progress, UntilASecondTestFinishesItSaysHowLongItHasRun) {
  log::set_level(log::Level::warning);
  Progress progress(std::vector<double>(3, 1.0), 0);
  EXPECT_NE(progress.line().find("so far"), std::string::npos) << progress.line();
  progress.record(0, Progress::Status::passed, 0.1);
  EXPECT_NE(progress.line().find("so far"), std::string::npos) << progress.line();
  progress.record(1, Progress::Status::passed, 0.1);
  EXPECT_NE(progress.line().find("ETA"), std::string::npos) << progress.line();
  log::set_level(log::Level::info);
}

TEST(CostModel, LearnsTheCostPerByteAndTheOverheadPerTest) {
  CostModel model;
  EXPECT_EQ(model.predict(5), 1.0);  // nothing learnt: every test alike
  for (double size : {1.0, 2.0, 4.0, 8.0}) model.add(size, 0.5 + 2 * size);
  EXPECT_NEAR(model.predict(0), 0.5, 1e-9);
  EXPECT_NEAR(model.predict(100), 200.5, 1e-6);
}

TEST(CostModel, FallsBackToTheMeanWhereSizesDoNotExplainTheTime) {
  CostModel same;
  same.add(3, 1);
  same.add(3, 3);
  EXPECT_NEAR(same.predict(1000), 2, 1e-9);  // one size seen: no slope to learn

  CostModel cheaper_when_larger;  // noise: larger inputs are not cheaper
  cheaper_when_larger.add(1, 4);
  cheaper_when_larger.add(10, 2);
  EXPECT_NEAR(cheaper_when_larger.predict(100), 3, 1e-9);

  CostModel through_origin;  // a negative overhead is no overhead
  through_origin.add(1, 0.1);
  through_origin.add(2, 2);
  through_origin.add(3, 3);
  EXPECT_GT(through_origin.predict(0), 0);
  EXPECT_NEAR(through_origin.predict(10), 10 * (0.1 + 4 + 9) / 14, 1e-9);
}

}  // namespace
}  // namespace backendbench::util
