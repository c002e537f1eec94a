// The .st file: a binary image of a loaded tokenizer. Its sections are the
// engine's own flat tables, so loading is mmap plus validation, not parsing
// plus building, and processes that map one file share its pages.
//
// Layout, version 1. All integers are little-endian (a big-endian host
// refuses the file); every offset is from the start of the file.
//
//   offset 0   Header, 64 bytes
//     char magic[8]        "SNAPTOK\0"
//     u32  version         1 (kVersion)
//     u32  byte_order      0x01020304 as the writer stored it
//     u32  payload_kind    1 = a whole tokenizer (kTokenizerPayload)
//     u32  section_count   at most kMaxSections
//     u64  file_size       the whole file, a multiple of 64
//     u64  source_hash     st::checksum of the tokenizer.json text it was
//                          built from; 0 when it had none
//     u64  checksum        st::file_checksum: of the whole file, this field
//                          read as 0
//     u64  reserved[2]     0
//   offset 64  Section table: section_count entries of 32 bytes, sorted by type
//     u32  type            SectionType; each type at most once
//     u32  alignment       64
//     u64  offset          a multiple of 64, after the table
//     u64  length          bytes, not counting padding
//     u64  reserved        0
//   then     the sections in table order, each starting at a multiple of 64,
//            zero bytes between them and up to file_size.
//
// Sections (elements are the fixed-width structs of the table that owns them):
//   pipeline        UTF-8 JSON: the tokenizer.json with the model's tables
//                   left out (normalizer, pre-tokenizer, post-processor,
//                   decoder, added tokens, model settings, truncation,
//                   padding). Regexes are kept as patterns, compiled at load.
//   vocab.*         detail::Vocab (bytes, entries, slots, ids)
//   bpe.merges      detail::U64Map slots: (left, right) -> (rank, new id)
//   bpe.short_tokens  detail::ShortTokenMap buckets: a byte-level BPE that
//                   ignores merges, its tokens of 1..15 raw bytes -> id.
//                   Optional: a file without it (an older writer's) builds
//                   the map at load.
//   bpe.raw_*       a byte-level BPE's tokens by their raw bytes: trie cells
//                   and values (detail::DoubleArrayTrie), and the bitmap of
//                   the byte pairs tokens start with (1024 u64): what long
//                   pieces are cut with. Optional, all three or none: a file
//                   without them builds them once long pieces have
//                   spent a quarter of that cost on the heap.
//   unigram.*       UnigramModel (pieces, offsets, scores, trie cells and
//                   values, end cells)
// Hash slots are placed by detail::hash_bytes / detail::hash_u64 with
// detail::table_capacity, and ShortTokenMap buckets by detail::ShortKey's
// key and hash; those functions are frozen for this version: a change to
// any of them needs a new kVersion.
//
// Validation on load, in this order: size, magic, version, byte order, kind,
// section table bounds, checksum; then the tables check their own contents
// (ids in range, capacities, probe chains that end). A file that fails any
// step gets an Error naming the file and the failure, never a crash or an
// out-of-bounds read.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace snaptok::st {

inline constexpr std::array<char, 8> kMagic = {'S', 'N', 'A', 'P', 'T', 'O', 'K', '\0'};
inline constexpr std::uint32_t kVersion = 1;
inline constexpr std::uint32_t kByteOrder = 0x01020304u;
inline constexpr std::uint32_t kTokenizerPayload = 1;
inline constexpr std::uint32_t kAlignment = 64;
inline constexpr std::uint32_t kMaxSections = 64;

struct Header {
  std::array<char, 8> magic;
  std::uint32_t version;
  std::uint32_t byte_order;
  std::uint32_t payload_kind;
  std::uint32_t section_count;
  std::uint64_t file_size;
  std::uint64_t source_hash;
  std::uint64_t checksum;
  std::uint64_t reserved[2];
};
static_assert(sizeof(Header) == 64);

struct SectionEntry {
  std::uint32_t type;
  std::uint32_t alignment;
  std::uint64_t offset;
  std::uint64_t length;
  std::uint64_t reserved;
};
static_assert(sizeof(SectionEntry) == 32);

/// Returns the checksum a header stores for `file` (a whole .st image of at
/// least a header): that of every byte, with the checksum field read as 0.
inline std::uint64_t file_checksum(std::span<const std::byte> file) noexcept;

enum class SectionType : std::uint32_t {
  pipeline = 1,
  vocab_bytes = 16,
  vocab_entries = 17,
  vocab_slots = 18,
  vocab_ids = 19,
  bpe_merges = 32,
  bpe_short_tokens = 33,
  bpe_raw_trie_cells = 34,
  bpe_raw_trie_values = 35,
  bpe_raw_pairs = 36,
  unigram_pieces = 48,
  unigram_offsets = 49,
  unigram_scores = 50,
  unigram_trie_cells = 51,
  unigram_trie_values = 52,
  unigram_ends = 53,
};

