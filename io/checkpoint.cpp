// Checkpoint files: per-rank record files with an index, a manifest, and the commit protocol.
#include "io/checkpoint.h"

#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <boost/version.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <streambuf>

#include "core/error.h"
#include "core/text.h"
#include "core/version.h"
#include "io/collective.h"

namespace hx {
namespace {

namespace fs = std::filesystem;

constexpr char kIndexMagic[8] = {'H', 'X', 'C', 'K', 'I', 'D', 'X', '1'};

// FNV-1a over 8-byte words (bytes for the tail): detects damaged records and indexes at
// memory speed. Not cryptographic; it guards against truncation and bit rot, not tampering.
// Fed in pieces, it gives what it would give the pieces joined: a record can be hashed as it
// is streamed to the file.
class RecordHash {
 public:
  void add(const char* data, std::size_t n) {
    while (n > 0 && (pending_ > 0 || n < 8)) {  // complete a word begun by an earlier piece
      tail_[pending_++] = *data++;
      --n;
      if (pending_ == 8) {
        word(tail_);
        pending_ = 0;
      }
    }
    for (; n >= 8; data += 8, n -= 8) word(data);
    for (; n > 0; --n) tail_[pending_++] = *data++;
  }
  uint64_t value() const {
    uint64_t h = h_;
    for (std::size_t i = 0; i < pending_; ++i) {
      h = (h ^ static_cast<unsigned char>(tail_[i])) * 0x100000001b3ULL;
    }
    return h;
  }

