// SIMD kernels (snaptok/simd/dispatch.hpp): every compiled Highway target the
// CPU supports is forced in turn (set_supported_targets_for_test) and
// compared with the scalar reference; builds without Highway check the
// portable path the same way.
#include <doctest/doctest.h>

#include <snaptok/scanners/block_masks.hpp>
#include <snaptok/simd/dispatch.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace simd_tests {

namespace {

using snaptok::simd::ByteClassMasks;
using snaptok::simd::TargetCap;

// Runs fn(name) once per target: each compiled target this CPU supports,
// forced, with Highway; once ("none") without. A failing check inside fn
// names the target. Returns how many targets ran.
std::size_t for_each_target(const std::function<void(const std::string&)>& fn) {
  const auto run = [&](const std::string& name) {
    INFO("target " << name);
    fn(name);
  };
#ifdef SNAPTOK_NO_HIGHWAY
  run("none");
  return 1;
#else
  const std::vector<std::int64_t> targets = snaptok::simd::detail::supported_compiled_targets();
  REQUIRE(!targets.empty());
  for (const std::int64_t target : targets) {
    snaptok::simd::detail::set_supported_targets_for_test(target);
    run(hwy::TargetName(target));
  }
  snaptok::simd::detail::set_supported_targets_for_test(0);
  return targets.size();
#endif
}

std::string hex(const char* p, std::size_t n) {
  std::string s;
  char buf[4];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(p[i]));
    if (i) s += (i % 16 == 0) ? '\n' : ' ';
    s += buf;
  }
  return s;
}

std::string masks(const ByteClassMasks& m) {
  char buf[480];
  std::snprintf(buf, sizeof buf,
                "letter=%016llx upper=%016llx digit=%016llx space=%016llx newline=%016llx blank=%016llx "
                "nonascii=%016llx apostrophe=%016llx other=%016llx",
                static_cast<unsigned long long>(m.letter),
                static_cast<unsigned long long>(m.upper),
                static_cast<unsigned long long>(m.digit),
                static_cast<unsigned long long>(m.space),
                static_cast<unsigned long long>(m.newline),
                static_cast<unsigned long long>(m.blank),
                static_cast<unsigned long long>(m.nonascii),
                static_cast<unsigned long long>(m.apostrophe),
                static_cast<unsigned long long>(m.other));
  return buf;
}

// Returns the NibbleSet of the ASCII bytes c with in(c).
template <class In>
snaptok::simd::NibbleSet ascii_set(In&& in) {
  bool member[128] = {};
  for (std::size_t b = 0; b < 128; ++b) member[b] = in(static_cast<unsigned char>(b));
  return snaptok::simd::NibbleSet::ascii(member);
}

// Returns true if classify_block agrees with the reference on (p, n); on the
// first disagreement reports the target, the bytes and both results.
bool agrees(const std::string& target, const char* p, std::size_t n) {
  ByteClassMasks want, got;
  snaptok::simd::classify_block_scalar(p, n, want);
  // Poison the output so a kernel that leaves a field unset is caught.
  got.letter = got.upper = got.digit = got.space = got.newline = got.blank = got.nonascii =
      got.apostrophe = got.other = 0xA5A5A5A5A5A5A5A5ull;
  snaptok::simd::classify_block(p, n, got);
  if (got == want) return true;
  FAIL_CHECK("classify_block differs from classify_block_scalar on target "
             << target << ", n=" << n << ", address%64="
             << (reinterpret_cast<std::uintptr_t>(p) % 64) << "\nbytes:\n"
             << hex(p, n) << "\nwant: " << masks(want) << "\ngot:  " << masks(got));
  return false;
}

}  // namespace

TEST_CASE("simd: classify_block_scalar classes") {
  ByteClassMasks m;
  snaptok::simd::classify_block_scalar("ab 1'\xc3\xa9\r\n\t\v\f_Z9", 15, m);
  CHECK(m.letter == 0b010000000000011);
  CHECK(m.upper == 0b010000000000000);
  CHECK(m.digit == 0b100000000001000);
  CHECK(m.space == 0b000111110000100);
  CHECK(m.newline == 0b000000110000000);
  CHECK(m.blank == 0b000000000000100);
  CHECK(m.nonascii == 0b000000001100000);
  CHECK(m.apostrophe == 0b000000000010000);
  CHECK(m.other == 0b001000000000000);
  // Each byte is in exactly one class (newline and blank are part of space).
  for (unsigned b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    snaptok::simd::classify_block_scalar(&c, 1, m);
    CHECK(m.newline == (m.newline & m.space));
    CHECK(m.blank == (b == ' ' ? 1u : 0u));
    CHECK(m.upper == (b >= 'A' && b <= 'Z' ? 1u : 0u));
    CHECK((m.letter + m.digit + m.space + m.nonascii + m.apostrophe + m.other) == 1);
  }
}

TEST_CASE("simd: classify_block_portable equals the reference") {
  std::vector<char> buf(64);
  for (std::size_t pos = 0; pos < 64; ++pos) {
    for (unsigned b = 0; b < 256; ++b) {
      std::fill(buf.begin(), buf.end(), 'x');
      buf[pos] = static_cast<char>(b);
      for (const std::size_t n : {pos + 1, std::size_t{64}}) {
        ByteClassMasks want, got;
        snaptok::simd::classify_block_scalar(buf.data(), n, want);
        snaptok::simd::classify_block_portable(buf.data(), n, got);
        if (!(got == want)) {
          FAIL_CHECK("portable differs, n=" << n << " bytes:\n" << hex(buf.data(), n)
                     << "\nwant: " << masks(want) << "\ngot:  " << masks(got));
          return;
        }
      }
    }
  }
}