/// Returns the name of a section type, as errors print it.
inline std::string_view section_name(std::uint32_t type) noexcept {
  switch (static_cast<SectionType>(type)) {
    case SectionType::pipeline: return "pipeline";
    case SectionType::vocab_bytes: return "vocab.bytes";
    case SectionType::vocab_entries: return "vocab.entries";
    case SectionType::vocab_slots: return "vocab.slots";
    case SectionType::vocab_ids: return "vocab.ids";
    case SectionType::bpe_merges: return "bpe.merges";
    case SectionType::bpe_short_tokens: return "bpe.short_tokens";
    case SectionType::bpe_raw_trie_cells: return "bpe.raw_trie_cells";
    case SectionType::bpe_raw_trie_values: return "bpe.raw_trie_values";
    case SectionType::bpe_raw_pairs: return "bpe.raw_pairs";
    case SectionType::unigram_pieces: return "unigram.pieces";
    case SectionType::unigram_offsets: return "unigram.offsets";
    case SectionType::unigram_scores: return "unigram.scores";
    case SectionType::unigram_trie_cells: return "unigram.trie_cells";
    case SectionType::unigram_trie_values: return "unigram.trie_values";
    case SectionType::unigram_ends: return "unigram.ends";
  }
  return "unknown";
}

/// A 64-bit checksum: eight independent multiply-xorshift lanes over
/// 64-byte blocks (so it runs near memory speed), then the tail and the
/// length. Frozen for format version 1.
class Checksum {
 public:
  Checksum() noexcept {
    for (int i = 0; i < kLanes; ++i) lane_[i] = 0x243F6A8885A308D3ull + std::uint64_t(i) * kMul;
  }

  /// Adds whole 64-byte blocks (n is a multiple of 64).
  void add_blocks(const std::byte* p, std::size_t n) noexcept {
    total_ += n;
    for (; n >= kBlock; p += kBlock, n -= kBlock) {
      for (int i = 0; i < kLanes; ++i) {
        std::uint64_t w;
        std::memcpy(&w, p + 8 * i, 8);
        lane_[i] = mix(lane_[i], w);
      }
    }
  }

  /// Adds the last (n < 64) bytes and returns the checksum.
  std::uint64_t finish(const std::byte* p, std::size_t n) noexcept {
    total_ += n;
    for (int i = 0; n > 0; ++i) {
      const std::size_t len = n < 8 ? n : 8;
      std::uint64_t w = 0;
      std::memcpy(&w, p, len);
      lane_[i] = mix(lane_[i], w);
      p += len;
      n -= len;
    }
    std::uint64_t h = total_ * kMul;
    for (const std::uint64_t l : lane_) h = mix(h, l);
    return h;
  }

  static constexpr std::size_t kBlock = 64;

 private:
  static constexpr int kLanes = 8;
  static constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
  static std::uint64_t mix(std::uint64_t h, std::uint64_t w) noexcept {
    h = (h ^ w) * kMul;
    return h ^ (h >> 29);
  }
  std::uint64_t lane_[kLanes];
  std::uint64_t total_ = 0;
};

/// Returns the Checksum of `bytes`.
inline std::uint64_t checksum(std::span<const std::byte> bytes) noexcept {
  Checksum c;
  const std::size_t whole = bytes.size() / Checksum::kBlock * Checksum::kBlock;
  c.add_blocks(bytes.data(), whole);
  return c.finish(bytes.data() + whole, bytes.size() - whole);
}

inline std::uint64_t file_checksum(std::span<const std::byte> file) noexcept {
  Header head;
  std::memcpy(&head, file.data(), sizeof head);
  head.checksum = 0;
  Checksum c;
  c.add_blocks(reinterpret_cast<const std::byte*>(&head), sizeof head);
  const std::span<const std::byte> rest = file.subspan(sizeof head);
  const std::size_t whole = rest.size() / Checksum::kBlock * Checksum::kBlock;
  c.add_blocks(rest.data(), whole);
  return c.finish(rest.data() + whole, rest.size() - whole);
}

/// Returns whether `bytes` start like a .st file (its magic).
inline bool has_magic(std::span<const std::byte> bytes) noexcept {
  return bytes.size() >= kMagic.size() && std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) == 0;
}

/// Returns `n` rounded up to a multiple of kAlignment.
constexpr std::uint64_t aligned(std::uint64_t n) noexcept {
  return (n + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace snaptok::st
