"""Loaders for the papers' real data formats, each on a tiny fixture written in the exact real layout."""
from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest

from xsent_lib.data.formats import (
    NLI_LABELS,
    PROBING_TASKS,
    DataFormatError,
    dictionary_to_indices,
    load_bilingual_dictionary,
    load_bitext,
    load_bucc,
    load_glove_txt,
    load_moses_bitext,
    load_multinli,
    load_muse_dictionary,
    load_nli_jsonl,
    load_probing_file,
    load_sick_file,
    load_snli,
    load_sst_file,
    load_sts,
    load_sts_pair_files,
    load_stsb_file,
    load_task,
    load_trec_file,
    load_vec,
    load_xnli,
    load_xnli_mt,
    load_xnli_mt_tsv,
)
from xsent_lib.data.formats import vectors as vectors_module

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
DOWNSTREAM = FIXTURES / "downstream"


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


# --- SentEval single-sentence tasks -------------------------------------------------------------

def test_mr_reads_latin1_and_puts_positives_first():
    task = load_task("MR", FIXTURES)
    data = task.splits["all"]
    assert list(task.splits) == ["all"]
    assert data.sentences[1] == "the café scenes alone are worth the ticket ."
    assert data.sentences[3] == "the plot goes nowhere and takes its time ."
    assert data.labels.tolist() == [1, 1, 1, 0, 0]
    assert data.labels.dtype == np.int64
    assert task.label_names == ("negative", "positive")


def test_binary_task_reads_utf8_copies_too(tmp_path):
    _write(tmp_path / "downstream/MR/rt-polarity.pos", "the café scenes .\n")
    _write(tmp_path / "downstream/MR/rt-polarity.neg", "dull .\n")
    assert load_task("MR", tmp_path).splits["all"].sentences == ["the café scenes .", "dull ."]


def test_cr_subj_mpqa_values():
    cr = load_task("CR", FIXTURES).splits["all"]
    assert cr.sentences == ["the battery lasts for days .", "screen is bright and clear .",
                            "the charger broke after a week .", "support never answered my mail ."]
    assert cr.labels.tolist() == [1, 1, 0, 0]
    subj = load_task("SUBJ", FIXTURES)
    assert subj.splits["all"].labels.tolist() == [1, 1, 0]
    assert subj.splits["all"].sentences[2] == "a dull , lifeless exercise in style ."
    assert subj.label_names[1] == "objective"
    mpqa = load_task("MPQA", FIXTURES).splits["all"]
    assert mpqa.sentences == ["welcomed", "has the support of", "deplored", "failed to convince", "is a threat"]
    assert mpqa.labels.tolist() == [1, 1, 0, 0, 0]


def test_sst_binary_and_fine_grained():
    sst2 = load_task("SST2", FIXTURES)
    assert sst2.splits["train"].sentences == ["a gentle and clever comedy", "flat , tired and far too long",
                                              "an honest little gem"]
    assert sst2.splits["train"].labels.tolist() == [1, 0, 1]
    assert sst2.splits["dev"].labels.tolist() == [0]
    assert sst2.splits["test"].sentences == ["warm and surprising", "nothing works here"]
    sst5 = load_task("SST-5", FIXTURES)
    assert sst5.splits["train"].labels.tolist() == [4, 0, 2]
    assert sst5.splits["train"].sentences[2] == "it is a film about a boat"
    assert sst5.splits["test"].labels.tolist() == [1, 4]
    assert len(sst5.label_names) == 5


def test_sst_label_out_of_range_names_file_and_line(tmp_path):
    path = _write(tmp_path / "sentiment-train", "good fun \t1\nawful \t3\n")
    with pytest.raises(DataFormatError, match=r"sentiment-train: line 2: expected 'sentence<TAB>label' "
                                              r"with a label in 0\.\.1"):
        load_sst_file(path, 2)


def test_trec_coarse_labels_and_latin1():
    trec = load_task("TREC", FIXTURES)
    assert trec.splits["train"].sentences[1] == "Who painted the blue dôme of the station ?"
    assert trec.splits["train"].labels.tolist() == [1, 3, 4, 5]  # DESC HUM LOC NUM
    assert trec.splits["test"].labels.tolist() == [2, 0]  # ENTY ABBR
    assert trec.splits["test"].sentences[1] == "What does UFO stand for ?"