 private:
  void word(const char* bytes) {
    uint64_t w;
    std::memcpy(&w, bytes, 8);
    h_ = (h_ ^ w) * 0x100000001b3ULL;
    h_ ^= h_ >> 29;
  }
  uint64_t h_ = 0xcbf29ce484222325ULL;
  char tail_[8] = {};
  std::size_t pending_ = 0;
};

uint64_t hash_bytes(std::string_view bytes) {
  RecordHash h;
  h.add(bytes.data(), bytes.size());
  return h.value();
}

// The stream a rank record is written through: 64 KiB at a time to the rank file, hashed on
// the way, so the record is never held whole in memory.
//
// It never throws: a Boost archive syncs its buffer in its destructor, where an exception ends
// the process. The first failed write is kept in error() and the rest of the record dropped.
class RecordBuf final : public std::streambuf {
 public:
  explicit RecordBuf(std::function<void(std::string_view)> sink) : sink_(std::move(sink)) {
    setp(buffer_, buffer_ + sizeof buffer_);
  }
  uint64_t hash() const { return hash_.value(); }
  uint64_t length() const { return length_; }
  const std::string& error() const { return error_; }
  int sync() override {
    const std::size_t n = static_cast<std::size_t>(pptr() - pbase());
    if (n > 0 && error_.empty()) {
      hash_.add(pbase(), n);
      try {
        sink_({pbase(), n});
      } catch (const OutputError& e) {
        error_ = e.what();
      }
      length_ += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return 0;
  }

 protected:
  int_type overflow(int_type c) override {
    sync();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }

 private:
  std::function<void(std::string_view)> sink_;
  std::string error_;
  RecordHash hash_;
  uint64_t length_ = 0;
  char buffer_[1 << 16];
};

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string rank_file(const std::string& dir, int rank, const char* suffix) {
  char name[32];
  std::snprintf(name, sizeof name, "rank-%05d.%s", rank, suffix);
  return (fs::path(dir) / name).string();
}

std::string checkpoint_name(int64_t time_ps) {
  char name[40];
  std::snprintf(name, sizeof name, "ckpt-%020lld", static_cast<long long>(time_ps));
  return name;
}

std::string errno_text() { return std::strerror(errno); }

// Flushes a file or directory to disk, so that a rename after it publishes complete data.
void sync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw OutputError("cannot open '" + path + "' to sync it: " + errno_text());
  const int rc = ::fsync(fd);
  const std::string error = rc != 0 ? errno_text() : "";
  ::close(fd);
  if (rc != 0) throw OutputError("cannot sync '" + path + "' to disk: " + error);
}

void write_small_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw OutputError("cannot create '" + path + "': " + errno_text());
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() &&
                  std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
  const std::string error = ok ? "" : errno_text();
  if (std::fclose(f) != 0 || !ok) {
    throw OutputError("cannot write '" + path + "': " + (ok ? errno_text() : error));
  }
}

std::string read_small_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Removes all but the newest `keep` checkpoints in `dir` (names sort by time), and what a run
// killed while writing one left (a batch system's SIGKILL after its grace period): by now this
// run's own partial directory has been renamed, so any other is stale, and as large as a
// checkpoint.
void prune(const std::string& dir, int keep) {
  std::vector<std::string> names, stale;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory()) continue;
    if (name.starts_with("ckpt-")) names.push_back(name);
    if (name.starts_with(".ckpt-") && name.ends_with(".partial")) stale.push_back(name);
  }
  std::sort(names.begin(), names.end());
  if (names.size() > static_cast<std::size_t>(keep))
    names.resize(names.size() - keep);
  else
    names.clear();
  for (const auto* list : {&names, &stale}) {
    for (const std::string& name : *list) fs::remove_all(fs::path(dir) / name);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Manifest

std::string CheckpointManifest::to_text() const {
  std::ostringstream out;
  out << "# hxsim checkpoint; restart with: hxsim run --restart <this directory>\n"
      << "format = " << format << "\n"
      << "hxsim_version = " << hxsim_version << "\n"
      << "git_hash = " << git_hash << "\n"
      << "boost_version = " << boost_version << "\n"
      << "platform = " << platform << "\n"
      << "config_hash = " << config_hash << "\n"
      << "time_ps = " << time_ps << "\n"
      << "last_work_ps = " << last_work_ps << "\n"
      << "events = " << events << "\n"
      << "ranks = " << ranks << "\n"
      << "output = " << output << "\n"
      << "written = " << written << "\n";
  for (std::size_t r = 0; r < index_hashes.size(); ++r) {
    out << "index_hash." << r << " = " << index_hashes[r] << "\n";
  }
  return out.str();
}

CheckpointManifest CheckpointManifest::parse(const std::string& text, const std::string& where) {
  std::map<std::string, std::string> values;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find(" = ");
    if (eq == std::string::npos) throw InputError("checkpoint manifest " + where + " is damaged");
    values[line.substr(0, eq)] = line.substr(eq + 3);
  }
  auto get = [&](const std::string& key) {
    auto it = values.find(key);
    if (it == values.end()) {
      throw InputError("checkpoint manifest " + where + " is damaged: it lacks '" + key + "'");
    }
    return it->second;
  };
  auto number = [&](const std::string& key) {
    const std::string v = get(key);
    try {
      std::size_t used = 0;
      const long long n = std::stoll(v, &used);
      if (used != v.size()) throw std::invalid_argument(v);
      return n;
    } catch (const std::exception&) {
      throw InputError("checkpoint manifest " + where + " is damaged: " + key + " = '" + v +
                       "' is not a number");
    }
  };
  CheckpointManifest m;
  m.format = get("format");
  m.hxsim_version = get("hxsim_version");
  m.git_hash = get("git_hash");
  m.boost_version = get("boost_version");
  m.platform = get("platform");
  m.config_hash = get("config_hash");
  m.time_ps = number("time_ps");
  m.last_work_ps = number("last_work_ps");
  m.events = static_cast<uint64_t>(number("events"));
  m.ranks = static_cast<int>(number("ranks"));
  m.output = get("output");
  m.written = get("written");
  if (m.ranks < 1) throw InputError("checkpoint manifest " + where + " is damaged: ranks < 1");
  for (int r = 0; r < m.ranks; ++r)
    m.index_hashes.push_back(get("index_hash." + std::to_string(r)));
  return m;
}

CheckpointManifest this_build_identity() {
  CheckpointManifest m;
  m.hxsim_version = kVersion;
  m.git_hash = kGitHash;
  m.boost_version = BOOST_LIB_VERSION;
  utsname u{};
  uname(&u);
  m.platform = std::string(u.sysname) + " " + u.machine + ", " +
               (std::endian::native == std::endian::little ? "little" : "big") + "-endian, " +
               "gcc " + __VERSION__;
  return m;
}

void check_compatible(const CheckpointManifest& found, const std::string& config_hash,
                      const std::string& path) {
  const CheckpointManifest build = this_build_identity();
  std::string diffs;
  auto compare = [&](const char* what, const std::string& theirs, const std::string& ours) {
    if (theirs != ours)
      diffs += std::string("\n  ") + what + ": '" + theirs + "', here '" + ours + "'";
  };
  compare("checkpoint format", found.format, build.format);
  compare("hxsim version", found.hxsim_version, build.hxsim_version);
  compare("git hash", found.git_hash, build.git_hash);
  compare("Boost version", found.boost_version, build.boost_version);
  compare("platform", found.platform, build.platform);
  if (!diffs.empty()) {
    throw InputError("checkpoint " + path + " was written by another build of hxsim:" + diffs +
                     "\n  Boost binary archives are not portable across versions; restart with "
                     "the build that wrote the checkpoint");
  }
  if (found.config_hash != config_hash) {
    throw InputError("checkpoint " + path + " belongs to another config (config hash " +
                     found.config_hash + ", this config " + config_hash +
                     "); a restart may change only sim.end_time and sim.partitioner");
  }
}

