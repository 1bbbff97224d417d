// host_room_cache.hpp
// What the searches for a parallel job's room now found, host by host, kept
// for the later searches of jobs with the same requests on the same PE. Per
// host: the slots the host itself gives, its instances' slots (those with a
// free slot that match and fit, in the order the search met them), and the
// first instance in queue order that a resource kept out. An entry holds
// while its host's stamp is the one it was found under: the interval renews
// a host's stamp with every booking on the host or its instances and every
// change of their alarms, the only things that change, within an interval,
// what such a search finds there (jobs whose requests read load values are
// never looked up here: those change as jobs start).
// Invariants: a table covers one RoomKey; a host's queues lie in the table's
// pool at the host's instance range (QueueInstanceTable::host_first), so an
// entry never holds more queues than its host has instances; at most
// tuning::kKeptHostRoomTables tables are kept, the least recently used
// dropped first, and a key gets a table only at its second search, so that a
// job with requests of its own costs no table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "kernel/types.hpp"
#include "kernel/tuning.hpp"

namespace schedk::dispatch_detail {

// What a room search now reads of a job besides its requests' content: the
// request set, the PE, and the owner, group and project where access lists
// can tell them apart (invalid ids otherwise).
struct RoomKey {
  RequestSetId request;
  PeId pe;
  UserId owner;
  GroupId group;
  ProjectId project;
  friend bool operator==(const RoomKey&, const RoomKey&) = default;
};

struct RoomKeyHash {
  std::size_t operator()(const RoomKey& k) const {
    std::uint64_t h = k.request.value;
    for (std::uint64_t v : {std::uint64_t{k.pe.value}, std::uint64_t{k.owner.value}, std::uint64_t{k.group.value},
                            std::uint64_t{k.project.value}}) {
      h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    }
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

class HostRoomCache {
 public:
  static constexpr std::uint64_t kNoStamp = UINT64_MAX;
  struct Entry {
    std::uint64_t stamp = kNoStamp;
    std::uint32_t host_slots = 0;                  // the host's own slots (where a queue gives any)
    std::uint32_t queues = 0;                      // its instances' (instance, slots) in the pool
    std::uint32_t limiting_instance = UINT32_MAX;  // the first kept out, in queue order (UINT32_MAX: none)
    ComplexId limiting;                            // the resource that kept it out
  };
  class Table {
   public:
    Table(std::uint32_t hosts, std::span<const std::uint32_t> host_first)
        : host_first_(host_first), entries_(hosts), pool_(host_first.empty() ? 0 : host_first.back()) {}
    // Host h's entry where it holds under `stamp`, else null.
    const Entry* Holding(std::uint32_t h, std::uint64_t stamp) const {
      return entries_[h].stamp == stamp ? &entries_[h] : nullptr;
    }
    std::span<const std::pair<std::uint32_t, std::uint32_t>> Queues(std::uint32_t h) const {
      return {pool_.data() + host_first_[h], entries_[h].queues};
    }
    // Keeps what a search found at host h under `stamp`. Contract: `queues`
    // has at most as many elements as the host has instances.
    void Keep(std::uint32_t h, std::uint64_t stamp, std::uint32_t host_slots,
              std::span<const std::pair<std::uint32_t, std::uint32_t>> queues, std::uint32_t limiting_instance,
              ComplexId limiting) {
      std::copy(queues.begin(), queues.end(), pool_.begin() + host_first_[h]);
      entries_[h] = {stamp, host_slots, static_cast<std::uint32_t>(queues.size()), limiting_instance, limiting};
    }

   private:
    friend class HostRoomCache;
    std::span<const std::uint32_t> host_first_;
    std::vector<Entry> entries_;                                 // per host
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pool_;  // per instance position
    std::uint64_t last_use_ = 0;
  };

  HostRoomCache() = default;
  // `host_first`: the queue instance table's, which must outlive the cache.
  void SetUp(std::uint32_t hosts, std::span<const std::uint32_t> host_first) {
    hosts_ = hosts;
    host_first_ = host_first;
    tables_.clear();
    seen_.clear();
  }
  // The table for `key`, or null at the key's first search.
  Table* Find(const RoomKey& key) {
    ++clock_;
    if (auto it = tables_.find(key); it != tables_.end()) {
      it->second.last_use_ = clock_;
      return &it->second;
    }
    if (seen_.insert(key).second) return nullptr;
    if (tables_.size() >= tuning::kKeptHostRoomTables) {
      auto oldest = std::min_element(tables_.begin(), tables_.end(), [](const auto& a, const auto& b) {
        return a.second.last_use_ < b.second.last_use_;
      });
      tables_.erase(oldest);
    }
    Table& table = tables_.try_emplace(key, hosts_, host_first_).first->second;
    table.last_use_ = clock_;
    return &table;
  }

 private:
  std::uint32_t hosts_ = 0;
  std::span<const std::uint32_t> host_first_;
  std::unordered_map<RoomKey, Table, RoomKeyHash> tables_;
  std::unordered_set<RoomKey, RoomKeyHash> seen_;
  std::uint64_t clock_ = 0;
};

}  // namespace schedk::dispatch_detail