def test_trec_malformed_line(tmp_path):
    path = _write(tmp_path / "TREC_10.label", "NUM:date When was it ?\nWhat is this ?\n")
    with pytest.raises(DataFormatError, match=r"TREC_10\.label: line 2: expected 'COARSE:fine question'"):
        load_trec_file(path)


# --- SentEval pair tasks ------------------------------------------------------------------------

def test_mrpc_with_byte_order_mark():
    mrpc = load_task("MRPC", FIXTURES)
    train = mrpc.splits["train"]
    assert train.first[0] == "The council approved the new budget on Monday."
    assert train.second[2] == "The mayor said she was pleased."
    assert train.first[2] == '"We are pleased," the mayor said.'
    assert train.labels.tolist() == [1, 0, 1]
    assert mrpc.splits["test"].labels.tolist() == [0, 1]


def test_mrpc_without_header_is_rejected(tmp_path):
    _write(tmp_path / "downstream/MRPC/msr_paraphrase_train.txt", "1\t1\t2\ta\tb\n")
    with pytest.raises(DataFormatError, match=r"msr_paraphrase_train\.txt: line 1: expected the header"):
        load_task("MRPC", tmp_path)


def test_sick_relatedness_and_entailment():
    sick_r = load_task("SICK-R", FIXTURES)
    assert sick_r.splits["train"].labels.tolist() == [4.7, 1.1, 3.6]
    assert sick_r.splits["dev"].first == ["A cat sleeps on a chair"]
    assert sick_r.splits["test"].second == ["A horse is being ridden by a man", "The girl is not singing"]
    assert sick_r.label_names == ()
    sick_e = load_task("SICK-E", FIXTURES)
    assert sick_e.label_names == NLI_LABELS
    assert sick_e.splits["train"].labels.tolist() == [0, 1, 2]
    assert sick_e.splits["test"].labels.tolist() == [0, 2]


def test_sick_columns_are_found_by_header_name(tmp_path):
    path = _write(tmp_path / "SICK.txt",
                  "pair_ID\tentailment_judgment\tsentence_A\tsentence_B\tSemEval_set\trelatedness_score\n"
                  "9\tNEUTRAL\tA man sings\tA woman runs\tTRAIN\t2.5\n")
    assert load_sick_file(path, "relatedness").labels.tolist() == [2.5]
    pairs = load_sick_file(path, "entailment")
    assert (pairs.first, pairs.second, pairs.labels.tolist()) == (["A man sings"], ["A woman runs"], [1])


def test_strict_utf8_file_with_bad_bytes_names_the_line(tmp_path):
    path = _write(tmp_path / "SICK_train.txt",
                  b"pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
                  b"1\ta\tb\t1.0\tNEUTRAL\n2\tcaf\xe9\tb\t1.0\tNEUTRAL\n")
    with pytest.raises(DataFormatError, match=r"SICK_train\.txt: line 3: expected utf-8"):
        load_sick_file(path)


def test_stsb_values_extra_columns_and_quotes():
    stsb = load_task("STS-B", FIXTURES)
    train = stsb.splits["train"]
    assert train.labels.tolist() == [5.0, 1.4, 2.75]
    assert train.first[2] == 'He said "maybe later.'
    assert train.second[2] == "Maybe later, he said."
    assert stsb.splits["dev"].second == ["A man is slicing a tomato."]
    assert stsb.splits["test"].labels.tolist() == [0.5, 4.2]


def test_stsb_short_row_error(tmp_path):
    path = _write(tmp_path / "sts-dev.csv", "g\tf\t2012\t1\t3.0\tonly one sentence\n")
    with pytest.raises(DataFormatError, match=r"sts-dev\.csv: line 1: expected at least 7 tab-separated columns "
                                              r"\(genre, file, year, id, score, sentence1, sentence2\), got 6"):
        load_stsb_file(path)


def test_sts12_drops_unscored_pairs():
    sts12 = load_task("STS12", FIXTURES)
    assert list(sts12.splits) == ["MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"]
    msrpar = sts12.splits["MSRpar"]
    assert msrpar.first == ["The bank cut its rate.", "Oil rose to 80 dollars."]
    assert msrpar.labels.tolist() == [4.2, 4.8]
    assert sts12.splits["SMTeuroparl"].labels.tolist() == [4.5, 1.25]


