"""Dataset loaders: real text classification corpora in their published formats.

A package: ``core`` (types, errors), ``locate`` (where files are looked for, the
download), ``integrity`` (checksums, counts, archives), ``splits``, ``registry``
(:func:`load`), one module per built-in dataset (``imdb``, ``sst``, ``zhang``, ``bbc``)
and ``user`` (your own files). Every name is importable from here.

Every loader returns a :class:`TextDataset` with texts and integer labels per
split (``train``, ``val``, ``test``) and the class names. Files are looked for,
in this order, in ``data_dir`` (the ``--data-dir`` option), the directory named
by the ``KERASATTN_DATA_DIR`` environment variable, the Keras cache
(``~/.keras/datasets``), and finally downloaded from the dataset's official
address with ``keras.utils.get_file`` (checksum-verified where the checksum is
published). When nothing is found and the download fails, the error names every
place looked in and the address to download from.

Bad data never disappears silently: a malformed row, an unknown label or an
undecodable file raises :class:`DatasetFormatError` naming the file and line.
Empty texts are valid input; they are kept and counted in :meth:`summary`.

Damaged files are refused, never read as a smaller dataset. Every built-in
dataset found on disk (or downloaded) is verified before it is used, and a
failure raises :class:`DatasetIntegrityError` naming the file and what is wrong:

- **checksum**: a file whose published md5 the project knows
  (:data:`PUBLISHED_FILES`: the IMDB, BBC, SST and AG News files as mirrored,
  the official IMDB and Zhang et al. downloads in :data:`ZHANG_DATASETS` where
  published) must have that size and md5 (``PATH: N bytes, expected M
  (truncated or not the published file)``; ``PATH: checksum mismatch: expected
  md5 X, got Y``). Hashes are cached per process, keyed on path, size and
  modification time, so a file is hashed once however often it is loaded.
- **counts**: the documents of every split and class must be the published
  counts (:data:`PUBLISHED_COUNTS`, :data:`ZHANG_COUNTS`; derived datasets such
  as ``imdb-random-split``, ``ag_news-test-split`` and the SST phrase datasets
  check their source files), so an extracted directory without a checksum is
  verified too (``PATH: 2,224 documents, expected 2,225``). The streamed
  loader checks checksums only: counting would cost a pass over the rows.
- **archives**: a ``.tar.gz`` / ``.tgz`` / ``.zip`` is read to its end: every
  tar header, the end-of-archive marker, the gzip CRC and length, the zip
  CRCs; damage raises ``PATH: truncated or corrupt archive (...)`` (``tarfile``
  alone stops quietly at the first bad header). An archive is checked whole
  before anything is extracted from it. These checks are always on.

Setting ``KERASATTN_VERIFY=0`` (or ``load(..., verify=False)``) skips the
published checksums and counts, to load a deliberately different copy of a
built-in dataset (small stand-in files in tests); the archive checks stay.
Users' own files (``csv:`` / ``jsonl:`` / ``tsv:``) have no published checksum;
their rows are checked as described in :func:`load_user_file`.
"""

from kerasattn.data.datasets.definitions import (DEFINITION_SEED, DatasetError, DatasetFormatError,
                                          DatasetIntegrityError, DatasetNotFoundError, ENV_VAR,
                                          SPLITS, Split, TextDataset, VERIFY_ENV)
from kerasattn.data.datasets.locate import Remote, locate, search_roots
from kerasattn.data.datasets.integrity import (PUBLISHED_COUNTS, PUBLISHED_FILES, check_archive,
                                               check_counts, file_md5, verification_enabled,
                                               verify_file)
from kerasattn.data.datasets.splits import (VAL_SPLITS, grouped_split, hold_out_validation,
                                            rows_needed, split_80_10_10, stratified_split)
from kerasattn.data.datasets.user import (is_user_dataset, load_user_file,
                                          refuse_untrained_classes, user_files)
from kerasattn.data.datasets.catalogue import (DatasetFacts, describe, facts, load, names,
                                               register)
from kerasattn.data.datasets.imdb import IMDB_REMOTE, load_imdb, load_imdb_random_split
from kerasattn.data.datasets.sst import (SST2_NAMES, SST5_NAMES, SST_GLUE_REMOTE, SST_TREES_REMOTE,
                                         load_sst2, load_sst2_glue, load_sst2_phrases, load_sst5,
                                         load_sst5_phrases, parse_ptb_tree)
from kerasattn.data.datasets.zhang import (ZHANG_COUNTS, ZHANG_DATASETS, load_ag_news_test_split,
                                           read_zhang_csv)
from kerasattn.data.datasets.bbc import BBC_REMOTE, load_bbc

# private names that tests and the streaming loader read
from kerasattn.data.datasets.sst import _read_trees  # noqa: E402,F401
from kerasattn.data.datasets.zhang import _zhang_files  # noqa: E402,F401

__all__ = ["BBC_REMOTE", "DEFINITION_SEED", "DatasetError", "DatasetFacts",
           "DatasetFormatError", "DatasetIntegrityError", "DatasetNotFoundError", "ENV_VAR",
           "IMDB_REMOTE", "PUBLISHED_COUNTS", "PUBLISHED_FILES", "Remote", "SPLITS",
           "SST2_NAMES", "SST5_NAMES",
           "SST_GLUE_REMOTE", "SST_TREES_REMOTE", "Split", "TextDataset", "VAL_SPLITS",
           "VERIFY_ENV", "ZHANG_COUNTS", "ZHANG_DATASETS", "check_archive", "check_counts",
           "describe", "facts", "file_md5", "grouped_split", "hold_out_validation",
           "is_user_dataset",
           "load", "load_ag_news_test_split", "load_bbc", "load_imdb", "load_imdb_random_split",
           "load_sst2", "load_sst2_glue", "load_sst2_phrases", "load_sst5", "load_sst5_phrases",
           "load_user_file", "locate", "names", "parse_ptb_tree", "read_zhang_csv", "register",
           "refuse_untrained_classes", "rows_needed", "search_roots", "split_80_10_10",
           "stratified_split", "user_files", "verification_enabled", "verify_file"]
