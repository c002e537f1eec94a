"""Writes the fuzz seeds in fuzz/seeds/: small tokenizers of every model
family, trained with HF `tokenizers` on the bundled sample text (so they are
ours to ship), with the pipeline pieces the .st loader must carry: added
tokens, normalizers, pre-tokenizers, post-processors, decoders, padding and
truncation. Run: .venv/bin/python fuzz/make_seeds.py

Each seed also picks an encode path the fuzz targets compare with the general
stages: byte-level BPE (with the GPT-2 and the cl100k scanner, and DeepSeek V3's chain), SentencePiece
BPE, whitespace words (WordPiece, Unigram) and none (WordLevel).
"""

import json
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "fuzz" / "seeds"
TEXT = (ROOT / "python" / "snaptok" / "data" / "sample.txt").read_text(encoding="utf-8").splitlines()


def bpe_byte_level() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    return tok


# HF's spelling of the cl100k pattern (Llama 3): the cl100k scanner takes it.
CL100K = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
          r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def bpe_cl100k() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(CL100K), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|begin_of_text|>", "<|end_of_text|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    tok.post_processor = processors.TemplateProcessing(
        single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A <|begin_of_text|>:1 $B:1",
        special_tokens=[("<|begin_of_text|>", tok.token_to_id("<|begin_of_text|>"))])
    return tok


# DeepSeek V3's chain of three Splits: the fused path runs them as one scanner.
DEEPSEEK = [r"\p{N}{1,3}", "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
            "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+|"
            " ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"]


def bpe_deepseek() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(p), behavior="isolated") for p in DEEPSEEK]
        + [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    # Lines with runs of spaces, so that tokens span them and a wrong cut
    # between two spaces shows in the ids.
    spaced = ["  ".join(line.split(" ")) + "   \n\n  " for line in TEXT[:40]]
    tok.train_from_iterator(TEXT + spaced, trainers.BpeTrainer(
        vocab_size=1000, special_tokens=["<\uff5cbegin\u2581of\u2581sentence\uff5c>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    return tok


def bpe_sentencepiece() -> Tokenizer:
    """The Llama 2 / Phi-3 layout: Prepend + Replace, no pre-tokenizer, byte
    fallback; the <0xXX> tokens are vocabulary entries, not added tokens."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    # Trained on Metaspace words, so that '\u2581' only starts tokens (as in
    # SentencePiece); the saved layout has no pre-tokenizer.
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Sequence([decoders.Replace("\u2581", " "), decoders.ByteFallback(),
                                     decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    bytes_ = [f"<0x{b:02X}>" for b in range(256)]
    tok.train_from_iterator(TEXT, trainers.BpeTrainer(
        vocab_size=700, special_tokens=["<unk>", "<s>", "</s>", *bytes_], show_progress=False))
    config = json.loads(tok.to_str())
    config["added_tokens"] = [t for t in config["added_tokens"] if t["content"] not in bytes_]
    config["pre_tokenizer"] = None
    config["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]}
    tok = Tokenizer.from_str(json.dumps(config))
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", tok.token_to_id("<s>"))])
    return tok


def wordpiece_bert() -> Tokenizer:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(TEXT, trainers.WordPieceTrainer(
        vocab_size=300, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"], show_progress=False))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    tok.enable_padding(length=16)
    return tok


def unigram_metaspace() -> Tokenizer:
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(TEXT, trainers.UnigramTrainer(
        vocab_size=300, special_tokens=["<unk>", "</s>"], unk_token="<unk>", show_progress=False))
    tok.enable_truncation(32)
    return tok


def wordlevel() -> Tokenizer:
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(TEXT, trainers.WordLevelTrainer(special_tokens=["[UNK]"], show_progress=False))
    return tok


if __name__ == "__main__":
    SEEDS.mkdir(exist_ok=True)
    for make in (bpe_byte_level, bpe_cl100k, bpe_deepseek, bpe_sentencepiece, wordpiece_bert, unigram_metaspace, wordlevel):
        path = SEEDS / (make.__name__.replace("_", "-") + ".json")
        make().save(str(path))
        print(path)
