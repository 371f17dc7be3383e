// Switching elements: the component models a network is built of, chosen per component by the
// topology through a slot (today's "router", the "endpoint"; an ideal switch or an optical
// circuit element with no buffers are further entries of standard_elements()). Each declares
// the link protocol it speaks, which its peers consult instead of assuming each other's model.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/component.h"
#include "core/model.h"

namespace hx::net {

struct NetworkContext;

/// What a switching element promises the elements at the other end of its links.
struct LinkProtocol {
  /// It takes every packet in at link rate and frees the packet's buffer space when the tail
  /// is in, so the sender knows, when it sends, when that space is free again.
  bool sinks_at_link_rate = false;
  /// It counts the credits of link-rate sinks itself, when its packet goes, instead of waiting
  /// for a credit event (Router::Return: an event less per packet delivered).
  bool counts_sink_credits = false;
  /// A packet arriving here crosses a pipeline of router.pipeline first; the sender adds it to
  /// the packet's arrival time.
  bool has_pipeline = false;
};

/// Whether the sender counts the receiver's credits itself, so the receiver sends none: only
/// when both agree. Both sides call this, so neither can break the other silently.
inline bool credits_counted_by_sender(const LinkProtocol& sender, const LinkProtocol& receiver) {
  return sender.counts_sink_credits && receiver.sinks_at_link_rate;
}

struct SwitchingElement {
  std::string name;  // as Topology::switch_element() names it
  std::string help;
  LinkProtocol protocol;
  /// Builds the element for component `id`, the `index`-th router (or endpoint).
  std::function<std::unique_ptr<Component>(ComponentId id, uint32_t index,
                                           const NetworkContext& net, const BuildContext& ctx)>
      make;
};

/// The elements every network model can build: "router" (the input-queued VC router) and
/// "endpoint" (the chip or NIC). Defined with them, in models/components/standard_elements.cpp.
std::vector<SwitchingElement> standard_elements();

}  // namespace hx::net
