"""The model zoo: real models built offline with random weights, one entry each.

Shared by tools/trace_models.py (traces of training steps) and the experiment
runner (`backendbench models`, python/backendbench/experiment.py). Families:

    timm         18 image models (timm.create_model, pretrained=False)
    hf           15 Hugging Face transformers models, from configs written here
    torchvision  14 image models (weights=None)
    torch        small models that need only torch (CI, smoke checks)

Adding a model is one entry in MODELS (or in a model file, see load_model_file).
Each builder returns the model on the device in the dtype, and its inputs; the
caller seeds the RNG first, so weights and inputs are deterministic per seed.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
from typing import Any, Callable

# Nothing may reach the network: configs are written here, weights are random.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402  (after the offline switches, which transformers reads at import)

# Short and torch names of the dtypes a model may run in.
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64,
          "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
          "float64": torch.float64}

# The library each family needs, and the suite name results give it.
FAMILY_LIBRARY = {"timm": "timm", "hf": "transformers", "torchvision": "torchvision", "torch": "torch"}
FAMILY_SUITE = {"timm": "timm", "hf": "huggingface", "torchvision": "torchvision", "torch": "torch"}

DEFAULT_SEQ_LEN = 256


@dataclasses.dataclass
class Settings:
    device: torch.device
    dtype: torch.dtype
    batch_size: int | None  # None: the model's default
    seq_len: int = DEFAULT_SEQ_LEN


@dataclasses.dataclass
class Workload:
    """What a builder returns: the model (on the device, in the dtype) and its inputs."""
    model: torch.nn.Module
    args: tuple = ()
    kwargs: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class ModelEntry:
    family: str
    name: str
    builder: Callable[[Settings], Workload]  # gets the batch size resolved (never None)
    batch_size: int = 8                    # the default batch size
    requires: str | None = None            # module that must be importable (default: the family's library)

    @property
    def key(self) -> str:
        return f"{self.family}_{self.name}"

    @property
    def suite(self) -> str:
        return FAMILY_SUITE.get(self.family, self.family)

    def missing_library(self) -> str | None:
        """The module this model needs and cannot import, else None."""
        module = self.requires or FAMILY_LIBRARY.get(self.family)
        if module and importlib.util.find_spec(module) is None:
            return module
        return None

    def build(self, s: Settings) -> Workload:
        """The model and inputs, with the batch size resolved to the model's default when unset."""
        return self.builder(dataclasses.replace(s, batch_size=s.batch_size or self.batch_size))


def _images(s: Settings, size: tuple[int, int, int]) -> torch.Tensor:
    return torch.randn(s.batch_size, *size, device=s.device, dtype=s.dtype)


def _prepare(model: torch.nn.Module, s: Settings) -> torch.nn.Module:
    return model.to(device=s.device, dtype=s.dtype).train()


# --- torch: small models without any model library.

def _build_small_cnn(s: Settings) -> Workload:
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1),
        torch.nn.BatchNorm2d(8),
        torch.nn.ReLU(),
        torch.nn.Conv2d(8, 16, 3, padding=1),
        torch.nn.ReLU(inplace=True),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(16, 10),
    )
    return Workload(_prepare(model, s), (_images(s, (3, 16, 16)),))


