// The Python component classes (tokenizer.normalizer, .pre_tokenizer,
// .model, .post_processor, .decoder), as HF's component objects show them:
// a stage's type and settings, and what the stage does alone.
#pragma once

#include "results.hpp"

namespace snaptok_python {

namespace nb = nanobind;
using namespace nb::literals;

// One stage of a tokenizer, as HF's component objects show it
// (tokenizer.normalizer, .pre_tokenizer, .model, .post_processor,
// .decoder): its type and settings, and what the stage does alone. It keeps
// its tokenizer alive; the subclasses add the stage's own calls.
struct Component {
  nb::object owner;  // the Tokenizer
  std::string json;  // the stage's JSON as loaded
  std::string type;  // its "type" member ("" for an untyped legacy form)

  const snaptok::Pipeline& tokenizer() const { return nb::cast<const snaptok::Pipeline&>(owner); }
};
struct NormalizerComponent : Component {};
struct PreTokenizerComponent : Component {};
struct ModelComponent : Component {};
struct PostProcessorComponent : Component {};
struct DecoderComponent : Component {};

// Returns the component of stage `stage` of the tokenizer `self`, or None.
template <class T>
nb::object component_of(nb::pointer_and_handle<snaptok::Pipeline> self, const char* stage) {
  std::string json = self.p->component_json(stage);
  if (json == "null") return nb::none();
  const nb::object config = nb::module_::import_("json").attr("loads")(json);
  std::string type;
  if (nb::isinstance<nb::dict>(config) && nb::cast<nb::dict>(config).contains("type")) {
    type = nb::cast<std::string>(nb::str(config["type"]));
  }
  return nb::cast(T{{nb::borrow(self.h), std::move(json), std::move(type)}});
}

// Adds the read-only property `stage` to the Tokenizer class.
// `sig`: its stub signature, a literal.
template <class T>
void def_component(nb::class_<snaptok::Pipeline>& cls, const char* stage, const char* sig, const char* doc) {
  cls.def_prop_ro(
      stage, [stage](nb::pointer_and_handle<snaptok::Pipeline> self) { return component_of<T>(self, stage); },
      nb::for_getter(nb::sig(sig)), doc);
}

// "Type(key=value, ...)": the type and its settings, as Python values.
inline std::string component_repr(const Component& c) {
  const nb::object config = nb::module_::import_("json").attr("loads")(c.json);
  std::string out = c.type.empty() ? "Component" : c.type;
  out += "(";
  if (nb::isinstance<nb::dict>(config)) {
    bool first = true;
    for (auto [key, value] : nb::cast<nb::dict>(config)) {
      const std::string k = nb::cast<std::string>(nb::str(key));
      if (k == "type") continue;
      out += (first ? "" : ", ") + k + "=" + nb::cast<std::string>(nb::repr(value));
      first = false;
    }
  }
  return out + ")";
}


// Adds the Component classes to `m`.
inline void bind_components(nb::module_& m) {
  nb::class_<Component>(m, "Component",
                        "One stage of a tokenizer (HF's component objects): its type and settings.\n\n"
                        "    >>> t5.model\n"
                        "    Unigram(unk_id=0, byte_fallback=False)\n"
                        "    >>> isinstance(t5.model, snaptok.Component)\n"
                        "    True")
      .def_prop_ro("type", [](const Component& c) { return c.type; },
                   "The stage's type, e.g. 'BertNormalizer'.\n\n"
                   "    >>> t5.post_processor.type\n"
                   "    'TemplateProcessing'")
      .def_prop_ro(
          "config", [](const Component& c) { return nb::module_::import_("json").attr("loads")(c.json); },
          nb::for_getter(nb::sig("def config(self, /) -> dict[str, typing.Any]")),
          "The stage's settings as loaded from tokenizer.json (a dict; the model's without its vocabulary).\n\n"
          "    >>> tok.pre_tokenizer.config\n"
          "    {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True}")
      .def("__repr__", &component_repr)
      .def("__getstate__", [](const Component& c) { return nb::bytes(c.json.data(), c.json.size()); },
           "The stage's JSON (as HF's __getstate__).");
  nb::class_<NormalizerComponent, Component>(
      m, "Normalizer",
      "The normalizer of a tokenizer (tokenizer.normalizer): what it does to the\n"
      "text before the pre-tokenizer splits it.\n\n"
      "    >>> [n[\"type\"] for n in t5.normalizer.config[\"normalizers\"]]\n"
      "    ['Precompiled', 'Strip', 'Replace']")
      .def(
          "normalize_str",
          [](const NormalizerComponent& c, nb::handle text) { return c.tokenizer().normalize_str(text_of(text, "text")); },
          "text"_a,
          "Returns `text` after this normalizer alone (HF normalize_str).\n\n"
          "    >>> t5.normalizer.normalize_str(\"Hello   world \")  # strips the right, runs of spaces become ▁\n"
          "    'Hello▁world'");
  nb::class_<PreTokenizerComponent, Component>(
      m, "PreTokenizer",
      "The pre-tokenizer of a tokenizer (tokenizer.pre_tokenizer): how it splits the\n"
      "normalized text into pieces the model encodes one by one.\n\n"
      "    >>> tok.pre_tokenizer\n"
      "    ByteLevel(add_prefix_space=False, trim_offsets=True)")
      .def(
          "pre_tokenize_str",
          [](const PreTokenizerComponent& c, nb::handle text) {
            nb::list out;
            for (const auto& [piece, offsets] : c.tokenizer().pre_tokenize_str(text_of(text, "text"))) {
              out.append(nb::make_tuple(piece, nb::make_tuple(offsets.start, offsets.end)));
            }
            return out;
          },
          "text"_a,
          "Returns the pieces of `text` after this pre-tokenizer alone, each with its char\n"
          "offsets (HF pre_tokenize_str).\n\n"
          "    >>> tok.pre_tokenizer.pre_tokenize_str(\"Hello world\")\n"
          "    [('Hello', (0, 5)), ('Ġworld', (5, 11))]",
          nb::sig("def pre_tokenize_str(self, text: str | bytes) -> list[tuple[str, tuple[int, int]]]"));
  nb::class_<ModelComponent, Component>(
      m, "Model",
      "The model of a tokenizer (tokenizer.model): BPE, WordPiece, WordLevel or\n"
      "Unigram, with its vocabulary.\n\n"
      "    >>> (tok.model.type, t5.model.type)\n"
      "    ('BPE', 'Unigram')")
      .def(
          "token_to_id",
          [](const ModelComponent& c, const std::string& token) { return c.tokenizer().model().token_to_id(token); },
          "token"_a,
          "Returns the model vocabulary's id of `token` (added tokens aside), or None.\n\n"
          "    >>> tok.model.token_to_id(\"Hello\")\n"
          "    15496")
      .def(
          "id_to_token",
          [](const ModelComponent& c, nb::handle id) -> std::optional<std::string> {
            const auto token = c.tokenizer().model().id_to_token(static_cast<std::uint32_t>(int_arg(id, "id", kMaxId)));
            return token ? std::optional<std::string>(*token) : std::nullopt;
          },
          "id"_a,
          "Returns the model vocabulary's token of `id`, or None.\n\n"
          "    >>> tok.model.id_to_token(15496)\n"
          "    'Hello'")
      .def(
          "get_vocab_size", [](const ModelComponent& c) { return c.tokenizer().model().vocab_size(); },
          "The size of the model's vocabulary.\n\n"
          "    >>> t5.model.get_vocab_size()\n"
          "    1000");
  nb::class_<PostProcessorComponent, Component>(
      m, "PostProcessor",
      "The post-processor of a tokenizer (tokenizer.post_processor): what it adds\n"
      "around the encoded sequences (special tokens, type ids).\n\n"
      "    >>> t5.post_processor.type\n"
      "    'TemplateProcessing'")
      .def(
          "num_special_tokens_to_add",
          [](const PostProcessorComponent& c, bool is_pair) { return c.tokenizer().num_special_tokens_to_add(is_pair); },
          "is_pair"_a,
          "Returns how many ids this post-processor adds to a sequence, or to a pair.\n\n"
          "    >>> p = t5.post_processor\n"
          "    >>> (p.num_special_tokens_to_add(False), p.num_special_tokens_to_add(True))\n"
          "    (1, 2)");
  nb::class_<DecoderComponent, Component>(
      m, "Decoder",
      "The decoder of a tokenizer (tokenizer.decoder): how it turns tokens back\n"
      "into text.\n\n"
      "    >>> tok.decoder.type\n"
      "    'ByteLevel'")
      .def(
          "decode",
          [](const DecoderComponent& c, std::vector<std::string> tokens) {
            return c.tokenizer().decode_tokens(std::move(tokens));
          },
          "tokens"_a,
          "Returns the text of `tokens` after this decoder alone (HF decoder.decode).\n\n"
          "    >>> tok.decoder.decode([\"Hello\", \"Ġworld\"])\n"
          "    'Hello world'");
}

}  // namespace snaptok_python
