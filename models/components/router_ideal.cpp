// router.arch = "ideal" (docs/MODELS.md, "Allocation"): the router's allocation without its
// input-queued limits. Every VC proposes, busy input or not, so an input feeds as many outputs
// at once as it has VCs (the internal speedup of an output-queued switch); a VC whose head
// cannot leave lets the packets behind it propose (virtual output queues per VC); and rounds
// repeat until one grants nothing: a maximal matching of packets to outputs.
#include <algorithm>

#include "core/prefetch.h"
#include "models/components/router.h"

namespace hx::net {

void Router::allocate_ideal() {
  const SimTime now = this->now();
  const std::size_t busy_words = state_.busy_words();
  if (!returns_.empty()) absorb_returns(now);
  // Within one allocation outputs only get busier and credits only fewer, so a VC that proposes
  // nothing in a round proposes nothing later in it: it is settled, and its wake-up kept.
  std::fill_n(settled_.begin(), std::size_t{ports_} * vcs_, uint8_t{0});
  SimTime settled_wake = SimTime::infinity();
  for (;;) {
    requests_.clear();
    bool dropped = false;  // a head with no live way on was lost: look again at its VC
    for (std::size_t word = 0; word < busy_words; ++word) {
      for (uint64_t busy = state_.busy_word(word); busy != 0; busy &= busy - 1) {
        const auto in = static_cast<PortId>(64 * word + __builtin_ctzll(busy));
        const PortState::Input& input = state_.input(in);
        // From next_vc round-robin, so that VCs of one input asking for one output take turns.
        for (uint64_t rotated = vcs_from_next(input); rotated != 0; rotated &= rotated - 1) {
          const uint8_t vc = vc_at(input, rotated);
          uint8_t& settled = settled_[std::size_t{in} * vcs_ + vc];
          if (settled) continue;
          const std::size_t proposals = requests_.size();
          SimTime wake = SimTime::infinity();
          Waiting& head = queue(in, vc).front();
          if (head.blocked_until <= now) {
            uint64_t dead = 0;
            if (!route(in, head.packet, dead)) {
              drop_head(in, vc, dead, now);
              dropped = true;
              continue;
            }
            Candidate best;
            if (select_outlined(head.packet.flits, now, wake, best, head.blocked_until)) {
              requests_.push_back({in, vc, best});
              prefetch_write(&outputs_[best.port]);
            }
          } else {
            wake = head.blocked_until;
          }
          if (requests_.size() == proposals) propose_behind(in, vc, now, wake);
          if (requests_.size() == proposals) {
            settled = 1;
            settled_wake = std::min(settled_wake, wake);
          }
        }
      }
    }
    if (requests_.empty()) {
      if (dropped) continue;
      break;
    }
    SimTime unused = SimTime::infinity();  // every VC is scanned again next round
    grant_requests(now, unused, false);
  }
  SimTime wake = settled_wake;
  if (!returns_.empty()) wake = std::min(wake, earliest_awaited_return());
  if (wake != SimTime::infinity()) request_allocation(wake);
}

// The packets behind a head that cannot leave bid too, the first that can leave proposing (one
// proposal per VC and round). A packet passes those ahead of it only when none of them may
// take any output it may take, so packets keep their order per output. At most
// router.look_behind packets deep.
void Router::propose_behind(PortId in, uint8_t vc, SimTime now, SimTime& wake) {
  RingQueue<Waiting>& q = queue(in, vc);
  const uint32_t depth = std::min(q.size(), net_.router.look_behind);
  claimed_.clear();
  for (uint32_t d = 0; d < depth; ++d) {
    Packet& packet = q.at(d).packet;
    uint64_t dead = 0;
    if (!route(in, packet, dead)) return;  // lost when it is the head
    bool passes = d > 0;
    for (const Candidate& c : candidates_) {
      if (std::find(claimed_.begin(), claimed_.end(), c.port) != claimed_.end()) passes = false;
    }
    Candidate best;
    SimTime unused;
    if (passes && select_outlined(packet.flits, now, wake, best, unused)) {
      requests_.push_back({in, vc, best, static_cast<uint16_t>(d)});
      return;
    }
    for (const Candidate& c : candidates_) claimed_.push_back(c.port);
  }
}

}  // namespace hx::net