TEST_CASE("simd: classify_block equals the reference on every target") {
  const std::size_t targets_run = for_each_target([&](const std::string& target) {
#ifndef SNAPTOK_NO_HIGHWAY
    CHECK(snaptok::simd_target() == target);
#endif
    // A 64-byte aligned arena so every address offset mod 64 can be tried.
    alignas(64) char arena[256];
    bool ok = true;

    // Every byte value at every position, in a block of 'x' and of '\xff'
    // filler, as a full block and as a block that ends right after it.
    for (const char fill : {'x', '\xff', ' '}) {
      for (std::size_t pos = 0; pos < 64 && ok; ++pos) {
        for (unsigned b = 0; b < 256 && ok; ++b) {
          char* p = arena + 64 + (pos % 7);
          std::fill(p, p + 64, fill);
          p[pos] = static_cast<char>(b);
          ok = agrees(target, p, 64) && agrees(target, p, pos + 1);
        }
      }
    }

    // All 256 byte values, four full blocks.
    for (unsigned block = 0; block < 4 && ok; ++block) {
      for (unsigned i = 0; i < 64; ++i) arena[i] = static_cast<char>(block * 64 + i);
      ok = agrees(target, arena, 64);
    }

    // Random buffers of every length 0..64 at every address offset 0..63,
    // drawn from ASCII classes and high bytes.
    std::mt19937 rng(1234);
    const std::string_view alphabet =
        "aZq09 \t\n\r\v\f'\"_-.,!~\x01\x7f\x80\xbf\xc3\xe2\xf0\xff";
    for (std::size_t n = 0; n <= 64 && ok; ++n) {
      for (std::size_t offset = 0; offset < 64 && ok; ++offset) {
        for (int rep = 0; rep < 4 && ok; ++rep) {
          char* p = arena + offset;
          for (std::size_t i = 0; i < 128; ++i) {
            p[i] = (rng() & 3) ? alphabet[rng() % alphabet.size()]
                               : static_cast<char>(rng());
          }
          ok = agrees(target, p, n);
        }
      }
    }

    // Reads exactly n bytes: exact-size heap blocks (ASan builds catch an
    // overread), and n > 64 is treated as 64.
    for (std::size_t n = 0; n <= 64 && ok; ++n) {
      std::unique_ptr<char[]> exact(new char[n == 0 ? 1 : n]);
      for (std::size_t i = 0; i < n; ++i) exact[i] = static_cast<char>('a' + i % 26);
      ok = agrees(target, exact.get(), n);
    }
    std::fill(arena, arena + 100, '7');
    ByteClassMasks m;
    snaptok::simd::classify_block(arena, 100, m);
    CHECK(m.digit == ~std::uint64_t{0});
    CHECK(ok);
  });
  CHECK(targets_run >= 1);
}

TEST_CASE("simd: classify_blocks equals classify_block per block on every target") {
  const std::size_t targets_run = for_each_target([&](const std::string&) {
    std::mt19937 rng(99);
    const std::string_view alphabet = "aZ9 \t\n'_.\x80\xc3\xe3";
    for (std::size_t n = 1; n <= 5 * 64; n += 1 + rng() % 13) {
      // Exact-size heap text (ASan builds catch a read past its end).
      std::unique_ptr<char[]> text(new char[n]);
      for (std::size_t i = 0; i < n; ++i) text[i] = alphabet[rng() % alphabet.size()];
      const std::size_t blocks = (n + 63) / 64;
      for (std::size_t count = 1; count <= blocks; ++count) {
        ByteClassMasks got[5];
        for (ByteClassMasks& m : got) m.letter = m.other = 0xA5A5A5A5A5A5A5A5ull;  // poison
        snaptok::simd::classify_blocks(text.get(), n, got, count);
        for (std::size_t k = 0; k < count; ++k) {
          ByteClassMasks want;
          snaptok::simd::classify_block_scalar(text.get() + 64 * k, n - 64 * k, want);
          INFO("n=" << n << " count=" << count << " block " << k);
          CHECK(got[k] == want);
        }
      }
    }
  });
  CHECK(targets_run >= 1);
}

TEST_CASE("scanners: ForwardBlocks gives each block's masks, forward and skipping") {
  std::string text;
  for (int i = 0; i < 40; ++i) text += i % 3 ? "word, " : "\xe6\x97\xa5\xe6\x9c\xac ";
  for (const std::size_t step : {1, 2, 3, 9}) {  // blocks visited: every one, every other, ...
    snaptok::scanners::ForwardBlocks blocks(text);
    for (std::size_t base = 0; base < text.size(); base += 64 * step) {
      ByteClassMasks want;
      snaptok::simd::classify_block_scalar(text.data() + base, text.size() - base, want);
      INFO("step " << step << " base " << base);
      CHECK(blocks.at(base) == want);
    }
  }
}

