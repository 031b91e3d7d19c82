"""Batched log-likelihoods over prefixes held in the KV cache, checked against llama.cpp
evaluating each prefix + text alone."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tiller.models.local import likelihood
from tiller.models.local.likelihood import PrefixLikelihood
from tiller.models.local.weights import bundled_smollm2

PREFIXES = [
    "Current weather for a city. Example request:",
    "Evaluate an arithmetic expression such as 17 * 23. Example request:",
    "A general knowledge question. Example request:",
]
REQUEST = " What's the weather like in Oslo today?"
# The logits move a little with what else the KV cache holds: attention spans a
# different number of cells, and a tiny change can flip how an activation rounds
# on its way into the 4-bit matmuls. Up to ~0.045 nats a token was measured; a
# wrong position, or a sequence seeing another's cells, costs whole nats.
PER_TOKEN = 0.06


@pytest.fixture(scope="module")
def model() -> Iterator[Any]:
    import llama_cpp

    with contextlib.redirect_stderr(io.StringIO()):
        llama = llama_cpp.Llama(model_path=str(bundled_smollm2()), n_ctx=64, verbose=False)
    yield llama
    llama.close()


@pytest.fixture(scope="module")
def reference() -> Iterator[Any]:
    """The same model evaluating one sequence at a time, with logits at every position."""
    import llama_cpp

    with contextlib.redirect_stderr(io.StringIO()):
        llama = llama_cpp.Llama(
            model_path=str(bundled_smollm2()),
            logits_all=True,
            n_ctx=256,
            n_batch=256,
            verbose=False,
        )
    yield llama
    llama.close()


def tokens(llama: Any, text: str) -> list[int]:
    found: list[int] = llama.tokenize(text.encode(), add_bos=False, special=False)
    return found


def alone(reference: Any, prefix: list[int], text: list[int]) -> float:
    reference.reset()
    reference.eval(prefix + text)
    rows = np.asarray(reference.scores[len(prefix) - 1 : len(prefix) + len(text) - 1], np.float64)
    peak = rows.max(axis=1, keepdims=True)
    norm = peak[:, 0] + np.log(np.exp(rows - peak).sum(axis=1))
    return float((rows[np.arange(len(text)), text] - norm).sum())


def test_equals_evaluating_each_prefix_alone(model: Any, reference: Any) -> None:
    scorer = PrefixLikelihood(model, threads=2)
    prefixes = [tokens(model, p) for p in PREFIXES]
    text = tokens(model, REQUEST)
    expected = [alone(reference, p, text) for p in prefixes]
    assert scorer.log_likelihoods(prefixes, text) == pytest.approx(
        expected, abs=PER_TOKEN * len(text)
    )
    # again, from the cache, in another order and with a repeat
    again = scorer.log_likelihoods([prefixes[2], prefixes[0], prefixes[2]], text)
    assert again == pytest.approx(
        [expected[2], expected[0], expected[2]], abs=PER_TOKEN * len(text)
    )
    # another text after the same cached prefixes
    other = tokens(model, " Compute 1024 / 16.")
    assert scorer.log_likelihoods(prefixes, other) == pytest.approx(
        [alone(reference, p, other) for p in prefixes], abs=PER_TOKEN * len(other)
    )
    scorer.close()


def test_a_one_token_text_is_scored_from_the_prefix_alone(model: Any, reference: Any) -> None:
    scorer = PrefixLikelihood(model, threads=2)
    prefix, text = tokens(model, PREFIXES[0]), tokens(model, " Hi")
    assert len(text) == 1
    assert scorer.log_likelihoods([prefix], text) == pytest.approx(
        [alone(reference, prefix, text)], abs=PER_TOKEN * len(text)
    )
    assert scorer.log_likelihoods([prefix], []) == [0.0]
    scorer.close()


def test_more_prefixes_than_sequences_or_one_batch_evicts_and_splits(
    model: Any, reference: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(likelihood, "MAX_SEQUENCES", 4)
    monkeypatch.setattr(likelihood, "BATCH_TOKENS", 24)  # two copies of the text per batch
    scorer = PrefixLikelihood(model, threads=2)
    prefixes = [tokens(model, f"Example request number {n}:") for n in range(7)]
    text = tokens(model, REQUEST)
    assert 2 * len(text) <= 24 < 3 * len(text)
    expected = [alone(reference, p, text) for p in prefixes]
    assert scorer.log_likelihoods(prefixes, text) == pytest.approx(
        expected, abs=PER_TOKEN * len(text)
    )
    assert scorer.log_likelihoods(prefixes[::-1], text) == pytest.approx(
        expected[::-1], abs=PER_TOKEN * len(text)
    )
    scorer.close()


def test_a_sequence_never_sees_another_sequences_cells(model: Any, reference: Any) -> None:
    scorer = PrefixLikelihood(model, threads=2)
    text = tokens(model, REQUEST)
    prefix = tokens(model, PREFIXES[2])
    # Another sequence holding the text itself: were it visible, copying it would
    # make the text far more likely after `prefix` too.
    echo = [*prefix, *text, *tokens(model, " Again:")]
    echoed, plain = scorer.log_likelihoods([echo, prefix], text)
    assert echoed > plain + 10
    assert plain == pytest.approx(alone(reference, prefix, text), abs=PER_TOKEN * len(text))
    scorer.close()


def test_bad_input_and_a_closed_scorer_say_what_is_wrong(model: Any) -> None:
    scorer = PrefixLikelihood(model, threads=2)
    text = tokens(model, REQUEST)
    with pytest.raises(ValueError, match="at least one token"):
        scorer.log_likelihoods([[]], text)
    with pytest.raises(ValueError, match="at most"):
        scorer.log_likelihoods([tokens(model, PREFIXES[0])], text * 40)
    scorer.close()
    scorer.close()  # closing twice is harmless
    with pytest.raises(RuntimeError, match="closed"):
        scorer.log_likelihoods([tokens(model, PREFIXES[0])], text)


def test_a_released_prefix_leaves_the_others_held(model: Any) -> None:
    scorer = PrefixLikelihood(model, threads=2)
    held = [tokens(model, p) for p in PREFIXES[:2]]
    scorer.hold(held)
    extra = tokens(model, PREFIXES[2])
    scorer.log_likelihoods([extra], tokens(model, REQUEST))
    assert len(scorer._prefixes) == 3
    scorer.release([extra])
    assert list(scorer._prefixes) == [tuple(p) for p in held]
    scorer.close()


def test_many_prefixes_each_with_many_texts_never_run_out_of_room(
    model: Any, reference: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Prefixes dropped here and there leave holes between the held ones; a batch must
    still find room (it did not: "failed to find a memory slot for batch of size 3")."""
    monkeypatch.setattr(likelihood, "CONTEXT_CELLS", 256)
    scorer = PrefixLikelihood(model, threads=2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        prefix = [int(t) for t in rng.integers(100, 40_000, rng.integers(10, 40))]
        for _ in range(int(rng.integers(1, 6))):
            text = [int(t) for t in rng.integers(100, 40_000, rng.integers(2, 6))]
            (score,) = scorer.log_likelihoods([prefix], text)
    # the last score, taken in a cache laid out again, is still the prefix's own
    assert score == pytest.approx(alone(reference, prefix, text), abs=PER_TOKEN * len(text))
    scorer.close()
