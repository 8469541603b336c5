// Phases nest, restore what they interrupted, and reach the listener.
#include <gtest/gtest.h>

#include <vector>

#include "runner/phase.h"

namespace backendbench::runner {
namespace {

TEST(Phase, ScopesNestAndTheListenerHearsEveryChange) {
  std::vector<Phase> heard;
  set_phase_listener([&](Phase p) { heard.push_back(p); });
  EXPECT_EQ(current_phase(), Phase::setup);
  {
    PhaseScope reference(Phase::reference);
    {
      PhaseScope candidate(Phase::candidate);
      EXPECT_EQ(current_phase(), Phase::candidate);
      PhaseScope again(Phase::candidate);  // no change, nothing heard
    }
    EXPECT_EQ(current_phase(), Phase::reference);
  }
  set_phase_listener({});
  EXPECT_EQ(current_phase(), Phase::setup);
  EXPECT_EQ(heard, (std::vector{Phase::reference, Phase::candidate, Phase::reference, Phase::setup}));
}

}  // namespace
}  // namespace backendbench::runner
