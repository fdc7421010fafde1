"""
Stand-in for pytorch_lightning (not in Debian), enough for rhasspy/piper's VitsModel to be built and for its
export_onnx.py to load a checkpoint: LightningModule is a torch Module that records its constructor's arguments
as `hparams` (save_hyperparameters) and loads {"hyper_parameters", "state_dict"} checkpoints. No training.
See README.md.
"""
import inspect

import torch


class AttributeDict(dict):
    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError as err:
            raise AttributeError(key) from err

    def __setattr__(self, key, value):
        self[key] = value


class LightningModule(torch.nn.Module):
    def save_hyperparameters(self):
        # The caller's arguments, as Lightning collects them (named parameters, then **kwargs).
        frame = inspect.currentframe().f_back
        args = inspect.getargvalues(frame)
        values = {name: args.locals[name] for name in args.args if name != "self"}
        if args.keywords:
            values.update(args.locals[args.keywords])
        self.hparams = AttributeDict(values)

    @classmethod
    def load_from_checkpoint(cls, checkpoint_path, **overrides):
        checkpoint = torch.load(checkpoint_path, map_location="cpu")
        model = cls(**{**checkpoint["hyper_parameters"], **overrides})
        model.load_state_dict(checkpoint["state_dict"])
        return model
