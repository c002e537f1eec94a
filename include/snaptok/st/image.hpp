// A validated .st image in memory: a file mapped read-only (its pages shared
// with every process that maps it) or a copy of caller bytes. Construction
// checks everything format.hpp lists up to the checksum; the tables read
// from it check their own contents. Tables view the image's bytes and keep
// it alive. A mapped file must be replaced, never rewritten in place, while
// it is mapped (save_st renames a new file over it; a file truncated under a
// mapping faults its readers, as with any mmap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "snaptok/detail/flat.hpp"
#include "snaptok/error.hpp"
#include "snaptok/st/format.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define SNAPTOK_HAVE_MMAP 1
#endif

namespace snaptok::st {

class Image : public std::enable_shared_from_this<Image> {
 public:
  /// Maps the file at `path` and validates it.
  static std::shared_ptr<const Image> map_file(const std::filesystem::path& path) {
    auto image = std::shared_ptr<Image>(new Image(path.string()));
#if defined(SNAPTOK_HAVE_MMAP)
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) image->fail("cannot open file");
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      image->fail("cannot stat file");
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > 0) {
      int flags = MAP_PRIVATE;
#if defined(MAP_POPULATE)
      flags |= MAP_POPULATE;  // one call maps every page (validation reads them all)
#endif
      void* p = ::mmap(nullptr, size, PROT_READ, flags, fd, 0);
      ::close(fd);
      if (p == MAP_FAILED) image->fail("cannot map file");
      image->data_ = static_cast<const std::byte*>(p);
      image->mapped_ = size;
    } else {
      ::close(fd);
    }
    image->size_ = size;
#else
    std::ifstream in(path, std::ios::binary);
    if (!in) image->fail("cannot open file");
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    image->own(std::as_bytes(std::span(data)));
#endif
    image->validate();
    return image;
  }

  /// Copies `bytes` (a whole .st file) and validates the copy; `name` is
  /// what errors call it.
  static std::shared_ptr<const Image> copy_of(std::span<const std::byte> bytes,
                                              std::string name = "<buffer>") {
    auto image = std::shared_ptr<Image>(new Image(std::move(name)));
    image->own(bytes);
    image->validate();
    return image;
  }

  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;
  ~Image() {
#if defined(SNAPTOK_HAVE_MMAP)
    if (mapped_ != 0) ::munmap(const_cast<std::byte*>(data_), mapped_);
#endif
    if (owned_) std::free(owned_);
  }

  /// What errors call this image: its path, or "<buffer>".
  const std::string& name() const noexcept { return name_; }
  std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }
  /// The checksum of the tokenizer.json the file was built from (0: none).
  std::uint64_t source_hash() const noexcept { return header().source_hash; }

  bool has(SectionType type) const noexcept { return find(type) != nullptr; }

  /// The section `type` as an array of T; throws naming the file when it is
  /// missing or its length is not a whole number of Ts.
  template <class T>
  detail::Flat<T> section(SectionType type) const {
    const SectionEntry* e = find(type);
    if (!e) fail("missing section " + std::string(section_name(static_cast<std::uint32_t>(type))));
    if (e->length % sizeof(T) != 0) {
      fail("section " + std::string(section_name(e->type)) + " has " + std::to_string(e->length) +
           " bytes, not a multiple of its " + std::to_string(sizeof(T)) + "-byte elements");
    }
    static_assert(alignof(T) <= kAlignment);
    return detail::Flat<T>(reinterpret_cast<const T*>(data_ + e->offset),
                           static_cast<std::size_t>(e->length / sizeof(T)), shared_from_this());
  }

  /// The section `type` as text.
  std::string_view text(SectionType type) const {
    const detail::Flat<char> s = section<char>(type);
    return {s.data(), s.size()};
  }

  /// Throws an Error naming this image.
  [[noreturn]] void fail(const std::string& what) const { throw Error(name_ + ": " + what); }

 private:
  explicit Image(std::string name) : name_(std::move(name)) {}

  void own(std::span<const std::byte> bytes) {
    // 64-byte aligned, as a mapping would be, so every table's elements are aligned.
    const std::size_t n = std::max<std::size_t>(aligned(bytes.size()), kAlignment);
    owned_ = static_cast<std::byte*>(std::aligned_alloc(kAlignment, n));
    if (!owned_) throw std::bad_alloc();
    if (!bytes.empty()) std::memcpy(owned_, bytes.data(), bytes.size());
    data_ = owned_;
    size_ = bytes.size();
  }

  const Header& header() const noexcept { return *reinterpret_cast<const Header*>(data_); }
  const SectionEntry* entries() const noexcept {
    return reinterpret_cast<const SectionEntry*>(data_ + sizeof(Header));
  }

  const SectionEntry* find(SectionType type) const noexcept {
    const auto want = static_cast<std::uint32_t>(type);
    for (std::uint32_t i = 0; i < header().section_count; ++i) {
      if (entries()[i].type == want) return &entries()[i];
    }
    return nullptr;
  }

  void validate() const {
    if (size_ < sizeof(Header)) {
      fail("not a .st file: " + std::to_string(size_) + " bytes, shorter than the " +
           std::to_string(sizeof(Header)) + "-byte header");
    }
    const Header& h = header();
    if (h.magic != kMagic) fail("not a .st file (bad magic)");
    if (h.version != kVersion) {
      fail(".st format version " + std::to_string(h.version) + ", but this snaptok reads version " +
           std::to_string(kVersion) + " (convert the tokenizer.json again)");
    }
    if (h.byte_order != kByteOrder) fail("written with another byte order than this machine's");
    if (h.payload_kind != kTokenizerPayload) {
      fail("payload kind " + std::to_string(h.payload_kind) + " is not a tokenizer");
    }
    if (h.file_size != size_) {
      fail("truncated or padded: the header says " + std::to_string(h.file_size) +
           " bytes, the file has " + std::to_string(size_));
    }
    if (h.section_count > kMaxSections) {
      fail(std::to_string(h.section_count) + " sections, more than the " +
           std::to_string(kMaxSections) + " a .st file may hold");
    }
    const std::uint64_t table_end = sizeof(Header) + std::uint64_t{h.section_count} * sizeof(SectionEntry);
    if (table_end > size_) fail("the section table runs past the end of the file");
    std::uint64_t previous_end = table_end;
    for (std::uint32_t i = 0; i < h.section_count; ++i) {
      const SectionEntry& e = entries()[i];
      const std::string what = "section " + std::to_string(i) + " (" +
                               std::string(section_name(e.type)) + ")";
      if (i > 0 && e.type <= entries()[i - 1].type) fail(what + ": section types not sorted and unique");
      if (e.alignment != kAlignment || e.offset % kAlignment != 0) fail(what + ": misaligned");
      if (e.offset < previous_end) fail(what + ": overlaps the table or the section before it");
      if (e.length > size_ || e.offset > size_ - e.length) {
        fail(what + ": " + std::to_string(e.length) + " bytes at offset " + std::to_string(e.offset) +
             " run past the end of the file (" + std::to_string(size_) + " bytes)");
      }
      previous_end = e.offset + e.length;
    }
    if (file_checksum(bytes()) != h.checksum) {
      fail("checksum mismatch: the file is corrupt");
    }
  }

  std::string name_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;       // bytes mapped, or 0
  std::byte* owned_ = nullptr;  // or the bytes' own copy
};

}  // namespace snaptok::st
