// What a C++ server sees: 140-byte requests encoded one at a time into a
// reused buffer (latency percentiles, warm caches), the same from several
// threads at once, and a batch of ~8 KB documents (throughput). Text: the
// files given (cut at UTF-8 char boundaries), else the bundled sample.
//
//   snaptok_server_bench TOKENIZER [--threads N] [--requests N] [--mb N] [--name NAME] TEXT...
//
// Prints one Markdown table row per scenario.
#include <snaptok/tokenizer.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

std::size_t char_boundary(std::string_view s, std::size_t i) {
  while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  return i;
}

// Pieces of about `size` bytes, cut at char boundaries, `count` at most.
std::vector<std::string_view> pieces(std::string_view text, std::size_t size, std::size_t count) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < text.size() && out.size() < count;) {
    const std::size_t end = char_boundary(text, std::min(text.size(), at + size));
    out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

struct Latency {
  double p50, p99, mean;
};

Latency summarize(std::vector<double>& us) {
  std::sort(us.begin(), us.end());
  double sum = 0;
  for (const double v : us) sum += v;
  auto at = [&](double p) { return us[static_cast<std::size_t>(p * static_cast<double>(us.size() - 1))]; };
  return {at(0.50), at(0.99), sum / static_cast<double>(us.size())};
}

// Encodes every request in order `rounds` times into one reused buffer;
// returns each call's time in microseconds.
std::vector<double> time_requests(const snaptok::Tokenizer& tok, const std::vector<std::string_view>& requests,
                                  int rounds) {
  std::vector<std::uint32_t> ids;
  ids.reserve(1024);
  std::vector<double> us;
  us.reserve(requests.size() * static_cast<std::size_t>(rounds));
  for (int r = 0; r < rounds; ++r) {
    for (const std::string_view req : requests) {
      const auto start = Clock::now();
      ids.clear();
      tok.encode_into(req, false, ids);
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
  }
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TOKENIZER [--threads N] [--requests N] [--mb N] [--name NAME] TEXT...\n",
                 argv[0]);
    return 2;
  }
  unsigned threads = 2;
  std::size_t n_requests = 4000, mb = 4;
  std::string name = argv[1], text;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (arg == "--requests" && i + 1 < argc) {
      n_requests = static_cast<std::size_t>(std::atoll(argv[++i]));
    } else if (arg == "--mb" && i + 1 < argc) {
      mb = static_cast<std::size_t>(std::atoll(argv[++i]));
    } else if (arg == "--name" && i + 1 < argc) {
      name = argv[++i];
    } else {
      std::ifstream in(arg, std::ios::binary);
      text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      text += '\n';
    }
  }
  if (text.empty()) {
    std::fprintf(stderr, "no text given\n");
    return 2;
  }
  while (text.size() < mb << 20) text += text;
  text.resize(char_boundary(text, mb << 20));

  const snaptok::Tokenizer tok = snaptok::Tokenizer::from_file(argv[1]);
  const std::vector<std::string_view> requests = pieces(text, 140, n_requests);
  const std::vector<std::string_view> docs = pieces(text, 8 * 1024, ~std::size_t{0});

  if (!requests.empty()) {  // --requests 0: the batch rows only
    (void)time_requests(tok, requests, 1);  // warm: workspace, piece cache
    std::vector<double> one = time_requests(tok, requests, 5);
    const Latency l1 = summarize(one);
    std::printf("| %s | 140 B requests, 1 thread | %.2f | %.2f | %.2f | |\n", name.c_str(), l1.p50, l1.p99, l1.mean);

    std::vector<std::vector<double>> per(threads);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        (void)time_requests(tok, requests, 1);
        per[t] = time_requests(tok, requests, 5);
      });
    }
    for (auto& th : pool) th.join();
    std::vector<double> all;
    for (const auto& v : per) all.insert(all.end(), v.begin(), v.end());
    const Latency lt = summarize(all);
    std::printf("| %s | 140 B requests, %u threads at once | %.2f | %.2f | %.2f | |\n", name.c_str(), threads, lt.p50,
                lt.p99, lt.mean);
  }

  std::vector<std::uint32_t> ids;
  std::vector<std::int64_t> offsets;
  for (const unsigned n : {1u, threads}) {
    tok.encode_batch_flat(docs, false, n, ids, offsets);  // warm
    double best = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
      const auto start = Clock::now();
      tok.encode_batch_flat(docs, false, n, ids, offsets);
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::printf("| %s | batch of %zu docs of ~8 KB, %u thread%s | | | | %.0f MB/s |\n", name.c_str(), docs.size(), n,
                n == 1 ? "" : "s", static_cast<double>(text.size()) / 1e6 / best);
  }
  return 0;
}
