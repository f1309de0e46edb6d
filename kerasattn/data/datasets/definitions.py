"""The datasets' types, errors and constants."""

import csv
import dataclasses

import numpy as np


# Zhang et al. (2015) CSV rows can be long (Yahoo answers); lift csv's 128 KiB cap.
csv.field_size_limit(2**31 - 1)

ENV_VAR = "KERASATTN_DATA_DIR"
# "0" skips the published checksums and counts (see the module docstring)
VERIFY_ENV = "KERASATTN_VERIFY"
SPLITS = ("train", "val", "test")
# The fixed seed of every split that is part of a dataset's *definition* (AG
# News from its test rows, BBC's test split): the same for every run, so
# results stay comparable whatever --seed a run uses.
DEFINITION_SEED = 0


class DatasetError(Exception):
    """Base class of the dataset errors."""


class DatasetNotFoundError(DatasetError, FileNotFoundError):
    """The dataset is in none of the places looked in and could not be downloaded."""


class DatasetFormatError(DatasetError, ValueError):
    """A file of the dataset is malformed; the message names file and line."""


class DatasetIntegrityError(DatasetError):
    """A dataset file is damaged, truncated or not the published file: a wrong
    checksum or size, a corrupt archive, or not the published number of documents.
    The message names the file and what is wrong."""


@dataclasses.dataclass
class Split:
    """Texts, their integer labels and, where the data says, the group of each text
    (e.g. the film an IMDB review is of; None where the data has no groups)."""

    texts: list
    labels: np.ndarray
    groups: np.ndarray | None = None

    def __post_init__(self):
        self.labels = np.asarray(self.labels, dtype=np.int64)
        if len(self.texts) != len(self.labels):
            raise ValueError(
                f"{len(self.texts)} texts but {len(self.labels)} labels"
            )
        if self.groups is not None:
            self.groups = np.asarray(self.groups, dtype=object)
            if len(self.groups) != len(self.labels):
                raise ValueError(f"{len(self.labels)} labels but {len(self.groups)} groups")

    def __len__(self):
        return len(self.texts)

    def take(self, indices):
        return Split([self.texts[i] for i in indices], self.labels[indices],
                     None if self.groups is None else self.groups[indices])


@dataclasses.dataclass
class TextDataset:
    """Texts and integer labels per split, with class names and provenance notes."""

    name: str
    train: Split
    val: Split
    test: Split
    class_names: list
    notes: list = dataclasses.field(default_factory=list)

    @property
    def num_classes(self):
        return len(self.class_names)

    def split(self, name):
        if name not in SPLITS:
            raise ValueError(f"unknown split {name!r}; expected one of {SPLITS}")
        return getattr(self, name)

    def summary(self):
        empty = {s: sum(1 for t in self.split(s).texts if not t.strip()) for s in SPLITS}
        sizes = ", ".join(f"{s} {len(self.split(s)):,}" for s in SPLITS)
        n_empty = sum(empty.values())
        detail = (
            " (" + ", ".join(f"{s} {n}" for s, n in empty.items() if n) + ")"
            if n_empty
            else ""
        )
        return (
            f"{self.name}: {sizes}; {self.num_classes} classes; "
            f"{n_empty} empty texts{detail}"
        )
