"""Stand-in for huggingface_hub (not in Debian): the builds never download. See README.md."""


def hf_hub_download(*args, **kwargs):
    raise RuntimeError("huggingface_hub stand-in: pass config and weights explicitly, nothing is downloaded")
