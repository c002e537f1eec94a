// A cursor over the byte-class masks of a text, for the pre-tokenization
// scanners' ASCII work: it classifies the text lazily, 64 bytes at a time,
// with snaptok::simd::classify_block (Highway runtime dispatch, or portable
// C++ without Highway), keeps the current block's masks and answers "where
// does the run of bytes of these classes starting at i end?" with
// count-trailing-zeros, crossing block boundaries as needed.
//
//   snaptok::scanners::BlockMasks m(text);
//   std::size_t e = m.run_end<kBytesLetter>(i);                // end of the ASCII-letter run at i
//   std::size_t p = m.run_end<kBytesApostrophe | kBytesOther>(e);
//   std::size_t nl = m.last_in<kBytesNewline>(i, e);           // last CR/LF in [i, e), or npos
//
// Blocks start at multiples of 64 from the start of the text, so a scan that
// moves forward classifies each byte once. Non-ASCII bytes are all in
// kBytesNonascii: a scanner settles them per code point (char_class.hpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "snaptok/detail/inline.hpp"
#include "snaptok/simd/dispatch.hpp"

namespace snaptok::scanners {

// Byte classes a BlockMasks query asks about; OR them into a set. Each byte
// is in exactly one of letter, digit, space, nonascii, apostrophe, other
// (newline is a subset of space), as in simd::ByteClassMasks.
enum ByteClassSet : unsigned {
  kBytesLetter = 1,       // A-Z a-z
  kBytesDigit = 2,        // 0-9
  kBytesSpace = 4,        // \t \n \v \f \r ' '
  kBytesNewline = 8,      // \r \n
  kBytesNonascii = 16,    // 0x80-0xFF
  kBytesApostrophe = 32,  // '
  kBytesOther = 64,       // every other ASCII byte
  kBytesAscii = kBytesLetter | kBytesDigit | kBytesSpace | kBytesApostrophe | kBytesOther,
};

// The class masks of a text's 64-byte blocks for a scan that moves forward
// block by block and may skip some or start again at any byte:
// classified kGroupBlocks at a time, so the kernel's dispatch is paid once
// per group.
//   ForwardBlocks blocks(text);
//   for (std::size_t base = 0; base < text.size(); base += 64) use(blocks.at(base));
class ForwardBlocks {
 public:
  explicit ForwardBlocks(std::string_view text) noexcept : p_(text.data()), n_(text.size()) {}

  // Returns the masks of the 64 bytes from `base` (below the text size, not
  // below the base of any earlier call). Bases a multiple of 64 apart share
  // a classification pass. Any other base gets a pass of its own block
  // only: a scan that starts again at such bases one after another (a
  // walker through CJK text) classifies each byte about once.
  SNAPTOK_ALWAYS_INLINE const simd::ByteClassMasks& at(std::size_t base) noexcept {
    const std::size_t from_first = base - first_;
    if (from_first >= count_ * simd::kBlockBytes || from_first % simd::kBlockBytes != 0) [[unlikely]] {
      classify_from(base, from_first % simd::kBlockBytes == 0 ? kGroupBlocks : 1);
    }
    return group_.blocks[(base - first_) / simd::kBlockBytes];
  }

 private:
  static constexpr std::size_t kGroupBlocks = 8;

  void classify_from(std::size_t base, std::size_t blocks) noexcept {
    const std::size_t left = (n_ - base + simd::kBlockBytes - 1) / simd::kBlockBytes;
    first_ = base;
    count_ = left < blocks ? left : blocks;
    simd::classify_blocks(p_ + base, n_ - base, group_.blocks, count_);
  }
  const char* p_;
  std::size_t n_;
  std::size_t first_ = 0;  // the first block group_ holds
  std::size_t count_ = 0;  // and how many
  // The masks of blocks [first_, first_ + 64 * count_), left uninitialised
  // until classified: zeroing 640 bytes per text cost 5% of a batch of
  // 256-byte texts.
  union Group {
    Group() noexcept {}
    simd::ByteClassMasks blocks[kGroupBlocks];
  } group_;
};

// The masks of a few byte sets (simd::NibbleSet) over a text's 64-byte
// blocks, for a scan that moves forward: the block after the ones it holds
// is classified with the next kGroupBlocks - 1, any other block alone (a
// scan that jumps ahead classifies about what it reads).
//   SetBlocks blocks(text, sets, 2);
//   std::size_t e = blocks.run_end(0, i);     // end of the run of sets[0] bytes at i
//   std::size_t j = blocks.next_in(0, 1, e);  // next byte of sets[0] or sets[1] from e
class SetBlocks {
 public:
  SetBlocks(std::string_view text, const simd::NibbleSet* sets, std::size_t count) noexcept
      : p_(text.data()), n_(text.size()), sets_(sets), count_(count) {}

