#include "core/team.h"

#include <stdexcept>
#include <string>

#include "core/error.h"

namespace hx {

std::pair<uint64_t, uint64_t> team_share(const Team& team, uint64_t n) {
  const auto size = static_cast<uint64_t>(team.size());
  const auto rank = static_cast<uint64_t>(team.rank());
  return {n * rank / size, n * (rank + 1) / size};
}

void run_together(const Team& team, const std::function<void()>& work) {
  // Each member sends a kind (0: no error) and its message; the lowest rank's error wins.
  enum Kind : char { kNone = 0, kInput, kLogic, kRuntime };
  std::string mine(1, kNone);
  try {
    work();
  } catch (const InputError& e) {
    mine = std::string(1, kInput) + e.what();
  } catch (const std::logic_error& e) {
    mine = std::string(1, kLogic) + e.what();
  } catch (const std::exception& e) {
    mine = std::string(1, kRuntime) + e.what();
  }
  if (team.size() == 1 && mine[0] == kNone) return;
  // Lengths first, so each message can be found in the concatenation.
  const std::vector<uint64_t> lengths = gather_all(team, std::vector<uint64_t>{mine.size()});
  const std::vector<char> all = gather_all(team, std::vector<char>(mine.begin(), mine.end()));
  uint64_t at = 0;
  for (const uint64_t length : lengths) {
    const std::string message(all.data() + at + 1, length - 1);
    switch (all[at]) {
      case kInput:
        throw InputError(message);
      case kLogic:
        throw std::logic_error(message);
      case kRuntime:
        throw std::runtime_error(message);
      default:
        break;
    }
    at += length;
  }
}

}  // namespace hx