class SmallTransformer(torch.nn.Module):
    """Token embedding, two pre-norm encoder blocks (attention + MLP with residual adds), LM head."""

    def __init__(self, vocab: int = 256, width: int = 64, heads: int = 4, depth: int = 2) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.blocks = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(width, heads, dim_feedforward=2 * width, dropout=0.1,
                                             batch_first=True, norm_first=True)
            for _ in range(depth))
        self.norm = torch.nn.LayerNorm(width)
        self.head = torch.nn.Linear(width, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def _build_small_transformer(s: Settings) -> Workload:
    model = SmallTransformer()
    tokens = torch.randint(0, 256, (s.batch_size, 32), device=s.device)
    return Workload(_prepare(model, s), (tokens,))


# --- timm

TIMM_MODELS = [
    "resnet18", "resnet50", "vit_base_patch16_224", "deit_small_patch16_224", "convnext_tiny",
    "efficientnet_b0", "mobilenetv3_large_100", "regnety_004", "densenet121",
    "swin_tiny_patch4_window7_224", "mixer_b16_224", "inception_v3", "dla34", "ghostnet_100",
    "resnext50_32x4d", "dpn68", "mobilevit_s", "levit_128",
]


def _timm_builder(name: str) -> Callable[[Settings], Workload]:
    def build(s: Settings) -> Workload:
        import timm

        model = timm.create_model(name, pretrained=False)
        # Some models only take their own resolution (swin, levit, inception_v3's 299).
        size = tuple(model.pretrained_cfg.get("input_size", (3, 224, 224)))
        return Workload(_prepare(model, s), (_images(s, size),))

    return build


# --- torchvision

TORCHVISION_MODELS = [
    "resnet18", "resnet50", "vgg11", "alexnet", "squeezenet1_1", "mobilenet_v2",
    "mobilenet_v3_large", "shufflenet_v2_x1_0", "densenet121", "efficientnet_b0", "googlenet",
    "regnet_y_400mf", "mnasnet1_0", "resnext50_32x4d",
]


def _torchvision_builder(name: str) -> Callable[[Settings], Workload]:
    def build(s: Settings) -> Workload:
        import torchvision

        model = torchvision.models.get_model(name, weights=None)
        return Workload(_prepare(model, s), (_images(s, (3, 224, 224)),))

    return build


# --- Hugging Face transformers: configs written out, sized like the base
# checkpoints (or smaller where the library default is a multi-billion model).

SMALL_DECODER = dict(hidden_size=512, intermediate_size=1376, num_hidden_layers=4,
                     num_attention_heads=8, vocab_size=32000, max_position_embeddings=2048)

# model class -> (config class, config overrides, input kind)
HF_MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "BertForMaskedLM": ("BertConfig", {}, "tokens"),
    "GPT2LMHeadModel": ("GPT2Config", {}, "tokens"),
    # Newer transformers leave the start token to the checkpoint: t5's is the pad token, 0.
    "T5ForConditionalGeneration": ("T5Config", dict(d_model=512, d_ff=2048, num_layers=6,
                                                    num_heads=8, d_kv=64, pad_token_id=0,
                                                    decoder_start_token_id=0), "tokens"),
    "BartForConditionalGeneration": ("BartConfig", dict(
        d_model=768, encoder_layers=6, decoder_layers=6, encoder_attention_heads=12,
        decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072), "tokens"),
    "RobertaForMaskedLM": ("RobertaConfig", dict(max_position_embeddings=514), "tokens"),
    "DistilBertForMaskedLM": ("DistilBertConfig", {}, "tokens"),
    "AlbertForMaskedLM": ("AlbertConfig", dict(hidden_size=768, num_attention_heads=12,
                                               intermediate_size=3072, embedding_size=128),
                          "tokens"),
    "ElectraForCausalLM": ("ElectraConfig", dict(is_decoder=True), "tokens"),
    "OPTForCausalLM": ("OPTConfig", {}, "tokens"),
    "LlamaForCausalLM": ("LlamaConfig", dict(SMALL_DECODER, num_key_value_heads=8), "tokens"),
    "MistralForCausalLM": ("MistralConfig", dict(SMALL_DECODER, num_key_value_heads=2), "tokens"),
    "GPTNeoForCausalLM": ("GPTNeoConfig", dict(hidden_size=768, num_layers=12, num_heads=12,
                                               attention_types=[[["global", "local"], 6]]),
                          "tokens"),
    "MobileBertForMaskedLM": ("MobileBertConfig", {}, "tokens"),
    "XLNetLMHeadModel": ("XLNetConfig", dict(d_model=768, n_layer=12, n_head=12, d_inner=3072),
                         "tokens"),
    "ViTForImageClassification": ("ViTConfig", {}, "images"),
}


