// A driver for the .st loader target (targets/st_loader.hpp) for compilers
// without libFuzzer: reads the seed .st files, then feeds the target
// mutations of them for a number of executions or
// seconds: bit flips, byte and word overwrites (often in the header and the
// section table, with values at the edges: 0, 1, 64, ~0, the file size),
// truncations at every section edge and at random, insertions, and splices
// of two seeds. Prints the executions run; any crash or sanitizer report
// ends the run with a failure.
//
//   st_loader_standalone [--runs N] [--seconds S] [--seed K] SEED.st...
#include "targets/st_loader.hpp"

#include <snaptok/st/format.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace {

namespace st = snaptok::st;

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(2);
  }
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The offsets worth hitting: header fields, table entries, section edges.
std::vector<std::size_t> hot_offsets(const std::string& image) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < sizeof(st::Header); i += 4) out.push_back(i);
  st::Header h;
  std::memcpy(&h, image.data(), sizeof h);
  for (std::uint32_t s = 0; s < h.section_count; ++s) {
    const std::size_t at = sizeof(st::Header) + s * sizeof(st::SectionEntry);
    for (std::size_t f = 0; f < sizeof(st::SectionEntry); f += 4) out.push_back(at + f);
    st::SectionEntry e;
    std::memcpy(&e, image.data() + at, sizeof e);
    out.push_back(static_cast<std::size_t>(e.offset));
    out.push_back(static_cast<std::size_t>(e.offset + e.length));
  }
  return out;
}

class Mutator {
 public:
  explicit Mutator(std::uint64_t seed) : rng_(seed) {}

  std::string mutate(const std::string& seed, const std::string& other) {
    std::string s = seed;
    const auto hot = hot_offsets(seed);
    const int steps = 1 + static_cast<int>(below(3));
    for (int i = 0; i < steps && !s.empty(); ++i) {
      switch (below(7)) {
        case 0: {  // a bit anywhere
          const std::size_t at = below(s.size());
          s[at] = static_cast<char>(s[at] ^ (1 << below(8)));
          break;
        }
        case 1:  // a word in the header, the table, or at a section edge
        case 2: {
          const std::size_t at = hot[below(hot.size())];
          write_word(s, at, edge_value(s.size()), below(2) ? 4 : 8);
          break;
        }
        case 3:  // a word anywhere (table contents)
          write_word(s, below(s.size()), edge_value(s.size()), 4);
          break;
        case 4:  // truncate at a hot offset or anywhere
          s.resize(std::min(s.size(), below(2) ? hot[below(hot.size())] : below(s.size() + 1)));
          break;
        case 5: {  // insert or delete a run
          const std::size_t at = below(s.size() + 1);
          if (below(2)) {
            s.insert(at, std::string(1 + below(128), static_cast<char>(below(256))));
          } else {
            s.erase(at, below(256));
          }
          break;
        }
        default: {  // splice another seed's bytes in
          const std::size_t at = below(s.size());
          const std::size_t from = below(other.size());
          const std::size_t n = std::min({s.size() - at, other.size() - from, std::size_t{1} + below(4096)});
          std::memcpy(s.data() + at, other.data() + from, n);
        }
      }
    }
    return s;
  }

 private:
  std::size_t below(std::size_t n) { return n ? std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_) : 0; }

  std::uint64_t edge_value(std::size_t size) {
    static constexpr std::uint64_t kEdges[] = {0, 1, 2, 63, 64, 65, 255, 256, 0x7FFFFFFF, 0x80000000u,
                                               0xFFFFFFFFu, ~0ull, ~0ull - 63};
    switch (below(3)) {
      case 0: return kEdges[below(std::size(kEdges))];
      case 1: return size + below(3) - 1;
      default: return rng_();
    }
  }

  static void write_word(std::string& s, std::size_t at, std::uint64_t value, std::size_t width) {
    if (at >= s.size()) return;
    std::memcpy(s.data() + at, &value, std::min(width, s.size() - at));
  }

  std::mt19937_64 rng_;
};

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t runs = 10000, seed = 1;
  double seconds = 0;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--seconds" && i + 1 < argc) {
      seconds = std::strtod(argv[++i], nullptr);
      runs = ~0ull;
    } else if (arg == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      seeds.push_back(read_file(argv[i]));
      if (seeds.back().size() < sizeof(st::Header) || !st::has_magic(std::as_bytes(std::span(seeds.back())))) {
        std::fprintf(stderr, "%s is not a .st file\n", argv[i]);
        return 2;
      }
    }
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "usage: %s [--runs N] [--seconds S] [--seed K] SEED...\n", argv[0]);
    return 2;
  }
  const auto feed = [](const std::string& s) {
    snaptok_fuzz::st_loader(std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
  };
  // Every seed whole, and cut at every section edge and one byte either side.
  std::uint64_t done = 0;
  for (const std::string& s : seeds) {
    feed(s);
    ++done;
    for (const std::size_t at : hot_offsets(s)) {
      for (const std::size_t cut : {at, at + 1, at ? at - 1 : 0}) {
        if (cut < s.size()) {
          feed(s.substr(0, cut));
          ++done;
        }
      }
    }
  }
  Mutator mutator(seed);
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < runs; ++i) {
    if (seconds > 0 && (i & 63) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      break;
    }
    feed(mutator.mutate(seeds[i % seeds.size()], seeds[(i / seeds.size() + 1) % seeds.size()]));
    ++done;
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("st_loader: %llu executions in %.1f s, no crash (loads accepted %llu, refused %llu)\n",
              static_cast<unsigned long long>(done), took,
              static_cast<unsigned long long>(snaptok_fuzz::st_loader_accepted),
              static_cast<unsigned long long>(snaptok_fuzz::st_loader_refused));
  return 0;
}
