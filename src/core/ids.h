// Identifier types shared by the engine, the partitioners and the models.
#pragma once

#include <cstdint>

namespace hx {

/// Global component id: dense in [0, Model::num_components()), the same on every rank.
using ComponentId = uint32_t;
/// Index of a port on its component, as events name their receiving port (Event::port).
using PortId = uint16_t;

inline constexpr PortId kSelfPort = 0xFFFF;  // events a component schedules for itself
/// Events arriving on a port whose index does not fit in a PortId below this one name this
/// instead. Only a hub has that many ports (the flow level's fabric, one port per endpoint);
/// it tells its senders apart by what they send (Component::many_ports).
inline constexpr PortId kWidePort = 0xFFFE;

}  // namespace hx
