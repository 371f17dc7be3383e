// Neighbour exchange with matched probes: one round trip per window, no size pre-exchange.
#include "engine/exchange.h"

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/iostreams/device/array.hpp>
#include <boost/iostreams/device/back_inserter.hpp>
#include <boost/iostreams/stream.hpp>
#include <boost/serialization/vector.hpp>
#include <limits>
#include <stdexcept>
#include <string>

namespace hx {
namespace {
constexpr int kEventTag = 4242;
constexpr auto kArchiveFlags = boost::archive::no_header | boost::archive::no_codecvt;
}  // namespace

void pack_events(const std::vector<Event>& events, std::string& out) {
  out.clear();
  boost::iostreams::back_insert_device<std::string> device(out);
  boost::iostreams::stream<boost::iostreams::back_insert_device<std::string>> stream(device);
  {
    boost::archive::binary_oarchive ar(stream, kArchiveFlags);
    ar << events;
  }
  stream.flush();
}

void unpack_events(const char* data, std::size_t size, std::vector<Event>& out) {
  boost::iostreams::stream<boost::iostreams::array_source> stream(data, size);
  boost::archive::binary_iarchive ar(stream, kArchiveFlags);
  ar >> out;
}

Exchange::Exchange(MPI_Comm comm, std::vector<int> neighbours)
    : comm_(comm), neighbours_(std::move(neighbours)), send_buffers_(neighbours_.size()) {}

uint64_t Exchange::exchange(std::vector<std::vector<Event>>& outboxes,
                            std::vector<Event>& received) {
  received.clear();
  uint64_t sent = 0;
  requests_.assign(neighbours_.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < neighbours_.size(); ++i) {
    sent += outboxes[i].size();
    pack_events(outboxes[i], send_buffers_[i]);
    outboxes[i].clear();
    if (send_buffers_[i].size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw std::runtime_error("one window sends more than 2 GiB of events to rank " +
                               std::to_string(neighbours_[i]) + "; reduce the link latency");
    }
    MPI_Isend(send_buffers_[i].data(), static_cast<int>(send_buffers_[i].size()), MPI_BYTE,
              neighbours_[i], kEventTag, comm_, &requests_[i]);
  }
  for (int source : neighbours_) {
    MPI_Message message;
    MPI_Status status;
    MPI_Mprobe(source, kEventTag, comm_, &message, &status);
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    recv_buffer_.resize(static_cast<std::size_t>(bytes));
    MPI_Mrecv(recv_buffer_.data(), bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    unpack_events(recv_buffer_.data(), recv_buffer_.size(), batch_);
    received.insert(received.end(), batch_.begin(), batch_.end());
  }
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  return sent;
}

}  // namespace hx
