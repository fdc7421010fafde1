"""
Stand-in for pytorch_lightning (not in Debian), for rhasspy/piper's piper_train (see README.md): a
LightningModule that records its constructor's arguments as `hparams` (save_hyperparameters) and is rebuilt
from a checkpoint holding `hyper_parameters` and `state_dict` (load_from_checkpoint), the two things
piper_train's export_onnx.py uses. No trainer.
"""
import inspect

import torch


class AttributeDict(dict):
    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError as e:
            raise AttributeError(key) from e

    def __setattr__(self, key, value):
        self[key] = value


class LightningModule(torch.nn.Module):
    def save_hyperparameters(self):
        frame = inspect.currentframe().f_back
        info = inspect.getargvalues(frame)
        hparams = AttributeDict({name: info.locals[name] for name in info.args if name != "self"})
        if info.keywords:
            hparams.update(info.locals[info.keywords])
        self.hparams = hparams

    @classmethod
    def load_from_checkpoint(cls, checkpoint_path, **kwargs):
        checkpoint = torch.load(checkpoint_path, map_location="cpu")
        model = cls(**{**checkpoint["hyper_parameters"], **kwargs})
        model.load_state_dict(checkpoint["state_dict"])
        return model
