// Work on another stream is fine when the call made the current stream wait
// for it: the proof from CUPTI's event and wait records (timing/gpu_activity.h,
// stream_order). GPU behaviour: tests/gpu/side_stream_order_test.cpp.
#include <gtest/gtest.h>

#include "timing/gpu_activity.h"

namespace backendbench::timing::stream_order {
namespace {

constexpr Stream kCaller{1, 7}, kSide{1, 13}, kOther{1, 21};

// side.wait_stream(current); work on side; current.wait_stream(side): the work is ordered.
TEST(StreamOrder, WorkBeforeARecordTheCallerWaitsForIsOrdered) {
  const std::vector<EventRecord> records{{.sync_id = 1, .stream = kCaller, .correlation = 10},
                                         {.sync_id = 2, .stream = kSide, .correlation = 30}};
  const std::vector<StreamWait> waits{{.sync_id = 1, .stream = kSide, .correlation = 11},
                                      {.sync_id = 2, .stream = kCaller, .correlation = 31}};
  const auto bounds = ordered_before(kCaller, records, waits);
  EXPECT_TRUE(is_ordered(bounds, kSide, 20));    // the side stream's kernel
  EXPECT_FALSE(is_ordered(bounds, kSide, 40));   // one queued there after the record
  EXPECT_TRUE(is_ordered(bounds, kCaller, 99));  // the caller's own stream
  EXPECT_FALSE(is_ordered(bounds, kOther, 5));   // a stream nobody waited for
}

// The unsynchronised twin: the side stream waits for the caller, never the other way round.
TEST(StreamOrder, WorkTheCallerNeverWaitsForIsNot) {
  const std::vector<EventRecord> records{{.sync_id = 1, .stream = kCaller, .correlation = 10}};
  const std::vector<StreamWait> waits{{.sync_id = 1, .stream = kSide, .correlation = 11}};
  EXPECT_FALSE(is_ordered(ordered_before(kCaller, records, waits), kSide, 20));
  EXPECT_FALSE(is_ordered(ordered_before(kCaller, {}, {}), kSide, 20));
}

// A wait for a record made before the work (the race that may finish early) proves nothing of the work.
TEST(StreamOrder, ARecordMadeBeforeTheWorkDoesNotCoverIt) {
  const std::vector<EventRecord> records{{.sync_id = 5, .stream = kSide, .correlation = 10}};
  const std::vector<StreamWait> waits{{.sync_id = 5, .stream = kCaller, .correlation = 11}};
  EXPECT_FALSE(is_ordered(ordered_before(kCaller, records, waits), kSide, 20));
}

// The wait names one record of the event (its sync id): a later record of the same event is another one.
TEST(StreamOrder, TheWaitCoversTheRecordItNamesNotALaterOne) {
  const std::vector<EventRecord> records{{.sync_id = 1, .stream = kSide, .correlation = 10},
                                         {.sync_id = 2, .stream = kSide, .correlation = 40}};
  const std::vector<StreamWait> waits{{.sync_id = 1, .stream = kCaller, .correlation = 41}};
  const auto bounds = ordered_before(kCaller, records, waits);
  EXPECT_TRUE(is_ordered(bounds, kSide, 5));
  EXPECT_FALSE(is_ordered(bounds, kSide, 20));
}

// Through another stream: side -> other -> caller.
TEST(StreamOrder, OrderCarriesAcrossStreams) {
  const std::vector<EventRecord> records{{.sync_id = 1, .stream = kSide, .correlation = 20},
                                         {.sync_id = 2, .stream = kOther, .correlation = 30}};
  const std::vector<StreamWait> waits{{.sync_id = 2, .stream = kCaller, .correlation = 31},
                                      {.sync_id = 1, .stream = kOther, .correlation = 21}};
  const auto bounds = ordered_before(kCaller, records, waits);
  EXPECT_TRUE(is_ordered(bounds, kSide, 15));
  EXPECT_TRUE(is_ordered(bounds, kOther, 25));
  // The other stream waited for the side stream after its own record: that wait is not behind the record.
  const std::vector<StreamWait> late{{.sync_id = 2, .stream = kCaller, .correlation = 31},
                                     {.sync_id = 1, .stream = kOther, .correlation = 35}};
  EXPECT_FALSE(is_ordered(ordered_before(kCaller, records, late), kSide, 15));
}

// A wait on a record not seen (made before the window) proves nothing.
TEST(StreamOrder, AWaitForAnUnseenRecordProvesNothing) {
  const std::vector<StreamWait> waits{{.sync_id = 9, .stream = kCaller, .correlation = 31}};
  EXPECT_FALSE(is_ordered(ordered_before(kCaller, {}, waits), kSide, 15));
}

}  // namespace
}  // namespace backendbench::timing::stream_order