TEST_CASE("simd: find_byte_in equals the reference on every target") {
  using snaptok::simd::ByteQuad;
  const std::size_t targets_run = for_each_target([&](const std::string&) {
    std::mt19937 rng(99);
    const ByteQuad sets[] = {ByteQuad::of({'<'}), ByteQuad::of({'<', 0xEF}),
                             ByteQuad::of({'[', '<', 0xE2}), ByteQuad::of({0x00, 0xFF, 'a', '\n'})};
    bool ok = true;
    for (const ByteQuad& set : sets) {
      // Every length 0..200 (past every vector width, with tails), a hit at
      // every position or none, in random filler drawn outside the set.
      for (std::size_t n = 0; n <= 200 && ok; ++n) {
        std::string text(n, '\0');
        for (char& c : text) {
          do c = static_cast<char>(rng()); while (set.contains(static_cast<std::uint8_t>(c)));
        }
        ok = snaptok::simd::find_byte_in(text.data(), n, set) == n;
        for (std::size_t at = 0; at < n && ok; ++at) {
          std::string hit = text;
          hit[at] = static_cast<char>(set.bytes[rng() % 4]);
          if (at + 1 < n) hit[n - 1] = static_cast<char>(set.bytes[0]);  // a later hit must not win
          ok = snaptok::simd::find_byte_in(hit.data(), n, set) == at &&
               snaptok::simd::find_byte_in_scalar(hit.data(), n, set) == at;
        }
      }
    }
    // Reads exactly n bytes (an exact-size heap block: ASan catches an overread).
    for (std::size_t n = 1; n <= 100 && ok; ++n) {
      std::unique_ptr<char[]> exact(new char[n]);
      std::fill(exact.get(), exact.get() + n, 'x');
      ok = snaptok::simd::find_byte_in(exact.get(), n, ByteQuad::of({'<', '['})) == n;
    }
    CHECK(ok);
  });
  CHECK(targets_run >= 1);
}

TEST_CASE("simd: find_byte_pair equals the reference on every target") {
  const std::size_t targets_run = for_each_target([&](const std::string&) {
    std::mt19937 rng(5);
    const std::uint8_t pairs[][2] = {{'<', '|'}, {'<', 0xEF}, {0x00, 0xFF}, {'a', 'a'}};
    bool ok = true;
    for (const auto& pair : pairs) {
      const std::uint8_t a = pair[0], b = pair[1];
      // Every length 0..200, the pair at every position or nowhere, in
      // filler full of lone first bytes (a first byte then any other byte)
      // and lone second bytes; a first byte at the very end matches nothing.
      for (std::size_t n = 0; n <= 200 && ok; ++n) {
        std::string text(n, '\0');
        for (std::size_t i = 0; i < n; ++i) {
          const unsigned r = static_cast<unsigned>(rng() % 4);
          char c = static_cast<char>(r == 0 ? a : r == 1 ? b : static_cast<std::uint8_t>(rng()));
          // Never complete a pair with the byte before.
          while (i > 0 && static_cast<std::uint8_t>(text[i - 1]) == a && static_cast<std::uint8_t>(c) == b)
            c = static_cast<char>(rng());
          text[i] = c;
        }
        ok = snaptok::simd::find_byte_pair(text.data(), n, a, b) == n &&
             snaptok::simd::find_byte_pair_scalar(text.data(), n, a, b) == n;
        for (std::size_t at = 0; at + 1 < n && ok; ++at) {
          std::string hit = text;
          hit[at] = static_cast<char>(a);
          hit[at + 1] = static_cast<char>(b);
          // An earlier pair may form with the byte before `at`.
          const std::size_t want = snaptok::simd::find_byte_pair_scalar(hit.data(), n, a, b);
          ok = want <= at && snaptok::simd::find_byte_pair(hit.data(), n, a, b) == want;
        }
      }
    }
    // Reads exactly n bytes (an exact-size heap block: ASan catches an overread).
    for (std::size_t n = 1; n <= 100 && ok; ++n) {
      std::unique_ptr<char[]> exact(new char[n]);
      std::fill(exact.get(), exact.get() + n, '<');
      ok = snaptok::simd::find_byte_pair(exact.get(), n, '<', '|') == n;
    }
    CHECK(snaptok::simd::find_byte_pair("a<b<|c", 6, '<', '|') == 3);
    CHECK(ok);
  });
  CHECK(targets_run >= 1);
}

TEST_CASE("simd: NibbleSet holds exactly its bytes up to eight high nibbles, every byte past that") {
  using snaptok::simd::NibbleSet;
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    bool in[256] = {};
    const std::size_t count = 1 + rng() % 24;
    for (std::size_t k = 0; k < count; ++k) in[rng() % 256] = true;
    unsigned high_nibbles = 0;
    for (unsigned high = 0; high < 16; ++high) {
      bool any = false;
      for (unsigned low = 0; low < 16; ++low) any = any || in[high << 4 | low];
      high_nibbles += any;
    }
    const NibbleSet set = NibbleSet::of(in);
    for (unsigned b = 0; b < 256; ++b) {
      REQUIRE(set.contains(static_cast<std::uint8_t>(b)) == (high_nibbles <= 8 ? in[b] : true));
    }
  }
}

