"""Loaders for the papers' real data formats, for users who bring the full data in ``data_dir``.

Every loader checks its input and raises FileNotFoundError (missing file: which path, where to get
it) or DataFormatError, a ValueError (which file, which line, what was expected and what was found).
Book: chapter 1 (Data).
"""
from xsent_lib.data.formats._io import DataFormatError
from xsent_lib.data.formats.bitext import Bitext, load_bitext, load_moses_bitext
from xsent_lib.data.formats.bucc import BUCC_SPLITS, BuccCorpus, load_bucc
from xsent_lib.data.formats.classification import (
    TREC_LABELS,
    load_binary_task,
    load_sst,
    load_sst_file,
    load_trec,
    load_trec_file,
)
from xsent_lib.data.formats.containers import (
    ClassificationTask,
    LabelledSentences,
    PairTask,
    SentencePairs,
)
from xsent_lib.data.formats.dictionaries import (
    MUSE_SPLITS,
    BilingualDictionary,
    DictionaryIndices,
    dictionary_to_indices,
    load_bilingual_dictionary,
    load_muse_dictionary,
)
from xsent_lib.data.formats.nli import (
    NLI_LABELS,
    NLIData,
    load_multinli,
    load_nli_jsonl,
    load_senteval_snli,
    load_snli,
    load_xnli,
    load_xnli_mt,
    load_xnli_mt_tsv,
    load_xnli_tsv,
)
from xsent_lib.data.formats.pairs import (
    load_mrpc,
    load_mrpc_file,
    load_sick,
    load_sick_file,
    load_stsb,
    load_stsb_file,
)
from xsent_lib.data.formats.probing import (
    PROBING_TASKS,
    load_probing,
    load_probing_file,
    probing_task_name,
)
from xsent_lib.data.formats.sts import STS_SUBSETS, load_sts, load_sts_pair_files
from xsent_lib.data.formats.tasks import TASK_NAMES, load_task
from xsent_lib.data.formats.vectors import WordVectors, load_glove_txt, load_vec, save_vec

__all__ = [
    "BUCC_SPLITS", "MUSE_SPLITS", "NLI_LABELS", "PROBING_TASKS", "STS_SUBSETS", "TASK_NAMES",
    "TREC_LABELS",
    "BilingualDictionary", "Bitext", "BuccCorpus", "ClassificationTask", "DataFormatError",
    "DictionaryIndices",
    "LabelledSentences", "NLIData", "PairTask", "SentencePairs", "WordVectors",
    "dictionary_to_indices", "load_bilingual_dictionary", "load_binary_task", "load_bitext",
    "load_bucc",
    "load_glove_txt", "load_moses_bitext", "load_mrpc", "load_mrpc_file", "load_multinli",
    "load_muse_dictionary",
    "load_nli_jsonl", "load_senteval_snli", "load_probing", "load_probing_file", "load_sick",
    "load_sick_file", "load_snli", "load_sst",
    "load_sst_file", "load_stsb", "load_stsb_file", "load_sts", "load_sts_pair_files", "load_task",
    "load_trec",
    "load_trec_file", "load_vec", "save_vec", "load_xnli", "load_xnli_mt", "load_xnli_mt_tsv",
    "load_xnli_tsv",
    "probing_task_name",
]
