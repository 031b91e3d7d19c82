"""Fourth unseen test set for the embedded model's tool use (`local:smollm2`).

Written by someone other than the person tuning the tool-choice rule, after test sets 1
to 3 (`local_model_test_tasks.py`, `local_model_test_tasks_2.py`,
`local_model_test_tasks_3.py`) had been used; never used to tune anything, and evaluated
once. Tools and data are those of `make_tools`, `WEATHER`, `RATES` and `FILES` in
`benchmarks/local_model.py`.

Each entry is (kind, prompt, tools offered, expected tool or None, expected substring
in the final answer or None).
"""

_ALL = ["calculator", "get_weather", "read_file", "convert_currency", "word_count"]

TEST_TASKS_4: list[tuple[str, str, list[str], str | None, str | None]] = [
    # ── single: one tool offered, and it is needed ──
    ("single", "calc 847 + 1296 - 38", ["calculator"], "calculator", None),
    ("single", "What's 15% of 240?", ["calculator"], "calculator", None),
    (
        "single",
        "Could you please work out (12 + 8) * 3.5 for me?",
        ["calculator"],
        "calculator",
        None,
    ),
    (
        "single",
        "I drive 412 km every week for work. How many km is that over 52 weeks?",
        ["calculator"],
        "calculator",
        None,
    ),
    ("single", "weather in tokyo?", ["get_weather"], "get_weather", None),
    (
        "single",
        "Is it cold in Oslo right now? Trying to decide which jacket to grab.",
        ["get_weather"],
        "get_weather",
        None,
    ),
    ("single", "show me what's in notes.txt", ["read_file"], "read_file", None),
    ("single", "Please open version.txt.", ["read_file"], "read_file", None),
    ("single", "convert 250 eur to usd", ["convert_currency"], "convert_currency", None),
    (
        "single",
        "I've saved 1200 euros for my trip to Japan. How many yen is that?",
        ["convert_currency"],
        "convert_currency",
        None,
    ),
    (
        "single",
        "Count the words in: 'Please remember to lock the door when you leave.'",
        ["word_count"],
        "word_count",
        None,
    ),
    (
        "single",
        "how many words is this: I came, I saw, I conquered",
        ["word_count"],
        "word_count",
        None,
    ),
    # ── choice: all five tools offered, exactly one is needed ──
    ("choice", "What's 3600 divided by 45?", _ALL, "calculator", None),
    ("choice", "hey can you multiply 128 by 64", _ALL, "calculator", None),
    (
        "choice",
        "My rent is 950 a month. How much do I pay over a full year?",
        _ALL,
        "calculator",
        None,
    ),
    ("choice", "Is Paris sunny at the moment?", _ALL, "get_weather", None),
    ("choice", "whats the weather doing in oslo", _ALL, "get_weather", None),
    (
        "choice",
        "I'm flying to Tokyo tonight and haven't packed yet. What's the weather there right now?",
        _ALL,
        "get_weather",
        None,
    ),
    ("choice", "What's written in notes.txt?", _ALL, "read_file", None),
    ("choice", "Which version does version.txt say we're on?", _ALL, "read_file", None),
    (
        "choice",
        "How many British pounds would I get for 300 euros?",
        _ALL,
        "convert_currency",
        None,
    ),
    ("choice", "convert 45 EUR to JPY please", _ALL, "convert_currency", None),
    (
        "choice",
        "Count how many words are in this sentence: 'Our team shipped the new release on "
        "Friday after two weeks of testing.'",
        _ALL,
        "word_count",
        None,
    ),
    (
        "choice",
        "word count for: to be or not to be, that is the question",
        _ALL,
        "word_count",
        None,
    ),
    # ── none: all five tools offered, answer in plain text ──
    ("none", "hi there!", _ALL, None, None),
    ("none", "Thanks so much, that was really helpful.", _ALL, None, None),
    ("none", "What's a good name for a golden retriever puppy?", _ALL, None, None),
    ("none", "Write a haiku about autumn leaves.", _ALL, None, None),
    ("none", "Who painted the Mona Lisa?", _ALL, None, None),
    ("none", "how are you doing today?", _ALL, None, None),
    ("none", "Give me three tips for sleeping better.", _ALL, None, None),
    (
        "none",
        "Do you think cats or dogs make better pets for someone living in a small apartment?",
        _ALL,
        None,
        None,
    ),
    (
        "none",
        "What are some must-see sights in Paris for a first-time visitor?",
        _ALL,
        None,
        None,
    ),
    (
        "none",
        "Why is it usually colder at the top of a mountain than at sea level?",
        _ALL,
        None,
        None,
    ),
    ("none", "What's the difference between a .txt file and a .docx file?", _ALL, None, None),
    ("none", "What does it mean when people say a currency is 'strong'?", _ALL, None, None),
    ("none", "can you explain what a prime number is", _ALL, None, None),
    (
        "none",
        "I'm applying for my first job. Roughly how long should a cover letter be?",
        _ALL,
        None,
        None,
    ),
    ("none", "Any tips for saving money on groceries?", _ALL, None, None),
    ("none", "Why does Japan have a rainy season in early summer?", _ALL, None, None),
    # ── two_step: one tool offered; the answer must use the tool result ──
    ("two_step", "quick one: what's 37 * 14?", ["calculator"], "calculator", "518"),
    (
        "two_step",
        "We're splitting a 96 euro dinner bill evenly between 6 friends. How much does each "
        "person pay? Use the calculator.",
        ["calculator"],
        "calculator",
        "16",
    ),
    (
        "two_step",
        "hey, what's it like outside in Oslo today?",
        ["get_weather"],
        "get_weather",
        "-3",
    ),
    (
        "two_step",
        "Should I pack an umbrella for Tokyo? Check the current weather there.",
        ["get_weather"],
        "get_weather",
        "rain",
    ),
    (
        "two_step",
        "I need to put the current release number in the changelog. It's in version.txt, "
        "can you read it and tell me what it is?",
        ["read_file"],
        "read_file",
        "4.2.7",
    ),
    (
        "two_step",
        "what time am I supposed to call Ana? I wrote it down in notes.txt",
        ["read_file"],
        "read_file",
        "5",
    ),
    (
        "two_step",
        "How much is 75 euros in pounds?",
        ["convert_currency"],
        "convert_currency",
        "63.75",
    ),
    (
        "two_step",
        "How many words are in 'The quick brown fox jumps over the lazy dog'?",
        ["word_count"],
        "word_count",
        "9",
    ),
]