TEST_CASE("simd: find_byte_pair_in equals the reference on every target") {
  using snaptok::simd::BytePairSet;
  using snaptok::simd::ByteQuad;
  const std::size_t targets_run = for_each_target([&](const std::string&) {
    std::mt19937 rng(31);
    bool ok = true;
    for (int round = 0; round < 40 && ok; ++round) {
      // One to four first bytes, each with a few second bytes; texts drawn
      // mostly from those bytes (lone firsts, pairs not in the set, pairs in
      // it), every length 0..200.
      std::vector<std::uint8_t> firsts, seconds;
      const std::size_t n_firsts = 1 + rng() % 4;
      while (firsts.size() < n_firsts) {
        const auto b = static_cast<std::uint8_t>(rng());
        if (std::find(firsts.begin(), firsts.end(), b) == firsts.end()) firsts.push_back(b);
      }
      for (int k = 0; k < 6; ++k) seconds.push_back(static_cast<std::uint8_t>(rng()));
      std::vector<std::uint64_t> bits(BytePairSet::kWords, 0);
      for (const std::uint8_t a : firsts) {
        for (const std::uint8_t b : seconds) {
          if (rng() % 2) bits[(std::size_t{a} << 8 | b) / 64] |= std::uint64_t{1} << ((std::size_t{a} << 8 | b) % 64);
        }
      }
      // The vector search also filters the second bytes (NibbleSet) in
      // odd rounds; in even ones it takes in every byte.
      bool second_bytes[256] = {};
      for (const std::uint8_t b : seconds) second_bytes[b] = true;
      const BytePairSet set{ByteQuad::of(firsts), bits.data(),
                            round % 2 ? snaptok::simd::NibbleSet::of(second_bytes) : snaptok::simd::NibbleSet::all()};
      for (std::size_t n = 0; n <= 200 && ok; ++n) {
        std::string text(n, '\0');
        for (char& c : text) {
          const unsigned r = static_cast<unsigned>(rng() % 3);
          c = static_cast<char>(r == 0 ? firsts[rng() % firsts.size()]
                                : r == 1 ? seconds[rng() % seconds.size()] : static_cast<std::uint8_t>(rng()));
        }
        const std::size_t want = snaptok::simd::find_byte_pair_in_scalar(text.data(), n, set);
        ok = snaptok::simd::find_byte_pair_in(text.data(), n, set) == want;
        // And from every position past the first answer (the rest of a scan).
        for (std::size_t from = want + 1; from < n && ok; ++from) {
          ok = snaptok::simd::find_byte_pair_in(text.data() + from, n - from, set) ==
               snaptok::simd::find_byte_pair_in_scalar(text.data() + from, n - from, set);
        }
      }
    }
    // Reads exactly n bytes (an exact-size heap block: ASan catches an
    // overread), even with a first byte last.
    std::vector<std::uint64_t> bits(BytePairSet::kWords, 0);
    bits[('<' << 8 | '|') / 64] |= std::uint64_t{1} << (('<' << 8 | '|') % 64);
    const BytePairSet set{ByteQuad::of({'<', '['}), bits.data()};
    for (std::size_t n = 1; n <= 100 && ok; ++n) {
      std::unique_ptr<char[]> exact(new char[n]);
      std::fill(exact.get(), exact.get() + n, '<');
      ok = snaptok::simd::find_byte_pair_in(exact.get(), n, set) == n;
    }
    CHECK(snaptok::simd::find_byte_pair_in("[<a<|", 5, set) == 3);
    CHECK(ok);
  });
  CHECK(targets_run >= 1);
}

TEST_CASE("simd: find_nonascii_or_in equals the reference on every target") {
  using snaptok::simd::AsciiRange;
  const std::size_t targets_run = for_each_target([&](const std::string&) {
    std::mt19937 rng(7);
    const AsciiRange ranges[] = {{}, {'0', 10}, {0x00, 0x20}, {0x7F, 1}, {'a', 26}};
    bool ok = true;
    for (const AsciiRange& range : ranges) {
      auto flagged = [&](unsigned char c) { return c >= 0x80 || range.contains(c); };
      // Every length 0..200 (past every vector width, with tails), a hit at
      // every position or none, in ASCII filler outside the range; each
      // hit is a range byte or a random non-ASCII byte.
      for (std::size_t n = 0; n <= 200 && ok; ++n) {
        std::string text(n, '\0');
        for (char& c : text) {
          do c = static_cast<char>(rng() % 0x80); while (flagged(static_cast<unsigned char>(c)));
        }
        ok = snaptok::simd::find_nonascii_or_in(text.data(), n, range) == n;
        for (std::size_t at = 0; at < n && ok; ++at) {
          std::string hit = text;
          const bool nonascii = range.count == 0 || rng() % 2 == 0;
          hit[at] = static_cast<char>(nonascii ? 0x80 + rng() % 0x80 : range.first + rng() % range.count);
          if (at + 1 < n) hit[n - 1] = static_cast<char>(0xFF);  // a later hit must not win
          ok = snaptok::simd::find_nonascii_or_in(hit.data(), n, range) == at &&
               snaptok::simd::find_nonascii_or_in_scalar(hit.data(), n, range) == at;
        }
      }
    }
    // Reads exactly n bytes (an exact-size heap block: ASan catches an overread).
    for (std::size_t n = 1; n <= 100 && ok; ++n) {
      std::unique_ptr<char[]> exact(new char[n]);
      std::fill(exact.get(), exact.get() + n, 'x');
      ok = snaptok::simd::find_nonascii_or_in(exact.get(), n, {'0', 10}) == n;
    }
    CHECK(ok);
  });
  CHECK(targets_run >= 1);
}

