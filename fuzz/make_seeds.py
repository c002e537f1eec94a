"""Writes the fuzz seeds in fuzz/seeds/: small tokenizers of every model
family, trained with HF `tokenizers` on the bundled sample text (so they are
ours to ship), with the pipeline pieces the .st loader must carry: added
tokens, normalizers, pre-tokenizers, post-processors, decoders, padding and
truncation. Run: .venv/bin/python fuzz/make_seeds.py
"""

from pathlib import Path

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

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
    for make in (bpe_byte_level, wordpiece_bert, unigram_metaspace, wordlevel):
        path = SEEDS / (make.__name__.replace("_", "-") + ".json")
        make().save(str(path))
        print(path)