def _hf_builder(name: str) -> Callable[[Settings], Workload]:
    def build(s: Settings) -> Workload:
        import transformers

        transformers.logging.set_verbosity_error()
        config_class, overrides, kind = HF_MODELS[name]
        config = getattr(transformers, config_class)(**overrides)
        # No key/value cache in the outputs: tensors only, the same in every run.
        if hasattr(config, "use_cache"):
            config.use_cache = False
        model = _prepare(getattr(transformers, name)(config), s)
        batch = s.batch_size
        if kind == "images":
            size = (config.num_channels, config.image_size, config.image_size)
            labels = torch.randint(0, config.num_labels, (batch,), device=s.device)
            return Workload(model, kwargs=dict(pixel_values=_images(s, size), labels=labels))
        # Token ids as integers (the dtype is the model's); the labels make the model compute its loss.
        ids = torch.randint(0, config.vocab_size, (batch, s.seq_len), device=s.device)
        return Workload(model, kwargs=dict(input_ids=ids, labels=ids.clone()))

    return build


MODELS: list[ModelEntry] = (
    [ModelEntry("torch", "small_cnn", _build_small_cnn, batch_size=8),
     ModelEntry("torch", "small_transformer", _build_small_transformer, batch_size=4)]
    + [ModelEntry("timm", n, _timm_builder(n), batch_size=8) for n in TIMM_MODELS]
    + [ModelEntry("hf", n, _hf_builder(n), batch_size=4) for n in HF_MODELS]
    + [ModelEntry("torchvision", n, _torchvision_builder(n), batch_size=8) for n in TORCHVISION_MODELS]
)


def load_model_file(path: str | os.PathLike) -> list[ModelEntry]:
    """The MODELS list (of ModelEntry) of a user's Python file, which adds models to the zoo."""
    path = os.fspath(path)
    spec = importlib.util.spec_from_file_location("backendbench_user_models", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entries = getattr(module, "MODELS", None)
    if not isinstance(entries, list) or not all(isinstance(e, ModelEntry) for e in entries):
        raise ImportError(f"{path}: defines no MODELS list of backendbench.zoo.ModelEntry")
    return entries


def all_models(model_file: str | os.PathLike | None = None) -> list[ModelEntry]:
    """The zoo, plus the models of `model_file`; a key given twice is an error."""
    entries = MODELS + (load_model_file(model_file) if model_file else [])
    seen: set[str] = set()
    for e in entries:
        if e.key in seen:
            raise ValueError(f"model {e.key} is defined twice")
        seen.add(e.key)
    return entries


def tensors_of(output: Any) -> list[torch.Tensor]:
    """Every tensor in a model's output, in a stable order (ModelOutput, tuples, dicts)."""
    if isinstance(output, torch.Tensor):
        return [output]
    if isinstance(output, dict):  # also transformers' ModelOutput
        return [t for key in output for t in tensors_of(output[key])]
    if isinstance(output, (tuple, list)):  # also torchvision's namedtuples (googlenet)
        return [t for item in output for t in tensors_of(item)]
    return []


def loss_of(output: Any) -> torch.Tensor:
    """The model's own loss if it computed one, else the sum of every differentiable output."""
    loss = getattr(output, "loss", None)
    if isinstance(loss, torch.Tensor):
        return loss
    tensors = [t for t in tensors_of(output) if t.requires_grad]
    if not tensors:
        raise RuntimeError(f"the model returned no differentiable tensor ({type(output).__name__})")
    # Summed from the first loss, not from Python's int 0, which would trace an extra add.
    losses = [t.float().sum() for t in tensors]
    return sum(losses[1:], losses[0])
