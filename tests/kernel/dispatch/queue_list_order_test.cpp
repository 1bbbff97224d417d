// Grid Engine's queue list through an interval (queue_list_order.hpp), worked
// by hand from 8.1.9's select_assign_debit, sge_split_queue_slots_free and
// sequential_update_host_order. Instances are numbered so that the queue
// order is their number's order, except where a test gives keys.
#include "kernel/dispatch/queue_list_order.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace schedk::dispatch_detail {
namespace {

using List = std::vector<std::uint32_t>;
const auto kByNumber = [](std::uint32_t i) { return i; };
const auto kTags = [] { return true; };
const auto kNoTags = [] { return false; };

// The run's first search sorts the full instances in among the free ones,
// for a job that may reserve; the split then puts them back in that order,
// before the instances its start filled.
TEST(QueueListOrderTest, TheFirstSearchSortsWhatAReservingJobAppended) {
  QueueListOrder order;
  order.Start(10, {7, 2, 5});
  EXPECT_FALSE(order.sorted());
  order.BeginJob(true);
  order.Search(false, kTags, kByNumber);
  EXPECT_EQ(order.sorted_in(), (List{2, 5, 7}));
  EXPECT_TRUE(order.unsorted().empty());
  order.Split(List{3});
  EXPECT_TRUE(order.sorted_in().empty());
  EXPECT_EQ(order.unsorted(), (List{2, 5, 7, 3}));
  EXPECT_EQ(order.unsorted_place(7), 2u);
  EXPECT_EQ(order.unsorted_place(4), QueueListOrder::kNowhere);
}

// A job that may not reserve leaves the full ones out of the list: its sort
// does not touch them, and no later search is the first.
TEST(QueueListOrderTest, AJobThatDoesNotReserveSortsOnlyTheFreeOnes) {
  QueueListOrder order;
  order.Start(10, {7, 2});
  order.BeginJob(false);
  order.Search(false, kTags, kByNumber);
  order.BeginJob(true);
  order.Search(false, kTags, kByNumber);
  EXPECT_EQ(order.unsorted(), (List{7, 2}));
  EXPECT_TRUE(order.sorted_in().empty());
}

// After the first search, a load change sorts only where the load ranks
// changed; the global host's 0 counts as another host's value.
TEST(QueueListOrderTest, ALoadChangeSortsOnlyWhereTheRanksChanged) {
  QueueListOrder order;
  order.Start(10, {9, 4});
  order.BeginJob(false);
  order.Search(false, kTags, kByNumber);  // the first search, with nothing appended
  order.HostLoadChanged(false);
  order.BeginJob(true);
  order.Search(false, kTags, kByNumber);
  EXPECT_EQ(order.unsorted(), (List{9, 4}));
  order.Split({});
  order.HostLoadChanged(true);
  order.BeginJob(true);
  order.Search(false, kTags, kByNumber);
  EXPECT_EQ(order.sorted_in(), (List{4, 9}));
}

// A rank change counts only for the job after the start that made it: a job
// tried in between takes the change with it.
TEST(QueueListOrderTest, AChangeIsTakenByTheNextJobTried) {
  QueueListOrder order;
  order.Start(10, {9, 4});
  order.BeginJob(false);
  order.Search(false, kTags, kByNumber);
  order.HostLoadChanged(true);
  order.BeginJob(false);
  order.Search(false, kTags, kByNumber);  // sorts the free ones
  order.BeginJob(true);
  order.Search(false, kTags, kByNumber);
  EXPECT_EQ(order.unsorted(), (List{9, 4}));
}

// A parallel search renumbers the hosts, so after one any load change sorts;
// one that stops before tagging queues neither renumbers nor counts as first.
TEST(QueueListOrderTest, AParallelSearchThatTagsRenumbersTheHosts) {
  QueueListOrder order;
  order.Start(10, {9, 4});
  order.BeginJob(false);
  order.Search(true, kNoTags, kByNumber);  // PE short: no tagging
  order.BeginJob(true);
  order.Search(true, kTags, kByNumber);  // still the first: sorts
  EXPECT_EQ(order.sorted_in(), (List{4, 9}));
  order.Split({});
  order.BeginJob(true);
  order.Search(true, kTags, kByNumber);  // the first did not succeed: sorts again
  EXPECT_EQ(order.sorted_in(), (List{4, 9}));
  order.Succeeded(false);
  order.Split(List{6});
  EXPECT_EQ(order.unsorted(), (List{4, 9, 6}));
  order.HostLoadChanged(false);  // no rank changed, but the hosts were renumbered
  order.BeginJob(true);
  order.Search(false, kTags, kByNumber);
  EXPECT_EQ(order.sorted_in(), (List{4, 6, 9}));
}

// A parallel search with soft requests sorts the list by its violations, so
// once it finds an assignment the next search sorts by the queue order again,
// as the interval's first does (DISPATCH_TYPE_PE_SOFT_REQ); after one without
// soft requests, a search sorts only for a load change.
TEST(QueueListOrderTest, ASoftParallelAssignmentMakesTheNextSearchSort) {
  for (const bool soft : {true, false}) {
    QueueListOrder order;
    order.Start(10, {9, 4});
    order.BeginJob(false);
    order.Search(true, kTags, kByNumber);
    order.Succeeded(soft);
    order.Split({});
    order.BeginJob(true);
    order.Search(false, kTags, kByNumber);
    EXPECT_EQ(order.sorted(), false);
    EXPECT_EQ(order.sorted_in(), soft ? (List{4, 9}) : List{}) << soft;
    EXPECT_EQ(order.unsorted(), soft ? List{} : (List{9, 4})) << soft;
  }
}

// A failed soft parallel search's order stays until a search sorts the list:
// not a sequential one after the interval's first search, but one after a
// load change that moved the hosts' ranks.
TEST(QueueListOrderTest, AFailedSoftSearchsOrderStaysUntilASort) {
  QueueListOrder order;
  order.Start(10, {});
  order.BeginJob(false);
  order.Search(false, kTags, kByNumber);  // the first search: sorts
  order.BeginJob(false);
  order.Search(true, kTags, kByNumber);
  order.SoftSearchFailed();
  EXPECT_TRUE(order.soft_order());
  order.BeginJob(false);
  order.Search(false, kTags, kByNumber);
  EXPECT_TRUE(order.soft_order());
  order.HostLoadChanged(true);
  order.BeginJob(false);
  order.Search(false, kTags, kByNumber);
  EXPECT_FALSE(order.soft_order());
}

// A reserving job that gets neither a start nor a reservation leaves the full
// instances in the list: a later job's sort takes them in even if it may not
// reserve, and the next split puts them back in that order.
TEST(QueueListOrderTest, FullInstancesLeftInTheListAreSortedByALaterJob) {
  QueueListOrder order;
  order.Start(10, {9, 4});
  order.BeginJob(false);
  order.Search(false, kTags, kByNumber);
  order.BeginJob(true);
  order.Search(false, kTags, kByNumber);  // no sort; the job can never run: no split
  order.HostLoadChanged(true);
  order.BeginJob(false);
  order.Search(false, kTags, kByNumber);
  EXPECT_EQ(order.sorted_in(), (List{4, 9}));
  order.Split(List{1});
  EXPECT_EQ(order.unsorted(), (List{4, 9, 1}));
}

// The sort is stable: full instances with equal keys keep the order they filled in.
TEST(QueueListOrderTest, EqualKeysKeepTheOrderTheyFilledIn) {
  QueueListOrder order;
  order.Start(10, {8, 3, 6, 1});
  order.BeginJob(true);
  order.Search(false, kTags, [](std::uint32_t i) { return i % 2; });
  EXPECT_EQ(order.sorted_in(), (List{8, 6, 3, 1}));
}

}  // namespace
}  // namespace schedk::dispatch_detail
