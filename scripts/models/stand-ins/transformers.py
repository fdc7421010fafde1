"""
Stand-in for the two names hexgrad/kokoro takes from transformers (not in Debian): AlbertConfig and
AlbertModel. A minimal ALBERT encoder with random weights; see README.md for what it keeps.
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn


class AlbertConfig:
    def __init__(self, vocab_size=30000, embedding_size=128, hidden_size=768, num_hidden_layers=12,
                 num_attention_heads=12, intermediate_size=3072, max_position_embeddings=512,
                 type_vocab_size=2, layer_norm_eps=1e-12, dropout=0.0, **_ignored):
        self.vocab_size = vocab_size
        self.embedding_size = embedding_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.intermediate_size = intermediate_size
        self.max_position_embeddings = max_position_embeddings
        self.type_vocab_size = type_vocab_size
        self.layer_norm_eps = layer_norm_eps


@dataclass
class _Output:
    last_hidden_state: torch.Tensor


class _Layer(nn.Module):
    def __init__(self, c: AlbertConfig):
        super().__init__()
        self.heads = c.num_attention_heads
        self.query = nn.Linear(c.hidden_size, c.hidden_size)
        self.key = nn.Linear(c.hidden_size, c.hidden_size)
        self.value = nn.Linear(c.hidden_size, c.hidden_size)
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.attention_norm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.ffn = nn.Linear(c.hidden_size, c.intermediate_size)
        self.ffn_output = nn.Linear(c.intermediate_size, c.hidden_size)
        self.output_norm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, x, additive_mask):
        b, t, h = x.shape
        split = lambda y: y.view(b, t, self.heads, h // self.heads).transpose(1, 2)
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(h // self.heads) + additive_mask
        context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, h)
        x = self.attention_norm(x + self.dense(context))
        return self.output_norm(x + self.ffn_output(nn.functional.gelu(self.ffn(x))))


class AlbertModel(nn.Module):
    def __init__(self, config: AlbertConfig):
        super().__init__()
        self.config = config
        self.word_embeddings = nn.Embedding(config.vocab_size, config.embedding_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.embedding_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.embedding_size)
        self.embedding_norm = nn.LayerNorm(config.embedding_size, eps=config.layer_norm_eps)
        self.embedding_hidden_mapping_in = nn.Linear(config.embedding_size, config.hidden_size)
        self.layer = _Layer(config)

    @property
    def device(self):
        return next(self.parameters()).device

    def forward(self, input_ids, attention_mask=None):
        t = input_ids.shape[1]
        positions = torch.arange(t, device=input_ids.device).unsqueeze(0)
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions) \
            + self.token_type_embeddings(torch.zeros_like(input_ids))
        x = self.embedding_hidden_mapping_in(self.embedding_norm(x))
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        additive = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for _ in range(self.config.num_hidden_layers):
            x = self.layer(x, additive)
        return _Output(last_hidden_state=x)
