// A team: the ranks that build one model together. A model's start-up analysis is the same on
// every rank (DESIGN §5: a model is a pure function of its config), so the ranks may split it,
// each computing a share and all receiving everything, without the model seeing MPI. The engine
// passes its ranks as a team (engine/mpi_team.h); alone, a process is a team of one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace hx {

class Team {
 public:
  virtual ~Team() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Every member's `mine`, concatenated in rank order, on every member. Collective: every
  /// member calls it at the same point of the same analysis.
  virtual std::vector<std::byte> all_gather(std::span<const std::byte> mine) const = 0;
};

/// A team of one.
class SoloTeam final : public Team {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::byte> all_gather(std::span<const std::byte> mine) const override {
    return {mine.begin(), mine.end()};
  }
};

/// This member's share of items [0, n): contiguous ranges in rank order that cover [0, n).
std::pair<uint64_t, uint64_t> team_share(const Team& team, uint64_t n);

/// Runs `work` on every member and keeps them in step when it throws: if any member's `work`
/// threw, every member throws the lowest such rank's exception (InputError, std::logic_error or
/// std::runtime_error, with its message), so no member waits for another at a later gather.
void run_together(const Team& team, const std::function<void()>& work);

/// Every member's `mine`, concatenated in rank order, on every member.
template <class T>
std::vector<T> gather_all(const Team& team, const std::vector<T>& mine) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::vector<std::byte> bytes =
      team.all_gather(std::as_bytes(std::span<const T>(mine.data(), mine.size())));
  std::vector<T> all(bytes.size() / sizeof(T));
  if (!all.empty()) std::memcpy(all.data(), bytes.data(), all.size() * sizeof(T));
  return all;
}

}  // namespace hx