// ---------------------------------------------------------------------------------------------
// Writing

CheckpointRankWriter::CheckpointRankWriter(const std::string& dir, int rank)
    : dir_(dir), rank_(rank) {
  const std::string path = rank_file(dir, rank, "bin");
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw OutputError("cannot create '" + path + "': " + errno_text());
}

CheckpointRankWriter::~CheckpointRankWriter() {
  if (file_) std::fclose(file_);
}

void CheckpointRankWriter::append(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    throw OutputError("cannot write '" + rank_file(dir_, rank_, "bin") + "': " + errno_text());
  }
  offset_ += bytes.size();
}

void CheckpointRankWriter::add_component(uint64_t id, std::string_view record) {
  index_.push_back({id, offset_, record.size(), hash_bytes(record)});
  append(record);
}

void CheckpointRankWriter::add_rank_record(const std::function<void(std::ostream&)>& write) {
  const uint64_t offset = offset_;
  auto buf = std::make_unique<RecordBuf>([this](std::string_view bytes) { append(bytes); });
  {
    std::ostream out(buf.get());
    write(out);
    out.flush();
  }
  if (!buf->error().empty()) throw OutputError(buf->error());
  rank_records_.push_back({rank_records_.size(), offset, buf->length(), buf->hash()});
}

std::string CheckpointRankWriter::finish() {
  const std::string bin = rank_file(dir_, rank_, "bin");
  const bool ok = std::fflush(file_) == 0 && ::fsync(fileno(file_)) == 0;
  const std::string error = ok ? "" : errno_text();
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (!ok || rc != 0)
    throw OutputError("cannot write '" + bin + "': " + (ok ? errno_text() : error));

  std::string index(kIndexMagic, sizeof kIndexMagic);
  auto put = [&index](uint64_t v) { index.append(reinterpret_cast<const char*>(&v), 8); };
  put(index_.size());
  for (const Entry& e : index_) {
    put(e.id);
    put(e.offset);
    put(e.length);
    put(e.hash);
  }
  put(rank_records_.size());
  for (const Entry& e : rank_records_) {
    put(e.offset);
    put(e.length);
    put(e.hash);
  }
  write_small_file(rank_file(dir_, rank_, "idx"), index);
  return hex(hash_bytes(index));
}

std::string write_checkpoint(MPI_Comm comm, const std::string& dir, int keep,
                             CheckpointManifest manifest, const std::string& config_text,
                             const std::function<void(CheckpointRankWriter&)>& fill) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::string name = checkpoint_name(manifest.time_ps);
  const std::string partial = (fs::path(dir) / ("." + name + ".partial")).string();
  const std::string final_path = (fs::path(dir) / name).string();
  const std::string latest = (fs::path(dir) / "latest").string();
  // Every rank is past its writes once the error is agreed: rank 0 removes what they left.
  auto fail_if = [&](const std::string& error) {
    if (error.empty()) return;
    if (rank == 0) {
      std::error_code ec;
      fs::remove_all(partial, ec);
      fs::remove(latest + ".partial", ec);
    }
    throw OutputError("cannot write checkpoint " + final_path + ": " + error);
  };

  std::string error;
  if (rank == 0) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec) fs::remove_all(partial, ec);
    if (!ec) fs::create_directory(partial, ec);
    if (ec) error = ec.message();
  }
  fail_if(agree(comm, error));

  std::string index_hash;
  try {
    CheckpointRankWriter writer(partial, rank);
    fill(writer);
    index_hash = writer.finish();
  } catch (const OutputError& e) {
    error = e.what();
  }
  fail_if(agree(comm, error));

  std::vector<char> hashes(static_cast<std::size_t>(16 * ranks));
  MPI_Gather(index_hash.data(), 16, MPI_CHAR, hashes.data(), 16, MPI_CHAR, 0, comm);
  if (rank == 0) {
    try {
      manifest.ranks = ranks;
      manifest.written = utc_timestamp();
      manifest.index_hashes.clear();
      for (int r = 0; r < ranks; ++r) manifest.index_hashes.emplace_back(&hashes[16 * r], 16);
      write_small_file((fs::path(partial) / "config.toml").string(), config_text);
      write_small_file((fs::path(partial) / "manifest").string(), manifest.to_text());
      sync_path(partial);
      // A checkpoint at the same time (a restarted run passing it again) is the same state.
      fs::remove_all(final_path);
      fs::rename(partial, final_path);
      write_small_file(latest + ".partial", name + "\n");
      fs::rename(latest + ".partial", latest);
      sync_path(dir);
      prune(dir, keep);
    } catch (const OutputError& e) {
      error = e.what();
    } catch (const fs::filesystem_error& e) {
      error = e.what();
    }
  }
  fail_if(agree(comm, error));
  return final_path;
}