TEST_CASE("simd: find_start equals the reference on every target") {
  using snaptok::simd::AsciiStarts;
  using snaptok::simd::NibbleSet;
  const NibbleSet none = ascii_set([](unsigned char) { return false; });
  const NibbleSet punct = ascii_set([](unsigned char c) { return std::ispunct(c) != 0; });
  const NibbleSet space = ascii_set([](unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
  const NibbleSet letter = ascii_set([](unsigned char c) { return std::isalpha(c) != 0; });
  const NibbleSet sparse = ascii_set([](unsigned char c) { return c % 7 == 3; });  // every high nibble
  const AsciiStarts cases[] = {
      {none, none, none}, {punct, none, none}, {space, none, none},   {sparse, none, none},
      {punct, space, punct}, {none, space, letter}, {none, letter, sparse}, {sparse, punct, space},
  };
  // The examples of the header.
  CHECK(snaptok::simd::find_start("ab, c", 5, {punct, none, none}) == 2);
  CHECK(snaptok::simd::find_start("a b ,", 5, {none, space, punct}) == 3);
  CHECK(snaptok::simd::find_start("a b \xc3\xa9", 6, {none, space, punct}) == 3);  // then a non-ASCII byte
  CHECK(snaptok::simd::find_start("a b ", 4, {none, space, punct}) == 3);  // then the end
  const std::size_t targets_run = for_each_target([&](const std::string&) {
    std::mt19937 rng(11);
    bool ok = true;
    for (const AsciiStarts& starts : cases) {
      // Every length 0..200 (past every vector width, with tails), texts
      // of bytes that mostly start nothing, with a few of each kind.
      for (std::size_t n = 0; n <= 200 && ok; ++n) {
        for (int round = 0; round < 8 && ok; ++round) {
          std::string text(n, '\0');
          for (char& c : text) {
            const unsigned r = rng() % 64;
            c = static_cast<char>(r == 0 ? 0x80 + rng() % 0x80 : rng() % 0x80);
          }
          for (std::size_t from = 0; from <= n && ok; from += 1 + rng() % 16) {
            const std::size_t got = snaptok::simd::find_start(text.data() + from, n - from, starts);
            ok = got == snaptok::simd::find_start_scalar(text.data() + from, n - from, starts);
          }
        }
      }
    }
    // Reads exactly n bytes (an exact-size heap block: ASan catches an overread).
    for (std::size_t n = 1; n <= 100 && ok; ++n) {
      std::unique_ptr<char[]> exact(new char[n]);
      std::fill(exact.get(), exact.get() + n, ' ');
      ok = snaptok::simd::find_start(exact.get(), n, {punct, space, punct}) == n - 1;  // the last: then the end
    }
    CHECK(ok);
  });
  CHECK(targets_run >= 1);
}

TEST_CASE("simd: set_masks equals the reference on every target") {
  using snaptok::simd::NibbleSet;
  bool high[256] = {};
  std::fill(high + 0x80, high + 0x100, true);
  const NibbleSet sets[] = {
      ascii_set([](unsigned char c) { return std::isalpha(c) != 0; }),
      ascii_set([](unsigned char c) { return c == ' '; }),
      NibbleSet::of(high),
      ascii_set([](unsigned char c) { return c % 7 == 3; }),  // every ASCII high nibble
  };
  static_assert(std::size(sets) == snaptok::simd::kMaxMaskSets);
  // The example of the header.
  std::uint64_t example[2];
  snaptok::simd::set_masks("ab 1", 4, sets, 2, example, 1);
  CHECK(example[0] == 0b11);
  CHECK(example[1] == 0b100);
  const std::size_t targets_run = for_each_target([&](const std::string&) {
    std::mt19937 rng(5);
    bool ok = true;
    for (std::size_t n = 1; n <= 5 * 64 && ok; n += 1 + rng() % 7) {
      // Exact-size heap text (ASan builds catch a read past its end).
      std::unique_ptr<char[]> text(new char[n]);
      for (std::size_t i = 0; i < n; ++i) text[i] = static_cast<char>(rng() % 4 == 0 ? 0x80 + rng() % 0x80 : rng() % 0x80);
      const std::size_t blocks = (n + 63) / 64;
      for (std::size_t count = 1; count <= std::size(sets) && ok; ++count) {
        std::vector<std::uint64_t> got(blocks * count, 0xA5A5A5A5A5A5A5A5ull), want(blocks * count);  // poisoned
        snaptok::simd::set_masks(text.get(), n, sets, count, got.data(), blocks);
        snaptok::simd::set_masks_scalar(text.get(), n, sets, count, want.data(), blocks);
        ok = got == want;
        INFO("n=" << n << " count=" << count);
        CHECK(ok);
      }
    }
  });
  CHECK(targets_run >= 1);
}

TEST_CASE("scanners: SetBlocks (and SetBytes) find runs and set bytes across blocks, forward and jumping") {
  using snaptok::simd::NibbleSet;
  bool letters[128] = {}, spaces[128] = {};
  for (unsigned c = 0; c < 128; ++c) letters[c] = std::isalpha(static_cast<int>(c)) != 0, spaces[c] = c == ' ';
  const NibbleSet sets[] = {NibbleSet::ascii(letters), NibbleSet::ascii(spaces)};
  const auto letter = [&](char c) { return static_cast<unsigned char>(c) < 0x80 && letters[static_cast<int>(c)]; };
  std::mt19937 rng(3);
  std::string text;  // runs of letters up to 150 long between spaces, commas and a non-ASCII byte
  while (text.size() < 3000) text += std::string(rng() % 150, 'a') + std::string(1 + rng() % 3, " ,\xc3"[rng() % 3]);
  for (const std::size_t stride : {1, 5, 70, 600}) {  // every byte, and jumps within and past a group
    snaptok::scanners::SetBlocks blocks(text, sets, 2);
    const snaptok::scanners::SetBytes bytes(text, sets, 2);
    for (std::size_t i = 0; i < text.size(); i += stride) {
      std::size_t run = i, next = i;
      while (run < text.size() && letter(text[run])) ++run;
      while (next < text.size() && text[next] != ' ' && !letter(text[next])) ++next;
      INFO("stride " << stride << " at " << i);
      CHECK(blocks.run_end(0, i) == run);
      CHECK(blocks.next_in(0, 1, i) == next);
      CHECK(bytes.run_end(0, i) == run);
      CHECK(bytes.next_in(0, 1, i) == next);
    }
  }
}

TEST_CASE("simd: narrow_ascii equals the reference on every target") {
  const std::size_t targets_run = for_each_target([&](const std::string&) {
    std::mt19937 rng(5);
    bool ok = true;
    // Every length 0..300 (past four vectors of every width, with tails),
    // ASCII or with one other unit at every position: the run ends there,
    // and nothing is written past it. Units whose high bit is set must not
    // pass for ASCII (0x8000, 0x80000000).
    auto check = [&](auto unit_tag, std::initializer_list<std::uint32_t> others) {
      using Unit = decltype(unit_tag);
      for (std::size_t n = 0; n <= 300 && ok; ++n) {
        std::unique_ptr<Unit[]> text(new Unit[n]);  // exact size: ASan catches an overread
        for (std::size_t k = 0; k < n; ++k) text[k] = static_cast<Unit>(rng() % 0x80);
        for (std::size_t at = 0; at <= n && ok; ++at) {
          const Unit kept = at < n ? text[at] : Unit{0};
          if (at < n) text[at] = static_cast<Unit>(*(others.begin() + rng() % others.size()));
          std::string out(n + 1, '\xAA');
          const std::size_t got = snaptok::simd::narrow_ascii(text.get(), n, out.data());
          ok = got == at;
          for (std::size_t k = 0; k <= n && ok; ++k) ok = out[k] == (k < got ? static_cast<char>(text[k]) : '\xAA');
          std::string reference(n + 1, '\xAA');
          ok = ok && snaptok::simd::narrow_ascii_scalar(text.get(), n, reference.data()) == at && reference == out;
          if (at < n) text[at] = kept;
        }
      }
    };
    check(std::uint16_t{}, {0x80, 0xFF, 0x100, 0x7FF, 0x4E2D, 0x8000, 0xD800, 0xFFFF});
    check(std::uint32_t{}, {0x80, 0xFF, 0x100, 0x8000, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF, 0x80000000, 0xFFFFFFFF});
    CHECK(ok);
  });
  CHECK(targets_run >= 1);
}

TEST_CASE("simd: block_piece_keys equals the reference on every target") {
  using snaptok::simd::PieceKeyTable;
  constexpr std::size_t kSlots = 3 + 64 + snaptok::simd::kPieceKeysSlack;
  using Columns = snaptok::simd::PieceKeyArrays<kSlots>;
  // A table of 2^10 sets of 128 bytes (prefetched, never read).
  std::vector<std::byte> sets(std::size_t{128} << 10);
  const PieceKeyTable table{sets.data(), 64 - 10, 7};
  std::size_t kernels = 0;
  const std::size_t targets_run = for_each_target([&](const std::string&) {
    const snaptok::simd::PieceKeysFn kernel = snaptok::simd::piece_keys_kernel();
    kernels += kernel != nullptr;
    std::mt19937_64 rng(11);
    auto want = std::make_unique<Columns>();
    auto got = std::make_unique<Columns>();
    auto got_kernel = std::make_unique<Columns>();
    bool ok = true;
    for (int round = 0; round < 3000 && ok; ++round) {
      // Random bytes (any value: the kernel must not care), and starts from
      // none to all 64, sparse and dense, with bit 0 and bit 63 often set.
      std::string block(64, '\0');
      for (char& c : block) c = static_cast<char>(rng());
      std::uint64_t starts = rng();
      switch (round % 6) {
        case 0: starts &= rng() & rng(); break;  // sparse: long pieces
        case 1: starts |= rng(); break;          // dense: short pieces
        case 2: starts = ~std::uint64_t{0} >> (rng() % 64); break;  // one-byte pieces
        case 3: starts |= std::uint64_t{1} | std::uint64_t{1} << 63; break;
        case 4: starts &= rng() | rng(); break;
        default: break;
      }
      const std::size_t at = static_cast<std::size_t>(rng() % 4);
      const std::size_t n = snaptok::simd::block_piece_keys_scalar(block.data(), starts, table, want->columns(), at);
      const std::size_t bits = static_cast<std::size_t>(std::popcount(starts));
      ok = n == (bits > 0 ? bits - 1 : 0);
      auto same = [&](const Columns& c, std::size_t count) {
        if (count != n) return false;
        for (std::size_t i = at; i < at + n; ++i) {
          if (c.data[i] != want->data[i] || c.size[i] != want->size[i]) return false;
          // The key and set of a piece of 16 bytes or more are unspecified.
          if (want->size[i] <= 15 && (c.lo[i] != want->lo[i] || c.hi[i] != want->hi[i] || c.set[i] != want->set[i]))
            return false;
        }
        return true;
      };
      ok = ok && same(*got, snaptok::simd::block_piece_keys(block.data(), starts, table, got->columns(), at));
      if (kernel) ok = ok && same(*got_kernel, kernel(block.data(), starts, table, got_kernel->columns(), at));
      if (!ok) {
        INFO("starts " << std::hex << starts << " at " << at << "\n" << hex(block.data(), 64));
        CHECK(ok);
      }
    }
    // Each key is ShortKey's, and its set is where the key's hash leads.
    const std::string text = "Hello, world! It's 2024 and the cache keys agree.   ok";
    std::uint64_t starts = 0;
    for (int i : {0, 5, 6, 12, 13, 17, 18, 19, 24, 29, 33, 39, 44, 49, 51, 53}) starts |= std::uint64_t{1} << i;
    std::string block = text + std::string(64 - text.size(), ' ');
    const std::size_t n = snaptok::simd::block_piece_keys(block.data(), starts, table, got->columns(), 0);
    CHECK(n == 15);
    for (std::size_t i = 0; i < n; ++i) {
      const snaptok::detail::ShortKey key = snaptok::detail::ShortKey::of(got->data[i], got->size[i], false);
      CHECK(got->lo[i] == key.lo);
      CHECK(got->hi[i] == key.hi);
      CHECK(got->set[i] == sets.data() + ((key.hash() >> (64 - 10)) << 7));
    }
    CHECK(ok);
  });
  CHECK(targets_run >= 1);
#if !defined(SNAPTOK_NO_HIGHWAY) && HWY_ARCH_X86
  // A CPU with AVX3_DL runs the vector kernel (it is compiled in).
  const std::vector<std::string_view> compiled = snaptok::simd::compiled_targets();
  const bool dl = std::find(compiled.begin(), compiled.end(), "AVX3_DL") != compiled.end();
  CHECK(dl);
  for (const std::int64_t t : snaptok::simd::detail::supported_compiled_targets()) {
    if (t == HWY_AVX3_DL) CHECK(kernels == 1);
  }
#endif
}
TEST_CASE("simd: simd_target and the compiled targets") {
  const std::string_view name = snaptok::simd_target();
  CHECK(!name.empty());
#ifdef SNAPTOK_NO_HIGHWAY
  CHECK(name == "none (built without Highway)");
  CHECK(snaptok::simd::compiled_targets().empty());
#else
  const std::vector<std::string_view> compiled = snaptok::simd::compiled_targets();
  REQUIRE(!compiled.empty());
  // The target dispatch chose is one of those compiled.
  CHECK(std::find(compiled.begin(), compiled.end(), name) != compiled.end());
  // Every supported-and-generated target is compiled, and the fallback is too.
  for (const std::int64_t t : snaptok::simd::detail::supported_compiled_targets()) {
    CHECK(std::find(compiled.begin(), compiled.end(), hwy::TargetName(t)) !=
          compiled.end());
  }
  const std::string_view fallback = compiled.back();
  CHECK((fallback == "SCALAR" || fallback == "EMU128"));
#endif
}

#if !defined(SNAPTOK_NO_HIGHWAY) && HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__))
TEST_CASE("simd: cpu_targets agrees with the compiler's own CPU check") {
  // __builtin_cpu_supports (libgcc / compiler-rt) reads CPUID and XCR0 on
  // its own; each target needs the instruction sets Highway compiles it with.
  auto all = [](auto... supported) { return ((supported != 0) && ...); };
#define SNAPTOK_HAS(feature) __builtin_cpu_supports(feature)
  const bool ssse3 = all(SNAPTOK_HAS("sse2"), SNAPTOK_HAS("ssse3"));
  const bool sse4 = ssse3 && all(SNAPTOK_HAS("sse4.1"), SNAPTOK_HAS("sse4.2"), SNAPTOK_HAS("pclmul"), SNAPTOK_HAS("aes"));
  const bool avx2 = sse4 && all(SNAPTOK_HAS("avx"), SNAPTOK_HAS("avx2"), SNAPTOK_HAS("bmi"), SNAPTOK_HAS("bmi2"),
                                SNAPTOK_HAS("fma"), SNAPTOK_HAS("f16c"), SNAPTOK_HAS("lzcnt"));
  const bool avx3 = avx2 && all(SNAPTOK_HAS("avx512f"), SNAPTOK_HAS("avx512vl"), SNAPTOK_HAS("avx512dq"),
                                SNAPTOK_HAS("avx512bw"));
  const bool avx3_dl =
      avx3 && all(SNAPTOK_HAS("avx512vbmi"), SNAPTOK_HAS("avx512vbmi2"), SNAPTOK_HAS("vaes"), SNAPTOK_HAS("vpclmulqdq"),
                  SNAPTOK_HAS("avx512vnni"), SNAPTOK_HAS("avx512bitalg"), SNAPTOK_HAS("avx512vpopcntdq"));
#undef SNAPTOK_HAS
  const std::int64_t targets = snaptok::simd::detail::cpu_targets();
  CHECK(((targets & HWY_SSSE3) != 0) == ssse3);
  CHECK(((targets & HWY_SSE4) != 0) == sse4);
  CHECK(((targets & HWY_AVX2) != 0) == avx2);
  CHECK(((targets & HWY_AVX3) != 0) == avx3);
  CHECK(((targets & HWY_AVX3_DL) != 0) == avx3_dl);
  // The fallbacks and the compiler's baseline are always there.
  CHECK((targets & HWY_STATIC_TARGET) != 0);
  CHECK((targets & (HWY_SCALAR | HWY_EMU128)) == (HWY_SCALAR | HWY_EMU128));
}
#endif

TEST_CASE("simd: SNAPTOK_SIMD values") {
  using snaptok::simd::parse_target_cap;
  CHECK(parse_target_cap("") == TargetCap::none);
  CHECK(parse_target_cap("  ") == TargetCap::none);
  CHECK(parse_target_cap("scalar") == TargetCap::scalar);
  CHECK(parse_target_cap("SCALAR") == TargetCap::scalar);
  CHECK(parse_target_cap("sse4") == TargetCap::sse4);
  CHECK(parse_target_cap("Sse4") == TargetCap::sse4);
  CHECK(parse_target_cap("avx2") == TargetCap::avx2);
  CHECK(parse_target_cap(" AVX2\n") == TargetCap::avx2);
  CHECK(parse_target_cap("avx3") == TargetCap::avx3);
  CHECK(parse_target_cap("aVx3") == TargetCap::avx3);
  CHECK(parse_target_cap("avx512") == std::nullopt);
  CHECK(parse_target_cap("avx") == std::nullopt);
  CHECK(parse_target_cap("sse4.2") == std::nullopt);
  CHECK(parse_target_cap("neon") == TargetCap::neon);
  CHECK(parse_target_cap("NEON") == TargetCap::neon);
  CHECK(parse_target_cap("sve") == TargetCap::sve);
  CHECK(parse_target_cap(" Sve2 ") == TargetCap::sve2);
  CHECK(parse_target_cap("sve3") == std::nullopt);
  CHECK(parse_target_cap("sve_256") == std::nullopt);
  CHECK(parse_target_cap("avx2x") == std::nullopt);
  CHECK(parse_target_cap(std::string_view("avx2\0", 5)) == std::nullopt);
}

#ifndef SNAPTOK_NO_HIGHWAY
TEST_CASE("simd: set_max_target caps the dispatched target") {
  using snaptok::simd::set_max_target;
  const char* env = std::getenv("SNAPTOK_SIMD");
  const TargetCap before =
      env ? snaptok::simd::parse_target_cap(env).value_or(TargetCap::none)
          : TargetCap::none;
  auto rank = [](std::string_view n) {  // larger = more capable
    if (n == "AVX3_DL") return 5;
    if (n == "AVX3") return 4;
    if (n == "AVX2") return 3;
    if (n == "SSE4") return 2;
    if (n == "SSSE3") return 1;
    return 0;
  };
  set_max_target(TargetCap::scalar);
  CHECK(rank(snaptok::simd_target()) == 0);
  {
    ByteClassMasks m;
    snaptok::simd::classify_block("a1 ", 3, m);
    CHECK(m.letter == 1);
    CHECK(m.digit == 2);
    CHECK(m.space == 4);
  }
#if HWY_ARCH_X86
  set_max_target(TargetCap::sse4);
  CHECK(rank(snaptok::simd_target()) <= 2);
  set_max_target(TargetCap::avx2);
  CHECK(rank(snaptok::simd_target()) <= 3);
  set_max_target(TargetCap::avx3);
  CHECK(rank(snaptok::simd_target()) <= 4);
  // Arm's caps change nothing here.
  set_max_target(TargetCap::neon);
  CHECK(snaptok::simd_target() == hwy::TargetName(snaptok::simd::detail::supported_compiled_targets().front()));
#elif HWY_ARCH_ARM_A64
  const std::int64_t usable = snaptok::simd::detail::cpu_targets() & HWY_TARGETS;
  set_max_target(TargetCap::neon);
  CHECK(snaptok::simd_target() == "NEON");
  set_max_target(TargetCap::sve);
  CHECK(snaptok::simd_target() == ((usable & HWY_SVE) != 0 ? "SVE" : "NEON"));
  set_max_target(TargetCap::sve2);
  CHECK(snaptok::simd_target() == hwy::TargetName(snaptok::simd::detail::supported_compiled_targets().front()));
  // x86's caps change nothing here.
  set_max_target(TargetCap::sse4);
  CHECK(snaptok::simd_target() == hwy::TargetName(snaptok::simd::detail::supported_compiled_targets().front()));
#endif
  set_max_target(TargetCap::none);
  const std::string_view best = snaptok::simd_target();
  CHECK(best == hwy::TargetName(snaptok::simd::detail::supported_compiled_targets().front()));
  set_max_target(before);
}

TEST_CASE("simd: the targets usable here are those the run expects") {
  // tests/arm/run_qemu.sh names, per emulated CPU, the SIMD targets dispatch
  // must find (best first; the fallback, SCALAR or EMU128 by compiler, left
  // out), e.g. "SVE2 SVE NEON" for SVE2 at 256 bits; unset, there is nothing
  // to compare with.
  const char* expected = std::getenv("SNAPTOK_TEST_EXPECT_TARGETS");
  if (expected == nullptr) return;
  std::string names;
  for (const std::int64_t t : snaptok::simd::detail::supported_compiled_targets()) {
    if (t == HWY_SCALAR || t == HWY_EMU128) continue;
    if (!names.empty()) names += ' ';
    names += hwy::TargetName(t);
  }
  CHECK(names == std::string(expected));
}
#endif

}  // namespace simd_tests
