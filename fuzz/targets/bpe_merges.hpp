// Fuzz target: every BPE merge against the textbook one. The input picks a
// byte-level BPE (the fuzz tokenizers' byte-level models, and GPT-2's again
// from its .st image, whose chunks' trie is built), then the rest is a
// piece's raw bytes (any bytes: byte-level BPE takes them all).
// BpeModel::merge_raw (on the stack, on the heap, or in chunks, with the
// whole-token lookup of ignore_merges) must give merge_raw_reference's
// ids (models/bpe/reference.hpp).
#pragma once

#include <snaptok/models/bpe.hpp>
#include <snaptok/pipeline.hpp>

#include <memory>
#include <vector>

#include "../fuzz_support.hpp"

namespace snaptok_fuzz {

// The byte-level BPE models of the fuzz tokenizers, each also from its .st
// image (which holds the chunks' trie), with their names.
inline const std::vector<std::pair<std::string, const snaptok::BpeModel*>>& bpe_models() {
  static std::vector<std::unique_ptr<snaptok::Pipeline>> images;
  static const auto all = [] {
    std::vector<std::pair<std::string, const snaptok::BpeModel*>> out;
    for (const NamedTokenizer& t : tokenizers()) {
      const auto* bpe = dynamic_cast<const snaptok::BpeModel*>(&t.tokenizer.pipeline().model());
      if (!bpe || !bpe->byte_level_ready() || !bpe->deterministic()) continue;
      out.emplace_back(t.name, bpe);
      const std::string st = t.tokenizer.to_st_bytes();
      images.push_back(std::make_unique<snaptok::Pipeline>(
          snaptok::Pipeline::from_st_buffer(std::as_bytes(std::span(st.data(), st.size())))));
      out.emplace_back(t.name + " (.st)", dynamic_cast<const snaptok::BpeModel*>(&images.back()->model()));
    }
    return out;
  }();
  return all;
}

inline void bpe_merges(std::span<const std::uint8_t> data) {
  Reader in(data);
  const auto& models = bpe_models();
  const auto& [name, model] = models[in.byte() % models.size()];
  const std::string_view raw = in.rest();
  std::vector<std::uint32_t> ids(raw.size() + 1);
  ids.resize(model->merge_raw(raw, ids.data()));
  if (ids != model->merge_raw_reference(raw)) fail("bpe_merges (" + name + ")", "merge_raw differs from the reference merge", raw);
}

}  // namespace snaptok_fuzz
