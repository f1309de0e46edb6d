"""Classical baselines (HCAN §4.2–4.3): Naive Bayes and L1 logistic regression on TF-IDF.

Features are TF-IDF of unigrams and bigrams with a minimum document frequency
of 5, over the zoo's own tokenisation (:class:`~kerasattn.data.preprocessing.TextPreprocessor`),
so the classical and neural models see the same tokens. scikit-learn does
the rest. Logistic regression uses ``l1_ratio=1.0`` with the ``saga`` solver:
scikit-learn 1.9 deprecates ``penalty=`` and liblinear has no multiclass.
"""

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline

from kerasattn.models.registry import Preset, register


class TfidfClassifier:
    """Tokenise with the zoo's preprocessing, then a scikit-learn TF-IDF pipeline.

    Args:
        estimator: the scikit-learn classifier.
        preprocessor_config: options of the ``TextPreprocessor`` used to tokenise.
        ngram_range, min_df: of the ``TfidfVectorizer``.
    """

    def __init__(self, estimator, preprocessor_config=None, ngram_range=(1, 2), min_df=5):
        self.preprocessor_config = dict(preprocessor_config or {})
        self.pipeline = Pipeline([
            ("tfidf", TfidfVectorizer(tokenizer=str.split, token_pattern=None, lowercase=False,
                                      ngram_range=tuple(ngram_range), min_df=min_df,
                                      sublinear_tf=False, dtype=np.float32)),
            ("classifier", estimator),
        ])
        self._preprocessor = None

    def __getstate__(self):  # the TF lookup tables are rebuilt, not pickled
        state = dict(self.__dict__)
        state["_preprocessor"] = None
        return state

    def tokenize(self, texts, batch_size=4096):
        from kerasattn.data.preprocessing import TextPreprocessor

        if self._preprocessor is None:
            self._preprocessor = TextPreprocessor(**self.preprocessor_config)
        out = []
        for start in range(0, len(texts), batch_size):
            tokens = self._preprocessor.tokenize(list(texts[start:start + batch_size]))
            out += [b" ".join(row).decode("utf-8") for row in tokens.to_list()]
        return out

    def fit(self, texts, labels):
        self.pipeline.fit(self.tokenize(texts), np.asarray(labels))
        return self

    def predict_proba(self, texts):
        return self.pipeline.predict_proba(self.tokenize(texts))


def build_nb(num_classes, alpha=1.0, ngram_range=(1, 2), min_df=5, preprocessor_config=None):
    """Multinomial Naive Bayes on TF-IDF of 1–2-grams (HCAN §4.2)."""
    return TfidfClassifier(MultinomialNB(alpha=alpha), preprocessor_config, ngram_range, min_df)


def build_lr(num_classes, C=1.0, max_iter=200, ngram_range=(1, 2), min_df=5, seed=0,
             preprocessor_config=None):
    """L1-regularised logistic regression (strength 1.0) on TF-IDF of 1–2-grams (HCAN §4.2)."""
    estimator = LogisticRegression(l1_ratio=1.0, C=C, solver="saga", max_iter=max_iter,
                                   random_state=seed)
    return TfidfClassifier(estimator, preprocessor_config, ngram_range, min_df)


register(Preset("nb", build_nb, {"alpha": 1.0, "ngram_range": (1, 2), "min_df": 5,
                                  "preprocessor_config": None},
                kind="classical",
                description="multinomial Naive Bayes on TF-IDF 1-2-grams, min df 5 (HCAN §4.2)"))
register(Preset("lr", build_lr,
                {"C": 1.0, "max_iter": 200, "ngram_range": (1, 2), "min_df": 5, "seed": 0,
                 "preprocessor_config": None},
                kind="classical",
                description="L1 logistic regression, C=1.0, on TF-IDF 1-2-grams, min df 5 "
                            "(HCAN §4.2)"))
