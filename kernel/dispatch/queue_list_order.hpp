// queue_list_order.hpp
// Grid Engine's queue list through one scheduling interval, as far as it sets
// the order in which a reservation search meets the queue instances (8.1.9's
// select_assign_debit, sge_split_queue_slots_free, sequential_update_host_order).
//
// Grid Engine keeps two lists: the instances with a free slot, and the others
// ("full": no free slot, or in load alarm since a start of this interval). A
// job that may reserve appends the second list to the first for its searches;
// a start or a reservation moves every instance without a free slot back to
// the end of the second list, in list order. The first list is sorted (by the
// queue order, stably) only by a search that comes first in the interval, or
// after a start changed the hosts' load order. So a reservation search meets
// the instances with a free slot in queue order, then the full ones in the
// order they left the first list, except where its job sorted the whole list.
//
// Here the list is kept as three parts: the instances with a free slot (in
// queue order, held by the caller), `sorted_in` (full instances that a sort
// put back among them, in queue order) and `unsorted` (the full instances
// after them, in the order they filled). Invariants: an instance is in at most
// one of sorted_in and unsorted; one of the two is empty; sorted() means both
// are, and the whole list is then in queue order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace schedk::dispatch_detail {

class QueueListOrder {
 public:
  // The interval begins with `instances` queue instances: `full` are those
  // without a free slot (not in alarm), in instance order. Nothing has been
  // searched yet.
  void Start(std::size_t instances, std::vector<std::uint32_t> full) {
    *this = QueueListOrder{};
    place_.assign(instances, kNowhere);
    Append(full);
  }
  // A job is tried (it may start or reserve). `reserve`: it may reserve, so
  // the full instances join the list for its searches.
  void BeginJob(bool reserve) {
    order_changed_ = load_changed_;
    load_changed_ = false;
    if (reserve) appended_ = true;
  }
  // A search of the job begins. A sequential one sorts the list, and so does
  // a parallel one that gets as far as tagging queues (tags(): its PE and the
  // global host give its least slots; asked only where the answer matters),
  // where no search has yet counted in the interval or where the hosts' load
  // order changed since the last search (a parallel search renumbers the
  // hosts, so after one any later load change counts). key(instance): its
  // sort key in the queue order, without the instance tie-break.
  template <class Tags, class Key>
  void Search(bool parallel, Tags tags, Key key) {
    if (order_changed_) {
      order_changed_ = crossed_ || renumbered_;
      crossed_ = renumbered_ = false;
    }
    if (parallel && ((!first_search_ && !order_changed_ && renumbered_) || !tags())) return;
    if (first_search_ || order_changed_) {
      soft_order_ = false;
      Sort(key);
    }
    if (parallel) {
      renumbered_ = true;
    } else {
      first_search_ = false;  // a sequential search always counts
    }
  }
  // A parallel search of a job with soft requests tagged queues (it sorted
  // the whole list by the job's violations) and found no assignment: the
  // list keeps that order until a search sorts it again (soft_order()).
  void SoftSearchFailed() { soft_order_ = true; }
  bool soft_order() const { return soft_order_; }
  // A parallel search found an assignment (a start or a reservation). One of
  // a job with soft requests sorted the list by its violations, so the next
  // search sorts it as the first one does (DISPATCH_TYPE_PE_SOFT_REQ).
  void Succeeded(bool soft) { first_search_ = soft; }
  // A start changed a host's load value; `crossed`: the value passed or met
  // another host's (the global host counts, at 0), so the hosts' ranks changed.
  void HostLoadChanged(bool crossed) {
    load_changed_ = true;
    crossed_ |= crossed;
  }
  // After a start or a reservation: the instances that lost their last free
  // slot, then those that went into alarm, each in queue order.
  void Split(std::span<const std::uint32_t> newly_out) {
    if (!sorted_in_.empty() || !newly_out.empty()) ++changes_;
    Append(sorted_in_);
    sorted_in_.clear();
    Append(newly_out);
    appended_ = false;
  }

  bool sorted() const { return sorted_in_.empty() && unsorted_.empty(); }
  // Whether full instances are in the list: a reserving job got neither a
  // start nor a reservation since it appended them. The job loop goes on
  // while the list holds any instance, free or not.
  bool full_in_list() const { return appended_ && !sorted(); }
  const std::vector<std::uint32_t>& sorted_in() const { return sorted_in_; }
  const std::vector<std::uint32_t>& unsorted() const { return unsorted_; }
  // The instance's place in unsorted(), or kNowhere.
  std::uint32_t unsorted_place(std::uint32_t instance) const { return place_[instance]; }
  static constexpr std::uint32_t kNowhere = UINT32_MAX;
  // Changes with every change of sorted_in() or unsorted().
  std::uint64_t changes() const { return changes_; }

 private:
  template <class Key>
  void Sort(Key key) {
    if (!appended_ || unsorted_.empty()) return;  // the full ones are not in the list
    ++changes_;
    std::vector<std::pair<decltype(key(0u)), std::uint32_t>> keyed;  // in list order
    keyed.reserve(unsorted_.size());
    for (std::uint32_t i : unsorted_) keyed.emplace_back(key(i), i);
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    sorted_in_.clear();
    for (const auto& [k, i] : keyed) {
      place_[i] = kNowhere;
      sorted_in_.push_back(i);
    }
    unsorted_.clear();
  }
  void Append(std::span<const std::uint32_t> instances) {
    for (std::uint32_t i : instances) {
      place_[i] = static_cast<std::uint32_t>(unsorted_.size());
      unsorted_.push_back(i);
    }
  }

  std::vector<std::uint32_t> sorted_in_, unsorted_;
  std::vector<std::uint32_t> place_;  // per instance: its index in unsorted_, or kNowhere
  std::uint64_t changes_ = 0;
  bool appended_ = false;      // the full instances are in the list (a reserving job, no split since)
  bool first_search_ = true;   // no search has counted yet, or the last was soft (DISPATCH_TYPE_NONE, _PE_SOFT_REQ)
  bool load_changed_ = false;  // a start changed a load since the last tried job (sort_hostlist)
  bool order_changed_ = false; // host_order_changed
  bool crossed_ = false;       // the load ranks changed since the last comparison
  bool renumbered_ = false;    // a parallel search renumbered the hosts since then
  bool soft_order_ = false;    // the list is in a failed soft parallel search's order
};

}  // namespace schedk::dispatch_detail
