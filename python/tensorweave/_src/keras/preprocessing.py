"""tf.keras.preprocessing: `sequence.pad_sequences`, `text.Tokenizer` and the text helpers (tf_keras's
behaviour, pure numpy/Python)."""

import collections
import hashlib
import json
import warnings

import numpy as np

# --- sequence ---


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """A `(len(sequences), maxlen)` array of the sequences padded with `value` and truncated to `maxlen`
    (at the start for "pre", at the end for "post")."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    num_samples = len(sequences)
    lengths = []
    sample_shape = ()
    flag = True
    for x in sequences:
        try:
            lengths.append(len(x))
            if flag and len(x):
                sample_shape = np.asarray(x).shape[1:]
                flag = False
        except TypeError as e:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {x}") from e
    if maxlen is None:
        maxlen = np.max(lengths) if lengths else 0
    is_dtype_str = np.issubdtype(dtype, np.str_)
    if isinstance(value, str) and dtype is not object and not is_dtype_str:
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
            "You should set `dtype=object` for variable length strings."
        )
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    x = np.full((num_samples, maxlen, *sample_shape), value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue
        trunc = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(
                f"Shape of sample {trunc.shape[1:]} of sequence at position {idx} is different from expected "
                f"shape {sample_shape}"
            )
        if padding == "post":
            x[idx, : len(trunc)] = trunc
        else:
            x[idx, -len(trunc) :] = trunc
    return x


# --- text ---

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(input_text, filters=_FILTERS, lower=True, split=" "):
    """The words of `input_text`: lowercased, the `filters` characters replaced by `split`, split."""
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans(dict.fromkeys(filters, split)))
    return [w for w in input_text.split(split) if w]


def hashing_trick(text, n, hash_function=None, filters=_FILTERS, lower=True, split=" ", analyzer=None):
    """Each word hashed to an index in [1, n) (`hash`, or "md5" for a stable hash)."""
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":

        def hash_function(w):
            return int(hashlib.md5(w.encode()).hexdigest(), 16)

    if analyzer is None:
        seq = text_to_word_sequence(text, filters=filters, lower=lower, split=split)
    else:
        seq = analyzer(text)
    return [(hash_function(w) % (n - 1) + 1) for w in seq]


def one_hot(input_text, n, filters=_FILTERS, lower=True, split=" ", analyzer=None):
    """`hashing_trick` with Python's `hash`: word indices in [1, n)."""
    return hashing_trick(
        input_text, n, hash_function=hash, filters=filters, lower=lower, split=split, analyzer=analyzer
    )


class Tokenizer:
    """Maps words to indices by frequency (1 = the most frequent; the `oov_token`, if any, is 1) and texts to
    index sequences or matrices. Only the `num_words - 1` most frequent words are used in the outputs."""

    def __init__(
        self,
        num_words=None,
        filters=_FILTERS,
        lower=True,
        split=" ",
        char_level=False,
        oov_token=None,
        analyzer=None,
        **kwargs,
    ):
        if "nb_words" in kwargs:
            warnings.warn("The `nb_words` argument in `Tokenizer` has been renamed `num_words`.", stacklevel=2)
            num_words = kwargs.pop("nb_words")
        document_count = kwargs.pop("document_count", 0)
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        self.word_counts = collections.OrderedDict()
        self.word_docs = collections.defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs = collections.defaultdict(int)
        self.word_index = {}
        self.index_word = {}
        self.analyzer = analyzer

    def _words(self, text):
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, filters=self.filters, lower=self.lower, split=self.split)

    def fit_on_texts(self, texts):
        """Counts the words of `texts` (strings, or lists of words) and rebuilds `word_index`."""
        for text in texts:
            self.document_count += 1
            seq = self._words(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        wcounts = sorted(self.word_counts.items(), key=lambda x: x[1], reverse=True)
        sorted_voc = [] if self.oov_token is None else [self.oov_token]
        sorted_voc.extend(w for w, _ in wcounts)
        self.word_index = dict(zip(sorted_voc, range(1, len(sorted_voc) + 1)))
        self.index_word = {c: w for w, c in self.word_index.items()}
        for w, c in list(self.word_docs.items()):
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences):
        """Counts document frequencies of indices (for `sequences_to_matrix(mode="tfidf")`)."""
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences_generator(self, texts):
        num_words = self.num_words
        oov_index = self.word_index.get(self.oov_token)
        for text in texts:
            vect = []
            for w in self._words(text):
                i = self.word_index.get(w)
                if i is not None:
                    if num_words and i >= num_words:
                        if oov_index is not None:
                            vect.append(oov_index)
                    else:
                        vect.append(i)
                elif self.oov_token is not None:
                    vect.append(oov_index)
            yield vect

    def texts_to_sequences(self, texts):
        """Each text as a list of word indices."""
        return list(self.texts_to_sequences_generator(texts))

    def sequences_to_texts_generator(self, sequences):
        num_words = self.num_words
        oov_index = self.word_index.get(self.oov_token)
        for seq in sequences:
            vect = []
            for num in seq:
                word = self.index_word.get(num)
                if word is not None:
                    if num_words and num >= num_words:
                        if oov_index is not None:
                            vect.append(self.index_word[oov_index])
                    else:
                        vect.append(word)
                elif self.oov_token is not None:
                    vect.append(self.index_word[oov_index])
            yield " ".join(vect)

    def sequences_to_texts(self, sequences):
        """Each index sequence as a space-joined text."""
        return list(self.sequences_to_texts_generator(sequences))

    def texts_to_matrix(self, texts, mode="binary"):
        """A `(len(texts), num_words)` matrix: "binary", "count", "freq" or "tfidf"."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        if not self.num_words:
            if not self.word_index:
                raise ValueError("Specify a dimension (`num_words` argument), or fit on some text data first.")
            num_words = len(self.word_index) + 1
        else:
            num_words = self.num_words
        if mode not in ("binary", "count", "freq", "tfidf"):
            raise ValueError("Unknown vectorization mode:", mode)
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            if not seq:
                continue
            counts = collections.Counter(j for j in seq if j < num_words)
            for j, c in counts.items():
                if mode == "count":
                    x[i][j] = c
                elif mode == "freq":
                    x[i][j] = c / len(seq)
                elif mode == "binary":
                    x[i][j] = 1
                else:
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i][j] = (1 + np.log(c)) * idf
        return x

    def get_config(self):
        return {
            "num_words": self.num_words,
            "filters": self.filters,
            "lower": self.lower,
            "split": self.split,
            "char_level": self.char_level,
            "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs):
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()}, **kwargs)


def tokenizer_from_json(json_string):
    """The Tokenizer `Tokenizer.to_json` saved."""
    config = json.loads(json_string).get("config")
    word_counts = json.loads(config.pop("word_counts"))
    word_docs = json.loads(config.pop("word_docs"))
    index_docs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    index_word = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    word_index = json.loads(config.pop("word_index"))
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = word_counts
    tokenizer.word_docs = word_docs
    tokenizer.index_docs = index_docs
    tokenizer.word_index = word_index
    tokenizer.index_word = index_word
    return tokenizer


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and not isinstance(v, type(np))]
