"""An option-ranking policy for sb3-contrib's MaskablePPO.

A DungeonBench decision is a list of options whose meaning depends on the game state and whose
order changes from one decision to the next. A policy whose last layer maps a state vector onto
the action indices can only learn "slot 3 is good"; this one scores each option from the option's
own description, so the same network ranks options it has seen in other slots, other decisions and
other scenarios:

    score_i = f(option_i, state, context)        value = g(state, context)

* ``option_i`` is the option's feature row (the observation key ``options``, shape (N, F)),
  joined with learned embeddings of its vocabulary ids when the env gives ``option_ids``: (N,) for
  one id per option (D&D), (N, K) for K ids per option (a text command's verb and objects, a
  NetHack key's role and the object it names), one shared table, the K embeddings concatenated.
  A family without option rows (a fixed action set: BabyAI, Crafter) gets one learned embedding
  per action index, which is what its indices mean there.
* ``state`` encodes every other observation key (one linear layer per key, then one more).
* ``context`` is the mean of the legal options' encodings (``action_mask``), so an option is
  judged against what else is on offer.

``f`` is applied to each option with shared weights, so the scores are permutation-equivariant:
permuting the option rows (and the mask) permutes the scores the same way, and the number of
legal options does not matter. The masked softmax is sb3-contrib's.

    from sb3_contrib import MaskablePPO
    from dungeonbench_gym.rl import OptionRankingPolicy
    model = MaskablePPO(OptionRankingPolicy, gymnasium.make("DungeonBench/DnD-GoblinAmbush-v0"))
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.preprocessing import get_flattened_obs_dim
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

OPTIONS_KEY, IDS_KEY, MASK_KEY = "options", "option_ids", "action_mask"


def _scale(space: spaces.Space) -> tuple[np.ndarray | None, bool]:
    """How a key's values are brought near [0, 1]: (divide by, signed log) for a Box; a Discrete
    or MultiBinary key arrives one-hot or 0/1 from SB3's preprocessing and needs nothing."""
    if not isinstance(space, spaces.Box) or np.issubdtype(space.dtype, np.floating):
        return None, False
    high = np.asarray(space.high, dtype=np.float64).reshape(-1)
    if np.all(high < 2 ** 20):   # a bounded code (a glyph, a colour): divide by its top value
        return np.maximum(high, 1.0).astype(np.float32), False
    return None, True   # unbounded counters (NetHack's bottom line): sign(x) * log(1 + |x|)


