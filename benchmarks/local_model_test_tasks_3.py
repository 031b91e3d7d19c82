"""Third unseen test set for the embedded model's tool use (`local:smollm2`).

Written by someone other than the person tuning the tool-choice rule, after the first
and second test sets (`local_model_test_tasks.py`, `local_model_test_tasks_2.py`) had
been used; never used to tune anything, and evaluated once. Tools and data are those
of `make_tools`, `WEATHER`, `RATES` and `FILES` in `benchmarks/local_model.py`.

Each entry is (kind, prompt, tools offered, expected tool or None, expected substring
in the final answer or None).
"""

_ALL = ["calculator", "get_weather", "read_file", "convert_currency", "word_count"]

TEST_TASKS_3: list[tuple[str, str, list[str], str | None, str | None]] = [
    # ── single: one tool offered, and it is needed ──
    ("single", "93 * 41 = ?", ["calculator"], "calculator", None),
    (
        "single",
        "Could you please work out (1250 - 380) / 5 for me?",
        ["calculator"],
        "calculator",
        None,
    ),
    ("single", "seven hundred and twelve plus eighty nine", ["calculator"], "calculator", None),
    ("single", "how's the weather looking in oslo today", ["get_weather"], "get_weather", None),
    (
        "single",
        "I'm flying to Tokyo tomorrow morning and need to decide what to pack. "
        "What are conditions like there at the moment?",
        ["get_weather"],
        "get_weather",
        None,
    ),
    ("single", "open version.txt", ["read_file"], "read_file", None),
    (
        "single",
        "Can you show me what's written in notes.txt?",
        ["read_file"],
        "read_file",
        None,
    ),
    ("single", "75 EUR in USD", ["convert_currency"], "convert_currency", None),
    (
        "single",
        "how many pounds sterling would i get for forty euros",
        ["convert_currency"],
        "convert_currency",
        None,
    ),
    (
        "single",
        "Please convert €1,200 into Japanese yen.",
        ["convert_currency"],
        "convert_currency",
        None,
    ),
    (
        "single",
        "Count the words in this: 'We will meet at the station after lunch on Friday.'",
        ["word_count"],
        "word_count",
        None,
    ),
    (
        "single",
        "word count pls: Thanks again for your help with the move last weekend",
        ["word_count"],
        "word_count",
        None,
    ),
    # ── choice: all tools offered, one is needed ──
    ("choice", "what is 15% of 640? just do 640 * 0.15", _ALL, "calculator", None),
    ("choice", "Divide 9,000 by 36.", _ALL, "calculator", None),
    ("choice", "is it snowing in Oslo right now?", _ALL, "get_weather", None),
    (
        "choice",
        "Should I bring an umbrella when I go out in Paris this afternoon? "
        "Check the current weather.",
        _ALL,
        "get_weather",
        None,
    ),
    ("choice", "what's inside notes.txt", _ALL, "read_file", None),
    (
        "choice",
        "Hi! I need the exact contents of the file version.txt for a bug report, thanks.",
        _ALL,
        "read_file",
        None,
    ),
    ("choice", "Convert 500 euros to dollars.", _ALL, "convert_currency", None),
    (
        "choice",
        "My hotel in London costs 90 euros a night on the booking site. How much is that in GBP?",
        _ALL,
        "convert_currency",
        None,
    ),
    ("choice", "eur 2500 -> jpy", _ALL, "convert_currency", None),
    (
        "choice",
        "How many words are in the sentence 'Every cloud has a silver lining'?",
        _ALL,
        "word_count",
        None,
    ),
    (
        "choice",
        "count the words: I am writing to ask whether the meeting can be moved to Tuesday",
        _ALL,
        "word_count",
        None,
    ),
    ("choice", "Add up 128, 256 and 512.", _ALL, "calculator", None),
    # ── none: tools offered, but a plain text answer is right ──
    ("none", "hey, how's it going?", _ALL, None, None),
    ("none", "Thank you so much, that was really helpful!", _ALL, None, None),
    ("none", "Who wrote Pride and Prejudice?", _ALL, None, None),
    ("none", "why is the sky blue", _ALL, None, None),
    ("none", "Write a two-line poem about autumn leaves.", _ALL, None, None),
    (
        "none",
        "I'm visiting Paris for the first time next spring. "
        "Which neighbourhoods would you recommend staying in?",
        _ALL,
        None,
        None,
    ),
    ("none", "what's a good way to organise files on my laptop?", _ALL, None, None),
    (
        "none",
        "Is it generally better to pay with a card or exchange cash before travelling abroad?",
        _ALL,
        None,
        None,
    ),
    ("none", "What is the difference between a mean and a median?", ["calculator"], None, None),
    ("none", "Give me three tips for writing a clear email subject line.", _ALL, None, None),
    ("none", "What language do they speak in Brazil?", _ALL, None, None),
    ("none", "Explain what a .txt file is in one sentence.", ["read_file"], None, None),
    ("none", "do you think cats or dogs make better pets?", _ALL, None, None),
    ("none", "What does the abbreviation GDP stand for?", ["convert_currency"], None, None),
    (
        "none",
        "I keep procrastinating on my thesis. Any advice for getting started each morning?",
        _ALL,
        None,
        None,
    ),
    ("none", "Tell me a fun fact about Japan.", ["get_weather"], None, None),
    # ── two_step: the tool's result must be used in the answer ──
    ("two_step", "what's 37 times 19", ["calculator"], "calculator", "703"),
    (
        "two_step",
        "Use the calculator to find 864 divided by 12.",
        ["calculator"],
        "calculator",
        "72",
    ),
    (
        "two_step",
        "What's the temperature in Tokyo at the moment?",
        ["get_weather"],
        "get_weather",
        "12",
    ),
    ("two_step", "how cold is it in oslo right now?", ["get_weather"], "get_weather", "-3"),
    (
        "two_step",
        "Check version.txt and tell me which version number we're on.",
        ["read_file"],
        "read_file",
        "4.2.7",
    ),
    (
        "two_step",
        "Look in notes.txt - what am I supposed to buy?",
        ["read_file"],
        "read_file",
        "milk",
    ),
    (
        "two_step",
        "How much is 30 euros in British pounds?",
        ["convert_currency"],
        "convert_currency",
        "25.5",
    ),
    (
        "two_step",
        "How many words are in 'the quick brown fox jumps over the lazy dog'?",
        ["word_count"],
        "word_count",
        "9",
    ),
]
