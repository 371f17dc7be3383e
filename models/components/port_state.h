// A router's small per-port state, the part every allocation round reads: which inputs hold
// packets, each input's crossbar state, when each output link is free, and the downstream
// credits and arbitration pointer of each (port, VC). It lives in one buffer, one array after
// another in the order the round reads them, so a round touches a few neighbouring cache lines
// instead of a line (or more) per array, shared with other routers' data
// (docs/performance/engine.md). That layout is this class's own business: others see typed
// accessors, the checkpoint sees fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/ids.h"
#include "core/prefetch.h"
#include "core/units.h"

namespace hx {
class StateArchive;
}

namespace hx::net {

class PortState {
 public:
  struct Input {
    SimTime free;           // the crossbar input is streaming a packet until then
    uint32_t busy_vcs = 0;  // bit v set when VC v's queue is non-empty
    uint8_t next_vc = 0;    // round-robin pointer over its VCs
    uint8_t link = 0;       // the port's link: kToEndpoint | kCountsReturns | kPeerPipeline
  };
  // What a port's link and its peer are (set_link), fixed when the router is built.
  static constexpr uint8_t kToEndpoint = 1;     // the peer is an endpoint
  static constexpr uint8_t kCountsReturns = 2;  // we count the peer's credits (element.h)
  static constexpr uint8_t kPeerPipeline = 4;   // the peer's pipeline delays what we send

  /// `ports` ports of `vcs` VCs each, every VC starting with `credits` credits.
  PortState(uint16_t ports, uint8_t vcs, uint32_t credits);

  uint16_t ports() const { return ports_; }
  /// Words of the busy-input bit set: bit `in % 64` of word `in / 64` is set while input `in`
  /// holds a packet in any VC.
  std::size_t busy_words() const { return (ports_ + 63u) / 64u; }
  uint64_t busy_word(std::size_t w) const { return busy_[w]; }

  Input& input(PortId in) { return inputs_[in]; }
  const Input& input(PortId in) const { return inputs_[in]; }
  /// Marks VC `vc` of input `in` non-empty.
  void set_busy(PortId in, uint8_t vc) {
    if (inputs_[in].busy_vcs == 0) busy_[in / 64] |= uint64_t{1} << (in % 64);
    inputs_[in].busy_vcs |= 1u << vc;
  }
  /// Marks VC `vc` of input `in` empty.
  void clear_busy(PortId in, uint8_t vc) {
    inputs_[in].busy_vcs &= ~(1u << vc);
    if (inputs_[in].busy_vcs == 0) busy_[in / 64] &= ~(uint64_t{1} << (in % 64));
  }

  /// Sets port `p`'s link: one flit's serialisation time and the k... flags above.
  void set_link(PortId p, SimTime per_flit, uint8_t flags) {
    links_[p].per_flit = per_flit;
    inputs_[p].link = flags;
  }
  /// The k... flags of port `p`'s link.
  uint8_t link(PortId p) const { return inputs_[p].link; }
  /// Serialisation time of one flit on port `p`'s link (either way): next to the output's free
  /// time, which the allocation round has just read when a packet leaves.
  SimTime per_flit(PortId p) const { return links_[p].per_flit; }

  /// The output link has sent its last packet's flits by then.
  SimTime& output_free(PortId out) { return links_[out].free; }
  SimTime output_free(PortId out) const { return links_[out].free; }

  /// Space in flits downstream of output `out` in VC `vc`.
  uint32_t& credits(PortId out, uint8_t vc) { return port_credits(out)[vc]; }
  uint32_t credits(PortId out, uint8_t vc) const { return port_credits(out)[vc]; }

  /// Round-robin pointer of output VC (`out`, `vc`): the input it grants first.
  PortId& next_input(PortId out, uint8_t vc) { return port_pointers(out)[vc]; }
  PortId next_input(PortId out, uint8_t vc) const { return port_pointers(out)[vc]; }

  /// Starts loading what an allocation round reads.
  void prefetch_round() const {
    prefetch_read(busy_);
    prefetch_read(inputs_);
    prefetch_read(links_);
    prefetch_read(outputs_);
  }
  /// Starts loading what a credit arriving at output `out` touches.
  void prefetch_credits(PortId out) const { prefetch_read(port_credits(out)); }
  /// Starts loading what a packet arriving at input `in` touches.
  void prefetch_input(PortId in) const { prefetch_read(&inputs_[in]); }

  /// Field by field, so the format does not depend on the layout. InputError when a record
  /// of another shape (ports, VCs) is read.
  void serialize(StateArchive& ar, uint32_t router);

 private:
  struct Link {
    SimTime free;      // the output has sent its last packet's flits by then
    SimTime per_flit;  // fixed: set_link
  };
  uint64_t* busy_;
  Input* inputs_;
  Link* links_;
  // Each output's block: its VCs' credits, then their pointers, so that a grant writes both
  // within a few bytes of each other (one line, or two where a block straddles lines).
  uint32_t* port_credits(PortId out) const {
    return reinterpret_cast<uint32_t*>(outputs_ + std::size_t{out} * block_words_);
  }
  PortId* port_pointers(PortId out) const {
    return reinterpret_cast<PortId*>(port_credits(out) + vcs_);
  }

  uint64_t* outputs_;
  std::unique_ptr<uint64_t[]> buffer_;  // what the four pointers point into
  uint16_t block_words_;                // 8-byte words of an output's block
  uint16_t ports_;
  uint8_t vcs_;
};

}  // namespace hx::net
