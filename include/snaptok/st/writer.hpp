// Writes .st images (format.hpp): tables add their sections, then bytes()
// lays them out. The same sections give the same bytes (sections sorted by
// type, zero padding, no timestamps), and write_atomically() never leaves a
// half-written file where a reader could map it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "snaptok/error.hpp"
#include "snaptok/st/format.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace snaptok::st {

class Writer {
 public:
  /// Adds a section; `bytes` must stay valid until bytes() is called.
  void add(SectionType type, std::span<const std::byte> bytes) {
    for (const Section& s : sections_) {
      if (s.type == type) {
        throw Error(".st writer: section " +
                    std::string(section_name(static_cast<std::uint32_t>(type))) + " added twice");
      }
    }
    sections_.push_back({type, bytes});
  }
  template <class T>
  void add(SectionType type, std::span<const T> elements) {
    add(type, std::as_bytes(elements));
  }
  void add_text(SectionType type, std::string_view text) {
    add(type, std::as_bytes(std::span(text.data(), text.size())));
  }

  /// Returns the whole file; `source_hash` is the checksum of the
  /// tokenizer.json it came from (0 when none).
  std::string bytes(std::uint64_t source_hash) const {
    std::vector<Section> sections = sections_;
    std::sort(sections.begin(), sections.end(),
              [](const Section& a, const Section& b) { return a.type < b.type; });
    std::vector<SectionEntry> table(sections.size());
    std::uint64_t at = aligned(sizeof(Header) + sections.size() * sizeof(SectionEntry));
    for (std::size_t i = 0; i < sections.size(); ++i) {
      table[i] = {static_cast<std::uint32_t>(sections[i].type), kAlignment, at,
                  sections[i].bytes.size(), 0};
      at = aligned(at + sections[i].bytes.size());
    }
    std::string out(static_cast<std::size_t>(at), '\0');
    std::memcpy(out.data() + sizeof(Header), table.data(), table.size() * sizeof(SectionEntry));
    for (std::size_t i = 0; i < sections.size(); ++i) {
      if (!sections[i].bytes.empty()) {
        std::memcpy(out.data() + table[i].offset, sections[i].bytes.data(), sections[i].bytes.size());
      }
    }
    Header h{};
    h.magic = kMagic;
    h.version = kVersion;
    h.byte_order = kByteOrder;
    h.payload_kind = kTokenizerPayload;
    h.section_count = static_cast<std::uint32_t>(sections.size());
    h.file_size = at;
    h.source_hash = source_hash;
    std::memcpy(out.data(), &h, sizeof h);
    h.checksum = file_checksum(std::as_bytes(std::span(out)));
    std::memcpy(out.data(), &h, sizeof h);
    return out;
  }

 private:
  struct Section {
    SectionType type;
    std::span<const std::byte> bytes;
  };
  std::vector<Section> sections_;
};

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so a reader sees the old file or the whole new one.
inline void write_atomically(const std::filesystem::path& path, std::string_view bytes) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = path;
  long pid = 0;
#if defined(__unix__) || defined(__APPLE__)
  pid = static_cast<long>(::getpid());
#endif
  tmp += ".tmp." + std::to_string(pid) + "." + std::to_string(counter.fetch_add(1));
  std::FILE* f = std::fopen(tmp.string().c_str(), "wb");
  if (!f) throw Error(path.string() + ": cannot write (" + std::strerror(errno) + ")");
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = std::fclose(f) == 0;
  std::error_code ec;
  if (!written || !closed) {
    std::filesystem::remove(tmp, ec);
    throw Error(path.string() + ": write failed (disk full?)");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw Error(path.string() + ": cannot replace the file (" + why + ")");
  }
}

}  // namespace snaptok::st
