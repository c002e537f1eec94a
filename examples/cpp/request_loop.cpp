// A small multi-threaded request loop, as a server would run one: worker
// threads share one Tokenizer, take requests from a queue, encode each into
// their own reused buffer (no allocation once warm), and record latencies.
// Halfway through, the main thread changes a setting (the special-token
// switch) while the workers encode: each request sees the old settings or
// the new ones, never a mix. Prints p50/p99 latency and checks every result
// against a serial encode of the same request.
//
//   request_loop tokenizer.json [threads=4] [requests=20000]
#include <snaptok/tokenizer.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* const kRequests[] = {
    "What is the capital of France? Answer in one word.",
    "Summarize: the quick brown fox jumps over the lazy dog, twice, at 10:30.",
    "Translate to German: good morning, how are you today?",
    "def add(a, b):\n    return a + b  # write a docstring for this function",
    "Ünïcödé and emoji 😀 in a request, with <|endoftext|> in the middle.",
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s tokenizer.json [threads] [requests]\n", argv[0]);
    return 2;
  }
  const unsigned threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 4;
  const std::size_t total = argc > 3 ? static_cast<std::size_t>(std::atoll(argv[3])) : 20000;
  auto loaded = snaptok::Tokenizer::try_from_file(argv[1]);
  if (!loaded) {
    std::fprintf(stderr, "%s\n", loaded.error().c_str());
    return 1;
  }
  snaptok::Tokenizer& tok = *loaded;

  // The expected ids of each request, under both settings of the switch.
  constexpr std::size_t kinds = std::size(kRequests);
  std::vector<std::vector<std::uint32_t>> expected[2];
  for (const bool as_text : {false, true}) {
    tok.set_encode_special_tokens(as_text);
    for (const char* r : kRequests) expected[as_text].push_back(tok.encode(r));
  }
  tok.set_encode_special_tokens(false);

  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> wrong{0};
  std::vector<std::vector<double>> latencies(threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::vector<std::uint32_t> ids;
      for (std::size_t i; (i = next.fetch_add(1)) < total;) {
        const auto start = std::chrono::steady_clock::now();
        ids.clear();
        tok.encode_into(kRequests[i % kinds], true, ids);
        const auto stop = std::chrono::steady_clock::now();
        latencies[t].push_back(std::chrono::duration<double, std::micro>(stop - start).count());
        if (ids != expected[0][i % kinds] && ids != expected[1][i % kinds]) ++wrong;
      }
    });
  }
  while (next.load() < total / 2) std::this_thread::yield();
  tok.set_encode_special_tokens(true);  // concurrently with the workers
  for (auto& w : workers) w.join();

  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  const auto pct = [&](double p) { return all[static_cast<std::size_t>(p * (all.size() - 1))]; };
  std::printf("%zu requests on %u threads: p50 %.2f us, p99 %.2f us, %zu wrong\n", all.size(), threads,
              pct(0.50), pct(0.99), wrong.load());
  return wrong.load() == 0 ? 0 : 1;
}
