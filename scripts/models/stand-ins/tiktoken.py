"""
Stand-in for `tiktoken` (not in Debian), enough for openai/whisper's tokenizer.py as the Whisper build uses it:
`Encoding` with byte-pair encoding over the mergeable ranks (lowest-rank pair merged first, as tiktoken does),
special tokens, `encode_single_token`, `decode`. Text is pre-split into words at spaces (tiktoken's pattern
needs the `regex` module's \\p classes); the build only encodes short sentences and " ", which split the same.
"""
import re


class Encoding:
    def __init__(self, name, explicit_n_vocab=None, pat_str="", mergeable_ranks=None, special_tokens=None):
        self.name = name
        self.n_vocab = explicit_n_vocab
        self._ranks = dict(mergeable_ranks or {})
        self._special = dict(special_tokens or {})
        self._bytes = {rank: token for token, rank in self._ranks.items()}
        self._special_ids = {rank: token for token, rank in self._special.items()}

    @property
    def special_tokens_set(self):
        return set(self._special)

    @property
    def eot_token(self):
        return self._special["<|endoftext|>"]

    def encode_single_token(self, text):
        if text in self._special:
            return self._special[text]
        return self._ranks[text.encode("utf-8") if isinstance(text, str) else text]

    def _bpe(self, piece):
        parts = [bytes([b]) for b in piece]
        while len(parts) > 1:
            ranked = [(self._ranks.get(parts[i] + parts[i + 1]), i) for i in range(len(parts) - 1)]
            ranked = [(r, i) for r, i in ranked if r is not None]
            if not ranked:
                break
            _, i = min(ranked)
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        return [self._ranks[p] for p in parts]

    def encode(self, text, **_):
        out = []
        for word in re.findall(r" ?[^ ]+| +", text):
            out.extend(self._bpe(word.encode("utf-8")))
        return out

    def decode_bytes(self, tokens):
        return b"".join(self._bytes.get(t, self._special_ids.get(t, "").encode()) for t in tokens)

    def decode(self, tokens, **_):
        return self.decode_bytes(tokens).decode("utf-8", errors="replace")