  // Returns the end of the run of bytes of set `s` from i: the first j >= i
  // whose byte is not in it, or the text size.
  SNAPTOK_ALWAYS_INLINE std::size_t run_end(std::size_t s, std::size_t i) noexcept {
    while (i < n_) {
      const std::size_t k = i % simd::kBlockBytes;
      const auto e = static_cast<std::size_t>(std::countr_zero(~(masks(i)[s] >> k)));
      if (k + e < simd::kBlockBytes) return i + e;
      i += simd::kBlockBytes - k;
    }
    return n_;
  }

  // Returns the first j >= i whose byte is in set `s` or set `t`, or the
  // text size.
  SNAPTOK_ALWAYS_INLINE std::size_t next_in(std::size_t s, std::size_t t, std::size_t i) noexcept {
    while (i < n_) {
      const std::size_t k = i % simd::kBlockBytes;
      const std::uint64_t* m = masks(i);
      const std::uint64_t hits = (m[s] | m[t]) >> k;
      if (hits != 0) return i + static_cast<std::size_t>(std::countr_zero(hits));
      i += simd::kBlockBytes - k;
    }
    return n_;
  }

 private:
  static constexpr std::size_t kGroupBlocks = 8;

  // The masks of the block that holds byte i < size().
  SNAPTOK_ALWAYS_INLINE const std::uint64_t* masks(std::size_t i) noexcept {
    const std::size_t base = i - i % simd::kBlockBytes;
    std::size_t block = (base - first_) / simd::kBlockBytes;  // past blocks_ when base < first_ (wraps)
    if (block >= blocks_) [[unlikely]] {
      const bool next = base == first_ + blocks_ * simd::kBlockBytes;
      const std::size_t left = (n_ - base + simd::kBlockBytes - 1) / simd::kBlockBytes;
      first_ = base;
      blocks_ = std::min(left, next ? kGroupBlocks : std::size_t{1});
      simd::set_masks(p_ + base, n_ - base, sets_, count_, group_.masks, blocks_);
      block = 0;
    }
    return group_.masks + block * count_;
  }

  const char* p_;
  std::size_t n_;
  const simd::NibbleSet* sets_;
  std::size_t count_;
  std::size_t first_ = 0;   // the first byte of the blocks held
  std::size_t blocks_ = 0;  // how many (the first request starts a group)
  union Group {             // left uninitialised until classified, as ForwardBlocks'
    Group() noexcept {}
    std::uint64_t masks[kGroupBlocks * simd::kMaxMaskSets];
  } group_;
};

// SetBlocks' queries a byte at a time, for a text too short to pay for
// classifying its block.
class SetBytes {
 public:
  SetBytes(std::string_view text, const simd::NibbleSet* sets, std::size_t /*count*/) noexcept
      : p_(reinterpret_cast<const unsigned char*>(text.data())), n_(text.size()), sets_(sets) {}

  std::size_t run_end(std::size_t s, std::size_t i) const noexcept {
    while (i < n_ && sets_[s].contains(p_[i])) ++i;
    return i;
  }
  std::size_t next_in(std::size_t s, std::size_t t, std::size_t i) const noexcept {
    while (i < n_ && !sets_[s].contains(p_[i]) && !sets_[t].contains(p_[i])) ++i;
    return i;
  }