def test_sts16_raw_release_names_and_source_columns():
    sts16 = load_sts(FIXTURES, "STS16", subsets=["headlines"])
    pairs = sts16.splits["headlines"]
    assert (pairs.first, pairs.second) == (["Storm hits the coast", "New phone released"],
                                           ["Coast hit by storm", "Election results delayed"])
    assert pairs.labels.tolist() == [5.0, 1.0]


def test_sts_line_count_mismatch(tmp_path):
    inputs = _write(tmp_path / "STS.input.x.txt", "a\tb\nc\td\n")
    gold = _write(tmp_path / "STS.gs.x.txt", "1\n")
    with pytest.raises(ValueError, match=r"STS\.input\.x\.txt has 2 lines but .*STS\.gs\.x\.txt has 1"):
        load_sts_pair_files(inputs, gold)
    with pytest.raises(ValueError, match="unknown"):
        load_sts(FIXTURES, "STS13", subsets=["MSRpar"])


# --- probing ------------------------------------------------------------------------------------

def test_probing_tense_values():
    tense = load_task("Tense", FIXTURES)
    assert tense.label_names == ("PAST", "PRES")
    assert tense.splits["train"].sentences == ["she opened the window .", "he opens the door ."]
    assert tense.splits["train"].labels.tolist() == [0, 1]
    assert tense.splits["dev"].labels.tolist() == [1]
    assert tense.splits["test"].sentences == ["they painted the fence ."]


@pytest.mark.parametrize("short", sorted(PROBING_TASKS))
def test_all_ten_probing_tasks_by_both_names(short):
    by_paper = load_task(short, FIXTURES)
    by_senteval = load_task(PROBING_TASKS[short][0], FIXTURES)
    assert by_paper.name == short
    assert [len(by_paper.splits[s]) for s in ("train", "dev", "test")] == [2, 1, 1]
    assert len(by_paper.label_names) == 2
    assert by_paper.splits["test"].sentences == by_senteval.splits["test"].sentences
    assert by_paper.splits["dev"].labels.tolist() == by_senteval.splits["dev"].labels.tolist()


def test_probing_malformed_rows(tmp_path):
    bad_split = _write(tmp_path / "past_present.txt", "tr\tPAST\tshe left .\ntrain\tPRES\the goes .\n")
    with pytest.raises(DataFormatError, match=r"past_present\.txt: line 2: expected a split tag tr, va or te"):
        load_probing_file(bad_split)
    two_columns = _write(tmp_path / "subj_number.txt", "tr\tNN\tthe cat sleeps .\nva\tthe cats sleep .\n")
    with pytest.raises(DataFormatError, match=r"line 2: expected at least 3 tab-separated columns .*got 2"):
        load_probing_file(two_columns)
    unseen = _write(tmp_path / "obj_number.txt", "tr\tNN\ti saw a bird .\nte\tNNS\ti saw birds .\n")
    with pytest.raises(DataFormatError, match=r"line 2: expected a label seen in training"):
        load_probing_file(unseen)


def test_missing_task_files_say_where_to_get_them(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"downstream/MR/rt-polarity\.pos.*get_transfer_data\.bash"):
        load_task("MR", tmp_path)
    with pytest.raises(FileNotFoundError, match=r"probing/odd_man_out\.txt.*data/probing"):
        load_task("SOMO", tmp_path)
    with pytest.raises(ValueError, match="unknown SentEval task 'MRX'"):
        load_task("MRX", FIXTURES)


# --- NLI ----------------------------------------------------------------------------------------

def test_snli_skips_no_consensus_pairs():
    snli = load_snli(FIXTURES, "dev")
    assert snli.premises == ["A boy in a red coat is climbing a tree.", "Two women are drinking coffee outside.",
                             "Two women are drinking coffee outside."]
    assert snli.hypotheses == ["A child is climbing.", "Two women are asleep in bed.", "The women are sisters."]
    assert snli.labels.tolist() == [0, 2, 1]
    assert (snli.n_skipped, snli.genres) == (1, None)
    assert len(load_nli_jsonl(FIXTURES / "snli_1.0" / "snli_1.0_dev.jsonl", max_examples=2)) == 2


