// The interface of the fused ids-only stages that take the text between
// added tokens straight to ids: normalization, pre-tokenization and the
// model in one pass over views of the text, with no NormalizedString and no
// alignments. A pipeline picks at most one at load (make() of each returns
// nullptr for a configuration it does not reproduce exactly); text a path
// does not settle itself (non-ASCII words, say) goes to the general stages
// through the `general` callback, span by span, at cuts the path proves
// safe. The tests check every path against the general path and HF.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "snaptok/models/model.hpp"
#include "snaptok/runtime/piece_cache.hpp"

namespace snaptok {

/// A non-owning reference to a callable (valid while the callable lives).
template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class Fn>
    requires(!std::is_same_v<std::remove_cvref_t<Fn>, FunctionRef>)
  FunctionRef(Fn& fn) noexcept  // NOLINT: implicit, like std::function_ref
      : object_(&fn), call_([](void* o, Args... args) -> R {
          return (*static_cast<Fn*>(o))(std::forward<Args>(args)...);
        }) {}
  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

/// Where a segment handed to SegmentPath::encode begins.
enum class SegmentStart : std::uint8_t {
  kText,        // at the start of the input text
  kAfterToken,  // right after an added token
  kCutPoint,    // at a cut point (scanners/cut_points.hpp) of a document
                // cut in parts: the segment's text before it is another part's
};

class EncodingBuilder;  // fast_paths/fused_encoding.hpp

class SegmentPath {
 public:
  /// Appends the ids the general stages give for a span of a segment.
  using General = FunctionRef<void(std::string_view, std::vector<std::uint32_t>&)>;

  virtual ~SegmentPath() = default;

  /// Appends the ids of `segment`, a piece of the input between added
  /// tokens (or its part from a cut point: see `start`). `cache` is the
  /// worker's cache for cache_owner(), or nullptr.
  virtual void encode(std::string_view segment, SegmentStart start,
                      std::vector<std::uint32_t>& ids, runtime::PieceCache* cache,
                      General general) const = 0;

  /// Pushes the tokens of a span of a segment as the general stages give
  /// them (normalization, pre-tokenization, the model), or returns false.
  using SpanTokens = FunctionRef<bool(std::string_view, EncodingBuilder&)>;

  /// Pushes the tokens of `segment` (a view into the builder's text) with
  /// the input bytes each came from, as the general stages give them
  /// (fast_paths/fused_encoding.hpp), starting a new split after each of
  /// its splits; the spans the path leaves to the general stages go to
  /// `span_tokens`; `ids` is scratch. Returns false, with some tokens pushed,
  /// when it cannot (the default: the path gives ids only); the caller then
  /// runs the general stages.
  virtual bool encode_tokens(std::string_view segment, SegmentStart start, runtime::PieceCache* cache,
                             std::vector<std::uint32_t>& ids, SpanTokens span_tokens, EncodingBuilder& out) const {
    (void)segment, (void)start, (void)cache, (void)ids, (void)span_tokens, (void)out;
    return false;
  }

  /// True when a segment cut at any of its cut points has the ids of the
  /// part before the cut followed by those of the part from it (encoded
  /// with SegmentStart::kCutPoint): documents may then be cut there.
  virtual bool cuts_at_cut_points() const noexcept { return false; }

  /// The path's name, for diagnostics and tests.
  virtual std::string_view name() const noexcept = 0;

  /// The owner key of this path's piece caches (runtime::Workspace::cache).
  std::uint64_t cache_owner() const noexcept { return cache_owner_; }

 protected:
  // Writes the ids `model` gives for `piece` at `out`; returns their count.
  // (Past the model's own cache: the path's worker cache holds the result.)
  static std::size_t model_ids(const Model& model, std::string_view piece, std::uint32_t* out) {
    thread_local std::vector<RawToken> tokens;
    tokens.clear();
    model.tokenize_uncached(piece, tokens);
    for (std::size_t i = 0; i < tokens.size(); ++i) out[i] = tokens[i].id;
    return tokens.size();
  }

 private:
  std::uint64_t cache_owner_ = runtime::new_cache_owner();
};

}  // namespace snaptok
