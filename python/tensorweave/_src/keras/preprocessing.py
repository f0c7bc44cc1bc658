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


class TimeseriesGenerator:
    """Batches `(samples, targets)` of windows of `length` steps of `data` (every `sampling_rate`-th step)
    ending before each target row; a `utils.Sequence`."""

    def __init__(
        self,
        data,
        targets,
        length,
        sampling_rate=1,
        stride=1,
        start_index=0,
        end_index=None,
        shuffle=False,
        reverse=False,
        batch_size=128,
    ):
        if len(data) != len(targets):
            raise ValueError(
                f"Data and targets have to be of same length. Data length is {len(data)} while target length is "
                f"{len(targets)}"
            )
        self.data = data
        self.targets = targets
        self.length = length
        self.sampling_rate = sampling_rate
        self.stride = stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle = shuffle
        self.reverse = reverse
        self.batch_size = batch_size
        if self.start_index > self.end_index:
            raise ValueError(
                f"`start_index+length={self.start_index} > end_index={self.end_index}` is disallowed, as no part "
                "of the sequence would be left to be used as current step."
            )

    def __len__(self):
        return (self.end_index - self.start_index + self.batch_size * self.stride) // (self.batch_size * self.stride)

    def __getitem__(self, index):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            i = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(i, min(i + self.batch_size * self.stride, self.end_index + 1), self.stride)
        samples = np.array([self.data[row - self.length : row : self.sampling_rate] for row in rows])
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def on_epoch_end(self):
        pass


def make_sampling_table(size, sampling_factor=1e-5):
    """The probability of keeping each word rank in `skipgrams` (Zipf frequencies, word2vec's formula)."""
    gamma = 0.577
    rank = np.arange(size)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + gamma) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inv_fq
    return np.minimum(1.0, f / np.sqrt(f))


def skipgrams(
    sequence,
    vocabulary_size,
    window_size=4,
    negative_samples=1.0,
    shuffle=True,
    categorical=False,
    sampling_table=None,
    seed=None,
):
    """(couples, labels): word pairs within `window_size` (label 1) and random negative pairs (label 0), using
    Python's `random` as tf_keras does."""
    import random

    couples, labels = [], []
    for i, wi in enumerate(sequence):
        if not wi:
            continue
        if sampling_table is not None and sampling_table[wi] < random.random():
            continue
        for j in range(max(0, i - window_size), min(len(sequence), i + window_size + 1)):
            if j != i and sequence[j]:
                couples.append([wi, sequence[j]])
                labels.append([0, 1] if categorical else 1)
    if negative_samples > 0:
        num_negative = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        random.shuffle(words)
        couples += [[words[i % len(words)], random.randint(1, int(vocabulary_size - 1))] for i in range(num_negative)]
        labels += [[1, 0] if categorical else 0] * num_negative
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(10e6))
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels


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