 private:
  const unsigned char* p_;
  std::size_t n_;
  const simd::NibbleSet* sets_;
};

// The class masks of one text, one 64-byte block at a time.
class BlockMasks {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  explicit BlockMasks(std::string_view text) noexcept
      : p_(text.data()), n_(text.size()), base_(text.size() + simd::kBlockBytes) {}

  // Returns the end of the run of bytes in `Set` from i: the first j >= i
  // whose byte is not in Set, or the text size.
  // (Forced inline: with more scanners in a translation unit calling it,
  // GCC left it out of line, +2.4% of cl100k's instructions.)
  template <unsigned Set>
  SNAPTOK_ALWAYS_INLINE std::size_t run_end(std::size_t i) noexcept {
    for (;;) {
      std::size_t k = i - base_;  // wraps when i < base_
      if (k >= simd::kBlockBytes) {
        if (i >= n_) return n_;
        load(i);
        k = i - base_;
      }
      // Bits past the text are 0, so a run stops at the end of the text;
      // the bits shifted in at the top stop it at the end of the block.
      const auto e = static_cast<std::size_t>(std::countr_zero(~(select<Set>() >> k)));
      if (k + e < simd::kBlockBytes) return i + e;
      i = base_ + simd::kBlockBytes;
    }
  }

  // Returns the position of the last byte in [i, e) that is in `Set`, or
  // npos (e <= size()).
  template <unsigned Set>
  std::size_t last_in(std::size_t i, std::size_t e) noexcept {
    while (e > i) {
      std::size_t k = (e - 1) - base_;
      if (k >= simd::kBlockBytes) {
        load(e - 1);
        k = (e - 1) - base_;
      }
      std::uint64_t m = select<Set>() & (~std::uint64_t{0} >> (simd::kBlockBytes - 1 - k));
      if (i > base_) m &= ~std::uint64_t{0} << (i - base_);
      if (m != 0) return base_ + (simd::kBlockBytes - 1) - static_cast<std::size_t>(std::countl_zero(m));
      e = base_;
    }
    return npos;
  }

  // Returns the masks of the block that holds byte i (i < size()) and sets
  // `base` to its first byte: bit k of each mask stands for byte base + k;
  // bits past the text are 0.
  const simd::ByteClassMasks& block_of(std::size_t i, std::size_t& base) noexcept {
    if (i - base_ >= simd::kBlockBytes) load(i);
    base = base_;
    return m_;
  }

  // Returns the masks of `Set` for bytes from i on: bit k stands for byte
  // i + k, for k < valid (set to the bytes left in i's block: 1..64); bits
  // at or past valid are 0. i < size().
  template <unsigned Set>
  std::uint64_t bits_from(std::size_t i, std::size_t& valid) noexcept {
    std::size_t k = i - base_;
    if (k >= simd::kBlockBytes) {
      load(i);
      k = i - base_;
    }
    valid = simd::kBlockBytes - k;
    return select<Set>() >> k;
  }

 private:
  void load(std::size_t i) noexcept {
    base_ = i & ~(simd::kBlockBytes - 1);
    const std::size_t left = n_ - base_;
    simd::classify_block(p_ + base_, left < simd::kBlockBytes ? left : simd::kBlockBytes, m_);
  }

  template <unsigned Set>
  std::uint64_t select() const noexcept {
    static_assert(Set != 0 && (Set & ~127u) == 0, "a set of ByteClassSet bits");
    std::uint64_t m = 0;
    if constexpr ((Set & kBytesLetter) != 0) m |= m_.letter;
    if constexpr ((Set & kBytesDigit) != 0) m |= m_.digit;
    if constexpr ((Set & kBytesSpace) != 0) m |= m_.space;
    if constexpr ((Set & kBytesNewline) != 0) m |= m_.newline;
    if constexpr ((Set & kBytesNonascii) != 0) m |= m_.nonascii;
    if constexpr ((Set & kBytesApostrophe) != 0) m |= m_.apostrophe;
    if constexpr ((Set & kBytesOther) != 0) m |= m_.other;
    return m;
  }

  const char* p_;
  std::size_t n_;
  std::size_t base_;  // start of the block m_ holds; > size() before the first load
  simd::ByteClassMasks m_;
};

}  // namespace snaptok::scanners