// ---------------------------------------------------------------------------------------------
// Reading

CheckpointReader::CheckpointReader(const std::string& path) {
  path_ = path;
  if (!fs::exists(fs::path(path) / "manifest")) {
    const std::string latest = read_small_file((fs::path(path) / "latest").string());
    const std::string name = latest.substr(0, latest.find('\n'));
    if (name.empty()) {
      throw InputError("'" + path +
                       "' is neither a checkpoint (it has no manifest: missing, or "
                       "not completely written) nor a checkpoint directory (it has no 'latest')");
    }
    path_ = (fs::path(path) / name).string();
  }
  const std::string manifest_path = (fs::path(path_) / "manifest").string();
  const std::string text = read_small_file(manifest_path);
  if (text.empty()) throw InputError("checkpoint " + path_ + " has no manifest: it is incomplete");
  manifest_ = CheckpointManifest::parse(text, manifest_path);

  files_.resize(static_cast<std::size_t>(manifest_.ranks));
  for (int r = 0; r < manifest_.ranks; ++r) {
    const std::string idx_path = rank_file(path_, r, "idx");
    const std::string index = read_small_file(idx_path);
    if (hex(hash_bytes(index)) != manifest_.index_hashes[static_cast<std::size_t>(r)]) {
      throw InputError("checkpoint " + path_ + " is damaged: " + idx_path +
                       " is missing or does not match the manifest's hash");
    }
    std::size_t at = sizeof kIndexMagic;
    auto get = [&]() {
      if (at + 8 > index.size()) {
        throw InputError("checkpoint " + path_ + " is damaged: " + idx_path + " is truncated");
      }
      uint64_t v = 0;
      std::memcpy(&v, index.data() + at, 8);
      at += 8;
      return v;
    };
    const uint64_t n = get();
    for (uint64_t i = 0; i < n; ++i) {
      Entry e{};
      e.id = get();
      e.offset = get();
      e.length = get();
      e.hash = get();
      e.rank = r;
      components_.push_back(e);
    }
    const uint64_t records = get();
    for (uint64_t i = 0; i < records; ++i) {
      Entry data{};
      data.id = i;
      data.offset = get();
      data.length = get();
      data.hash = get();
      data.rank = r;
      rank_records_.push_back(data);
    }
  }
  std::sort(components_.begin(), components_.end(),
            [](const Entry& a, const Entry& b) { return a.id < b.id; });
}

CheckpointReader::~CheckpointReader() = default;

std::string CheckpointReader::config_text() const {
  const std::string path = (fs::path(path_) / "config.toml").string();
  const std::string text = read_small_file(path);
  if (text.empty()) throw InputError("checkpoint " + path_ + " is damaged: no config.toml");
  return text;
}

std::string CheckpointReader::read(const Entry& e, const std::string& what) {
  auto& file = files_[static_cast<std::size_t>(e.rank)];
  const std::string path = rank_file(path_, e.rank, "bin");
  if (!file) file = std::make_unique<std::ifstream>(path, std::ios::binary);
  std::string bytes(e.length, '\0');
  file->clear();
  file->seekg(static_cast<std::streamoff>(e.offset));
  file->read(bytes.data(), static_cast<std::streamsize>(e.length));
  if (!*file || hash_bytes(bytes) != e.hash) {
    throw InputError("checkpoint " + path_ + " is damaged: " + what + " in " + path +
                     (*file ? " does not match its hash" : " cannot be read (file too short?)"));
  }
  return bytes;
}

std::string CheckpointReader::component(uint64_t id) {
  auto it = std::lower_bound(components_.begin(), components_.end(), id,
                             [](const Entry& e, uint64_t v) { return e.id < v; });
  if (it == components_.end() || it->id != id) {
    throw InputError("checkpoint " + path_ + " has no record of component " + std::to_string(id) +
                     " (was it written for another model?)");
  }
  return read(*it, "the record of component " + std::to_string(id));
}

std::string CheckpointReader::rank_record(std::size_t i) {
  const Entry& e = rank_records_.at(i);
  return read(e, "record " + std::to_string(e.id) + " of rank " + std::to_string(e.rank));
}

}  // namespace hx