def test_multinli_keeps_genres():
    mnli = load_multinli(FIXTURES, "dev_matched")
    assert mnli.genres == ["government", "fiction", "telephone"]
    assert mnli.labels.tolist() == [0, 2, 1]
    assert mnli.premises[2] == "yeah we got a dog last year"
    with pytest.raises(ValueError, match="MultiNLI split"):
        load_multinli(FIXTURES, "test")


def test_nli_jsonl_errors(tmp_path):
    bad_json = _write(tmp_path / "a.jsonl", '{"sentence1": "a", "sentence2": "b", "gold_label": "neutral"}\n{oops\n')
    with pytest.raises(DataFormatError, match=r"a\.jsonl: line 2: expected one JSON object per line"):
        load_nli_jsonl(bad_json)
    bad_label = _write(tmp_path / "b.jsonl", '{"sentence1": "a", "sentence2": "b", "gold_label": "maybe"}\n')
    with pytest.raises(DataFormatError, match=r"b\.jsonl: line 1: expected a gold label in"):
        load_nli_jsonl(bad_label)
    with pytest.raises(FileNotFoundError, match=r"snli_1\.0_train\.jsonl.*nlp\.stanford\.edu"):
        load_snli(tmp_path, "train")


def test_xnli_filters_one_language():
    fr = load_xnli(FIXTURES, "dev", "fr")
    assert fr.premises == ["La boutique vend du pain frais chaque jour.", "La route est restée vide toute la nuit.",
                           "Il a appelé sa sœur."]
    assert fr.hypotheses[2] == "Sa sœur habite à Nantes."
    assert fr.labels.tolist() == [0, 2, 1]
    assert fr.genres == ["fiction", "travel", "telephone"]
    everything = load_xnli(FIXTURES, "dev")
    assert everything.languages == ["en", "fr", "en", "fr", "fr"]
    assert everything.premises[0] == 'The shop sells "fresh" bread daily.'


def test_xnli_errors(tmp_path):
    with pytest.raises(ValueError, match=r"no rows for language 'de'; the file holds \['en', 'fr'\]"):
        load_xnli(FIXTURES, "dev", "de")
    header = (FIXTURES / "XNLI-1.0" / "xnli.dev.tsv").read_text(encoding="utf-8").split("\n")[0]
    _write(tmp_path / "XNLI-1.0" / "xnli.test.tsv", header + "\nfr\tneutral\tonly three\n")
    with pytest.raises(DataFormatError, match=r"xnli\.test\.tsv: line 2: expected 19 tab-separated columns"):
        load_xnli(tmp_path, "test", "fr")


def test_xnli_mt_maps_contradictory():
    mt = load_xnli_mt(FIXTURES, "fr")
    assert mt.labels.tolist() == [0, 2, 1]
    assert mt.premises[1] == "Elle n' a jamais quitté le village ."
    assert mt.hypotheses[0] == "Le bureau est ouvert le vendredi matin ."
    assert len(load_xnli_mt(FIXTURES, "fr", max_examples=2)) == 2


def test_xnli_mt_needs_its_header(tmp_path):
    path = _write(tmp_path / "multinli.train.de.tsv", "a\tb\tneutral\n")
    with pytest.raises(DataFormatError, match=r"line 1: expected the header 'premise<TAB>hypo<TAB>label'"):
        load_xnli_mt_tsv(path)


# --- MUSE dictionaries and word vectors ----------------------------------------------------------

def test_muse_dictionary_pairs():
    train = load_muse_dictionary(FIXTURES, "en", "fr", "0-5000")
    assert train.source == ["the", "the", "cat", "house", "river"]
    assert train.target == ["le", "la", "chat", "maison", "fleuve"]  # the last line is tab-separated
    test = load_muse_dictionary(FIXTURES, "en", "fr")
    assert (test.source[2], test.target[2]) == ("zebra", "zèbre")


def test_muse_dictionary_malformed_line(tmp_path):
    path = _write(tmp_path / "en-de.0-5000.txt", "cat katze\nthe der die\n")
    with pytest.raises(DataFormatError, match=r"en-de\.0-5000\.txt: line 2: expected 2 whitespace-separated words"):
        load_bilingual_dictionary(path)


