// Tokenizes standard input line by line and prints each line's ids,
// space-separated, one output line per input line.
//
//   printf 'Hello world\n' | stdin_lines tokenizer.json     # 15496 995
//
// One id buffer is reused for every line: after the first lines warm it
// up, encoding allocates nothing.
#include <snaptok/tokenizer.hpp>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s tokenizer.json|tokenizer.st < text\n", argv[0]);
    return 2;
  }
  auto tok = snaptok::Tokenizer::try_from_file(argv[1]);
  if (!tok) {
    std::fprintf(stderr, "%s\n", tok.error().c_str());
    return 1;
  }
  std::ios::sync_with_stdio(false);
  std::string line, out;
  std::vector<std::uint32_t> ids;
  for (std::size_t n = 1; std::getline(std::cin, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ids.clear();
    if (auto ok = tok->try_encode_into(line, /*add_special_tokens=*/false, ids); !ok) {
      std::fprintf(stderr, "line %zu: %s\n", n, ok.error().c_str());
      return 1;
    }
    out.clear();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (i) out += ' ';
      out += std::to_string(ids[i]);
    }
    out += '\n';
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  return 0;
}