class OptionSetExtractor(BaseFeaturesExtractor):
    """Encodes a Dict observation into [state (d), context (d), option_1 .. option_N (d each)].

    Args:
        observation_space: the env's Dict space; it must hold ``action_mask`` (N,) or ``options``.
        dim: the width d of every encoding.
    """

    def __init__(self, observation_space: spaces.Dict, dim: int = 64):
        keys = observation_space.spaces
        if OPTIONS_KEY in keys:
            n = keys[OPTIONS_KEY].shape[0]
        elif MASK_KEY in keys:
            n = keys[MASK_KEY].shape[0]
        else:
            raise ValueError("OptionSetExtractor needs an 'options' (N, F) or 'action_mask' (N,) "
                             f"observation key to know the options; the space has {sorted(keys)}")
        super().__init__(observation_space, features_dim=dim * (2 + n))
        self.n, self.dim = n, dim
        self.has_rows, self.has_ids = OPTIONS_KEY in keys, IDS_KEY in keys
        in_opt = 0
        if self.has_rows:
            in_opt += int(np.prod(keys[OPTIONS_KEY].shape[1:]))
        if self.has_ids:
            ids = keys[IDS_KEY]
            if ids.shape[0] != n or len(ids.shape) > 2:
                raise ValueError(f"'{IDS_KEY}' must be (N,) or (N, K) with N = {n}; it is {ids.shape}")
            self.ids_per_option = 1 if len(ids.shape) == 1 else ids.shape[1]
            vocab = int(np.max(ids.high)) + 1
            self.id_embed = nn.Embedding(vocab, dim)
            in_opt += dim * self.ids_per_option
        if in_opt:
            self.option_net = nn.Sequential(nn.Linear(in_opt, dim), nn.ReLU(), nn.Linear(dim, dim), nn.ReLU())
        else:   # a fixed action set: the index is the option's identity
            self.index_embed = nn.Embedding(n, dim)   # N(0, 1) rows, as wide apart as real features
        self.state_keys = sorted(k for k in keys if k not in (OPTIONS_KEY, IDS_KEY, MASK_KEY))
        self.state_nets = nn.ModuleDict()
        self.log_keys: set[str] = set()
        for k in self.state_keys:
            div, log = _scale(keys[k])
            if div is not None:
                self.register_buffer(f"div_{k}", torch.as_tensor(div))
            if log:
                self.log_keys.add(k)
            self.state_nets[k] = nn.Linear(get_flattened_obs_dim(keys[k]), dim)
        width = dim * max(1, len(self.state_keys))
        self.state_out = nn.Sequential(nn.ReLU(), nn.Linear(width, dim), nn.ReLU())

    def _state(self, obs: dict[str, torch.Tensor], batch: int) -> torch.Tensor:
        if not self.state_keys:
            return torch.zeros(batch, self.dim, device=next(self.parameters()).device)
        parts = []
        for k in self.state_keys:
            x = obs[k].reshape(batch, -1).float()
            div = getattr(self, f"div_{k}", None)
            if div is not None:
                x = x / div
            if k in self.log_keys:
                x = torch.sign(x) * torch.log1p(x.abs())
            parts.append(self.state_nets[k](x))
        return self.state_out(torch.cat(parts, dim=1))

    def _options(self, obs: dict[str, torch.Tensor], batch: int) -> torch.Tensor:
        if not (self.has_rows or self.has_ids):
            return self.index_embed.weight.unsqueeze(0).expand(batch, -1, -1)
        parts = []
        if self.has_rows:
            parts.append(obs[OPTIONS_KEY].reshape(batch, self.n, -1).float())
        if self.has_ids:
            ids = obs[IDS_KEY].reshape(batch, self.n, self.ids_per_option).long()
            parts.append(self.id_embed(ids).reshape(batch, self.n, -1))
        return self.option_net(torch.cat(parts, dim=2))

    def forward(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        batch = next(iter(obs.values())).shape[0]
        state, opts = self._state(obs, batch), self._options(obs, batch)
        mask = obs[MASK_KEY].reshape(batch, self.n, 1).float() if MASK_KEY in obs else \
            torch.ones(batch, self.n, 1, device=opts.device)
        context = (opts * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return torch.cat([state, context, opts.reshape(batch, -1)], dim=1)


class OptionScorer(nn.Module):
    """The policy head: one shared scorer per option (the actor's N logits) and the critic's
    latent from the state and the context. Its attributes follow SB3's MlpExtractor contract.

    An option's score is a match between the option and the situation, ``option_i . query(state,
    context)``, plus an MLP over the three together. The match term makes "this option in this
    state" a first-order feature: with a fixed action set it is a linear head over the state whose
    per-action weights are the index embeddings, which is what learns fast there; the MLP adds what
    a dot product cannot say."""

    def __init__(self, n: int, dim: int, hidden: int = 64):
        super().__init__()
        self.n, self.dim = n, dim
        self.latent_dim_pi, self.latent_dim_vf = n, hidden
        self.query = nn.Linear(2 * dim, dim)
        self.score = nn.Sequential(nn.Linear(3 * dim, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.critic = nn.Sequential(nn.Linear(2 * dim, hidden), nn.Tanh())

    def _split(self, f: torch.Tensor):
        d = self.dim
        return f[:, :d], f[:, d:2 * d], f[:, 2 * d:].reshape(f.shape[0], self.n, d)

    def forward_actor(self, f: torch.Tensor) -> torch.Tensor:
        state, context, opts = self._split(f)
        situation = torch.cat([state, context], dim=1)
        match = (opts * self.query(situation).unsqueeze(1)).sum(-1)
        shared = situation.unsqueeze(1).expand(-1, self.n, -1)
        return match + self.score(torch.cat([opts, shared], dim=2)).squeeze(-1)

    def forward_critic(self, f: torch.Tensor) -> torch.Tensor:
        state, context, _ = self._split(f)
        return self.critic(torch.cat([state, context], dim=1))

    def forward(self, f: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(f), self.forward_critic(f)


class OptionRankingPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's actor-critic with the option-ranking head (see the module docstring).

    Keyword arguments beyond MaskablePPO's: ``dim`` (encoding width, default 64) and ``hidden``
    (the scorer's and critic's hidden width, default 64), through ``policy_kwargs``.
    """

    def __init__(self, observation_space: spaces.Dict, action_space: spaces.Discrete, lr_schedule,
                 dim: int = 64, hidden: int = 64, **kwargs: Any):
        self.dim, self.hidden = dim, hidden
        kwargs.setdefault("features_extractor_class", OptionSetExtractor)
        kwargs.setdefault("features_extractor_kwargs", {"dim": dim})
        kwargs.setdefault("normalize_images", False)   # the extractor scales every key itself
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        n = self.features_extractor.n
        if n != self.action_space.n:
            raise ValueError(f"the observation describes {n} options but the action space has "
                             f"{self.action_space.n}")
        self.mlp_extractor = OptionScorer(n, self.dim, self.hidden)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        # the scorer's output is already one logit per option: no linear layer over the indices,
        # which would tie each slot to a weight of its own and break the equivariance
        self.action_net = nn.Identity()
        for last in (self.mlp_extractor.score[-1], self.mlp_extractor.query):
            nn.init.orthogonal_(last.weight, gain=0.01)   # near-uniform first policy, as SB3 does
            nn.init.zeros_(last.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(dim=self.dim, hidden=self.hidden)
        return data
