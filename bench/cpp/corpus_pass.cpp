// The corpus job in C++: one pass over text nobody has seen, in batches of
// about 16 MB of ~8 KB documents (cut at line ends), each encoded once, as
// bench/corpus_pass.py does through Python. Prints MB/s (wall clock, and per
// CPU second: steadier on a shared machine), the cache's hits
// and misses, peak RSS and a digest of every id (to compare builds).
//
//   snaptok_corpus_pass TOKENIZER TEXT [--mb N] [--threads N] [--budget-mib N] [--batch-mb N] [--per-batch 1]
//                       [--passes N]
//
// --per-batch 1 prints each batch's MB/s on stderr (the first batch meets
// the coldest cache). --passes N encodes the text N times and prints each
// pass's MB/s and misses on stderr: the first pass is the corpus job, the
// later ones the same text warm, so (cold - warm seconds) / (cold - warm
// misses) is what a miss costs. The summary line is the first pass's.
#include <snaptok/tokenizer.hpp>

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

// Documents of about `size` bytes of `text`, cut after a line end.
std::vector<std::string_view> documents(std::string_view text, std::size_t size) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = std::min(text.size(), at + size);
    if (end < text.size()) {
      const std::size_t nl = text.find('\n', end);
      end = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

// CPU seconds this process has used (every thread; user and system).
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Cuts `text` to at most `bytes` bytes, at a char boundary.
std::string_view head(std::string_view text, std::size_t bytes) {
  if (text.size() <= bytes) return text;
  while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
  return text.substr(0, bytes);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s TOKENIZER TEXT [--mb N] [--threads N] [--budget-mib N] [--batch-mb N] [--per-batch 1] "
                 "[--passes N]\n",
                 argv[0]);
    return 2;
  }
  double mb = 48;
  unsigned threads = 1;
  long budget_mib = -1;
  double batch_mb = 16;
  bool per_batch = false;
  int passes = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--mb") mb = std::atof(argv[i + 1]);
    else if (flag == "--threads") threads = static_cast<unsigned>(std::atoi(argv[i + 1]));
    else if (flag == "--budget-mib") budget_mib = std::atol(argv[i + 1]);
    else if (flag == "--batch-mb") batch_mb = std::atof(argv[i + 1]);
    else if (flag == "--per-batch") per_batch = std::atoi(argv[i + 1]) != 0;
    else if (flag == "--passes") passes = std::max(1, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  std::ifstream in(argv[2], std::ios::binary);
  std::string all(static_cast<std::size_t>(mb * 1e6) + 4, '\0');
  in.read(all.data(), static_cast<std::streamsize>(all.size()));
  all.resize(static_cast<std::size_t>(in.gcount()));
  const std::string_view text = head(all, static_cast<std::size_t>(mb * 1e6));

  using Clock = std::chrono::steady_clock;
  const auto load_start = Clock::now();
  snaptok::Tokenizer tok = snaptok::Tokenizer::from_file(argv[1]);
  const double load_ms = std::chrono::duration<double, std::milli>(Clock::now() - load_start).count();
  if (budget_mib >= 0) tok.set_cache_budget(static_cast<std::size_t>(budget_mib) << 20);

  const std::vector<std::string_view> docs = documents(text, 8192);
  const auto batch_bytes = static_cast<std::size_t>(batch_mb * 1e6);
  std::vector<std::uint32_t> ids;
  std::vector<std::int64_t> offsets;
  // One pass over `docs`: its seconds (wall, without the digest's time),
  // CPU seconds in the encode calls (user + system: page faults), digest
  // and token count.
  struct Pass {
    double s = 0, cpu_s = 0;
    std::uint64_t digest = 1469598103934665603ull;
    std::size_t tokens = 0;
  };
  const auto encode_pass = [&] {
    Pass pass;
    Clock::duration untimed{};
    const auto start = Clock::now();
    for (std::size_t first = 0; first < docs.size();) {
      std::size_t last = first, bytes = 0;
      while (last < docs.size() && bytes < batch_bytes) bytes += docs[last++].size();
      const auto batch_start = Clock::now();
      const double cpu_start = process_cpu_seconds();
      tok.encode_batch_flat(std::span(docs).subspan(first, last - first), false, threads, ids, offsets);
      const auto timed = Clock::now();
      pass.cpu_s += process_cpu_seconds() - cpu_start;
      if (per_batch) {
        std::fprintf(stderr, "%.1f ", static_cast<double>(bytes) / 1e6 / std::chrono::duration<double>(timed - batch_start).count());
      }
      for (const std::uint32_t id : ids) pass.digest = (pass.digest ^ id) * 1099511628211ull;
      untimed += Clock::now() - timed;
      pass.tokens += ids.size();
      first = last;
    }
    pass.s = std::chrono::duration<double>(Clock::now() - start - untimed).count();
    if (per_batch) std::fprintf(stderr, "MB/s per batch\n");
    return pass;
  };
  const Pass first_pass = encode_pass();
  const snaptok::CacheStats stats = tok.cache_stats();
  std::uint64_t misses_before = stats.misses;
  if (passes > 1) {
    std::fprintf(stderr, "pass 1: %.1f MB/s, %llu misses\n", static_cast<double>(text.size()) / 1e6 / first_pass.s,
                 static_cast<unsigned long long>(stats.misses));
  }
  for (int p = 2; p <= passes; ++p) {
    const Pass warm = encode_pass();
    const std::uint64_t misses = tok.cache_stats().misses;
    std::fprintf(stderr, "pass %d: %.1f MB/s, %llu misses%s\n", p, static_cast<double>(text.size()) / 1e6 / warm.s,
                 static_cast<unsigned long long>(misses - misses_before), warm.digest == first_pass.digest ? "" : ", DIGEST DIFFERS");
    misses_before = misses;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%.1f MB in %.3f s: %.1f MB/s, %.1f MB per CPU s, %zu tokens, load %.1f ms, hits %llu misses %llu, cache %.1f MiB, "
              "peak RSS %ld MB, digest %016llx\n",
              static_cast<double>(text.size()) / 1e6, first_pass.s, static_cast<double>(text.size()) / 1e6 / first_pass.s,
              static_cast<double>(text.size()) / 1e6 / first_pass.cpu_s, first_pass.tokens, load_ms,
              static_cast<unsigned long long>(stats.hits), static_cast<unsigned long long>(stats.misses),
              static_cast<double>(stats.bytes_used) / (1 << 20), usage.ru_maxrss / 1024,
              static_cast<unsigned long long>(first_pass.digest));
}