def test_dictionary_to_indices_counts_coverage():
    en = load_vec(FIXTURES / "vectors" / "wiki.en.tiny.vec", lowercase=True)
    fr = load_vec(FIXTURES / "vectors" / "wiki.fr.tiny.vec")
    mapped = dictionary_to_indices(load_muse_dictionary(FIXTURES, "en", "fr", "0-5000"), en.word2id, fr.word2id)
    assert mapped.pairs.tolist() == [[0, 0], [0, 1], [1, 2], [2, 3]]  # river-fleuve is dropped
    assert (mapped.n_pairs, mapped.n_oov_source, mapped.n_oov_target) == (5, 1, 1)
    assert mapped.coverage == pytest.approx(4 / 5)
    assert mapped.source_coverage == pytest.approx(3 / 4)


def test_vec_values_and_lowercase_duplicates():
    path = FIXTURES / "vectors" / "wiki.en.tiny.vec"
    cased = load_vec(path)
    assert cased.words == ["the", "cat", "The", "house", "harbour"]
    assert cased.vectors.dtype == np.float32
    np.testing.assert_array_equal(cased.vectors[1], np.array([-1, 0.5, 0.25, 0], np.float32))
    assert cased.n_duplicates == 0
    folded = load_vec(path, lowercase=True)
    assert folded.words == ["the", "cat", "house", "harbour"]
    assert folded.word2id == {"the": 0, "cat": 1, "house": 2, "harbour": 3}
    np.testing.assert_array_equal(folded.vectors[0], np.array([0.1, 0.2, 0.3, 0.4], np.float32))  # first wins
    assert (folded.n_read, folded.n_duplicates) == (5, 1)


def test_vec_top_n_stops_before_malformed_tail(tmp_path):
    path = _write(tmp_path / "big.vec", "1000 3\na 1 2 3\nb 4 5 6\nc 7 8\n" + "garbage\n" * 5)
    top = load_vec(path, max_words=2)
    assert top.words == ["a", "b"]
    np.testing.assert_array_equal(top.vectors, np.array([[1, 2, 3], [4, 5, 6]], np.float32))
    with pytest.raises(DataFormatError, match=r"big\.vec: line 4: expected a word then 3 space-separated values, "
                                              r"got 2 space-separated values"):
        load_vec(path, max_words=3)


def test_vec_line_numbers_across_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(vectors_module, "_CHUNK_ROWS", 2)
    path = _write(tmp_path / "x.vec", "5 2\nw1 1 2\nw2 3 4\nw3 5 6\nw4 7 oops\nw5 9 10\n")
    with pytest.raises(DataFormatError, match=r"x\.vec: line 5: expected numbers after the word"):
        load_vec(path)
    assert load_vec(path, max_words=3).vectors[:, 1].tolist() == [2.0, 4.0, 6.0]


def test_vec_parse_matches_python_floats_on_random_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(vectors_module, "_CHUNK_ROWS", 7)
    values = np.random.default_rng(0).standard_normal((30, 5)) * 10.0 ** np.arange(-3, 2)
    rows = [f"w{i} " + " ".join(repr(float(x)) for x in row) + " \n" for i, row in enumerate(values)]
    loaded = load_vec(_write(tmp_path / "r.vec", "30 5\n" + "".join(rows)))
    expected = np.array([[np.float32(float(t)) for t in r.split()[1:]] for r in rows])
    np.testing.assert_array_equal(loaded.vectors, expected)


def test_vec_header_problems(tmp_path):
    truncated = _write(tmp_path / "t.vec", "4 2\na 1 2\nb 3 4\n")
    with pytest.raises(DataFormatError, match=r"t\.vec: line 4: expected 4 rows as the header says, got 2 rows"):
        load_vec(truncated)
    assert load_vec(truncated, max_words=2).words == ["a", "b"]
    longer = _write(tmp_path / "l.vec", "1 2\na 1 2\nb 3 4\n")
    with pytest.raises(DataFormatError, match=r"l\.vec: line 3: expected the end of the file"):
        load_vec(longer)
    no_header = _write(tmp_path / "n.vec", "a 1 2\n")
    with pytest.raises(DataFormatError, match=r"n\.vec: line 1: expected a header 'N D'"):
        load_vec(no_header)
    nan_row = _write(tmp_path / "nan.vec", "2 2\na 1 2\nb nan 4\n")
    with pytest.raises(DataFormatError, match=r"nan\.vec: line 3: expected finite numbers"):
        load_vec(nan_row)


def test_vec_duplicates_and_broken_utf8(tmp_path):
    dup = load_vec(_write(tmp_path / "d.vec", "3 1\nx 1\ny 2\nx 3\n"))
    assert (dup.words, dup.vectors[:, 0].tolist(), dup.n_duplicates) == (["x", "y"], [1.0, 2.0], 1)
    broken = _write(tmp_path / "b.vec", b"2 1\nok 1\nbad\xff 2\n")
    with pytest.raises(DataFormatError, match=r"b\.vec: line 3: expected a UTF-8 word.*errors='replace'"):
        load_vec(broken)
    assert load_vec(broken, errors="replace").words == ["ok", "bad\ufffd"]


def test_vec_gz_and_glove(tmp_path):
    src = FIXTURES / "vectors" / "wiki.fr.tiny.vec"
    gz = tmp_path / "wiki.fr.tiny.vec.gz"
    with src.open("rb") as fin, gzip.open(gz, "wb") as fout:
        shutil.copyfileobj(fin, fout)
    np.testing.assert_array_equal(load_vec(gz).vectors, load_vec(src).vectors)
    glove = load_glove_txt(FIXTURES / "vectors" / "glove.tiny.3d.txt")
    assert glove.words == ["the", ",", "river", "lantern"]
    np.testing.assert_array_equal(glove.vectors[2], np.array([-1.5, 2, 0.001], np.float32))
    assert load_glove_txt(FIXTURES / "vectors" / "glove.tiny.3d.txt", max_words=1).words == ["the"]
    with pytest.raises(DataFormatError, match=r"line 1: expected a 'word v1 \.\.\. vD' row.*load_vec"):
        load_glove_txt(src)


# --- bitext and BUCC ----------------------------------------------------------------------------

def test_moses_bitext_keeps_alignment():
    bitext = load_moses_bitext(FIXTURES / "bitext" / "corpus", "en", "fr")
    assert bitext.source == ["Resumption of the session", "I declare the session open .", "",
                             "Thank you very much ."]
    assert bitext.target[1] == "Je déclare la session ouverte ."
    assert len(load_moses_bitext(FIXTURES / "bitext" / "corpus", "en", "fr", max_lines=2)) == 2


def test_bitext_length_mismatch_names_the_short_file(tmp_path):
    src = _write(tmp_path / "corpus.en", "one\ntwo\nthree\n")
    tgt = _write(tmp_path / "corpus.fr", "un\ndeux\n")
    with pytest.raises(ValueError, match=r"corpus\.fr has 2 lines but .*corpus\.en has 3.*corpus\.fr is short"):
        load_bitext(src, tgt)
    assert load_bitext(src, tgt, max_lines=2).target == ["un", "deux"]


def test_bitext_carriage_return_does_not_split_a_line(tmp_path):
    src = _write(tmp_path / "c.en", "a\rb\nc\n")
    tgt = _write(tmp_path / "c.fr", "x\ny\n")
    assert load_bitext(src, tgt).source == ["a\rb", "c"]


def test_bucc_sample_with_gold_and_test_without():
    sample = load_bucc(FIXTURES / "bucc2018" / "de-en", "de", "en", "sample")
    assert sample.source_ids == ["de-000001", "de-000002", "de-000003"]
    assert sample.target_sentences[1] == "The museum reopens in May."
    assert sample.gold.tolist() == [[0, 1], [1, 2]]
    test = load_bucc(FIXTURES / "bucc2018" / "de-en", "de", "en", "test")
    assert (test.source_sentences, test.target_ids, test.gold) == (["Es regnet seit Montag."],
                                                                   ["en-000010", "en-000011"], None)


def test_bucc_errors(tmp_path):
    for name in ("de-en.training.de", "de-en.training.en"):
        shutil.copy(FIXTURES / "bucc2018" / "de-en" / name.replace("training", "sample"), tmp_path / name)
    with pytest.raises(FileNotFoundError, match=r"de-en\.training\.gold"):
        load_bucc(tmp_path, "de", "en", "training")
    _write(tmp_path / "de-en.training.gold", "de-000001\ten-000002\nde-000009\ten-000001\n")
    with pytest.raises(DataFormatError, match=r"training\.gold: line 2: expected ids present.*'de-000009'"):
        load_bucc(tmp_path, "de", "en", "training")
